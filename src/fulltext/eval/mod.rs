//! `eval-pdf`: the PDF reader measured against a gold set (the dev set's
//! `gold.jsonl`, one JSON object a paper; its README describes the fields).
//! Only the fields a paper lists in `independent_fields` are scored.
//!
//! Metrics per paper, then over the papers that have the field: title exact
//! after [`fuzzy::normalise`]; author F1 over normalised names; abstract word
//! recall and precision (multisets of normalised words); top-level section
//! F1 (headings normalised, numbering dropped); reference count within 10 %;
//! reference-title recall (gold titles of 8+ normalised characters matched
//! by a parsed title with [`fuzzy::ratio`] >= 0.9); DOI exact; page count.
//! A further metric (citation contexts) plugs in at [`PaperScore::extra`].

pub mod contexts;
pub mod fuzzy;
pub mod refs;

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::{Document, Limits, read_pdf};
use fuzzy::{normalise, ratio};

/// One gold paper, as much of it as the metrics use.
#[derive(Debug, Clone, Default)]
pub struct GoldPaper {
    pub file: String,
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub abstract_: Option<String>,
    pub doi: Option<String>,
    pub sections: Option<Vec<String>>,
    pub n_references: Option<usize>,
    /// Reference titles in list order (`None` entries: no title in the gold).
    pub reference_titles: Option<Vec<Option<String>>>,
    /// `(sentence, cited titles)` for the citation-context metric.
    pub citation_contexts: Vec<(String, Vec<String>)>,
    /// The gold reference list with years and DOIs (the reference-field figures).
    pub references: Vec<refs::GoldRef>,
    pub pages: Option<u32>,
    pub independent: Vec<String>,
}

impl GoldPaper {
    pub fn scores(&self, field: &str) -> bool {
        self.independent.iter().any(|f| f == field)
    }
}

/// Reads `gold.jsonl`; a line that is not a JSON object with a `file` is an
/// error naming the line.
pub fn read_gold(path: &Path) -> anyhow::Result<Vec<GoldPaper>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| anyhow::anyhow!("{}:{}: not JSON: {e}", path.display(), n + 1))?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let strings = |x: Option<&Value>| -> Vec<String> {
            x.and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
                .unwrap_or_default()
        };
        let file = s("file").ok_or_else(|| anyhow::anyhow!("{}:{}: no \"file\" field", path.display(), n + 1))?;
        out.push(GoldPaper {
            file,
            title: s("title"),
            authors: strings(v.get("authors")),
            abstract_: s("abstract"),
            doi: s("doi"),
            sections: v.get("sections").and_then(Value::as_array).map(|_| strings(v.get("sections"))),
            n_references: v.get("n_references").and_then(Value::as_u64).map(|n| n as usize),
            reference_titles: v
                .get("references")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|r| r.get("title").and_then(Value::as_str).map(str::to_string)).collect()),
            citation_contexts: v
                .get("citation_contexts")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|c| {
                            (
                                c.get("sentence").and_then(Value::as_str).unwrap_or("").to_string(),
                                strings(c.get("ref_titles")),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
            references: v
                .get("references")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|r| refs::GoldRef {
                            title: r.get("title").and_then(Value::as_str).unwrap_or("").to_string(),
                            year: r.get("year").and_then(Value::as_i64).and_then(|y| i32::try_from(y).ok()),
                            doi: r.get("doi").and_then(Value::as_str).map(str::to_string),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            pages: v.get("pages").and_then(Value::as_u64).map(|n| n as u32),
            independent: strings(v.get("independent_fields")),
        });
    }
    Ok(out)
}

/// One paper's scores; `None` where the field is not scored for it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PaperScore {
    pub file: String,
    /// Why the file could not be read, when it could not.
    pub error: Option<String>,
    pub title: Option<bool>,
    pub title_found: Option<String>,
    pub author_f1: Option<f64>,
    pub abstract_recall: Option<f64>,
    pub abstract_precision: Option<f64>,
    pub section_f1: Option<f64>,
    pub references_found: Option<usize>,
    pub references_gold: Option<usize>,
    pub reference_count_ok: Option<bool>,
    /// (matched, gold titles counted).
    pub reference_titles: Option<(usize, usize)>,
    pub doi: Option<bool>,
    pub pages: Option<bool>,
    /// Further metrics by name (the citation-context metric goes here).
    pub extra: Vec<(String, f64)>,
}

