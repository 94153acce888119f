//! What a search is asked: the query, how the first stage picks its list
//! ([`Mode`], [`Fusion`], [`SemanticParams`]), how the walk and the final
//! score go ([`SearchParams`], [`GraphScore`], [`Weights`]), and how many
//! hits to read in full. [`SearchRequest`] carries all of it.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::filter::Filter;
use crate::graph::{DEFAULT_FAN_OUT, Direction, FanOut};

/// Default number of BM25 seeds.
pub(crate) const DEFAULT_TOP_K: usize = 10;
/// Default walk depth.
pub(crate) const DEFAULT_HOPS: u32 = 2;
/// How many hits `search` prints unless told (`--limit`).
pub const DEFAULT_LIMIT: usize = 20;
/// Deepest walk `search` allows.
pub const MAX_SEARCH_HOPS: u32 = 2;
/// Default depth of the dense list (and of the BM25 list `hybrid` fuses it with).
pub const DEFAULT_DENSE_K: usize = 100;
/// The constant of reciprocal rank fusion.
pub(crate) const RRF_K: f64 = 60.0;
/// The weight of the best chunk's cosine in a reranked score, chosen on the
/// SciFact training claims (docs/EVALUATION.md, "Semantic recall").
pub const DEFAULT_RERANK_WEIGHT: f64 = 0.5;

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

/// How a paper's graph score is computed (`--graph-score`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum GraphScore {
    /// 1 / 0.6 / 0.3 for 0 / 1 / 2 hops from the nearest seed (the core
    /// spec). `by-hops` on the command line, which also accepts its old name
    /// `lesson`; reports still print `lesson` (see [`GraphScore::name`]).
    #[default]
    #[serde(rename = "lesson")]
    ByHops,
    /// By evidence: `e(p) = Σ over the other seeds s that reach p of
    /// bm25_norm(s) · decay(hops from s)` (decay 0.6 / 0.3 for 1 / 2 hops),
    /// and `graph_score = ln(1 + e(p)) / ln(1 + max e)` over the merged set
    /// (the logarithm keeps one hub from flattening everyone else). A paper
    /// cited by or citing several strong seeds scores high, one reached from a
    /// single weak seed low, and a seed linked to no other seed 0: the graph
    /// re-ranks the lexical hits by how the relevant-looking papers cite each
    /// other, and lifts unmatched papers they all cite.
    #[serde(rename = "weighted")]
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
    /// The name `eval` and the tables print. [`GraphScore::ByHops`] keeps
    /// its old name `lesson` there, so that reports and runs made before the
    /// rename compare byte for byte.
    pub fn name(self) -> &'static str {
        match self {
            GraphScore::ByHops => "lesson",
            GraphScore::Weighted => "weighted",
        }
    }

    /// The defaults of the mode. `by-hops`'s are the core spec's; `weighted`'s
    /// were chosen by 2-fold cross-validation on CACM (docs/EVALUATION.md).
    pub fn defaults(self) -> ModeDefaults {
        match self {
            GraphScore::ByHops => {
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
pub(crate) const WEIGHTED_DEFAULTS: ModeDefaults =
    ModeDefaults { top_k: 30, hops: 2, weights: Weights { bm25: 0.7, graph: 0.2, recency: 0.1 }, pool: Some(200) };

/// Which first stage picks the seeds and the pool (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema)]
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

/// How `hybrid` fuses the BM25 and dense lists (`--fusion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fusion {
    /// Reciprocal rank fusion: Σ 1 / ([`RRF_K`] + rank).
    Rrf,
    /// Equal blend of min-max-normalised BM25 and cosine over the union of
    /// the two lists. The default: it measures better than RRF on both
    /// SciFact (0.7353 against 0.7163 nDCG@10) and CACM (0.5673 against
    /// 0.5410; 0.5864 against 0.5539 with the weighted graph score), see
    /// docs/EVALUATION.md, "Semantic recall".
    #[default]
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
            fusion: Fusion::Minmax,
            rerank: 0,
            rerank_weight: DEFAULT_RERANK_WEIGHT,
        }
    }
}

/// How to walk and score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchParams {
    /// How many first-stage hits seed the graph walk.
    pub top_k: usize,
    /// How far the walk goes (0 = first stage only).
    pub hops: u32,
    pub direction: Direction,
    pub weights: Weights,
    /// How many top first-stage papers join the merged set (at least the seeds).
    pub pool: usize,
    pub graph_score: GraphScore,
    /// How many of one paper's references, and of its citers, the walk
    /// follows (`None`: all; see [`crate::graph::FanOut`]).
    pub fan_out: FanOut,
}

