//! Two retrieval passes and one explained ranking, behind one entry point,
//! [`search`], which takes a [`SearchRequest`].
//!
//! 1. First stage ([`first_stage`]): BM25 over the persisted postings (or a
//!    dense or hybrid list, `--mode`); its top `top_k` papers are the seeds.
//! 2. Graph: a walk of up to `hops` steps from the seeds over the citation
//!    edges ([`crate::graph::bfs`] over the stored adjacency).
//! 3. Merge, rank, hydrate ([`rank`]): seeds ∪ reached papers ∪ the first
//!    `pool` papers of the first stage, each with its graph and recency
//!    scores and a final score, best first; details read for the hits shown.
//!
//! The parts:
//!
//! * [`defaults`]: the defaults of a search, resolved from what the user
//!   chose and what the index holds ([`resolve`]), for every surface.
//! * [`request`]: what a search is asked ([`SearchRequest`], [`SearchParams`],
//!   [`SemanticParams`], [`Weights`], [`GraphScore`], [`Mode`], [`Fusion`]).
//! * [`crate::candidate`] (shared with the dense scan and `bench`): the
//!   [`Candidate`] (doc id + score) every stage passes on, and [`top_k`], the
//!   one selection of the best of them (score descending, ties by doc id).
//! * [`first_stage`]: [`bm25_scores`], the dense list, RRF and min-max
//!   fusion, the chunk rerank; its module doc has their formulas.
//! * `lexical`: where the BM25 scores come from, every matching paper's
//!   (a filter, favorites) or only the first stage's top and the merged
//!   papers' (the store's `bm25_top_k` and `bm25_scores_of`).
//! * [`fulltext`]: a paper's text score with its best passage (papers with
//!   full text only) and the passage search.
//! * [`query`] and [`filter`]: the query language (`+word`, `-word`,
//!   `"phrase"`, `author:`, `year:`, `venue:`, `id:`) and the [`Filter`] it
//!   yields, which decides which papers are seeded, pooled and shown.
//! * [`feedback`]: what the user's marks do (favorites expand the query and
//!   seed the walk; excluded papers are not shown); its module doc has the formulas.
//! * [`score`]: every formula of the final score ([`graph_score`],
//!   [`recency_score`], the weighted graph score, the feedback term) and
//!   its explanation ([`Explanation`], [`ScoreParts`]), which the CLI and
//!   the web page print.
//! * `retriever`: what the ranker asks of an index (the first stage, the
//!   walk, years, scores, the shown hits' details): the `Retriever` trait,
//!   implemented by the local store (`Local`) and by the OpenSearch backend.
//! * [`rank`]: one ranking over any retriever: merge, score, sort, offset
//!   and limit, hydrate; the [`Hit`]s, their evidence sentences
//!   ([`crate::evidence`]).

pub mod defaults;
pub mod feedback;
pub mod filter;
pub mod first_stage;
pub mod fulltext;
mod lexical;
#[cfg(test)]
mod narrow_tests;
#[cfg(test)]
mod parts_tests;
pub mod query;
pub mod rank;
pub mod request;
pub(crate) mod retriever;
pub mod score;

pub use crate::candidate::{Candidate, DocScores, top_k};
pub use defaults::{IndexFacts, Resolved, SearchChoices, resolve};
pub use feedback::FeedbackPart;
pub use filter::{Filter, YearRange};
pub use first_stage::bm25_scores;
pub(crate) use first_stage::bm25_term_scores;
pub use query::{ParsedQuery, QueryError, parse as parse_query};
pub use rank::{GraphVia, Hit, RetrievalResult};
pub use request::{
    DEFAULT_DENSE_K, DEFAULT_LIMIT, DEFAULT_RERANK_WEIGHT, Feedback, FeedbackParams, Fusion, GraphScore, HitParts,
    MAX_SEARCH_HOPS, Mode, ModeDefaults, SearchParams, SearchRequest, SemanticParams, Weights,
};
pub use score::{Explanation, ScoreParts, graph_score, recency_score};

use crate::embed::SemanticIndex;
use crate::store::Store;

/// Runs a search: the first stage, the walk from its seeds, and the ranked
/// merged set, all read from one snapshot of the index. A dense or hybrid
/// request (`request.semantic.mode`) needs `semantic`, the model and vectors
/// loaded once per process; a BM25 request ignores it.
pub fn search(
    store: &Store,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
) -> anyhow::Result<RetrievalResult> {
    // The query language is read here, once, for every caller (`query_syntax`).
    let (parsed, query) = request.parsed_with_query()?;
    let mut result = store.snapshot(|| rank::search_in(store, &parsed, semantic))?;
    result.query = request.query.clone();
    result.parsed_query = Some(query);
    Ok(result)
}
