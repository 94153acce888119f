//! A search as MCP's `search_papers`, `context` and the web page ask for
//! it: [`SearchOptions`], typed, and [`SearchOptions::request`], which turns
//! them into [`SearchChoices`] and resolves them with
//! [`crate::search::resolve`], the one place every surface's defaults come
//! from (the CLI's flags included). [`run_search`] runs any resolved search,
//! the CLI's included.

use std::path::PathBuf;

use super::error::BadRequest;
use super::limits::{MAX_SEARCH_HOPS, Page, SEARCH_HOPS_WHY, hops, text};
use crate::embed::Models;
use crate::graph::FanOut;
use crate::search::{
    Feedback, Filter, Mode, Resolved, RetrievalResult, SearchChoices, SearchRequest, YearRange, resolve, search,
};
use crate::store::Store;

/// What a search surface may ask. Every string is a value (one that starts
/// with `-` too); the query is read in the query language.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// The query: words, `+must`, `-not`, `"a phrase"`, `author:`, `year:`, `venue:`, `id:`.
    pub query: String,
    /// The first stage (`None`: the default, hybrid when the index holds
    /// vectors for the configured model, else BM25).
    pub mode: Option<Mode>,
    /// The embedding model for a dense or hybrid first stage (`None`: the one
    /// `litindex embed` recorded).
    pub model_dir: Option<PathBuf>,
    /// Citation hops walked from the seeds, 0 to [`MAX_SEARCH_HOPS`] (`None`: the default).
    pub hops: Option<u64>,
    /// How many of one paper's references (and as many of its citers) the
    /// walk follows (`None`: the default, [`crate::graph::DEFAULT_FAN_OUT`];
    /// `Some(None)`: every link).
    pub fan_out: Option<FanOut>,
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
            model_dir: None,
            hops: None,
            fan_out: None,
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

    /// The search these options ask for, its defaults resolved for this
    /// index ([`resolve`]: the graph score, the pool, the first stage, and the
    /// notes saying why), with the index's marks (excluded papers always;
    /// favorites when `feedback`), and the model from `models` when it holds
    /// it. A value out of range or a query the language cannot read is a
    /// [`BadRequest`].
    pub fn request(&self, store: &Store, models: &Models) -> anyhow::Result<Resolved> {
        text("query", &self.query)?;
        let must = values("must", &self.must)?;
        let must_not = values("not", &self.must_not)?;
        let authors = values("author", &self.authors)?;
        let venues = values("venue", &self.venues)?;
        let walk = self.hops.map(|h| hops(h, MAX_SEARCH_HOPS, SEARCH_HOPS_WHY)).transpose()?;
        if let Some(mode) = self.mode.filter(|&m| m != Mode::Bm25) {
            if !store.has_vectors()? {
                return Err(BadRequest(format!(
                    "mode {} needs the vectors of `litindex embed`, and this index has none: use mode bm25, or embed the index first",
                    mode.name()
                ))
                .into());
            }
        }
        let choices = SearchChoices {
            hops: walk,
            fan_out: self.fan_out,
            mode: self.mode,
            model_dir: self.model_dir.clone(),
            limit: Some(self.page.size),
            offset: self.page.offset,
            filter: Filter { must, must_not, authors, years: self.years, venues, id_prefixes: Vec::new() },
            ..SearchChoices::new(self.query.clone())
        };
        // The query read as every search reads it (so the message is the CLI's), a bad one the
        // caller's mistake, before `resolve` loads any model.
        choices.request_for(Default::default()).parsed_with_query().map_err(|e| BadRequest(e.0))?;
        let mut resolved = resolve(store, &choices, models)?;
        resolved.request.feedback = Feedback::from_marks(store, self.feedback, self.show_excluded)?;
        Ok(resolved)
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

/// Runs a resolved search (its model and vectors already loaded when its
/// first stage needs them) and gives the result `typed`, the query as the
/// caller typed it.
pub fn run_search(store: &Store, resolved: &Resolved, typed: &str) -> anyhow::Result<RetrievalResult> {
    let mut result = search(store, &resolved.request, resolved.semantic.as_ref())?;
    result.query = typed.to_string();
    Ok(result)
}

/// Whether hits follow the page `result` holds (ranked from `request.offset`).
pub fn more_after(request: &SearchRequest, result: &RetrievalResult) -> bool {
    request.offset + result.ranked.len() < result.hit_count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{IngestOptions, Input, InputFormat, build};
    use crate::synth::Generator;

    /// MCP's cursor and the web page's "next" ask for a page by its offset:
    /// page 2 of 10 is hits 11 to 20 of one search of limit 20, every field
    /// (snippets included).
    #[test]
    fn page_two_is_hits_11_to_20_of_one_search_of_limit_20() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus.jsonl");
        let generator = Generator::new(3);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus).unwrap());
        generator.write_corpus(600, &mut out).unwrap();
        drop(out);
        let db = dir.path().join("gen.db");
        build(&db, &[Input::File { path: corpus, format: Some(InputFormat::Paper) }], &IngestOptions::default())
            .unwrap();
        let store = Store::open(&db).unwrap();
        let models = Models::default();
        let search = |query: &str, offset, size| {
            let options = SearchOptions::new(query, Page { offset, size });
            let resolved = options.request(&store, &models).unwrap();
            let r = run_search(&store, &resolved, query).unwrap();
            let more = more_after(&resolved.request, &r);
            (RetrievalResult { wall_time_ms: 0.0, ..r }, more)
        };
        let mut checked = 0;
        for query in generator.queries(8) {
            let (whole, _) = search(&query, 0, 20);
            if whole.ranked.len() < 20 {
                continue;
            }
            let (first, more_first) = search(&query, 0, 10);
            let (second, more_second) = search(&query, 10, 10);
            assert_eq!(first.ranked, whole.ranked[..10], "{query}: page 1");
            assert_eq!(second.ranked, whole.ranked[10..], "{query}: page 2 is hits 11 to 20");
            assert!(second.ranked.iter().any(|h| !h.snippet.is_empty()), "{query}: page 2 has its snippets");
            assert_eq!((second.hit_count, second.top_score), (whole.hit_count, whole.top_score));
            assert!(more_first);
            assert_eq!(more_second, whole.hit_count > 20);
            checked += 1;
        }
        assert!(checked >= 4, "most generated queries have two pages: {checked}");
    }
}
