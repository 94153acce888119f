//! Full text through the API: [`PassageSearch`] (what `search --passages`
//! runs, and what MCP's `search_passages` and the web page are to call) and
//! [`paper_text`] (`paper ID --text`: a paper's documents with their
//! structured text).

use std::path::PathBuf;

use serde::Serialize;

use super::error::BadRequest;
use super::limits::{Page, text};
use super::resolve::resolve_one;
use crate::embed::PassageIndex;
use crate::search::fulltext::{PassageHit, PassageSemantic, passage_search};
use crate::search::{DEFAULT_DENSE_K, Fusion, Mode};
use crate::store::{DocumentRow, Store};

/// A passage search: the query's words (plain text: no operators), one
/// page, and how to rank (BM25 unless a mode says otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct PassageSearch {
    pub query: String,
    pub page: Page,
    /// `Bm25` (the default), or `Dense` / `Hybrid` over the passage vectors of `embed --passages`.
    pub mode: Mode,
    /// How hybrid fuses BM25 and cosine.
    pub fusion: Fusion,
    /// Depth of the dense list, and of the BM25 list hybrid fuses it with.
    pub dense_k: usize,
    /// The embedding model (dense and hybrid) [default: the one `embed` recorded].
    pub model_dir: Option<PathBuf>,
}

impl PassageSearch {
    /// A BM25 passage search of `query`, one page.
    pub fn new(query: impl Into<String>, page: Page) -> PassageSearch {
        PassageSearch {
            query: query.into(),
            page,
            mode: Mode::Bm25,
            fusion: Fusion::Minmax,
            dense_k: DEFAULT_DENSE_K,
            model_dir: None,
        }
    }
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
    if request.mode != Mode::Bm25 && request.dense_k == 0 {
        return Err(BadRequest("dense_k must be at least 1".into()).into());
    }
    store.snapshot(|| {
        let index = match request.mode {
            Mode::Bm25 => None,
            Mode::Dense | Mode::Hybrid => Some(PassageIndex::open(store, request.model_dir.as_deref())?),
        };
        let semantic = index.as_ref().map(|index| PassageSemantic {
            index,
            mode: request.mode,
            fusion: request.fusion,
            dense_k: request.dense_k,
        });
        let (hits, total) = passage_search(store, query, request.page.offset, request.page.size, semantic.as_ref())?;
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
