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
//!
//! **Semantic first stages** (`--mode dense|hybrid`, [`SemanticParams`]):
//! the first stage that picks the seeds and the pool is then
//!
//! ```text
//! dense          the top K papers by cosine of their stored vector with the query's
//!                (K = --dense-k, at least the pool), exact, over every stored vector
//! hybrid rrf     BM25 top K ∪ dense top K, by Σ 1/(60 + rank) over the two lists
//! hybrid minmax  BM25 top K ∪ dense top K, by 0.5·(bm25 − min)/(max − min)
//!                + 0.5·(cos − min)/(max − min), min and max over that union
//! rerank N       the first N of that list rescored: (1 − λ)·first/max first + λ·(best chunk
//!                cosine); papers below N get the lowest chunk cosine of the N
//! ```
//!
//! and `fused_score` = that first-stage score / its max over the merged set
//! takes the place of `bm25_norm` in `final_score` (a paper the walk reaches
//! gets its own first-stage score: its cosine, its min-max blend, or 0 in RRF
//! when it is in neither list). `bm25_score` is still each paper's BM25, and
//! `dense_score` its cosine. Ties in a semantic list go by doc id.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;
use std::time::Instant;

use serde::Serialize;

use crate::bm25::query_terms;
use crate::embed::SemanticIndex;
use crate::graph::{bfs, Direction};
use crate::store::{Store, StoreAdjacency};

/// Default number of BM25 seeds.
pub const DEFAULT_TOP_K: usize = 10;
/// Default walk depth.
pub const DEFAULT_HOPS: u32 = 2;
/// How many hits `search` prints unless told (`--limit`).
pub const DEFAULT_LIMIT: usize = 20;
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

/// Which first stage picks the seeds and the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BM25 over the postings (the default; needs no model).
    #[default]
    Bm25,
    /// Exact cosine over the stored paper vectors.
    Dense,
    /// BM25 and dense lists fused ([`Fusion`]).
    Hybrid,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Bm25 => "bm25",
            Mode::Dense => "dense",
            Mode::Hybrid => "hybrid",
        }
    }
}

impl FromStr for Mode {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Mode> {
        match s {
            "bm25" => Ok(Mode::Bm25),
            "dense" => Ok(Mode::Dense),
            "hybrid" => Ok(Mode::Hybrid),
            other => anyhow::bail!("unknown mode `{other}` (use bm25, dense or hybrid)"),
        }
    }
}

/// How `hybrid` fuses the BM25 and dense lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fusion {
    /// Reciprocal rank fusion: Σ 1 / ([`RRF_K`] + rank).
    #[default]
    Rrf,
    /// Equal blend of min-max-normalised BM25 and cosine over the union of the two lists.
    Minmax,
}

impl Fusion {
    pub fn name(self) -> &'static str {
        match self {
            Fusion::Rrf => "rrf",
            Fusion::Minmax => "minmax",
        }
    }
}

impl FromStr for Fusion {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Fusion> {
        match s {
            "rrf" => Ok(Fusion::Rrf),
            "minmax" => Ok(Fusion::Minmax),
            other => anyhow::bail!("unknown fusion `{other}` (use rrf or minmax)"),
        }
    }
}

/// Default depth of the dense list (and of the BM25 list `hybrid` fuses it with).
pub const DEFAULT_DENSE_K: usize = 100;
/// The constant of reciprocal rank fusion.
pub const RRF_K: f64 = 60.0;
/// The weight of the best chunk's cosine in a reranked score, chosen on the
/// SciFact training claims (docs/EVALUATION.md, "Semantic recall").
pub const DEFAULT_RERANK_WEIGHT: f64 = 0.5;

/// The semantic first stage's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SemanticParams {
    pub mode: Mode,
    /// Depth of the dense list (and of the BM25 list in `hybrid`).
    pub dense_k: usize,
    pub fusion: Fusion,
    /// Rescore the first N of the first-stage list by their best chunk (0: off).
    pub rerank: usize,
    /// λ: the chunk cosine's weight in a reranked score.
    pub rerank_weight: f64,
}

impl Default for SemanticParams {
    fn default() -> Self {
        SemanticParams {
            mode: Mode::Bm25,
            dense_k: DEFAULT_DENSE_K,
            fusion: Fusion::Rrf,
            rerank: 0,
            rerank_weight: DEFAULT_RERANK_WEIGHT,
        }
    }
}

