//! `verify-citations`: every `[n]` of an answer checked against its pack.
//!
//! The answer is cut into blocks at blank lines and at lines that open a
//! Markdown heading or list item, each block into sentences by
//! [`split_sentences`]; a sentence made of citations alone (`… works. [2]`)
//! belongs to the sentence before it. A citation is `[n]`, `[n, m]`,
//! `[n; m]`, `[n-m]` (also with an en dash) or a run of them (`[1][2]`); any
//! other bracket is text. Each cited number is judged:
//! - *not found*: the number is not in the pack, or the pack's id is not in the index;
//! - *supported* / *weak*: the sentence, without its citations, scored
//!   against the paper by [`support`] at or above / below the threshold.

use std::collections::HashMap;
use std::ops::Range;

use serde::Serialize;

use super::{PackSource, Support, SupportParams, support};
use crate::evidence::{EvidenceQuery, split_sentences};
use crate::store::Store;

/// The widest range a citation may span (`[1-50]`); a wider one is an error.
pub(crate) const MAX_RANGE: usize = 200;

/// A judgment of one citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgment {
    Supported,
    Weak,
    NotFound,
}

impl Judgment {
    pub fn name(self) -> &'static str {
        match self {
            Judgment::Supported => "supported",
            Judgment::Weak => "weak",
            Judgment::NotFound => "not found",
        }
    }
}

/// One `[n]` of a sentence: the number and the byte range of its bracket
/// group, and the page a `[n, p. P]` names (a source with full text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    pub number: usize,
    pub range: Range<usize>,
    pub page: Option<u32>,
}

/// One citation of the answer, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitationCheck {
    /// The answer's line where the citing sentence starts (from 1).
    pub line: usize,
    /// The citing sentence as written.
    pub sentence: String,
    pub number: usize,
    /// The pack's id for the number (`None` when the number is not in the pack).
    pub id: Option<String>,
    pub judgment: Judgment,
    /// Why a citation is *not found*.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The support score and its parts (`None` when not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support: Option<Support>,
}

/// The result of checking an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verification {
    /// Sentences carrying at least one citation.
    pub citing_sentences: usize,
    pub supported: usize,
    pub weak: usize,
    pub not_found: usize,
    /// Citations whose number is not in the pack (the failure `verify-citations` exits 1 for).
    pub outside_pack: usize,
    pub threshold: f64,
    pub checks: Vec<CitationCheck>,
}

/// The citations of `text`, in order (an error for a range wider than [`MAX_RANGE`]).
pub(crate) fn parse_citations(text: &str) -> anyhow::Result<Vec<Citation>> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find('[').map(|i| at + i) {
        let Some(close) = text[open..].find(']').map(|i| open + i) else { break };
        let inner = &text[open + 1..close];
        match group_numbers(inner)? {
            Some((numbers, page)) => {
                out.extend(numbers.into_iter().map(|number| Citation { number, range: open..close + 1, page }));
                at = close + 1;
            }
            None => at = open + 1,
        }
    }
    Ok(out)
}

/// The numbers of a bracket's content and the page it names (`[3, p. 7]`,
/// `[3, pp. 7-8]`: the first page), `None` when it is not a citation.
fn group_numbers(inner: &str) -> anyhow::Result<Option<(Vec<usize>, Option<u32>)>> {
    let mut numbers = Vec::new();
    let mut page = None;
    for part in inner.split([',', ';']) {
        let part = part.trim();
        if let Some(p) = part.strip_prefix("pp.").or_else(|| part.strip_prefix("p.")) {
            let first = p.trim().split(['-', '–']).next().unwrap_or("").trim();
            match first.parse::<u32>() {
                Ok(n) if !numbers.is_empty() => page = Some(n),
                _ => return Ok(None),
            }
            continue;
        }
        let (a, b) = match part.split_once(['-', '–']) {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) else { return Ok(None) };
        if a > b {
            return Ok(None);
        }
        if b - a >= MAX_RANGE {
            anyhow::bail!("citation [{inner}] spans more than {MAX_RANGE} sources");
        }
        numbers.extend(a..=b);
    }
    Ok(Some((numbers, page)))
}

/// The answer's sentences: byte range and the line each starts on.
fn answer_sentences(answer: &str) -> Vec<(Range<usize>, usize)> {
    let mut blocks: Vec<Range<usize>> = Vec::new();
    let mut at = 0;
    for line in answer.split_inclusive('\n') {
        let t = line.trim_start();
        let opens = t.is_empty() || t.starts_with('#') || t.starts_with("- ") || t.starts_with("* ") || list_number(t);
        match blocks.last_mut() {
            Some(b) if !opens && b.end == at => b.end = at + line.len(),
            _ if t.is_empty() => {}
            _ => blocks.push(at..at + line.len()),
        }
        at += line.len();
    }
    let mut out: Vec<(Range<usize>, usize)> = Vec::new();
    for block in blocks {
        for r in split_sentences(&answer[block.clone()]) {
            let r = block.start + r.start..block.start + r.end;
            let only_citations = parse_citations(&answer[r.clone()])
                .is_ok_and(|c| !c.is_empty() && strip(&answer[r.clone()], &c).trim().is_empty());
            // A sentence never ends inside a bracket group (`[3, p. 7]`: "p." is no sentence end).
            let unclosed =
                |r: &Range<usize>| answer[r.clone()].matches('[').count() > answer[r.clone()].matches(']').count();
            match out.last_mut() {
                Some(prev)
                    if (only_citations || unclosed(&prev.0))
                        && prev.0.end <= r.start
                        && block.contains(&prev.0.start) =>
                {
                    prev.0.end = r.end
                }
                _ => out.push((r.clone(), answer[..r.start].matches('\n').count() + 1)),
            }
        }
    }
    out
}