impl SearchParams {
    /// How the search's walk goes: its hops, direction and fan-out.
    pub fn reach(&self) -> crate::graph::Reach {
        crate::graph::Reach { hops: self.hops, direction: self.direction, fan_out: self.fan_out }
    }
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            top_k: DEFAULT_TOP_K,
            hops: DEFAULT_HOPS,
            direction: Direction::Both,
            weights: Weights::default(),
            pool: DEFAULT_TOP_K,
            graph_score: GraphScore::ByHops,
            fan_out: DEFAULT_FAN_OUT,
        }
    }
}

/// Which parts of a hit the caller uses, so the ranker reads and builds no
/// more (tantivy's doc ids then stored fields for the page shown). The
/// ranking and every score are the same whatever the parts: only what is
/// filled in after the sort differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HitParts {
    /// Ids, years and the parts of the score only (`run`, `eval`, `bench`,
    /// `export`, `screen new`): no paper's details are read, no snippet is
    /// built; `title`, `authors`, `venue`, `references` and `snippet` are empty.
    Scores,
    /// The scores plus each shown hit's details (title, authors, venue),
    /// read for the page only; no snippet (the web page's facets,
    /// `context`, which picks its own sentences).
    Details,
    /// The details and the evidence snippet, for the page only (the
    /// default: `search`'s table, the web page's hits). No references:
    /// neither shows a hit's, and at 1M papers reading them was a random
    /// look-up per reference.
    #[default]
    Snippets,
    /// Everything, each shown hit's references (ids it cites) too: the
    /// hits as JSON (`search --format json`, MCP's `search_papers`).
    Full,
}

impl HitParts {
    /// Whether the shown hits' details are read.
    pub fn details(self) -> bool {
        self >= HitParts::Details
    }

    /// Whether the shown hits' snippets are built.
    pub fn snippets(self) -> bool {
        self >= HitParts::Snippets
    }

    /// Whether the shown hits' references are read.
    pub fn references(self) -> bool {
        self == HitParts::Full
    }
}

/// One search: what to look for and how, everything [`super::search`] takes
/// besides the index (and the loaded model, for a semantic first stage).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    pub params: SearchParams,
    /// The first stage; its mode is `bm25` unless a dense or hybrid search is asked for.
    pub semantic: SemanticParams,
    /// Read the details of only the first `limit` hits (`ranked` is cut
    /// there; `hit_count` and the averages still cover the whole merged set).
    /// `None`: all of them.
    pub limit: Option<usize>,
    /// Skip the first `offset` ranked hits before reading details (a page
    /// past the first: `--offset`, MCP's cursor, the web page's "next");
    /// `hit_count` and the averages still cover the whole merged set.
    pub offset: usize,
    /// Which papers may be ranked and shown ([`Filter`]; empty: all).
    /// `query` is free text: [`super::query::parse`] splits a query in the
    /// query language into the two.
    pub filter: Filter,
    /// The user's marks: favorites that feed the ranking, papers not to show.
    pub feedback: Feedback,
    /// Read `query` in the query language when searching: its filters join
    /// `filter` and only its free text is scored (`eval --query-syntax`).
    pub query_syntax: bool,
    /// Which parts of the shown hits to fill in ([`HitParts`]; default: all).
    pub parts: HitParts,
    /// Which of the hits read (0: the one at `offset`) get the parts beyond
    /// their details that `parts` asks for (snippets, references); the
    /// others get their details only. `None`: every hit read. The web page
    /// reads the details of the first 100 hits for its facets and builds
    /// the snippets of the 20 it shows, in one search.
    pub parts_for: Option<std::ops::Range<usize>>,
}

impl SearchRequest {
    /// A BM25-first search for `query` with `params`, every hit read.
    pub fn new(query: impl Into<String>, params: SearchParams) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            params,
            semantic: SemanticParams::default(),
            limit: None,
            offset: 0,
            filter: Filter::default(),
            feedback: Feedback::default(),
            query_syntax: false,
            parts: HitParts::default(),
            parts_for: None,
        }
    }

    /// The same search for another query.
    pub(crate) fn with_query(&self, query: impl Into<String>) -> SearchRequest {
        SearchRequest { query: query.into(), ..self.clone() }
    }
}

