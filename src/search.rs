//! Two retrieval passes and one explained ranking.
//!
//! 1. Lexical: BM25 over the persisted postings; the top `top_k` papers with
//!    a positive score are the seeds.
//! 2. Graph: a walk of up to `hops` steps from the seeds over the citation
//!    edges ([`crate::graph::bfs`] over the stored adjacency).
//!
//! The merged set is the seeds plus every reached id that is an indexed
//! paper, plus the top `pool` BM25 papers (`--pool`, default `--top-k`: then
//! it adds nothing). Each hit explains its rank:
//!
//! ```text
//! bm25_norm     = bm25_score / max bm25_score over the merged set (0 if that max is 0)
//! graph_score   = lesson: 1, 0.6, 0.3 for distance 0, 1, 2; 0 when not reached
//!                 weighted: see [`GraphScore::Weighted`]
//! recency_score = (year − min_year) / (max_year − min_year) over the corpus's dated
//!                 papers; 1 when min = max; 0 for a paper without a year
//! final_score   = w_bm25·bm25_norm + w_graph·graph_score + w_recency·recency_score
//! ```
//!
//! ordered by `final_score` descending, ties by id.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use serde::Serialize;

use crate::bm25::query_terms;
use crate::graph::{bfs, Direction};
use crate::store::{Store, StoreAdjacency};

/// Default number of BM25 seeds.
pub const DEFAULT_TOP_K: usize = 10;
/// Default walk depth.
pub const DEFAULT_HOPS: u32 = 2;
/// Deepest walk `search` allows.
pub const MAX_SEARCH_HOPS: u32 = 2;

/// The weights of the final score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    pub bm25: f64,
    pub graph: f64,
    pub recency: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights { bm25: 0.5, graph: 0.3, recency: 0.2 }
    }
}

impl FromStr for Weights {
    type Err = anyhow::Error;

    /// `B,G,R`: three finite non-negative numbers, not all zero.
    fn from_str(s: &str) -> anyhow::Result<Weights> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        anyhow::ensure!(parts.len() == 3, "expected three numbers B,G,R (e.g. 0.5,0.3,0.2), got `{s}`");
        let mut w = [0.0; 3];
        for (slot, part) in w.iter_mut().zip(&parts) {
            let v: f64 = part.parse().map_err(|_| anyhow::anyhow!("`{part}` is not a number"))?;
            anyhow::ensure!(v.is_finite() && v >= 0.0, "`{part}` must be a finite number >= 0");
            *slot = v;
        }
        anyhow::ensure!(w.iter().any(|&v| v > 0.0), "at least one weight must be above 0");
        Ok(Weights { bm25: w[0], graph: w[1], recency: w[2] })
    }
}

impl fmt::Display for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.bm25, self.graph, self.recency)
    }
}

/// How a paper's graph score is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphScore {
    /// The core spec: 1 / 0.6 / 0.3 for 0 / 1 / 2 hops from the nearest seed.
    #[default]
    Lesson,
    /// By evidence: `e(p) = Σ over the other seeds s that reach p of
    /// bm25_norm(s) · decay(hops from s)` (decay 0.6 / 0.3 for 1 / 2 hops),
    /// and `graph_score = ln(1 + e(p)) / ln(1 + max e)` over the merged set
    /// (the logarithm keeps one hub from flattening everyone else). A paper
    /// cited by or citing several strong seeds scores high, one reached from a
    /// single weak seed low, and a seed linked to no other seed 0: the graph
    /// re-ranks the lexical hits by how the relevant-looking papers cite each
    /// other, and lifts unmatched papers they all cite.
    Weighted,
}

/// A graph-score mode's own defaults for the flags the user did not give.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModeDefaults {
    pub top_k: usize,
    pub hops: u32,
    pub weights: Weights,
    /// `None`: the pool is `--top-k`.
    pub pool: Option<usize>,
}

