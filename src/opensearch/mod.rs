//! The same index and the same two-pass search on an OpenSearch cluster.
//!
//! * [`mapping`]: the index definition (settings + mappings) that reproduces
//!   litindex's scoring — a `BM25` similarity with the index's `k1` and `b`,
//!   a custom analyzer per litindex analyzer, `title + " " + abstract` as one
//!   field — and the check that a cluster's index still matches it.
//! * [`bulk`]: `export --format opensearch`: that definition and the papers
//!   as `_bulk` NDJSON files split by size, and their upload.
//! * [`client`]: a blocking ureq client for one cluster: timeouts, retries on
//!   connection errors and 429/503, errors that carry the server's reason.
//! * [`backend`]: `search --backend opensearch://HOST:PORT/INDEX`: the first
//!   stage is a query on the cluster, the walk is `terms` queries on
//!   `references` hop by hop ([`backend::RemoteAdjacency`], a
//!   [`crate::graph::Adjacency`]), and the merge and explained ranking are
//!   litindex's own ([`crate::search::rank`]'s formulas).
//!
//! Lucene's BM25 leaves out BM25's `(k1 + 1)` factor; the backend multiplies
//! it back, so scores are on litindex's scale. Lucene stores a document's
//! length in one byte (lossy above 40 terms), so scores differ slightly:
//! docs/DISTRIBUTED.md has the measured difference.

pub mod backend;
pub mod bulk;
pub mod client;
pub mod mapping;

pub use backend::{Backend, RemoteAdjacency};
pub use bulk::{ExportSummary, LoadSummary, export, load};
pub use client::{Client, Target};
