//! Okapi BM25, as a small unit that explains itself.
//!
//! For a query token `t` and a document `d`:
//!
//! ```text
//! idf(t)      = ln((N − df(t) + 0.5) / (df(t) + 0.5) + 1)
//! tf_norm(t,d) = f(t,d)·(k1 + 1) / (f(t,d) + k1·(1 − b + b·dl(d)/avgdl))
//! score(q,d)  = Σ over query tokens (a repeated token counts again) of idf·tf_norm
//! ```
//!
//! The statistics come from a [`CorpusStats`], so the SQLite store and the
//! brute-force [`reference_scores`] feed the same scorer.

use std::collections::HashMap;

use crate::analyzer::Analyzer;

/// Default term-frequency saturation.
pub const DEFAULT_K1: f64 = 1.5;
/// Default document-length normalisation.
pub const DEFAULT_B: f64 = 0.75;

/// The corpus-level numbers BM25 needs.
pub trait CorpusStats {
    /// N: the number of indexed documents.
    fn num_docs(&self) -> u64;
    /// The average document length in tokens.
    fn avg_doc_len(&self) -> f64;
    /// How many documents contain `term`.
    fn doc_freq(&self, term: &str) -> u64;
}

/// BM25 parameters, fixed at build time and stored with the index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25 {
    pub k1: f64,
    pub b: f64,
}

impl Default for Bm25 {
    fn default() -> Self {
        Bm25 { k1: DEFAULT_K1, b: DEFAULT_B }
    }
}

impl Bm25 {
    /// Checks the parameters a user may pass to `build`.
    pub fn new(k1: f64, b: f64) -> anyhow::Result<Bm25> {
        anyhow::ensure!(k1.is_finite() && k1 >= 0.0, "--k1 must be a finite number >= 0, got {k1}");
        anyhow::ensure!(b.is_finite() && (0.0..=1.0).contains(&b), "--b must be a number between 0 and 1, got {b}");
        Ok(Bm25 { k1, b })
    }

    /// `ln((N − df + 0.5)/(df + 0.5) + 1)`; always positive.
    pub fn idf(num_docs: u64, doc_freq: u64) -> f64 {
        let (n, df) = (num_docs as f64, doc_freq as f64);
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// `f·(k1+1) / (f + k1·(1 − b + b·dl/avgdl))`.
    pub fn tf_norm(&self, tf: u32, doc_len: u32, avg_doc_len: f64) -> f64 {
        self.tf_part(tf, self.length_norm(doc_len, avg_doc_len))
    }

    /// `k1·(1 − b + b·dl/avgdl)`: the document length's part of
    /// [`Bm25::tf_norm`], the same for every term.
    #[inline]
    pub fn length_norm(&self, doc_len: u32, avg_doc_len: f64) -> f64 {
        let len_ratio = if avg_doc_len > 0.0 { doc_len as f64 / avg_doc_len } else { 0.0 };
        self.k1 * (1.0 - self.b + self.b * len_ratio)
    }

    /// `f·(k1+1) / (f + norm)` for `norm` = [`Bm25::length_norm`]: the
    /// same operations in the same order as `tf_norm`, so the same f64.
    #[inline]
    fn tf_part(&self, tf: u32, norm: f64) -> f64 {
        let f = tf as f64;
        f * (self.k1 + 1.0) / (f + norm)
    }

    /// The weight of one query term from the corpus statistics: its idf
    /// times how often it occurs in the query. Scoring a posting is then
    /// `weight.score(tf, doc_len)`.
    pub fn weight(&self, num_docs: u64, avg_doc_len: f64, doc_freq: u64, query_count: u32) -> TermWeight {
        TermWeight { bm25: *self, idf: Bm25::idf(num_docs, doc_freq), query_count, avg_doc_len }
    }

    /// [`Bm25::weight`] with the statistics read from `stats`.
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn term_weight(&self, stats: &impl CorpusStats, term: &str, query_count: u32) -> TermWeight {
        self.weight(stats.num_docs(), stats.avg_doc_len(), stats.doc_freq(term), query_count)
    }
}

/// One query term's contribution, ready to score postings.
#[derive(Debug, Clone, Copy)]
pub struct TermWeight {
    bm25: Bm25,
    idf: f64,
    query_count: u32,
    avg_doc_len: f64,
}

impl TermWeight {
    /// The term's contribution to a document with term frequency `tf` and length `doc_len`.
    pub fn score(&self, tf: u32, doc_len: u32) -> f64 {
        self.score_normed(tf, self.bm25.length_norm(doc_len, self.avg_doc_len))
    }

