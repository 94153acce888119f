//! A search as MCP's `search_papers`, `context` and the web page ask for
//! it: [`SearchOptions`], typed, and [`SearchOptions::request`], the one
//! place their [`SearchRequest`] is built (the library's defaults for
//! everything the options leave out: change a default here, and every
//! surface but the CLI's flags follows). [`run_search`] runs any request,
//! the CLI's included.

use std::path::Path;

use super::error::BadRequest;
use super::limits::{MAX_SEARCH_HOPS, Page, SEARCH_HOPS_WHY, hops, text};
use crate::embed::SemanticIndex;
use crate::search::{
    Feedback, Filter, GraphScore, Mode, RetrievalResult, SearchParams, SearchRequest, SemanticParams, YearRange,
    parse_query, search,
};
use crate::store::{Notes, Store};

/// What a search surface may ask. Every string is a value (one that starts
/// with `-` too); the query is read in the query language.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// The query: words, `+must`, `-not`, `"a phrase"`, `author:`, `year:`, `venue:`, `id:`.
    pub query: String,
    /// The first stage (`None`: the default, BM25).
    pub mode: Option<Mode>,
    /// Citation hops walked from the seeds, 0 to [`MAX_SEARCH_HOPS`] (`None`: the default).
    pub hops: Option<u64>,
    /// Only papers with these authors (surname or full name).
    pub authors: Vec<String>,
    /// Only papers of these years.
    pub years: Option<YearRange>,
    /// Only papers whose venue holds these words.
    pub venues: Vec<String>,
    /// Only papers whose title or abstract holds each of these words or phrases.
    pub must: Vec<String>,
    /// Only papers whose title and abstract lack each of these words or phrases.
    pub must_not: Vec<String>,
    /// Let the index's favorites feed the ranking.
    pub feedback: bool,
    /// Show papers marked `exclude` too, flagged.
    pub show_excluded: bool,
    /// Which hits: ranked with the offset, details read for the page only.
    pub page: Page,
}

impl SearchOptions {
    /// A search for `query`, one page, everything else the defaults (feedback on).
    pub fn new(query: impl Into<String>, page: Page) -> SearchOptions {
        SearchOptions {
            query: query.into(),
            mode: None,
            hops: None,
            authors: Vec::new(),
            years: None,
            venues: Vec::new(),
            must: Vec::new(),
            must_not: Vec::new(),
            feedback: true,
            show_excluded: false,
            page,
        }
    }

    /// The request these options ask for, with the index's marks (excluded
    /// papers always; favorites when `feedback`). A value out of range or a
    /// query the language cannot read is a [`BadRequest`].
    pub fn request(&self, store: &Store) -> anyhow::Result<SearchRequest> {
        text("query", &self.query)?;
        let must = values("must", &self.must)?;
        let must_not = values("not", &self.must_not)?;
        let authors = values("author", &self.authors)?;
        let venues = values("venue", &self.venues)?;
        let walk = self.hops.map(|h| hops(h, MAX_SEARCH_HOPS, SEARCH_HOPS_WHY)).transpose()?;
        let parsed = parse_query(&self.query).map_err(|e| BadRequest(e.to_string()))?;
        let mode = self.mode.unwrap_or_default();
        if mode != Mode::Bm25 && crate::store::vectors::totals(store.conn())?.0 == 0 {
            return Err(BadRequest(format!(
                "mode {} needs the vectors of `litindex embed`, and this index has none: use mode bm25, or embed the index first",
                mode.name()
            ))
            .into());
        }
        // The defaults of `litindex search` with no flags (cli/search.rs's `SearchOpts::params`).
        let graph_score = GraphScore::default();
        let d = graph_score.defaults();
        let params = SearchParams {
            top_k: d.top_k,
            hops: walk.unwrap_or(d.hops),
            direction: Default::default(),
            weights: d.weights,
            pool: d.pool.map_or(d.top_k, |p| p.max(d.top_k)),
            graph_score,
        };
        let filter = Filter { must, must_not, authors, years: self.years, venues, id_prefixes: Vec::new() };
        Ok(SearchRequest {
            query: parsed.text,
            params,
            semantic: SemanticParams { mode, ..SemanticParams::default() },
            limit: Some(self.page.size),
            offset: self.page.offset,
            filter: filter.and(parsed.filter),
            feedback: Feedback::from_marks(store, self.feedback, self.show_excluded)?,
            query_syntax: false,
        })
    }
}

/// Trimmed filter values, each non-blank and not too long.
fn values(name: &str, given: &[String]) -> Result<Vec<String>, BadRequest> {
    given
        .iter()
        .map(|v| {
            text(name, v)?;
            let v = v.trim();
            if v.is_empty() { Err(BadRequest(format!("{name} needs a value"))) } else { Ok(v.to_string()) }
        })
        .collect()
}

/// A first stage by its name (`bm25`, `dense`, `hybrid`).
pub fn parse_mode(name: &str) -> Result<Mode, BadRequest> {
    [Mode::Bm25, Mode::Dense, Mode::Hybrid]
        .into_iter()
        .find(|m| m.name() == name.trim())
        .ok_or_else(|| BadRequest(format!("unknown mode `{}` (use bm25, dense or hybrid)", super::error::clip(name))))
}

/// Runs `request`: loads the model and vectors a dense or hybrid search
/// needs (`model_dir`, else the one `litindex embed` recorded), searches,
/// and gives the result `typed`, the query as the caller typed it.
pub fn run_search(
    store: &Store,
    request: &SearchRequest,
    typed: &str,
    model_dir: Option<&Path>,
    notes: Notes,
) -> anyhow::Result<RetrievalResult> {
    let index = match request.semantic.mode {
        Mode::Bm25 => None,
        _ => Some(SemanticIndex::open(store, model_dir, request.semantic.rerank > 0, notes)?),
    };
    let mut result = search(store, request, index.as_ref())?;
    result.query = typed.to_string();
    Ok(result)
}

/// Whether hits follow the page `result` holds (ranked from `request.offset`).
pub fn more_after(request: &SearchRequest, result: &RetrievalResult) -> bool {
    request.offset + result.ranked.len() < result.hit_count
}