/// A semantic search: its parameters and the loaded model and vectors.
#[derive(Debug, Clone, Copy)]
pub struct Semantic<'a> {
    pub params: SemanticParams,
    pub index: &'a SemanticIndex,
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
    /// Cosine of the paper's vector with the query's (`None` in bm25 mode,
    /// or for a paper without a vector).
    pub dense_score: Option<f64>,
    /// The first-stage score over its maximum in the merged set: what
    /// `bm25_norm` is in bm25 mode (`None` there).
    pub fused_score: Option<f64>,
    /// Cosine of the paper's best-matching chunk with the query (`None` unless reranked).
    pub rerank_score: Option<f64>,
    /// The first three sentences of the abstract.
    pub snippet: String,
    /// Ids this paper cites.
    pub references: Vec<String>,
}

/// A ranked list with summary numbers over the whole merged set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrievalResult {
    pub query: String,
    /// The first stage: bm25, dense or hybrid.
    pub mode: Mode,
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

/// Scores by doc id. A query with a common term scores a fifth of the corpus,
/// so the map's hash matters: doc ids are integers SQLite assigns, not user
/// input, and a multiplicative hash (FxHash's) needs no SipHash protection.
pub type DocScores = HashMap<i64, f64, BuildHasherDefault<DocHasher>>;

/// The hasher of [`DocScores`].
#[derive(Debug, Default, Clone, Copy)]
pub struct DocHasher(u64);

impl Hasher for DocHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn write_i64(&mut self, n: i64) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// BM25 scores of every paper that matches at least one query term, by doc id.
pub fn bm25_scores(store: &Store, query: &str) -> anyhow::Result<DocScores> {
    let meta = store.meta()?;
    let analyzer = meta.analyzer()?;
    let bm25 = meta.bm25();
    let mut scores = DocScores::default();
    for (term, count) in query_terms(analyzer, query) {
        if let Some((df, postings)) = store.postings(&term)? {
            if scores.capacity() < postings.len() {
                scores.reserve(postings.len() - scores.len());
            }
            let weight = bm25.weight(meta.num_docs, meta.avgdl, df, count);
            for p in postings {
                *scores.entry(p.doc).or_default() += weight.score(p.tf, p.doc_len);
            }
        }
    }
    Ok(scores)
}

/// The `k` best (doc, score) pairs with a positive score, ties by paper id.
fn top_k(store: &Store, scores: &DocScores, k: usize) -> anyhow::Result<Vec<(String, i64, f64)>> {
    if k == 0 {
        return Ok(Vec::new());
    }
    let mut all: Vec<(i64, f64)> = scores.iter().filter(|(_, &s)| s > 0.0).map(|(&d, &s)| (d, s)).collect();
    // Ties at the cut must be broken by id, so read ids for everything scoring
    // at least the k-th score (found by selection, not a sort of every match).
    let cut = if all.len() > k {
        all.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        all[k - 1].1
    } else {
        f64::NEG_INFINITY
    };
    let mut top: Vec<(String, i64, f64)> = Vec::new();
    for &(doc, score) in all.iter().filter(|(_, s)| *s >= cut) {
        top.push((store.paper_by_doc(doc)?.id, doc, score));
    }
    top.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    top.truncate(k);
    Ok(top)
}

/// Runs both passes and ranks the merged set (BM25 first stage).
pub fn search(store: &Store, query: &str, params: &SearchParams) -> anyhow::Result<RetrievalResult> {
    search_with(store, query, params, None)
}

/// The first stage: a ranked list and a score for any paper.
struct FirstStage {
    mode: Mode,
    /// Best first: (id, doc, score), at least the pool's depth when there are that many.
    list: Vec<(String, i64, f64)>,
    /// First-stage scores of the papers a semantic stage scored (the list and beyond).
    scores: HashMap<i64, f64>,
    /// How a paper outside `scores` is scored (semantic modes).
    outside: Outside,
    /// The query's vector (semantic modes).
    query_vector: Vec<f32>,
    /// Best-chunk cosine of the reranked papers.
    rerank: HashMap<i64, f64>,
}

