//! `eval-evidence`: Hit@1 and Hit@3 of the evidence sentences on SciFact's
//! rationales.
//!
//! One triple per (claim, gold abstract) pair of the claims file with its
//! rationale sentences (the union of the abstract's evidence sets). The
//! abstract is read from the index and split by [`split_sentences`]; the
//! sentence file only gives each original sentence's character span in
//! `" ".join(sentences)` (which must equal the stored abstract up to
//! whitespace: spans are counted in non-whitespace characters, since the
//! stored text may space sentences differently). A chosen sentence is a hit
//! when its span overlaps a rationale sentence's by at least half the
//! shorter of the two. Hit@k: one of the `k` best
//! sentences is a hit.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::ops::Range;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::{EvidenceParams, EvidenceQuery, rank_sentences, sentence_cosines};
use crate::embed::Embedder;
use crate::store::Store;

/// The result of `eval-evidence`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvidenceEval {
    /// Triples measured.
    pub n: usize,
    #[serde(rename = "hit@1")]
    pub hit1: f64,
    #[serde(rename = "hit@3")]
    pub hit3: f64,
    /// Triples whose abstract is not in the index or differs from the joined sentences.
    pub skipped: usize,
    /// How many of the measured abstracts split into as many sentences as the original list has.
    pub same_sentence_count: usize,
}

#[derive(Deserialize)]
struct Claim {
    claim: String,
    #[serde(default)]
    evidence: HashMap<String, Vec<EvidenceSet>>,
}

#[derive(Deserialize)]
struct EvidenceSet {
    sentences: Vec<usize>,
}

#[derive(Deserialize)]
struct Sentences {
    doc_id: serde_json::Value,
    sentences: Vec<String>,
}

/// Measures the evidence sentences of `store` (an index of the SciFact corpus).
pub fn eval_evidence(
    store: &Store,
    claims: &Path,
    sentences: &Path,
    params: &EvidenceParams,
    embedder: Option<&Embedder>,
) -> anyhow::Result<EvidenceEval> {
    let mut originals: HashMap<String, Vec<String>> = HashMap::new();
    for_each_line(sentences, |line, at| {
        let s: Sentences = serde_json::from_str(line).with_context(|| format!("{at}: not a sentence list"))?;
        let id = match s.doc_id {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        originals.insert(id, s.sentences);
        Ok(())
    })?;
    let (mut n, mut hit1, mut hit3, mut skipped, mut same) = (0, 0, 0, 0, 0);
    for_each_line(claims, |line, at| {
        let claim: Claim = serde_json::from_str(line).with_context(|| format!("{at}: not a claim"))?;
        let query = EvidenceQuery::new(store, &claim.claim)?;
        let query_vector = embedder.map(|e| e.embed_one(&claim.claim)).transpose()?;
        let mut docs: Vec<_> = claim.evidence.iter().collect();
        docs.sort_by(|a, b| a.0.cmp(b.0));
        for (doc, sets) in docs {
            let original =
                originals.get(doc).with_context(|| format!("{at}: doc {doc} is not in the sentence file"))?;
            let paper = match store.resolve(doc)? {
                Some(id) => store.paper(&id)?,
                None => None,
            };
            let joined = original.join(" ");
            let Some(paper) = paper.filter(|p| solid(&p.abstract_) == solid(&joined)) else {
                skipped += 1;
                continue;
            };
            let text = &paper.abstract_;
            let gold: Vec<Range<usize>> = byte_spans(original)
                .into_iter()
                .enumerate()
                .filter(|(i, r)| sets.iter().any(|s| s.sentences.contains(i)) && !r.is_empty())
                .map(|(_, r)| solid_before(&joined, r.start)..solid_before(&joined, r.end))
                .collect();
            let cosines = match (embedder, &query_vector) {
                (Some(e), Some(q)) => Some(sentence_cosines(e, q, text)?),
                _ => None,
            };
            let ranked = rank_sentences(text, &query, params, cosines.as_deref());
            same += usize::from(ranked.len() == original.len());
            let hit = |k: usize| {
                ranked.iter().take(k).any(|s| {
                    let r = solid_before(text, s.range.start)..solid_before(text, s.range.end);
                    gold.iter().any(|g| overlaps(&r, g))
                })
            };
            n += 1;
            hit1 += usize::from(hit(1));
            hit3 += usize::from(hit(3));
        }
        Ok(())
    })?;
    let rate = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    Ok(EvidenceEval { n, hit1: rate(hit1), hit3: rate(hit3), skipped, same_sentence_count: same })
}

/// Byte spans of each sentence in `" ".join(sentences)`.
fn byte_spans(sentences: &[String]) -> Vec<Range<usize>> {
    let mut at = 0;
    sentences
        .iter()
        .map(|s| {
            let len = s.len();
            let r = at..at + len;
            at += len + 1;
            r
        })
        .collect()
}

/// Counts the non-whitespace characters of `text` before each byte offset
/// asked for: positions that survive any change of whitespace alone.
fn solid_before(text: &str, byte: usize) -> usize {
    text[..byte].chars().filter(|c| !c.is_whitespace()).count()
}

/// `text` without its whitespace.
fn solid(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether `a` and `b` overlap by at least half the shorter of the two.
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    let shared = a.end.min(b.end).saturating_sub(a.start.max(b.start));
    let shorter = a.len().min(b.len());
    shorter > 0 && 2 * shared >= shorter
}

/// Calls `f` with each non-empty line of `path` (gunzipped when it starts
/// with the gzip magic bytes) and its `file:line`.
pub(crate) fn for_each_line(path: &Path, mut f: impl FnMut(&str, &str) -> anyhow::Result<()>) -> anyhow::Result<()> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut raw = BufReader::new(file);
    let gzip = raw.fill_buf().with_context(|| format!("cannot read {}", path.display()))?.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read> = if gzip { Box::new(flate2::bufread::MultiGzDecoder::new(raw)) } else { Box::new(raw) };
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if !line.trim().is_empty() {
            f(&line, &format!("{}:{}", path.display(), i + 1))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_half_the_shorter_span() {
        assert!(overlaps(&(0..10), &(5..30)));
        assert!(!overlaps(&(0..10), &(6..30)));
        assert!(overlaps(&(10..12), &(0..100)));
        assert!(!overlaps(&(0..0), &(0..10)));
    }

    #[test]
    fn solid_positions_ignore_whitespace() {
        let text = " a.  \n Bc ";
        assert_eq!(solid(text), "a.Bc");
        assert_eq!(solid_before(text, 8), 3);
        assert_eq!(solid_before(text, text.len()), 4);
    }

    #[test]
    fn byte_spans_follow_the_joined_text() {
        let s = ["Ä b.".to_string(), "C.".to_string()];
        assert_eq!(byte_spans(&s), [0..5, 6..8]);
    }
}
