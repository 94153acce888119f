//! Evidence sentences: the 1–3 sentences of an abstract that best answer a
//! query, in abstract order, with the query's terms marked.
//!
//! Sentences come from [`split_sentences`]. Each is scored by BM25 over the
//! sentences of its own abstract, with the `english` analyzer whatever the
//! index's analyzer is (stems and stop words help on sentences), and with
//! idf from the index's corpus statistics ([`EvidenceQuery::new`]):
//!
//! ```text
//! bm25(s)   = Σ over distinct query terms t in s of idf(t)·tf(t,s)·(k1 + 1)
//!             / (tf(t,s) + k1·(1 − b + b·len(s)/avglen)),
//!             avglen = mean sentence length (english tokens) of the abstract
//! idf(t)    = max over the query words w that give t of ln((N − df + 0.5)/(df + 0.5) + 1),
//!             df = the index's document frequency of w's term(s) under the index analyzer
//! m         = max over the abstract's sentences of bm25
//! cover(s)  = Σ idf(t) over distinct query terms t in s / Σ idf(t) over all query terms
//! score(s)  = bm25(s)/m + context·(bm25(s−1) + bm25(s+1))/(2m) + position·i/(n − 1)
//!             + coverage·cover(s) + semantic·cos(s, query)   (0 for a sentence with bm25 0
//!                                                              unless cosines are given)
//! ```
//!
//! (`i` the sentence's index, `n` the abstract's sentence count.) The
//! defaults ([`EvidenceParams::default`]: k1 0.9, b 0.5, context 0.3,
//! position 0.6, coverage 0.5) were chosen on SciFact's *train* claims and measured on its
//! dev claims (docs/EVALUATION.md). The position prior favours later
//! sentences, where abstracts state their results. The sentence cosine
//! ([`sentence_cosines`], weight [`SEMANTIC_WEIGHT`]) is used by
//! `eval-evidence --model-dir` only: it embeds every sentence of an abstract
//! at query time, too slow for a search's printed hits on the CPU. The best
//! `max_sentences` sentences with a positive score are kept (the first
//! sentences when none has one). Computed only for the hits a search prints.

mod eval;

pub(crate) use crate::sentences::split_sentences;
pub(crate) use eval::for_each_line;
pub use eval::{EvidenceEval, eval_evidence};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

use serde::Serialize;
use unicode_segmentation::UnicodeSegmentation;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::embed::Embedder;
use crate::embed::model::cosine;
use crate::store::Store;

/// The scorer's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvidenceParams {
    pub k1: f64,
    pub b: f64,
    /// Weight of the neighbouring sentences' mean BM25.
    pub context: f64,
    /// Weight of the position prior, `i/(n − 1)`.
    pub position: f64,
    /// Weight of the sentence's cosine with the query, when sentence vectors are given.
    pub semantic: f64,
    /// Weight of the query-term coverage: the idf-weighted share of the
    /// query's distinct terms that the sentence contains.
    pub coverage: f64,
    /// How many sentences a snippet shows (1–3).
    pub max_sentences: usize,
}

impl Default for EvidenceParams {
    fn default() -> Self {
        EvidenceParams { k1: 0.9, b: 0.5, context: 0.3, position: 0.6, semantic: 0.0, coverage: 0.5, max_sentences: 3 }
    }
}

/// The weight of the sentence cosine when a model is at hand.
pub const SEMANTIC_WEIGHT: f64 = 0.5;

/// A query's `english` terms with their idf from the index.
#[derive(Debug, Clone, Default)]
pub struct EvidenceQuery {
    /// Ordered, so the sums over it add in one order: a hash map's
    /// per-process order made near-tied sentences swap between runs.
    idf: BTreeMap<String, f64>,
}

impl EvidenceQuery {
    /// The terms of `query` under the `english` analyzer, each with the idf
    /// of the index term(s) of the query word it came from (one statement).
    pub fn new(store: &Store, query: &str) -> anyhow::Result<EvidenceQuery> {
        let meta = store.meta()?;
        EvidenceQuery::with_stats(meta.analyzer()?, query, |terms| Ok((meta.num_docs, store.doc_freqs(terms)?)))
    }

    /// [`EvidenceQuery::new`] over another copy of the index (a cluster's):
    /// `analyzer` is the index's, and `stats` gives the index's N and the
    /// document frequency of each of the index terms it is given (a term
    /// left out has df 0), in one call.
    pub fn with_stats(
        analyzer: Analyzer,
        query: &str,
        stats: impl FnOnce(&[String]) -> anyhow::Result<(u64, HashMap<String, u64>)>,
    ) -> anyhow::Result<EvidenceQuery> {
        let words: Vec<(Vec<String>, Vec<String>)> = query
            .unicode_words()
            .map(|w| (analyzer.tokenize(w), Analyzer::English.tokenize(w)))
            .filter(|(_, english)| !english.is_empty())
            .collect();
        let index_terms: Vec<String> = words.iter().flat_map(|(i, _)| i.iter().cloned()).collect();
        let (num_docs, df) = stats(&index_terms)?;
        let mut idf: BTreeMap<String, f64> = BTreeMap::new();
        for (index, english) in words {
            let w = index.iter().map(|t| Bm25::idf(num_docs, df.get(t).copied().unwrap_or(0))).fold(0.0, f64::max);
            for t in english {
                let e = idf.entry(t).or_insert(0.0);
                *e = e.max(w);
            }
        }
        Ok(EvidenceQuery { idf })
    }