impl GraphScore {
    pub fn name(self) -> &'static str {
        match self {
            GraphScore::Lesson => "lesson",
            GraphScore::Weighted => "weighted",
        }
    }

    /// The defaults of the mode. `lesson`'s are the core spec's; `weighted`'s
    /// were chosen by 2-fold cross-validation on CACM (docs/EVALUATION.md).
    pub fn defaults(self) -> ModeDefaults {
        match self {
            GraphScore::Lesson => {
                ModeDefaults { top_k: DEFAULT_TOP_K, hops: DEFAULT_HOPS, weights: Weights::default(), pool: None }
            }
            GraphScore::Weighted => WEIGHTED_DEFAULTS,
        }
    }
}

/// The `weighted` mode's defaults (see [`GraphScore::defaults`]).
/// Chosen by `cargo run --release --example cv` on CACM (english analyzer):
/// the grid point best over all judged queries; its held-out estimate is in
/// docs/EVALUATION.md.
pub const WEIGHTED_DEFAULTS: ModeDefaults =
    ModeDefaults { top_k: 30, hops: 2, weights: Weights { bm25: 0.7, graph: 0.2, recency: 0.1 }, pool: Some(200) };

impl FromStr for GraphScore {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<GraphScore> {
        match s {
            "lesson" => Ok(GraphScore::Lesson),
            "weighted" => Ok(GraphScore::Weighted),
            other => anyhow::bail!("unknown graph score `{other}` (use lesson or weighted)"),
        }
    }
}

/// How to search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchParams {
    /// How many BM25 hits seed the graph walk.
    pub top_k: usize,
    /// How far the walk goes (0 = BM25 only).
    pub hops: u32,
    pub direction: Direction,
    pub weights: Weights,
    /// How many top BM25 papers join the merged set (at least the seeds).
    pub pool: usize,
    pub graph_score: GraphScore,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            top_k: DEFAULT_TOP_K,
            hops: DEFAULT_HOPS,
            direction: Direction::Both,
            weights: Weights::default(),
            pool: DEFAULT_TOP_K,
            graph_score: GraphScore::Lesson,
        }
    }
}

/// One ranked paper with the parts of its score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub id: String,
    pub title: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// The paper's own BM25 score for the query (also for graph hits).
    pub bm25_score: f64,
    pub bm25_norm: f64,
    /// Steps from the nearest seed; `None` when the walk did not reach it.
    pub graph_distance: Option<u32>,
    pub graph_score: f64,
    pub recency_score: f64,
    pub final_score: f64,
    /// The first three sentences of the abstract.
    pub snippet: String,
    /// Ids this paper cites.
    pub references: Vec<String>,
}

/// A ranked list with summary numbers over the whole merged set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrievalResult {
    pub query: String,
    /// Size of the merged set (before any display limit).
    pub hit_count: usize,
    /// Mean `final_score` over the merged set (0 when empty).
    pub average_score: f64,
    /// Highest `final_score` (0 when empty).
    pub top_score: f64,
    pub wall_time_ms: f64,
    pub ranked: Vec<Hit>,
}

/// `graph_score` of the `lesson` mode for a walk distance: 1 / 0.6 / 0.3 / 0.
pub fn graph_score(distance: Option<u32>) -> f64 {
    match distance {
        Some(0) => 1.0,
        Some(1) => 0.6,
        Some(2) => 0.3,
        _ => 0.0,
    }
}

/// `recency_score`: linear in the year over the corpus's year range.
pub fn recency_score(year: Option<i32>, min_year: Option<i32>, max_year: Option<i32>) -> f64 {
    match (year, min_year, max_year) {
        (Some(y), Some(lo), Some(hi)) if hi > lo => ((y - lo) as f64 / (hi - lo) as f64).clamp(0.0, 1.0),
        (Some(_), Some(_), Some(_)) => 1.0,
        _ => 0.0,
    }
}