/// Whether a line opens a numbered list item (`1. `, `2) `).
fn list_number(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

/// `sentence` without its citation groups.
fn strip(sentence: &str, citations: &[Citation]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for c in citations {
        if c.range.start >= at {
            out.push_str(&sentence[at..c.range.start]);
            at = c.range.end;
        }
    }
    out.push_str(&sentence[at..]);
    out
}

/// Checks every citation of `answer` against `pack` with the papers of `store`.
pub fn verify(
    store: &Store,
    answer: &str,
    pack: &[PackSource],
    params: &SupportParams,
) -> anyhow::Result<Verification> {
    let by_number: HashMap<usize, &str> = pack.iter().map(|s| (s.number, s.id.as_str())).collect();
    let mut v = Verification {
        citing_sentences: 0,
        supported: 0,
        weak: 0,
        not_found: 0,
        outside_pack: 0,
        threshold: params.threshold,
        checks: Vec::new(),
    };
    for (range, line) in answer_sentences(answer) {
        let sentence = &answer[range];
        let citations = parse_citations(sentence).map_err(|e| anyhow::anyhow!("answer line {line}: {e}"))?;
        if citations.is_empty() {
            continue;
        }
        v.citing_sentences += 1;
        let claim = strip(sentence, &citations);
        let query = EvidenceQuery::new(store, &claim)?;
        let mut seen = std::collections::HashSet::new();
        for (number, page) in citations.iter().map(|c| (c.number, c.page)).filter(|&(n, _)| seen.insert(n)) {
            let id = by_number.get(&number).map(|s| s.to_string());
            let paper = match &id {
                Some(id) => match store.resolve(id)? {
                    Some(resolved) => store.paper(&resolved)?,
                    None => None,
                },
                None => None,
            };
            let (judgment, reason, found) = match (&id, paper) {
                (None, _) => (Judgment::NotFound, Some(format!("[{number}] is not in the pack")), None),
                (Some(id), None) => (Judgment::NotFound, Some(format!("{id} is not in the index")), None),
                (Some(_), Some(p)) => {
                    let text = with_full_text(store, &p.id, p.abstract_, page)?;
                    let s = support(&query, &claim, &p.title, &text, params);
                    let j = if s.score >= params.threshold { Judgment::Supported } else { Judgment::Weak };
                    (j, None, Some(s))
                }
            };
            match judgment {
                Judgment::Supported => v.supported += 1,
                Judgment::Weak => v.weak += 1,
                Judgment::NotFound => v.not_found += 1,
            }
            v.outside_pack += usize::from(id.is_none());
            v.checks.push(CitationCheck {
                line,
                sentence: sentence.to_string(),
                number,
                id,
                judgment,
                reason,
                support: found,
            });
        }
    }
    Ok(v)
}

/// The text a citation is checked against: the abstract, and for a paper
/// with full text its body and caption passages (those on `page` when the
/// citation names one).
fn with_full_text(store: &Store, id: &str, abstract_: String, page: Option<u32>) -> anyhow::Result<String> {
    let passages = store.passages_of_paper(id)?;
    let mut text = abstract_;
    for p in passages.iter().filter(|p| p.kind == "body" || p.kind == "caption") {
        if page.is_none_or(|n| (p.page_first..=p.page_last).contains(&n)) {
            text.push(' ');
            text.push_str(&p.text);
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(text: &str) -> Vec<usize> {
        parse_citations(text).unwrap().into_iter().map(|c| c.number).collect()
    }

    #[test]
    fn citation_forms() {
        assert_eq!(numbers("a [1] b [1, 3] c [2][4] d [5-7] e [8–9; 10]"), [1, 1, 3, 2, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(numbers("not [x] nor [1-] nor [3-1] nor [] nor [a, 1] [2"), Vec::<usize>::new());
        assert_eq!(numbers("[see [2]]"), [2]);
        assert!(parse_citations("[1-1000]").unwrap_err().to_string().contains("more than 200"));
        // A page of a source with full text.
        let c = parse_citations("x [3, p. 7] y [2, pp. 4–5] z [p. 3]").unwrap();
        assert_eq!(c.iter().map(|c| (c.number, c.page)).collect::<Vec<_>>(), [(3, Some(7)), (2, Some(4))]);
    }

    #[test]
    fn sentences_keep_trailing_citations_and_lines() {
        let answer =
            "# Answer\n\nBRCA1 raises risk [1]. It is\nwidely studied. [2]\n- A list item [3]\n2. Numbered [4].\n";
        let got: Vec<(&str, usize)> = answer_sentences(answer).into_iter().map(|(r, l)| (&answer[r], l)).collect();
        assert_eq!(
            got,
            [
                ("# Answer", 1),
                ("BRCA1 raises risk [1].", 3),
                ("It is\nwidely studied. [2]", 3),
                ("- A list item [3]", 5),
                ("2.", 6), // a list number splits off: a sentence without citations, skipped
                ("Numbered [4].", 6)
            ]
        );
        let c = parse_citations("Risk [1, 2] rises [3].").unwrap();
        assert_eq!(strip("Risk [1, 2] rises [3].", &c), "Risk  rises .");
    }
}
