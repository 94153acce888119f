//! The defaults of a search, resolved in one place for every surface (the
//! CLI, MCP, the web page): the caller passes what the user chose, each
//! choice an `Option` (`None`: not given), and [`resolve`] fills the rest
//! from what the index holds, returning the [`SearchRequest`] and the notes a
//! user should read. Each default is the best measured (docs/EVALUATION.md,
//! "Defaults"); every old figure stays reproducible with explicit choices.
//!
//! * graph score: `weighted` when the index holds citation links (CACM: +0.018
//!   nDCG@10, +0.057 Recall@100 over by-hops), `by-hops` when it holds none
//!   (the walk reaches nothing then, and by-hops keeps the core spec's
//!   parameters); a mode's own `top_k`, `hops`, `weights` and `pool` follow it
//!   ([`GraphScore::defaults`]);
//! * pool: at least `offset + limit`, rounded up to a multiple of
//!   [`POOL_STEP`] (100), so a search lists every matching paper up to what it
//!   shows (SciFact `vitamin`: 60 BM25 matches, not 10), the pages of one
//!   hundred come from one ranking (page 2 is the next hits of one long page),
//!   and `search` ranks as `eval`/`run` (limit 100, pool 100) measured:
//!   their Recall@100 is BM25's or better;
//! * first stage: `hybrid` (min-max fusion) when the index holds vectors for
//!   the configured model (the best first stage measured on SciFact and
//!   CACM), BM25 otherwise; a note says which and why whenever vectors exist.

use std::cell::RefCell;
use std::path::PathBuf;

use super::filter::Filter;
use super::request::Feedback;
use super::request::{
    DEFAULT_DENSE_K, DEFAULT_RERANK_WEIGHT, Fusion, GraphScore, Mode, SearchParams, SearchRequest, SemanticParams,
    Weights,
};
use crate::embed::{Models, SemanticIndex};
use crate::graph::{DEFAULT_FAN_OUT, Direction, FanOut};
use crate::store::Store;

/// The pool of a search that shows hits is `offset + limit` rounded up to a
/// multiple of this: every page within one hundred hits is cut from one
/// ranking, and a first page of 10 or 20 ranks as `eval` (pool 100) measured.
pub(crate) const POOL_STEP: usize = 100;

/// What the user chose for one search; `None` (or the empty default) leaves
/// the choice to [`resolve`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchChoices {
    /// The query as typed.
    pub query: String,
    /// Take the whole query as free text (`search --literal`); otherwise it
    /// is read in the query language ([`super::query`]).
    pub literal: bool,
    pub top_k: Option<usize>,
    pub hops: Option<u32>,
    pub direction: Option<Direction>,
    /// `None`: the default ([`crate::graph::DEFAULT_FAN_OUT`]); `Some(None)`: every link.
    pub fan_out: Option<FanOut>,
    pub weights: Option<Weights>,
    pub pool: Option<usize>,
    pub graph_score: Option<GraphScore>,
    pub mode: Option<Mode>,
    pub dense_k: Option<usize>,
    pub fusion: Option<Fusion>,
    /// Rescore the first N of a dense or hybrid list by their best chunk (0: off).
    pub rerank: usize,
    pub rerank_weight: Option<f64>,
    /// The embedding model; `None`: the one `litindex embed` recorded.
    pub model_dir: Option<PathBuf>,
    /// How many hits to read; `None`: all (and the pool is the mode's).
    pub limit: Option<usize>,
    /// How many ranked hits to skip first (a later page).
    pub offset: usize,
    /// Filters given beside the query (flags, form fields); the query's own join them.
    pub filter: Filter,
}

/// What the defaults depend on in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexFacts {
    /// The index holds citation links.
    pub citations: bool,
    /// The first stage when the user chose none.
    pub mode: Mode,
}

/// A resolved search: the request, the loaded model and vectors when its
/// first stage needs them, and the notes for the user (the binary prints
/// them on stderr; the library never prints).
#[derive(Debug)]
pub struct Resolved {
    pub request: SearchRequest,
    pub semantic: Option<SemanticIndex>,
    pub notes: Vec<String>,
}

impl SearchChoices {
    /// Free text `query` with every other choice left to the defaults.
    pub fn new(query: impl Into<String>) -> SearchChoices {
        SearchChoices { query: query.into(), ..SearchChoices::default() }
    }

    /// The graph-score mode: the user's, else `weighted` with citation links.
    pub fn graph_score_for(&self, facts: IndexFacts) -> GraphScore {
        self.graph_score.unwrap_or(if facts.citations { GraphScore::Weighted } else { GraphScore::ByHops })
    }

    /// The walk's and the final score's parameters for an index with `facts`.
    pub fn params_for(&self, facts: IndexFacts) -> SearchParams {
        let graph_score = self.graph_score_for(facts);
        let d = graph_score.defaults();
        let top_k = self.top_k.unwrap_or(d.top_k);
        let shown = self.limit.map_or(0, |l| l.saturating_add(self.offset));
        let shown = shown.div_ceil(POOL_STEP).saturating_mul(POOL_STEP);
        let pool = self.pool.unwrap_or_else(|| d.pool.map_or(top_k, |p| p.max(top_k)).max(shown));
        SearchParams {
            top_k,
            hops: self.hops.unwrap_or(d.hops),
            direction: self.direction.unwrap_or(Direction::Both),
            weights: self.weights.unwrap_or(d.weights),
            pool,
            graph_score,
            fan_out: self.fan_out.unwrap_or(DEFAULT_FAN_OUT),
        }
    }

