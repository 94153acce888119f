//! Citation-context figures of one document against its gold: the share of
//! gold context sentences (the LaTeX sentences that hold a `\cite`, markers
//! removed) found among the document's contexts and linked to the right
//! references.
//!
//! Rules. A gold sentence is *found* when some context's sentence holds at
//! least 80 % of the gold sentence's words (normalised, with repeats) and
//! at least half of the context's distinct words are in the gold sentence
//! (the context keeps its markers, the gold drops them); the best such
//! context by that recall is the one judged. It is *linked* when every gold
//! `ref_title` is cited by that context: an entry cited is the gold
//! reference when its parsed title has a `fuzzy::ratio` of at least 0.9 with the
//! gold title, or the gold title is found in its raw text (a style that
//! prints the title where the parser missed it), or — for an entry with no
//! title printed (the physics style) — it holds the gold reference's
//! position in a reference list of the gold's length.

use super::fuzzy::{normalise as normalize, ratio};
use super::refs::{GoldRef, SAME_TITLE, in_text};
use crate::fulltext::Document;
use serde::Serialize;
use std::collections::HashSet;

/// Counts over one document (add them up over a set).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextFigures {
    pub gold: usize,
    /// Gold sentences found among the contexts.
    pub found: usize,
    /// Of those, citing every gold reference of the sentence.
    pub linked: usize,
}

impl ContextFigures {
    pub fn add(&mut self, other: &ContextFigures) {
        self.gold += other.gold;
        self.found += other.found;
        self.linked += other.linked;
    }
}

/// The pooled figures of the reference fields and the contexts over a set
/// of papers, from each paper's [`extras`] (`PaperScore::extra`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct CitationSummary {
    /// Reference titles found in the raw entry text (the text anchor), over papers.
    pub reference_title_raw: Option<(f64, usize)>,
    /// Years of the entries whose title matched, equal to the gold's.
    pub reference_year_exact: Option<(f64, usize)>,
    /// Printed DOIs parsed exactly.
    pub reference_doi_exact: Option<(f64, usize)>,
    /// Gold context sentences found.
    pub contexts_found: Option<(f64, usize)>,
    /// Gold context sentences found and linked to every cited reference.
    pub contexts_linked: Option<(f64, usize)>,
}

/// One paper's counts as `PaperScore::extra` entries.
pub fn extras(refs: Option<&super::refs::RefFigures>, contexts: Option<&ContextFigures>) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if let Some(r) = refs {
        for (name, n) in [
            ("reference_titles", r.titles),
            ("reference_titles_raw", r.titles_raw),
            ("reference_years", r.years),
            ("reference_years_exact", r.years_exact),
            ("reference_dois_printed", r.dois_printed),
            ("reference_dois_exact", r.dois_exact),
        ] {
            out.push((name.to_string(), n as f64));
        }
    }
    if let Some(c) = contexts {
        for (name, n) in [("contexts_gold", c.gold), ("contexts_found", c.found), ("contexts_linked", c.linked)] {
            out.push((name.to_string(), n as f64));
        }
    }
    out
}

impl CitationSummary {
    /// Pools the counts of `papers` (hits over totals; the papers that have the total).
    pub fn pool<'a>(papers: impl Iterator<Item = &'a [(String, f64)]> + Clone) -> CitationSummary {
        let pooled = |hit: &str, all: &str| -> Option<(f64, usize)> {
            let get = |e: &[(String, f64)], k: &str| e.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
            let (mut h, mut a, mut n) = (0.0, 0.0, 0);
            for e in papers.clone() {
                if let (Some(x), Some(y)) = (get(e, hit), get(e, all)) {
                    if y > 0.0 {
                        h += x;
                        a += y;
                        n += 1;
                    }
                }
            }
            (a > 0.0).then(|| (h / a, n))
        };
        CitationSummary {
            reference_title_raw: pooled("reference_titles_raw", "reference_titles"),
            reference_year_exact: pooled("reference_years_exact", "reference_years"),
            reference_doi_exact: pooled("reference_dois_exact", "reference_dois_printed"),
            contexts_found: pooled("contexts_found", "contexts_gold"),
            contexts_linked: pooled("contexts_linked", "contexts_gold"),
        }
    }
}

/// Found recall of the context words: at least this share of the gold
/// sentence's words.
const RECALL: f64 = 0.8;
/// And at least this share of the context's distinct words in the gold.
const PRECISION: f64 = 0.5;

