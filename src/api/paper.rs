//! One paper in full: what `litindex paper`, MCP's `get_paper` and the web
//! page's paper page show.

use serde::Serialize;

use super::resolve::resolve_one;
use crate::graph::Direction;
use crate::store::Store;

/// One paper, as `paper --format json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaperDetails {
    pub id: String,
    pub title: String,
    #[serde(rename = "abstract")]
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// Ids this paper cites.
    pub references: Vec<String>,
    /// Ids that cite it.
    pub citations: Vec<String>,
    /// The contributing sources, joined by `+`.
    pub source: String,
    /// Where it was published (null when no source said).
    pub venue: Option<String>,
    /// The PDFs filed under it (left out of the JSON when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub documents: Vec<DocumentInfo>,
    /// For each citer whose full text the index holds, the sentences in
    /// which it cites this paper (left out of the JSON when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cited_in_context: Vec<super::why::CitedInContext>,
}

/// A PDF filed under a paper, without its text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentInfo {
    pub path: String,
    pub pages: u32,
    pub passages: u64,
    /// Why it has less text than it should (encrypted, scanned).
    pub notes: Vec<String>,
}

/// The paper `input` names (any id or alias), read in one snapshot; an
/// id the index does not hold is an [`super::UnknownPaper`].
pub fn paper(store: &Store, input: &str) -> anyhow::Result<PaperDetails> {
    store.snapshot(|| {
        let id = resolve_one(store, input)?;
        let row = store
            .paper(&id)?
            .ok_or_else(|| super::UnknownPaper { input: input.to_string(), index: store.path().to_path_buf() })?;
        let documents = store
            .documents_of_paper(&row.id)?
            .into_iter()
            .map(|d| DocumentInfo { path: d.path, pages: d.pages, passages: d.passages, notes: d.notes })
            .collect();
        Ok(PaperDetails {
            cited_in_context: super::why::cited_in_context(store, &row.id)?,
            documents,
            references: store.linked(&row.id, Direction::References)?,
            citations: store.linked(&row.id, Direction::Citations)?,
            id: row.id,
            title: row.title,
            abstract_: row.abstract_,
            year: row.year,
            authors: row.authors,
            source: row.source,
            venue: row.venue,
        })
    })
}
