//! A record that could not be read, located precisely.

use std::fmt;

/// A bad record: where it is and which field is to blame.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordError {
    /// `file:line`, or `file: path.to.item` inside a JSON document.
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