/// The first-stage score of a paper no list holds.
enum Outside {
    /// Its BM25 score (bm25 mode).
    Bm25,
    /// Its cosine (dense mode), blended when reranked.
    Dense { rerank: Option<(f64, f64, f64)> },
    /// 0 (RRF: in neither list), blended when reranked.
    Zero { rerank: Option<(f64, f64, f64)> },
    /// Its min-max blend with the union's ranges, clamped to [0, 1], blended when reranked.
    Minmax { bm25: (f64, f64), cos: (f64, f64), rerank: Option<(f64, f64, f64)> },
}

impl FirstStage {
    /// The first-stage score of `doc` (its BM25 in bm25 mode).
    fn score(&self, doc: i64, bm25: f64, cos: Option<f64>) -> f64 {
        if let Some(&s) = self.scores.get(&doc) {
            return s;
        }
        let (raw, rerank) = match &self.outside {
            Outside::Bm25 => return bm25,
            Outside::Dense { rerank } => (cos.unwrap_or(0.0), rerank),
            Outside::Zero { rerank } => (0.0, rerank),
            Outside::Minmax { bm25: b, cos: c, rerank } => {
                ((0.5 * min_max(bm25, *b) + 0.5 * min_max(cos.unwrap_or(0.0), *c)).clamp(0.0, 1.0), rerank)
            }
        };
        match rerank {
            // (max first-stage score, λ, lowest chunk cosine of the reranked papers)
            Some((max, weight, floor)) => (1.0 - weight) * (raw / max) + weight * floor,
            None => raw,
        }
    }
}

/// `(x − lo) / (hi − lo)`; 1 when the range is empty (every value equal).
fn min_max(x: f64, (lo, hi): (f64, f64)) -> f64 {
    if hi > lo {
        (x - lo) / (hi - lo)
    } else {
        1.0
    }
}

/// Reads the ids of a (doc, score) list, best first.
fn with_ids(store: &Store, list: &[(i64, f64)]) -> anyhow::Result<Vec<(String, i64, f64)>> {
    list.iter().map(|&(doc, s)| Ok((store.paper_by_doc(doc)?.id, doc, s))).collect()
}