    /// [`TermWeight::score`] with the length's part looked up in `norms`
    /// (made for this weight's parameters): the same f64, one division
    /// fewer for the lengths the table holds.
    #[inline]
    pub fn score_with(&self, tf: u32, doc_len: u32, norms: &LengthNorms) -> f64 {
        let norm = match norms.table.get(doc_len as usize) {
            Some(&n) => n,
            None => self.bm25.length_norm(doc_len, self.avg_doc_len),
        };
        self.score_normed(tf, norm)
    }

    #[inline]
    fn score_normed(&self, tf: u32, norm: f64) -> f64 {
        self.query_count as f64 * self.idf * self.bm25.tf_part(tf, norm)
    }

    /// The idf part of the weight.
    pub fn idf(&self) -> f64 {
        self.idf
    }
}

/// [`Bm25::length_norm`] of the lengths below [`LengthNorms::LENGTHS`],
/// computed once for an index's parameters (a `Store` keeps it while they
/// hold): scoring a posting is then a look-up and one division, not two. A
/// length past the table is computed as before.
#[derive(Debug, Clone)]
pub struct LengthNorms {
    bm25: Bm25,
    avg_doc_len: f64,
    table: Vec<f64>,
}

impl LengthNorms {
    /// Lengths the table holds (a title and an abstract are far shorter;
    /// 32 KiB of f64).
    pub const LENGTHS: u32 = 4096;

    /// The table for `bm25` and `avg_doc_len`: the same two a
    /// [`TermWeight`] scored with it was made from.
    pub fn new(bm25: Bm25, avg_doc_len: f64) -> LengthNorms {
        let table = (0..Self::LENGTHS).map(|len| bm25.length_norm(len, avg_doc_len)).collect();
        LengthNorms { bm25, avg_doc_len, table }
    }