/// BM25 scores of every paper that matches at least one query term, by doc id.
pub fn bm25_scores(store: &Store, query: &str) -> anyhow::Result<HashMap<i64, f64>> {
    let meta = store.meta()?;
    let analyzer = meta.analyzer()?;
    let bm25 = meta.bm25();
    let mut scores: HashMap<i64, f64> = HashMap::new();
    for (term, count) in query_terms(analyzer, query) {
        if let Some((df, postings)) = store.postings(&term)? {
            let weight = bm25.weight(meta.num_docs, meta.avgdl, df, count);
            for p in postings {
                *scores.entry(p.doc).or_default() += weight.score(p.tf, p.doc_len);
            }
        }
    }
    Ok(scores)
}

/// The `k` best (doc, score) pairs with a positive score, ties by paper id.
fn top_k(store: &Store, scores: &HashMap<i64, f64>, k: usize) -> anyhow::Result<Vec<(String, i64, f64)>> {
    let mut all: Vec<(i64, f64)> = scores.iter().filter(|(_, &s)| s > 0.0).map(|(&d, &s)| (d, s)).collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    // Ties at the cut must be broken by id, so read ids for everything scoring
    // at least the k-th score.
    let cut = match all.get(k.saturating_sub(1)) {
        Some(&(_, s)) if k > 0 => s,
        _ if k == 0 => return Ok(Vec::new()),
        _ => f64::NEG_INFINITY,
    };
    let mut top: Vec<(String, i64, f64)> = Vec::new();
    for &(doc, score) in all.iter().take_while(|(_, s)| *s >= cut) {
        top.push((store.paper_by_doc(doc)?.id, doc, score));
    }
    top.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    top.truncate(k);
    Ok(top)
}

/// Runs both passes and ranks the merged set.
pub fn search(store: &Store, query: &str, params: &SearchParams) -> anyhow::Result<RetrievalResult> {
    let started = Instant::now();
    let meta = store.meta()?;
    let scores = bm25_scores(store, query)?;
    let pool = top_k(store, &scores, params.top_k.max(params.pool))?;
    let seeds = &pool[..params.top_k.min(pool.len())];
    let seed_ids: Vec<String> = seeds.iter().map(|(id, _, _)| id.clone()).collect();
    let reached = bfs(&StoreAdjacency(store), &seed_ids, params.hops, params.direction)?;

    // Merge: seeds ∪ reached ids that are papers ∪ the BM25 pool, by id.
    let mut merged: BTreeMap<String, (i64, Option<u32>)> = BTreeMap::new();
    for (id, distance) in &reached {
        if let Some(doc) = store.doc_of(id)? {
            merged.insert(id.clone(), (doc, Some(*distance)));
        }
    }
    for (id, doc, _) in &pool {
        merged.entry(id.clone()).or_insert((*doc, None));
    }
    let bm25_of = |doc: &i64| scores.get(doc).copied().unwrap_or(0.0);
    let max_bm25 = merged.values().map(|(doc, _)| bm25_of(doc)).fold(0.0, f64::max);
    let norm = |s: f64| if max_bm25 > 0.0 { s / max_bm25 } else { 0.0 };
    let evidence = match params.graph_score {
        GraphScore::Lesson => None,
        GraphScore::Weighted => Some(seed_evidence(store, seeds, norm, params.hops, params.direction, &merged)?),
    };
    let w = params.weights;
    let mut ranked = Vec::with_capacity(merged.len());
    for (id, (doc, distance)) in merged {
        let row = store.paper_by_doc(doc)?;
        let bm25_score = bm25_of(&doc);
        let bm25_norm = norm(bm25_score);
        let graph_score = match &evidence {
            None => graph_score(distance),
            Some(e) => e.get(&id).copied().unwrap_or(0.0),
        };
        let recency_score = recency_score(row.year, meta.min_year, meta.max_year);
        let final_score = w.bm25 * bm25_norm + w.graph * graph_score + w.recency * recency_score;
        ranked.push(Hit {
            references: store.linked(&id, Direction::References)?,
            id,
            title: row.title,
            year: row.year,
            authors: row.authors,
            bm25_score,
            bm25_norm,
            graph_distance: distance,
            graph_score,
            recency_score,
            final_score,
            snippet: snippet(&row.abstract_, 3),
        });
    }
    ranked.sort_by(|a, b| b.final_score.total_cmp(&a.final_score).then_with(|| a.id.cmp(&b.id)));
    let hit_count = ranked.len();
    let top_score = ranked.first().map_or(0.0, |h| h.final_score);
    let average_score =
        if hit_count == 0 { 0.0 } else { ranked.iter().map(|h| h.final_score).sum::<f64>() / hit_count as f64 };
    Ok(RetrievalResult {
        query: query.to_string(),
        hit_count,
        average_score,
        top_score,
        wall_time_ms: started.elapsed().as_secs_f64() * 1000.0,
        ranked,
    })
}