    /// The request these choices make on an index with `facts` (no marks:
    /// the caller sets `feedback`). [`resolve`] reads the facts from a store;
    /// a backend without one passes its own.
    pub fn request_for(&self, facts: IndexFacts) -> SearchRequest {
        SearchRequest {
            query: self.query.clone(),
            params: self.params_for(facts),
            semantic: SemanticParams {
                mode: self.mode.unwrap_or(facts.mode),
                dense_k: self.dense_k.unwrap_or(DEFAULT_DENSE_K),
                fusion: self.fusion.unwrap_or_default(),
                rerank: self.rerank,
                rerank_weight: self.rerank_weight.unwrap_or(DEFAULT_RERANK_WEIGHT),
            },
            limit: self.limit,
            offset: self.offset,
            filter: self.filter.clone(),
            feedback: Feedback::default(),
            query_syntax: !self.literal,
            parts: Default::default(),
            parts_for: None,
        }
    }
}

/// The search `choices` ask for on `store`, with the defaults of the module
/// doc for what they leave open, and the model loaded when the first stage
/// is dense or hybrid (the one `models` holds, when its files are
/// unchanged). An explicit `--mode dense/hybrid` whose model or vectors are
/// missing is an error; a default one falls back to BM25 with a note.
pub fn resolve(store: &Store, choices: &SearchChoices, models: &Models) -> anyhow::Result<Resolved> {
    let notes = RefCell::new(Vec::new());
    let note = |n: &str| notes.borrow_mut().push(n.to_string());
    let open = || SemanticIndex::open(store, choices.model_dir.as_deref(), choices.rerank > 0, &note, models);
    let (mode, semantic) = match choices.mode {
        Some(Mode::Bm25) => (Mode::Bm25, None),
        Some(m) => (m, Some(open()?)),
        None if !store.has_vectors()? => (Mode::Bm25, None),
        None => match open() {
            Ok(index) => {
                note(&format!(
                    "first stage: hybrid (minmax), since the index holds vectors for {}, the configured model \
                     (the best first stage measured, docs/EVALUATION.md); --mode bm25 ranks by BM25 alone",
                    index.stored.name
                ));
                (Mode::Hybrid, Some(index))
            }
            Err(e) => {
                note(&format!(
                    "first stage: bm25: the index holds vectors, but they cannot be used ({e:#}); --mode hybrid \
                     to make that an error"
                ));
                (Mode::Bm25, None)
            }
        },
    };
    let facts = IndexFacts { citations: store.has_citations()?, mode };
    let request = choices.request_for(facts);
    Ok(Resolved { request, semantic, notes: notes.into_inner() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::request::WEIGHTED_DEFAULTS;

    const LINKS: IndexFacts = IndexFacts { citations: true, mode: Mode::Bm25 };
    const NO_LINKS: IndexFacts = IndexFacts { citations: false, mode: Mode::Bm25 };

    #[test]
    fn weighted_with_citation_links_by_hops_without() {
        let c = SearchChoices::new("q");
        assert_eq!(c.params_for(LINKS).graph_score, GraphScore::Weighted);
        assert_eq!(c.params_for(LINKS).top_k, WEIGHTED_DEFAULTS.top_k);
        assert_eq!(c.params_for(NO_LINKS).graph_score, GraphScore::ByHops);
        assert_eq!(c.params_for(NO_LINKS), SearchParams::default(), "the core spec's, with no limit");
        let by_hops = SearchChoices { graph_score: Some(GraphScore::ByHops), ..c.clone() };
        assert_eq!(by_hops.params_for(LINKS).graph_score, GraphScore::ByHops);
    }

    #[test]
    fn the_pool_covers_what_is_shown() {
        let page = |limit, offset| SearchChoices { limit: Some(limit), offset, ..SearchChoices::new("q") };
        assert_eq!(page(100, 0).params_for(NO_LINKS).pool, 100);
        assert_eq!(page(20, 40).params_for(NO_LINKS).pool, 100, "pages of one hundred share one ranking");
        assert_eq!(page(20, 90).params_for(NO_LINKS).pool, 200);
        assert_eq!(page(5, 0).params_for(NO_LINKS).pool, 100);
        assert_eq!(page(100, 0).params_for(LINKS).pool, 200, "weighted's own pool when larger");
        assert_eq!(page(300, 0).params_for(LINKS).pool, 300);
        let explicit = SearchChoices { pool: Some(10), ..page(100, 0) };
        assert_eq!(explicit.params_for(NO_LINKS).pool, 10, "an explicit pool is kept");
        assert!(page(usize::MAX, 5).params_for(NO_LINKS).pool >= usize::MAX - POOL_STEP);
    }

    #[test]
    fn the_query_language_unless_literal() {
        let c = SearchChoices::new("-x y");
        assert!(c.request_for(NO_LINKS).query_syntax);
        assert!(!SearchChoices { literal: true, ..c }.request_for(NO_LINKS).query_syntax);
    }

    #[test]
    fn the_first_stage_is_the_facts_unless_chosen() {
        let hybrid = IndexFacts { citations: false, mode: Mode::Hybrid };
        let c = SearchChoices::new("q");
        assert_eq!(c.request_for(hybrid).semantic.mode, Mode::Hybrid);
        assert_eq!(c.request_for(hybrid).semantic.fusion, Fusion::Minmax);
        let bm25 = SearchChoices { mode: Some(Mode::Bm25), ..c };
        assert_eq!(bm25.request_for(hybrid).semantic.mode, Mode::Bm25);
    }
}
