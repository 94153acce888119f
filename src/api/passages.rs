//! Full text through the API: [`PassageSearch`] (what `search --passages`
//! runs, and what MCP's `search_passages` and the web page are to call) and
//! [`paper_text`] (`paper ID --text`: a paper's documents with their
//! structured text).

use serde::Serialize;

use super::error::BadRequest;
use super::limits::{Page, text};
use super::resolve::resolve_one;
use crate::search::fulltext::{PassageHit, passage_search};
use crate::store::{DocumentRow, Store};

/// A passage search: the query's words (plain text: no operators), one page.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageSearch {
    pub query: String,
    pub page: Page,
}

/// A page of passages, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassageResult {
    pub query: String,
    /// Passages matching at least one query term.
    pub total: usize,
    pub offset: usize,
    pub hits: Vec<PassageHit>,
}

/// Runs `request` on `store` in one snapshot.
pub fn search_passages(store: &Store, request: &PassageSearch) -> anyhow::Result<PassageResult> {
    let query = text("query", &request.query)?;
    if query.trim().is_empty() {
        return Err(BadRequest("the query is empty".into()).into());
    }
    store.snapshot(|| {
        let (hits, total) = passage_search(store, query, request.page.offset, request.page.size)?;
        Ok(PassageResult { query: query.to_string(), total, offset: request.page.offset, hits })
    })
}

/// The documents (PDFs) filed under the paper `input` names, each with its
/// structured text; empty when it has none.
pub fn paper_text(store: &Store, input: &str) -> anyhow::Result<Vec<DocumentRow>> {
    store.snapshot(|| {
        let id = resolve_one(store, input)?;
        store.documents_of_paper(&id)
    })
}

/// One stored passage by its id (the `passage` of a [`PassageHit`]), with
/// its paper; a caller's mistake when no passage has that id.
pub fn get_passage(store: &Store, passage: i64) -> anyhow::Result<crate::store::PassageRow> {
    store.snapshot(|| {
        store.passages(&[passage])?.pop().ok_or_else(|| BadRequest(format!("no passage {passage} in the index")).into())
    })
}
