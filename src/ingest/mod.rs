//! Getting papers into the index: one reader stack ([`formats`]: the
//! built-in corpus and every file format) and one engine ([`engine`]), for
//! `build` (a new index) and `ingest` (increments) alike. The engine keeps
//! the BM25 statistics exact, so an index grown by increments scores
//! exactly like one built in one go.

mod ahead;
pub(crate) mod derive;
pub(crate) mod engine;
mod files;
pub(crate) mod formats;
pub mod pdf;
pub(crate) mod zotero;

pub use engine::IngestReport;
pub use files::{IngestOptions, IngestSummary, Input, Progress, build, ingest};
pub use formats::InputFormat;
pub use formats::bibtex_fetchable_ids;
#[doc(hidden)]
pub use formats::read_all as read_all_for_fuzzing;
pub use zotero::ZoteroSummary;
