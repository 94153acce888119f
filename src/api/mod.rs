//! The library's API for every surface: the typed requests the CLI, the MCP
//! server and the web page build, the functions they call, and the three
//! things they share, one type each: the limits ([`limits`]), paging
//! ([`Page`]) and the errors a caller's mistake gives ([`BadRequest`],
//! [`UnknownPaper`]).
//!
//! A surface turns its own input (flags, a tool's JSON arguments, a form)
//! into one of these requests and calls the function; it never builds a
//! command line, and nothing here opens a path a request names. A value that
//! starts with `-` is a value: only the binary's argv parser reads flags.

pub mod brief;
pub mod error;
pub mod limits;
pub mod marking;
pub mod neighbors;
pub mod paper;
pub mod passages;
pub mod resolve;
pub mod search;
pub mod why;
#[cfg(test)]
mod why_tests;

pub use brief::{Brief, IndexDescription, PaperBatch, briefs, describe, paper_batch};
pub use error::{BadRequest, UnknownPaper};
pub use limits::Page;
pub use marking::{MarkRequest, Marked, UnmarkRequest, mark, unmark};
pub use neighbors::{Neighborhood, NeighborsRequest, Node, WalkEngine, neighbors};
pub use paper::{PaperDetails, paper};
pub use passages::{PassageResult, PassageSearch, get_passage, paper_text, search_passages};
pub use resolve::{marked, resolve_distinct, resolve_each};
pub use search::{SearchOptions, parse_mode, run_search};
pub use why::{CitedInContext, Why, WhyRequest, WhyVerdict, cited_in_context, why};
