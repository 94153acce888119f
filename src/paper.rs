//! The paper record every source produces and the store keeps.

use serde::{Deserialize, Serialize};

/// One paper as a source describes it, or as the loader merged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Paper {
    /// Stable paper id; the key sources are unioned on.
    pub id: String,
    pub title: String,
    #[serde(rename = "abstract")]
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// Ids this paper cites.
    pub references: Vec<String>,
    /// Ids that cite this paper.
    pub citations: Vec<String>,
    /// Which source produced the record (after merging: every contributing
    /// source, joined by `+` in the order they were loaded).
    pub source: String,
}