/// The means over the papers that score each field.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub papers: usize,
    pub read: usize,
    pub title: Option<(f64, usize)>,
    pub author_f1: Option<(f64, usize)>,
    pub abstract_recall: Option<(f64, usize)>,
    pub abstract_precision: Option<(f64, usize)>,
    pub section_f1: Option<(f64, usize)>,
    pub reference_count_ok: Option<(f64, usize)>,
    /// Pooled over papers: matched / gold titles.
    pub reference_title_recall: Option<(f64, usize)>,
    pub doi: Option<(f64, usize)>,
    pub pages: Option<(f64, usize)>,
    /// Reference fields and citation contexts, pooled.
    pub citations: contexts::CitationSummary,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub summary: Summary,
    pub papers: Vec<PaperScore>,
}

fn words(s: &str) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for w in normalise(s).split(' ').filter(|w| !w.is_empty()) {
        *m.entry(w.to_string()).or_default() += 1;
    }
    m
}

fn overlap(a: &HashMap<String, usize>, b: &HashMap<String, usize>) -> usize {
    a.iter().map(|(w, n)| (*n).min(b.get(w).copied().unwrap_or(0))).sum()
}

/// F1 of two lists compared as multisets of normalised strings; two empty lists agree.
fn f1(gold: &[String], found: &[String]) -> f64 {
    if gold.is_empty() && found.is_empty() {
        return 1.0;
    }
    let g: Vec<String> = gold.iter().map(|s| normalise(s)).collect();
    let mut f: Vec<String> = found.iter().map(|s| normalise(s)).collect();
    let mut hit = 0;
    for x in &g {
        if let Some(k) = f.iter().position(|y| y == x) {
            f.remove(k);
            hit += 1;
        }
    }
    if hit == 0 {
        return 0.0;
    }
    let p = hit as f64 / found.len() as f64;
    let r = hit as f64 / gold.len() as f64;
    2.0 * p * r / (p + r)
}

/// A heading without its numbering ("3.1", "II.", "A").
pub fn strip_numbering(h: &str) -> String {
    let mut t = h.trim();
    // "Appendix A: Flow equations" is the appendix section "Flow equations".
    if let Some(rest) = t.strip_prefix("Appendix ").or_else(|| t.strip_prefix("APPENDIX ")) {
        if let Some((label, title)) = rest.split_once([':', '.']) {
            if label.trim().len() <= 2 && !title.trim().is_empty() {
                t = title.trim();
            }
        }
    }
    let first = t.split_whitespace().next().unwrap_or("");
    let num = first.trim_end_matches('.');
    let numbered = !num.is_empty()
        && (num.chars().all(|c| c.is_ascii_digit() || c == '.')
            || (num.len() <= 5 && num.chars().all(|c| matches!(c, 'I' | 'V' | 'X')))
            || (num.len() == 1 && num.chars().all(|c| c.is_ascii_uppercase()) && t.len() > 2));
    if numbered && t.len() > first.len() { t[first.len()..].trim().to_string() } else { t.to_string() }
}

/// Scores one read document against its gold.
pub fn score(gold: &GoldPaper, doc: &Document) -> PaperScore {
    let mut s = PaperScore { file: gold.file.clone(), ..PaperScore::default() };
    if gold.scores("title") {
        if let Some(t) = &gold.title {
            s.title = Some(doc.title.as_deref().is_some_and(|d| normalise(d) == normalise(t)));
            s.title_found = doc.title.clone();
        }
    }
    if gold.scores("authors") {
        s.author_f1 = Some(f1(&gold.authors, &doc.authors));
    }
    if gold.scores("abstract") {
        if let Some(a) = &gold.abstract_ {
            let g = words(a);
            let f = words(doc.abstract_.as_deref().unwrap_or(""));
            let hit = overlap(&g, &f) as f64;
            s.abstract_recall = Some(hit / g.values().sum::<usize>().max(1) as f64);
            s.abstract_precision = Some(if f.is_empty() { 0.0 } else { hit / f.values().sum::<usize>() as f64 });
        }
    }
    if gold.scores("sections") {
        if let Some(secs) = &gold.sections {
            let g: Vec<String> = secs.iter().map(|h| strip_numbering(h)).collect();
            let f: Vec<String> = doc
                .sections
                .iter()
                .filter(|x| x.level == 1 && !x.heading.is_empty())
                .map(|x| strip_numbering(&x.heading))
                .collect();
            s.section_f1 = Some(f1(&g, &f));
        }
    }
    if gold.scores("references") {
        if let Some(n) = gold.n_references {
            let found = doc.references.len();
            s.references_found = Some(found);
            s.references_gold = Some(n);
            s.reference_count_ok = Some((found as f64 - n as f64).abs() <= 0.1 * n as f64);
        }
        if let Some(titles) = &gold.reference_titles {
            let parsed: Vec<String> =
                doc.references.iter().filter_map(|r| r.parsed.title.as_deref()).map(normalise).collect();
            let mut hit = 0;
            let mut counted = 0;
            for t in titles.iter().flatten() {
                let t = normalise(t);
                if t.chars().count() < 8 {
                    continue;
                }
                counted += 1;
                if parsed.iter().any(|p| ratio(p, &t) >= 0.9) {
                    hit += 1;
                }
            }
            s.reference_titles = Some((hit, counted));
        }
    }
    if gold.scores("doi") {
        if let Some(d) = &gold.doi {
            s.doi = Some(doc.doi.as_deref() == Some(d.to_lowercase().as_str()));
        }
    }
    if let Some(p) = gold.pages {
        s.pages = Some(doc.pages == p);
    }
    // The reference fields and the citation contexts (src/fulltext/eval/{refs,contexts}.rs).
    let ref_figures = (gold.scores("references") && !gold.references.is_empty())
        .then(|| refs::reference_fields(doc, &gold.references));
    let context_figures = (!gold.citation_contexts.is_empty())
        .then(|| contexts::citation_contexts(doc, &gold.citation_contexts, &gold.references));
    s.extra = contexts::extras(ref_figures.as_ref(), context_figures.as_ref());
    s
}