/// The `weighted` graph score of every merged paper: the BM25 evidence of
/// the seeds that reach it, decayed by distance, over its maximum.
fn seed_evidence(
    store: &Store,
    seeds: &[(String, i64, f64)],
    norm: impl Fn(f64) -> f64,
    hops: u32,
    direction: Direction,
    merged: &BTreeMap<String, (i64, Option<u32>)>,
) -> anyhow::Result<HashMap<String, f64>> {
    let mut evidence: HashMap<String, f64> = HashMap::new();
    for (id, _, score) in seeds {
        let strength = norm(*score);
        for (node, d) in bfs(&StoreAdjacency(store), std::slice::from_ref(id), hops, direction)? {
            // A seed is no evidence for itself: its own BM25 is already in the score.
            if d > 0 && merged.contains_key(&node) {
                *evidence.entry(node).or_default() += strength * graph_score(Some(d));
            }
        }
    }
    let max = evidence.values().copied().fold(0.0, f64::max);
    if max > 0.0 {
        let scale = (1.0 + max).ln();
        for v in evidence.values_mut() {
            *v = (1.0 + *v).ln() / scale;
        }
    }
    Ok(evidence)
}

/// The first `n` sentences of `text`: a sentence ends at `.`, `!` or `?`
/// followed by whitespace or the end of the text.
pub fn snippet(text: &str, n: usize) -> String {
    let text = text.trim();
    let mut count = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') {
            let at_end = chars.peek().is_none_or(|&(_, next)| next.is_whitespace());
            if at_end {
                count += 1;
                if count == n {
                    return text[..i + c.len_utf8()].to_string();
                }
            }
        }
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_parse_and_reject_bad_input() {
        assert_eq!("0.5,0.3,0.2".parse::<Weights>().unwrap(), Weights::default());
        assert_eq!("1, 0, 0".parse::<Weights>().unwrap(), Weights { bm25: 1.0, graph: 0.0, recency: 0.0 });
        for bad in ["0.5,0.3", "a,b,c", "-1,0,0", "0,0,0", "inf,0,0", "NaN,1,1", "1,2,3,4", ""] {
            assert!(bad.parse::<Weights>().is_err(), "{bad}");
        }
    }

    #[test]
    fn graph_scores_follow_the_spec() {
        assert_eq!([Some(0), Some(1), Some(2), Some(3), None].map(graph_score), [1.0, 0.6, 0.3, 0.0, 0.0]);
    }

    #[test]
    fn recency_is_linear_over_the_year_range() {
        assert_eq!(recency_score(Some(2015), Some(2015), Some(2025)), 0.0);
        assert_eq!(recency_score(Some(2025), Some(2015), Some(2025)), 1.0);
        assert!((recency_score(Some(2020), Some(2015), Some(2025)) - 0.5).abs() < 1e-12);
        assert_eq!(recency_score(Some(2020), Some(2020), Some(2020)), 1.0);
        assert_eq!(recency_score(None, Some(2015), Some(2025)), 0.0);
        assert_eq!(recency_score(Some(2020), None, None), 0.0);
    }

    #[test]
    fn snippet_takes_three_sentences() {
        let a = "One. Two has 3.5 points! Three? Four.";
        assert_eq!(snippet(a, 3), "One. Two has 3.5 points! Three?");
        assert_eq!(snippet("No terminator", 3), "No terminator");
        assert_eq!(snippet("", 3), "");
        assert_eq!(snippet("A. B.", 3), "A. B.");
    }
}
