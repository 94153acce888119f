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
//!   `references` hop by hop ([`walk::RemoteAdjacency`], a
//!   [`crate::graph::Adjacency`]), and the merge and explained ranking are
//!   litindex's own: [`crate::search::rank`]'s one ranking over the
//!   backend's retriever, with [`crate::search::score`]'s formulas.
//!
//! * [`exact`]: litindex's exact BM25 from the cluster's statistics and term
//!   vectors: Lucene keeps a document's length in one lossy byte, so its
//!   scores (times the `(k1 + 1)` it leaves out) are close to litindex's but
//!   not equal; docs/DISTRIBUTED.md has both measured.

pub mod backend;
pub mod bulk;
pub mod client;
pub mod exact;
pub mod mapping;
pub mod walk;

pub use backend::{Backend, Scoring};
pub use bulk::{ExportSummary, LoadSummary, export, load};
pub use client::{Client, Target};
pub use walk::RemoteAdjacency;

// `--backend-scores` by name (the binary's flag parser reads this list).
impl crate::choice::Choice for Scoring {
    const WHAT: &'static str = "backend scores";
    fn all() -> &'static [Scoring] {
        &[Scoring::Exact, Scoring::Lucene]
    }
    fn keyword(self) -> &'static str {
        match self {
            Scoring::Exact => "exact",
            Scoring::Lucene => "lucene",
        }
    }
    fn help(self) -> &'static str {
        match self {
            Scoring::Exact => {
                "litindex's, recomputed from the cluster's exact statistics and term vectors ([`super::exact`]): the local index's scores"
            }
            Scoring::Lucene => {
                "Lucene's `_score` times (k1 + 1): one request fewer, but document lengths rounded to Lucene's one-byte norms"
            }
        }
    }
}

impl std::str::FromStr for Scoring {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Scoring> {
        crate::choice::parse(s)
    }
}

impl std::fmt::Display for Scoring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::choice::Choice::keyword(*self))
    }
}
