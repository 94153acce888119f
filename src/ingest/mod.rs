//! Getting papers into the index: `build` from whole sources, and
//! incremental `ingest` of real export files with id reconciliation.
//!
//! Both file records through one [`engine::Ingester`], which keeps the BM25
//! statistics exact, so an index grown by increments scores exactly like one
//! built in one go.

pub mod build;
pub mod engine;
pub mod files;
pub mod formats;
pub mod ids;
pub mod record;
pub mod title;

pub use build::{build_index, union_sources};
pub use engine::{IngestReport, Ingester};
pub use files::{ingest_files, IngestOptions, IngestSummary};