impl crate::choice::Choice for GraphScore {
    const WHAT: &'static str = "graph score";
    fn all() -> &'static [GraphScore] {
        &[GraphScore::ByHops, GraphScore::Weighted]
    }
    /// `by-hops`, though reports print its old name `lesson` ([`GraphScore::name`]).
    fn keyword(self) -> &'static str {
        match self {
            GraphScore::ByHops => "by-hops",
            GraphScore::Weighted => "weighted",
        }
    }
    fn aliases(self) -> &'static [&'static str] {
        match self {
            GraphScore::ByHops => &["lesson"],
            GraphScore::Weighted => &[],
        }
    }
    fn help(self) -> &'static str {
        match self {
            GraphScore::ByHops => "1 / 0.6 / 0.3 for 0 / 1 / 2 hops from the nearest seed (the core spec)",
            GraphScore::Weighted => "By the BM25 evidence of the seeds that reach a paper",
        }
    }
}

/// `by-hops` or `lesson` (its old name), `weighted`.
impl FromStr for GraphScore {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<GraphScore> {
        crate::choice::parse(s)
    }
}

/// The word it is typed as (`by-hops`), which [`FromStr`] reads back.
impl fmt::Display for GraphScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::choice::Choice::keyword(*self))
    }
}

impl crate::choice::Choice for Mode {
    const WHAT: &'static str = "mode";
    fn all() -> &'static [Mode] {
        &[Mode::Bm25, Mode::Dense, Mode::Hybrid]
    }
    fn keyword(self) -> &'static str {
        self.name()
    }
    fn help(self) -> &'static str {
        match self {
            Mode::Bm25 => "BM25 over the postings (needs no model)",
            Mode::Dense => "Exact cosine over the stored paper vectors",
            Mode::Hybrid => "BM25 and dense lists fused",
        }
    }
}

impl FromStr for Mode {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Mode> {
        crate::choice::parse(s)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl crate::choice::Choice for Fusion {
    const WHAT: &'static str = "fusion";
    fn all() -> &'static [Fusion] {
        &[Fusion::Rrf, Fusion::Minmax]
    }
    fn keyword(self) -> &'static str {
        self.name()
    }
    fn help(self) -> &'static str {
        match self {
            Fusion::Rrf => "Reciprocal rank fusion",
            Fusion::Minmax => "Equal blend of min-max-normalised BM25 and cosine",
        }
    }
}

impl FromStr for Fusion {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Fusion> {
        crate::choice::parse(s)
    }
}

impl fmt::Display for Fusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How favorites feed the ranking.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FeedbackParams {
    /// How many expansion terms the favorites give (0: no expansion).
    pub terms: usize,
    /// β: the expansion's weight against the query's own BM25.
    pub beta: f64,
    /// Whether the favorites seed the citation walk.
    pub seed: bool,
    /// γ: added to the final score times the by-hops graph score of the
    /// distance from the nearest favorite (1 / 0.6 / 0.3 for 0 / 1 / 2 hops).
    pub near: f64,
}

impl Default for FeedbackParams {
    fn default() -> Self {
        FeedbackParams { terms: 20, beta: 2.0, seed: true, near: 0.4 }
    }
}

/// The user's marks as a search takes them (what they do: [`super::feedback`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feedback {
    /// Canonical ids of papers marked as useful.
    pub favorites: Vec<String>,
    /// Canonical ids never shown.
    pub excluded: HashSet<String>,
    /// Show the excluded papers anyway, flagged.
    pub show_excluded: bool,
    pub params: FeedbackParams,
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
    fn by_hops_is_also_called_lesson() {
        assert_eq!("by-hops".parse::<GraphScore>().unwrap(), GraphScore::ByHops);
        assert_eq!("lesson".parse::<GraphScore>().unwrap(), GraphScore::ByHops);
        assert_eq!("weighted".parse::<GraphScore>().unwrap(), GraphScore::Weighted);
        assert_eq!(
            "hops".parse::<GraphScore>().unwrap_err().to_string(),
            "unknown graph score `hops` (use by-hops or weighted)"
        );
        assert_eq!(GraphScore::ByHops.name(), "lesson");
        assert_eq!(GraphScore::ByHops.to_string(), "by-hops");
        assert_eq!(serde_json::to_string(&GraphScore::ByHops).unwrap(), "\"lesson\"");
        assert_eq!("hybrid".parse::<Mode>().unwrap(), Mode::Hybrid);
        assert_eq!("minmax".parse::<Fusion>().unwrap(), Fusion::Minmax);
        for m in [Mode::Bm25, Mode::Dense, Mode::Hybrid] {
            assert_eq!(m.to_string().parse::<Mode>().unwrap(), m);
        }
        for f in [Fusion::Rrf, Fusion::Minmax] {
            assert_eq!(f.to_string().parse::<Fusion>().unwrap(), f);
        }
    }
}
