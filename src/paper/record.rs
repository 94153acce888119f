//! What a format parser yields: a source's record of one paper, or a bare
//! citation link (graph-only formats); and what the index says about them.

use serde::{Deserialize, Serialize};

use crate::paper::PaperId;

/// Text precedence of a source: lower wins. arXiv > Semantic Scholar >
/// OpenAlex > BEIR / Paper > a PDF's own text (`pdf`, the weakest: a
/// metadata record's fields keep precedence over what a PDF printed).
pub(crate) fn text_rank(source: &str) -> u8 {
    match source {
        "arxiv" => 0,
        "s2" | "s2-papers" | "s2-abstracts" => 1,
        "openalex" => 2,
        "pdf" => 4,
        _ => 3,
    }
}

/// One source's description of one paper.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Record {
    /// The source's name: `arxiv`, `s2`, `s2-papers`, `s2-abstracts`,
    /// `openalex`, `beir` or `paper`; the first half of the record's key
    /// `(source, source_id)`, and what decides text precedence.
    pub source: String,
    /// The record's id in its source; `(source, source_id.key())` is the key
    /// that a re-ingest of the same record replaces.
    pub source_id: PaperId,
    /// Every other id the record carries (DOI, arXiv id, CorpusId, …).
    pub ids: Vec<PaperId>,
    pub title: String,
    #[serde(rename = "abstract")]
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// Papers this one cites.
    pub references: Vec<PaperId>,
    /// Papers that cite this one.
    pub citations: Vec<PaperId>,
    /// The highest arXiv version the record names.
    pub arxiv_version: Option<u32>,
    /// Where the paper was published, when the source says (journal,
    /// conference); absent from records stored before schema 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
}

impl Record {
    /// The record's ids, its own first, without repeats.
    pub(crate) fn all_ids(&self) -> Vec<PaperId> {
        let mut v = vec![self.source_id.clone()];
        for id in &self.ids {
            if !v.contains(id) {
                v.push(id.clone());
            }
        }
        v
    }

    /// Its DOI, unless it is an arXiv DOI.
    pub fn doi(&self) -> Option<&str> {
        self.ids.iter().chain(std::iter::once(&self.source_id)).find_map(|id| match id {
            PaperId::Doi(d) => Some(d.as_str()),
            _ => None,
        })
    }
}

/// A citation from a graph-only source: `citing` cites `cited`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub citing: PaperId,
    pub cited: PaperId,
}

/// A record as the index holds it: the record and the input format it was
/// read in.
#[derive(Debug, Clone, PartialEq)]
pub struct Filed {
    pub record: Record,
    pub format: String,
}

/// A field on which two records of one paper give different non-empty values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    pub field: &'static str,
    /// The value kept, and the source it came from.
    pub kept: String,
    pub kept_source: String,
    /// The value passed over, and its source.
    pub other: String,
    pub other_source: String,
}

/// One thing read from an input file.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Record(Record),
    Link(Link),
}