fn mean<T>(
    papers: &[PaperScore],
    get: impl Fn(&PaperScore) -> Option<T>,
    value: impl Fn(T) -> f64,
) -> Option<(f64, usize)> {
    let xs: Vec<f64> = papers.iter().filter_map(&get).map(value).collect();
    (!xs.is_empty()).then(|| (xs.iter().sum::<f64>() / xs.len() as f64, xs.len()))
}

/// The summary of per-paper scores.
pub fn summarise(papers: &[PaperScore]) -> Summary {
    let b = |x: bool| if x { 1.0 } else { 0.0 };
    let (hit, all) = papers.iter().filter_map(|p| p.reference_titles).fold((0, 0), |(h, a), (x, y)| (h + x, a + y));
    let n_ref = papers.iter().filter(|p| p.reference_titles.is_some()).count();
    Summary {
        papers: papers.len(),
        read: papers.iter().filter(|p| p.error.is_none()).count(),
        title: mean(papers, |p| p.title, b),
        author_f1: mean(papers, |p| p.author_f1, |x| x),
        abstract_recall: mean(papers, |p| p.abstract_recall, |x| x),
        abstract_precision: mean(papers, |p| p.abstract_precision, |x| x),
        section_f1: mean(papers, |p| p.section_f1, |x| x),
        reference_count_ok: mean(papers, |p| p.reference_count_ok, b),
        reference_title_recall: (all > 0).then(|| (hit as f64 / all as f64, n_ref)),
        doi: mean(papers, |p| p.doi, b),
        pages: mean(papers, |p| p.pages, b),
        citations: contexts::CitationSummary::pool(papers.iter().map(|p| p.extra.as_slice())),
    }
}

/// Reads every gold paper's PDF from `dir` (with [`read_pdf`]) and scores it.
/// A file that cannot be read scores as found empty, with its error kept.
pub fn evaluate(gold: &[GoldPaper], dir: &Path, limits: &Limits) -> Report {
    let mut papers = Vec::with_capacity(gold.len());
    for g in gold {
        let path = dir.join(&g.file);
        let read = std::fs::read(&path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|b| read_pdf(&b, limits).map_err(|e| format!("{}: {e}", path.display())));
        let (doc, error) = match read {
            Ok(d) => (d, None),
            Err(e) => (Document::default(), Some(e)),
        };
        let mut s = score(g, &doc);
        s.error = error;
        papers.push(s);
    }
    Report { summary: summarise(&papers), papers }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f1_of_names() {
        let g = vec!["Jane Doe".to_string(), "John Smith".to_string()];
        assert_eq!(f1(&g, &["jane doe".into(), "John  Smith".into()]), 1.0);
        assert!((f1(&g, &["Jane Doe".into()]) - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(f1(&[], &[]), 1.0);
        assert_eq!(f1(&g, &[]), 0.0);
    }

    #[test]
    fn numbering_dropped() {
        assert_eq!(strip_numbering("3.1 Results"), "Results");
        assert_eq!(strip_numbering("II. MODEL"), "MODEL");
        assert_eq!(strip_numbering("Introduction"), "Introduction");
        assert_eq!(strip_numbering("Appendix A: Flow equations"), "Flow equations");
    }
}