/// Sorts (doc, score) best first, ties by doc.
fn sort_desc(list: &mut [(i64, f64)]) {
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

/// The semantic first stage: dense or hybrid, then the optional rerank.
fn semantic_stage(
    store: &Store,
    query: &str,
    bm25: &DocScores,
    sem: &Semantic<'_>,
    depth: usize,
) -> anyhow::Result<FirstStage> {
    let p = sem.params;
    let index = sem.index;
    let qv = index.embed_query(query)?;
    let k = p.dense_k.max(depth);
    let dense: Vec<(i64, f64)> = index.docs.top_k(&qv, k).into_iter().map(|(d, s)| (d, s as f64)).collect();
    let cos = |doc: i64| index.docs.score(doc, &qv).map(|s| s as f64);
    let (mut list, mut outside): (Vec<(i64, f64)>, Outside) = match p.mode {
        Mode::Bm25 => unreachable!("bm25 has no semantic stage"),
        Mode::Dense => (dense, Outside::Dense { rerank: None }),
        Mode::Hybrid => {
            let mut lexical: Vec<(i64, f64)> = bm25.iter().filter(|(_, &s)| s > 0.0).map(|(&d, &s)| (d, s)).collect();
            sort_desc(&mut lexical);
            lexical.truncate(k);
            match p.fusion {
                Fusion::Rrf => {
                    let mut fused: HashMap<i64, f64> = HashMap::new();
                    for l in [&lexical, &dense] {
                        for (rank, &(doc, _)) in l.iter().enumerate() {
                            *fused.entry(doc).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
                        }
                    }
                    (fused.into_iter().collect(), Outside::Zero { rerank: None })
                }
                Fusion::Minmax => {
                    let mut union: Vec<i64> = lexical.iter().chain(&dense).map(|&(d, _)| d).collect();
                    union.sort_unstable();
                    union.dedup();
                    let pairs: Vec<(i64, f64, f64)> = union
                        .iter()
                        .map(|&d| (d, bm25.get(&d).copied().unwrap_or(0.0), cos(d).unwrap_or(0.0)))
                        .collect();
                    let range = |f: fn(&(i64, f64, f64)) -> f64| {
                        pairs
                            .iter()
                            .map(f)
                            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
                    };
                    let (b, c) = (range(|t| t.1), range(|t| t.2));
                    let fused = pairs.iter().map(|&(d, x, y)| (d, 0.5 * min_max(x, b) + 0.5 * min_max(y, c))).collect();
                    (fused, Outside::Minmax { bm25: b, cos: c, rerank: None })
                }
            }
        }
    };
    sort_desc(&mut list);
    let mut rerank = HashMap::new();
    if p.rerank > 0 && !list.is_empty() {
        let chunks = index.chunks.as_ref().ok_or_else(|| anyhow::anyhow!("--rerank needs the chunk vectors loaded"))?;
        let max = list[0].1;
        let max = if max > 0.0 { max } else { 1.0 };
        let n = p.rerank.min(list.len());
        for &(doc, _) in &list[..n] {
            // A paper without chunks (one sentence, or none) is its own best chunk.
            let c = chunks.best(doc, &qv).map(|(_, s)| s as f64).or_else(|| cos(doc)).unwrap_or(0.0);
            rerank.insert(doc, c);
        }
        let floor = rerank.values().copied().fold(f64::INFINITY, f64::min);
        let w = p.rerank_weight;
        for (doc, s) in list.iter_mut() {
            let c = rerank.get(doc).copied().unwrap_or(floor);
            *s = (1.0 - w) * (*s / max) + w * c;
        }
        let blend = Some((max, w, floor));
        match &mut outside {
            Outside::Dense { rerank } | Outside::Zero { rerank } | Outside::Minmax { rerank, .. } => *rerank = blend,
            Outside::Bm25 => {}
        }
        sort_desc(&mut list);
    }
    let scores: HashMap<i64, f64> = list.iter().copied().collect();
    list.truncate(depth);
    Ok(FirstStage { mode: p.mode, list: with_ids(store, &list)?, scores, outside, query_vector: qv, rerank })
}

/// Runs both passes and ranks the merged set; `semantic` (unless its mode is
/// bm25) replaces the BM25 first stage by a dense or hybrid one.
pub fn search_with(
    store: &Store,
    query: &str,
    params: &SearchParams,
    semantic: Option<&Semantic<'_>>,
) -> anyhow::Result<RetrievalResult> {
    search_limited(store, query, params, semantic, None)
}

/// [`search_with`], with the details of only the first `limit` hits read
/// (`ranked` is cut there; `hit_count` and the averages still cover the whole
/// merged set). Ranking needs only each merged paper's doc id and year, so a
/// walk that reaches thousands of papers reads their titles, abstracts and
/// references only for the hits shown. All of it reads one snapshot.
pub fn search_limited(
    store: &Store,
    query: &str,
    params: &SearchParams,
    semantic: Option<&Semantic<'_>>,
    limit: Option<usize>,
) -> anyhow::Result<RetrievalResult> {
    store.snapshot(|| search_in(store, query, params, semantic, limit))
}

/// One merged paper's score parts, before its details are read.
struct Scored {
    id: String,
    doc: i64,
    year: Option<i32>,
    bm25_score: f64,
    bm25_norm: f64,
    distance: Option<u32>,
    graph_score: f64,
    recency_score: f64,
    final_score: f64,
    fused: f64,
}

fn search_in(
    store: &Store,
    query: &str,
    params: &SearchParams,
    semantic: Option<&Semantic<'_>>,
    limit: Option<usize>,
) -> anyhow::Result<RetrievalResult> {
    let started = Instant::now();
    let meta = store.meta()?;
    let scores = bm25_scores(store, query)?;
    let depth = params.top_k.max(params.pool);
    let first = match semantic.filter(|s| s.params.mode != Mode::Bm25) {
        None => FirstStage {
            mode: Mode::Bm25,
            list: top_k(store, &scores, depth)?,
            scores: HashMap::new(),
            outside: Outside::Bm25,
            query_vector: Vec::new(),
            rerank: HashMap::new(),
        },
        Some(sem) => semantic_stage(store, query, &scores, sem, depth)?,
    };
    let dense = semantic.map(|s| &s.index.docs).filter(|_| first.mode != Mode::Bm25);
    let pool = &first.list;
    let seeds = &pool[..params.top_k.min(pool.len())];
    let seed_ids: Vec<String> = seeds.iter().map(|(id, _, _)| id.clone()).collect();
    let reached = bfs(&StoreAdjacency(store), &seed_ids, params.hops, params.direction)?;

    // Merge: seeds ∪ reached ids that are papers ∪ the first-stage pool, by
    // id; the doc ids and years of all of them come from one statement.
    let papers = store.docs_and_years(reached.keys().chain(pool.iter().map(|(id, _, _)| id)))?;
    let mut merged: BTreeMap<String, (i64, Option<u32>)> = BTreeMap::new();
    for (id, distance) in reached {
        if let Some(&(doc, _)) = papers.get(&id) {
            merged.insert(id, (doc, Some(distance)));
        }
    }
    for (id, doc, _) in pool {
        merged.entry(id.clone()).or_insert((*doc, None));
    }
    let bm25_of = |doc: &i64| scores.get(doc).copied().unwrap_or(0.0);
    let cos_of = |doc: i64| dense.and_then(|d| d.score(doc, &first.query_vector)).map(|s| s as f64);
    let first_of = |doc: i64| first.score(doc, bm25_of(&doc), cos_of(doc)).max(0.0);
    let max_bm25 = merged.values().map(|(doc, _)| bm25_of(doc)).fold(0.0, f64::max);
    let bm25_norm_of = |s: f64| if max_bm25 > 0.0 { s / max_bm25 } else { 0.0 };
    let max_first = merged.values().map(|(doc, _)| first_of(*doc)).fold(0.0, f64::max);
    let norm = |s: f64| if max_first > 0.0 { s / max_first } else { 0.0 };
    let evidence = match params.graph_score {
        GraphScore::Lesson => None,
        GraphScore::Weighted => Some(seed_evidence(store, seeds, norm, params.hops, params.direction, &merged)?),
    };
    let w = params.weights;
    let semantic_mode = first.mode != Mode::Bm25;
    let mut scored = Vec::with_capacity(merged.len());
    for (id, (doc, distance)) in merged {
        let year = papers.get(&id).and_then(|&(_, year)| year);
        let bm25_score = bm25_of(&doc);
        let bm25_norm = bm25_norm_of(bm25_score);
        let fused = norm(first_of(doc));
        let graph_score = match &evidence {
            None => graph_score(distance),
            Some(e) => e.get(&id).copied().unwrap_or(0.0),
        };
        let recency_score = recency_score(year, meta.min_year, meta.max_year);
        let final_score = w.bm25 * fused + w.graph * graph_score + w.recency * recency_score;
        scored.push(Scored {
            id,
            doc,
            year,
            bm25_score,
            bm25_norm,
            distance,
            graph_score,
            recency_score,
            final_score,
            fused,
        });
    }
    scored.sort_by(|a, b| b.final_score.total_cmp(&a.final_score).then_with(|| a.id.cmp(&b.id)));
    let hit_count = scored.len();
    let top_score = scored.first().map_or(0.0, |h| h.final_score);
    let average_score =
        if hit_count == 0 { 0.0 } else { scored.iter().map(|h| h.final_score).sum::<f64>() / hit_count as f64 };
    scored.truncate(limit.unwrap_or(usize::MAX));
    let mut ranked = Vec::with_capacity(scored.len());
    for h in scored {
        let row = store.paper_by_doc(h.doc)?;
        ranked.push(Hit {
            references: store.linked(&h.id, Direction::References)?,
            id: h.id,
            title: row.title,
            year: h.year,
            authors: row.authors,
            bm25_score: h.bm25_score,
            bm25_norm: h.bm25_norm,
            graph_distance: h.distance,
            graph_score: h.graph_score,
            recency_score: h.recency_score,
            final_score: h.final_score,
            dense_score: if semantic_mode { cos_of(h.doc) } else { None },
            fused_score: semantic_mode.then_some(h.fused),
            rerank_score: first.rerank.get(&h.doc).copied(),
            snippet: snippet(&row.abstract_, 3),
        });
    }
    Ok(RetrievalResult {
        query: query.to_string(),
        mode: first.mode,
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