    /// Whether this is the table of `bm25` and `avg_doc_len` (to the bit).
    pub fn is_for(&self, bm25: Bm25, avg_doc_len: f64) -> bool {
        (self.bm25.k1.to_bits(), self.bm25.b.to_bits(), self.avg_doc_len.to_bits())
            == (bm25.k1.to_bits(), bm25.b.to_bits(), avg_doc_len.to_bits())
    }
}

/// Query tokens with their multiplicity, in first-occurrence order.
pub fn query_terms(analyzer: Analyzer, query: &str) -> Vec<(String, u32)> {
    let mut order: Vec<(String, u32)> = Vec::new();
    let mut pos: HashMap<String, usize> = HashMap::new();
    for tok in analyzer.tokenize(query) {
        match pos.get(&tok) {
            Some(&i) => order[i].1 += 1,
            None => {
                pos.insert(tok.clone(), order.len());
                order.push((tok, 1));
            }
        }
    }
    order
}

/// In-memory statistics over raw documents: the brute-force reference.
#[cfg(any(test, feature = "test-support"))]
struct RawStats {
    n: u64,
    avgdl: f64,
    df: HashMap<String, u64>,
}

#[cfg(any(test, feature = "test-support"))]
impl CorpusStats for RawStats {
    fn num_docs(&self) -> u64 {
        self.n
    }
    fn avg_doc_len(&self) -> f64 {
        self.avgdl
    }
    fn doc_freq(&self, term: &str) -> u64 {
        self.df.get(term).copied().unwrap_or(0)
    }
}

/// Brute-force BM25 from raw text, the slow reference the persisted index is
/// checked against: re-tokenises every document for every call.
/// Returns every document's score (zero included), keyed by id.
#[cfg(any(test, feature = "test-support"))]
pub fn reference_scores(
    docs: &[(String, String)],
    query: &str,
    analyzer: Analyzer,
    bm25: Bm25,
) -> std::collections::BTreeMap<String, f64> {
    let tokenized: Vec<(&str, Vec<String>)> =
        docs.iter().map(|(id, text)| (id.as_str(), analyzer.tokenize(text))).collect();
    let n = tokenized.len() as u64;
    let total: usize = tokenized.iter().map(|(_, t)| t.len()).sum();
    let avgdl = if n == 0 { 0.0 } else { total as f64 / n as f64 };
    let mut df: HashMap<String, u64> = HashMap::new();
    for (_, toks) in &tokenized {
        let mut seen: Vec<&String> = toks.iter().collect();
        seen.sort();
        seen.dedup();
        for t in seen {
            *df.entry(t.clone()).or_default() += 1;
        }
    }
    let stats = RawStats { n, avgdl, df };
    let terms = query_terms(analyzer, query);
    tokenized
        .iter()
        .map(|(id, toks)| {
            let score = terms
                .iter()
                .map(|(term, qc)| {
                    let tf = toks.iter().filter(|t| *t == term).count() as u32;
                    if tf == 0 { 0.0 } else { bm25.term_weight(&stats, term, *qc).score(tf, toks.len() as u32) }
                })
                .sum();
            (id.to_string(), score)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(texts: &[&str]) -> Vec<(String, String)> {
        texts.iter().enumerate().map(|(i, t)| (format!("d{i}"), t.to_string())).collect()
    }

    #[test]
    fn a_score_with_the_length_table_is_the_same_f64() {
        // Bit for bit, inside the table and past it, for awkward parameters
        // (b = 0 and 1 included) and an average of 0 (an empty index).
        for (k1, b, avg) in [(1.5, 0.75, 171.3), (1.2, 0.6, 5.8), (0.0, 1.0, 3.0), (2.0, 0.0, 9.0), (0.9, 0.4, 0.0)] {
            let bm25 = Bm25 { k1, b };
            let norms = LengthNorms::new(bm25, avg);
            assert!(
                norms.is_for(bm25, avg)
                    && !norms.is_for(bm25, avg + 1e-9)
                    && !norms.is_for(Bm25 { k1, b: b * 0.5 + 0.1 }, avg)
            );
            let w = bm25.weight(1_000_000, avg, 1_234, 2);
            for len in [0, 1, 2, 57, 171, 172, 4_095, 4_096, 4_097, 100_000, u32::MAX] {
                for tf in [1, 2, 3, 17, 65_535] {
                    let (a, c) = (w.score(tf, len), w.score_with(tf, len, &norms));
                    assert_eq!(a.to_bits(), c.to_bits(), "k1 {k1} b {b} avg {avg} len {len} tf {tf}");
                    let (f, ratio) = (tf as f64, if avg > 0.0 { len as f64 / avg } else { 0.0 });
                    let direct = 2.0 * w.idf() * (f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * ratio)));
                    assert_eq!(a.to_bits(), direct.to_bits(), "the formula, k1 {k1} b {b} len {len} tf {tf}");
                }
            }
        }
    }

    #[test]
    fn single_document_matches_the_formula() {
        let d = docs(&["sparse attention heads"]);
        let s = reference_scores(&d, "attention", Analyzer::Plain, Bm25::default());
        // N=1, df=1: idf = ln((1-1+0.5)/(1+0.5)+1) = ln(4/3); dl = avgdl, f = 1: tf_norm = 1.
        let expected = (4.0f64 / 3.0).ln();
        assert!((s["d0"] - expected).abs() < 1e-12, "{} vs {expected}", s["d0"]);
    }

    #[test]
    fn several_documents_of_different_lengths_match_numbers_computed_by_hand() {
        // k1 = 1.2, b = 0.6 (neither cancels), N = 5, dl 8 / 2 / 10 / 6 / 3,
        // avgdl = 5.8; the expected scores come from an independent Python
        // computation of the formula in the module documentation.
        let d = docs(&[
            "Sparse attention sparse sparse routing of attention heads",
            "Dense attention",
            "Routing tables Graph routing for citation networks and sparse graphs.",
            "Unrelated paper Nothing to see here.",
            "Sparse Sparse-sparse.",
        ]);
        let bm25 = Bm25 { k1: 1.2, b: 0.6 };
        // "sparse" counts twice; df(sparse) = 3, df(attention) = df(routing) = 2.
        let s = reference_scores(&d, "sparse attention sparse", Analyzer::Plain, bm25);
        let want = [2.699675715649935, 1.1144234924816203, 0.8714641851684095, 0.0, 1.8468301152924513];
        for (i, w) in want.iter().enumerate() {
            let got = s[&format!("d{i}")];
            assert!((got - w).abs() < 1e-12, "d{i}: {got} vs {w}");
        }
        let r = reference_scores(&d, "routing", Analyzer::Plain, bm25);
        assert!((r["d0"] - 0.7787912080755552).abs() < 1e-12 && (r["d2"] - 1.0351168540248112).abs() < 1e-12);
        // The parts: idf(N = 5, df = 2) = ln(3.5/2.5 + 1) = ln 2.4;
        // tf_norm(f = 3, dl = 8) = 3·2.2 / (3 + 1.2·(0.4 + 0.6·8/5.8)).
        assert!((Bm25::idf(5, 2) - 2.4f64.ln()).abs() < 1e-15);
        let tf = bm25.tf_norm(3, 8, 5.8);
        assert!((tf - 6.6 / (3.0 + 1.2 * (0.4 + 0.6 * 8.0 / 5.8))).abs() < 1e-15, "{tf}");
    }

    #[test]
    fn unknown_term_scores_zero() {
        let d = docs(&["sparse attention", "low rank adapters"]);
        let s = reference_scores(&d, "distillation", Analyzer::Plain, Bm25::default());
        assert!(s.values().all(|&v| v == 0.0));
    }

    #[test]
    fn empty_query_scores_zero() {
        let d = docs(&["sparse attention"]);
        for q in ["", "   ", "?!"] {
            let s = reference_scores(&d, q, Analyzer::Plain, Bm25::default());
            assert_eq!(s["d0"], 0.0);
        }
    }

    #[test]
    fn more_occurrences_and_rarer_terms_rank_higher() {
        let d = docs(&[
            "attention attention attention model",
            "attention model model model",
            "model model model model",
            "routing model model model",
        ]);
        let s = reference_scores(&d, "attention", Analyzer::Plain, Bm25::default());
        assert!(s["d0"] > s["d1"] && s["d1"] > s["d2"]);
        // "routing" (df=1) is rarer than "attention" (df=2): a single hit weighs more.
        let r = reference_scores(&d, "routing", Analyzer::Plain, Bm25::default());
        assert!(r["d3"] > s["d1"]);
    }

    #[test]
    fn repeated_query_token_counts_again() {
        let d = docs(&["sparse attention", "dense layers"]);
        let once = reference_scores(&d, "sparse", Analyzer::Plain, Bm25::default());
        let twice = reference_scores(&d, "sparse sparse", Analyzer::Plain, Bm25::default());
        assert!((twice["d0"] - 2.0 * once["d0"]).abs() < 1e-12);
    }

    #[test]
    fn longer_documents_are_normalised_down() {
        let d = docs(&["attention x", "attention x y z w v u"]);
        let s = reference_scores(&d, "attention", Analyzer::Plain, Bm25::default());
        assert!(s["d0"] > s["d1"]);
    }

    #[test]
    fn parameters_are_validated() {
        assert!(Bm25::new(1.2, 0.75).is_ok());
        assert!(Bm25::new(f64::NAN, 0.75).is_err());
        assert!(Bm25::new(1.2, 1.5).is_err());
        assert!(Bm25::new(-1.0, 0.5).is_err());
    }

    #[test]
    fn query_terms_count_repeats() {
        assert_eq!(
            query_terms(Analyzer::Plain, "a B a c"),
            [("a".to_string(), 2), ("b".to_string(), 1), ("c".to_string(), 1)]
        );
    }
}