    /// A query with given idfs, for tests and callers with their own statistics.
    pub fn from_idf(idf: impl IntoIterator<Item = (String, f64)>) -> EvidenceQuery {
        EvidenceQuery { idf: idf.into_iter().collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.idf.is_empty()
    }

    /// The idf of an `english` term of the query (`None` when it is not one).
    pub fn idf(&self, term: &str) -> Option<f64> {
        self.idf.get(term).copied()
    }
}

/// One sentence of an abstract with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredSentence {
    /// Its position among the abstract's sentences.
    pub index: usize,
    /// Byte range in the abstract.
    pub range: Range<usize>,
    pub score: f64,
}

/// The sentences of `text`, best first (ties by position); `cosines`, when
/// given, holds each sentence's cosine with the query (in
/// [`split_sentences`] order).
pub(crate) fn rank_sentences(
    text: &str,
    query: &EvidenceQuery,
    params: &EvidenceParams,
    cosines: Option<&[f64]>,
) -> Vec<ScoredSentence> {
    let ranges = split_sentences(text);
    let tokens: Vec<Vec<String>> = ranges.iter().map(|r| Analyzer::English.tokenize(&text[r.clone()])).collect();
    let avglen = tokens.iter().map(Vec::len).sum::<usize>() as f64 / tokens.len().max(1) as f64;
    let bm25 = Bm25 { k1: params.k1, b: params.b };
    let total_idf: f64 = query.idf.values().sum::<f64>().max(f64::MIN_POSITIVE);
    let (plain, covered): (Vec<f64>, Vec<f64>) = tokens
        .iter()
        .map(|toks| {
            let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
            for t in toks {
                *tf.entry(t.as_str()).or_default() += 1;
            }
            let matched = || tf.iter().filter_map(|(t, &f)| query.idf.get(*t).map(|&idf| (idf, f)));
            let bm25: f64 = matched().map(|(idf, f)| idf * bm25.tf_norm(f, toks.len() as u32, avglen)).sum();
            (bm25, matched().map(|(idf, _)| idf).sum::<f64>() / total_idf)
        })
        .unzip();
    let n = ranges.len();
    let max = plain.iter().copied().fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let mut out: Vec<ScoredSentence> = ranges
        .into_iter()
        .enumerate()
        .map(|(i, range)| {
            let before = if i > 0 { plain[i - 1] } else { 0.0 };
            let after = plain.get(i + 1).copied().unwrap_or(0.0);
            let position = if n > 1 { i as f64 / (n - 1) as f64 } else { 0.0 };
            let cos = cosines.and_then(|c| c.get(i)).copied().unwrap_or(0.0);
            let lexical = plain[i] / max;
            let score = lexical
                + params.context * (before + after) / (2.0 * max)
                + params.position * position
                + params.semantic * cos
                + params.coverage * covered[i];
            let matched = plain[i] > 0.0 || (cosines.is_some() && params.semantic > 0.0);
            ScoredSentence { index: i, range, score: if matched { score.max(f64::MIN_POSITIVE) } else { 0.0 } }
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    out
}

/// A hit's snippet: its evidence sentences joined (` … ` where sentences
/// were skipped), and the byte spans of the query terms in it.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Evidence {
    pub text: String,
    /// `[start, end)` byte spans of the words of `text` that match a query term.
    pub spans: Vec<[usize; 2]>,
    /// Which sentences of the abstract were chosen (0-based, in order).
    pub sentences: Vec<usize>,
}

/// The evidence snippet of `text` for `query`.
pub fn evidence(text: &str, query: &EvidenceQuery, params: &EvidenceParams, cosines: Option<&[f64]>) -> Evidence {
    let ranked = rank_sentences(text, query, params, cosines);
    let mut chosen: Vec<&ScoredSentence> = ranked.iter().filter(|s| s.score > 0.0).take(params.max_sentences).collect();
    if chosen.is_empty() {
        chosen = ranked.iter().filter(|s| s.index < params.max_sentences).collect();
    }
    chosen.sort_by_key(|s| s.index);
    let mut out = Evidence::default();
    let mut last: Option<usize> = None;
    for s in chosen {
        if let Some(prev) = last {
            out.text.push_str(if s.index == prev + 1 { " " } else { " … " });
        }
        let offset = out.text.len();
        let sentence = &text[s.range.clone()];
        out.text.push_str(sentence);
        out.spans.extend(matched_words(sentence, query).into_iter().map(|r| [offset + r.start, offset + r.end]));
        out.sentences.push(s.index);
        last = Some(s.index);
    }
    out
}

/// Each sentence's cosine with `query_vector` ([`split_sentences`] order),
/// embedding the sentences of `text` with `embedder`.
pub(crate) fn sentence_cosines(embedder: &Embedder, query_vector: &[f32], text: &str) -> anyhow::Result<Vec<f64>> {
    let sentences: Vec<&str> = split_sentences(text).into_iter().map(|r| &text[r]).collect();
    Ok(embedder.embed(&sentences, 32)?.iter().map(|v| cosine(v, query_vector)).collect())
}

/// `[start, end)` byte spans of the words of `text` matching a query term
/// (what a passage hit marks).
pub fn query_spans(text: &str, query: &EvidenceQuery) -> Vec<[usize; 2]> {
    matched_words(text, query).into_iter().map(|r| [r.start, r.end]).collect()
}

/// Byte ranges of the words of `sentence` whose `english` terms are query terms.
fn matched_words(sentence: &str, query: &EvidenceQuery) -> Vec<Range<usize>> {
    let terms: HashSet<&str> = query.idf.keys().map(String::as_str).collect();
    sentence
        .unicode_word_indices()
        .filter(|(_, w)| Analyzer::English.tokenize(w).iter().any(|t| terms.contains(t.as_str())))
        .map(|(i, w)| i..i + w.len())
        .collect()
}

/// `text` with each span wrapped in `open` … `close` (`**` for Markdown, ANSI bold on a terminal).
pub fn mark(text: &str, spans: &[[usize; 2]], open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len() + spans.len() * (open.len() + close.len()));
    let mut at = 0;
    for &[s, e] in spans {
        if s < at || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(open);
        out.push_str(&text[s..e]);
        out.push_str(close);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(terms: &[(&str, f64)]) -> EvidenceQuery {
        EvidenceQuery::from_idf(terms.iter().map(|&(t, w)| (t.to_string(), w)))
    }

    const ABSTRACT: &str = "We study cells. Mutations in BRCA1 raise cancer risk. Methods were standard. \
                            Cancer risk doubled with mutations.";

    #[test]
    fn picks_the_matching_sentences_in_abstract_order() {
        let q = query(&[("mutat", 2.0), ("cancer", 1.0)]);
        let e = evidence(ABSTRACT, &q, &EvidenceParams { max_sentences: 2, ..EvidenceParams::default() }, None);
        assert_eq!(e.sentences, [1, 3]);
        assert_eq!(e.text, "Mutations in BRCA1 raise cancer risk. … Cancer risk doubled with mutations.");
        let marked: Vec<&str> = e.spans.iter().map(|&[s, t]| &e.text[s..t]).collect();
        assert_eq!(marked, ["Mutations", "cancer", "Cancer", "mutations"]);
        assert_eq!(
            mark(&e.text, &e.spans, "**", "**"),
            "**Mutations** in BRCA1 raise **cancer** risk. … **Cancer** risk doubled with **mutations**."
        );
    }

    #[test]
    fn idf_orders_the_sentences() {
        let q = query(&[("brca1", 5.0), ("cancer", 0.1)]);
        let ranked = rank_sentences(ABSTRACT, &q, &EvidenceParams::default(), None);
        assert_eq!(ranked[0].index, 1);
        assert_eq!(ranked[1].index, 3);
        assert_eq!(ranked[2].score, 0.0);
    }

    #[test]
    fn coverage_adds_the_idf_share_of_the_query_terms_present() {
        let q = query(&[("alpha", 1.0), ("beta", 3.0)]);
        let text = "Alpha beta here. Alpha alone here. Nothing at all.";
        let base = EvidenceParams { context: 0.0, position: 0.0, coverage: 0.0, ..EvidenceParams::default() };
        let scores = |p: &EvidenceParams| {
            let mut r = rank_sentences(text, &q, p, None);
            r.sort_by_key(|s| s.index);
            r.into_iter().map(|s| s.score).collect::<Vec<_>>()
        };
        let without = scores(&base);
        let with = scores(&EvidenceParams { coverage: 1.0, ..base });
        assert!((with[0] - without[0] - 1.0).abs() < 1e-9, "{with:?} {without:?}");
        assert!((with[1] - without[1] - 0.25).abs() < 1e-9, "{with:?} {without:?}");
        assert_eq!(with[2], 0.0);
    }

    #[test]
    fn no_match_falls_back_to_the_first_sentences() {
        let e = evidence(ABSTRACT, &query(&[("zebra", 1.0)]), &EvidenceParams::default(), None);
        assert_eq!(e.sentences, [0, 1, 2]);
        assert!(e.spans.is_empty());
        assert_eq!(evidence("", &query(&[]), &EvidenceParams::default(), None), Evidence::default());
    }
}