/// The figures of `doc`'s citation contexts against `gold` (each sentence
/// with its cited titles); `gold_refs` is
/// the gold reference list (titles for linking, its length for position).
pub fn citation_contexts(doc: &Document, gold: &[(String, Vec<String>)], gold_refs: &[GoldRef]) -> ContextFigures {
    let contexts: Vec<(HashSet<String>, &[usize])> = doc
        .contexts
        .iter()
        .filter_map(|c| {
            let text = doc.sections.get(c.section)?.paragraphs.get(c.paragraph)?.text.get(c.start..c.end)?;
            Some((normalize(text).split(' ').map(str::to_string).collect(), c.references.as_slice()))
        })
        .collect();
    let entries: Vec<(Option<String>, String)> =
        doc.references.iter().map(|r| (r.parsed.title.as_deref().map(normalize), normalize(&r.raw))).collect();
    let same_length = doc.references.len() == gold_refs.len();
    let gold_titles: Vec<String> = gold_refs.iter().map(|g| normalize(&g.title)).collect();
    let is_gold = |entry: usize, title: &str| -> bool {
        let Some((parsed, raw)) = entries.get(entry) else { return false };
        if parsed.as_deref().is_some_and(|t| ratio(t, title) >= SAME_TITLE) {
            return true;
        }
        let raw_words: Vec<&str> = raw.split(' ').collect();
        if title.chars().count() >= 8 && in_text(&raw_words, title) {
            return true;
        }
        parsed.is_none() && same_length && gold_titles.get(entry).is_some_and(|g| ratio(g, title) >= SAME_TITLE)
    };
    let mut out = ContextFigures::default();
    for (sentence, ref_titles) in gold {
        out.gold += 1;
        let words: Vec<String> = normalize(sentence).split(' ').filter(|w| !w.is_empty()).map(str::to_string).collect();
        if words.is_empty() {
            continue;
        }
        let gold_set: HashSet<&str> = words.iter().map(String::as_str).collect();
        let best = contexts
            .iter()
            .filter_map(|(set, cited)| {
                let recall = words.iter().filter(|w| set.contains(*w)).count() as f64 / words.len() as f64;
                let precision =
                    set.iter().filter(|w| gold_set.contains(w.as_str())).count() as f64 / set.len().max(1) as f64;
                (recall >= RECALL && precision >= PRECISION).then_some((recall, *cited))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, cited)) = best else { continue };
        out.found += 1;
        let linked = ref_titles.iter().all(|t| {
            let t = normalize(t);
            cited.iter().any(|&e| is_gold(e, &t))
        });
        out.linked += usize::from(linked);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fulltext::{CitationContext, Paragraph, Reference, Section, refs};

    #[test]
    fn found_and_linked_by_words_and_titles() {
        // latex_tii.pdf: two sentences and their entries.
        let text = "Emergency demand response [3] is utilized when there is insufficient supply of power. In [9], an event-based demand response algorithm has been used.";
        let raws = [
            "[3] Weiwei Chen, Xing Wang, J. Petersen, R. Tyagi, and J. Black. Optimal scheduling of demand response events for electric utilities. Smart Grid, IEEE Transactions on, 4(4):2309–2319, Dec 2013.",
            "[9] M. Humayun, A. Safdarian, M.Z. Degefa, and M. Lehtonen. Demand response for operational life extension and efficient capacity utilization of power transformers during contingencies. Power Systems, IEEE Transactions on, PP(99):1–10, 2014.",
        ];
        let mut doc = Document {
            sections: vec![Section {
                heading: String::new(),
                level: 1,
                paragraphs: vec![Paragraph { text: text.into(), page_starts: vec![(0, 1)], raised: vec![] }],
            }],
            references: raws
                .iter()
                .map(|r| Reference { label: None, raw: r.to_string(), page: 8, parsed: refs::parse(r) })
                .collect(),
            ..Document::default()
        };
        let split = text.find(" In [9]").unwrap();
        doc.contexts = vec![
            CitationContext {
                section: 0,
                paragraph: 0,
                start: 0,
                end: split,
                page: 1,
                markers: vec!["[3]".into()],
                references: vec![0],
            },
            // Linked to the wrong entry on purpose.
            CitationContext {
                section: 0,
                paragraph: 0,
                start: split + 1,
                end: text.len(),
                page: 1,
                markers: vec!["[9]".into()],
                references: vec![0],
            },
        ];
        let gold = [
            ("Emergency demand response is utilized when there is insufficient supply of power.".to_string(), vec!["Optimal Scheduling of Demand Response Events for Electric Utilities".to_string()]),
            ("In , an event-based demand response algorithm has been used.".to_string(), vec!["Demand Response for Operational Life Extension and Efficient Capacity Utilization of Power Transformers During Contingencies".to_string()]),
            ("A sentence the document does not have at all.".to_string(), vec![]),
        ];
        let f = citation_contexts(&doc, &gold, &[]);
        assert_eq!(f, ContextFigures { gold: 3, found: 2, linked: 1 });
    }
}
