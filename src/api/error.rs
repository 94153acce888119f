//! The errors a caller's mistake gives, one type per kind, so that each
//! surface maps them the same way: the CLI exits 2 for a [`BadRequest`]
//! (1 for an [`UnknownPaper`], as it always has), MCP answers a tool error
//! (`isError: true`), the web page a 400 or 404 page in plain words.
//! Anything else is the index's or the machine's fault (exit 1, a 500).

use std::fmt;
use std::path::PathBuf;

/// The caller's request is bad: a value out of range, a malformed query or
/// cursor, a text too long. The message names the value and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest(pub String);

impl fmt::Display for BadRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadRequest {}

/// The request names a paper the index does not hold. `Display` names the
/// index file (the CLI's message); a web page shows [`UnknownPaper::plain`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPaper {
    /// The id as the caller gave it.
    pub input: String,
    /// The index it was looked up in.
    pub index: PathBuf,
}

impl UnknownPaper {
    /// The message without the index's path: "no paper `x` in this index".
    pub fn plain(&self) -> String {
        format!("no paper `{}` in this index", clip(&self.input))
    }
}

impl fmt::Display for UnknownPaper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown paper id `{}` in {}", clip(&self.input), self.index.display())
    }
}

impl std::error::Error for UnknownPaper {}

/// A value shown in a message, cut at 200 characters (a 1 MB id stays a line).
pub fn clip(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() > MAX { format!("{}…", s.chars().take(MAX).collect::<String>()) } else { s.to_string() }
}
