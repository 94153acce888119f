//! Where paper records come from, and how records of the same paper are unioned.
//!
//! Every source implements [`Source`] and yields `Result<Paper, RecordError>`,
//! so a bad record is reported with its file and line. The [`Union`] merges
//! records on their id by one documented precedence.

pub(crate) mod jsonl;
mod mock;
mod union;

pub use jsonl::JsonlFile;
pub use mock::{mock_topics, ArxivMock, MockTopic, SemanticScholarMock};
pub use union::{Disagreement, Union};

use std::fmt;

use crate::paper::Paper;

/// A supplier of paper records. A real endpoint can replace a mock without
/// touching callers.
pub trait Source {
    /// A short name, stored as the record's `source` and used in messages.
    fn name(&self) -> String;

    /// The records, in a deterministic order. A source that cannot be opened
    /// at all fails here; a bad record is an `Err` item.
    fn records(&self) -> anyhow::Result<Box<dyn Iterator<Item = Result<Paper, RecordError>> + '_>>;
}

/// A record that could not be read, located precisely.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordError {
    /// `file:line`, or the source name for sources without lines.
    pub location: String,
    /// The offending field, when one is to blame.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: field `{}`: {}", self.location, field, self.message),
            None => write!(f, "{}: {}", self.location, self.message),
        }
    }
}

impl std::error::Error for RecordError {}
