//! The flags of the OpenSearch backend: `--backend` on `search`, `run` and
//! `eval`, and what `export --format opensearch` takes besides `-o DIR`.

use clap::Args;

use litindex::opensearch::{Scoring, Target};

use super::listed;

/// Where `search`, `run` and `eval` read the index from instead of the local file.
#[derive(Debug, Clone, Args)]
pub struct BackendOpts {
    /// Search an index on OpenSearch (made by `export --format opensearch`) instead of the local file
    #[arg(long, value_name = "opensearch://HOST:PORT/INDEX", value_parser = parse_target)]
    pub backend: Option<Target>,
    /// Whose BM25 the backend ranks by: `exact` (litindex's, from the cluster's statistics and term vectors) or `lucene` (Lucene's score × (k1+1), document lengths rounded)
    #[arg(long, value_parser = listed::<Scoring>(), default_value_t, requires = "backend")]
    pub backend_scores: Scoring,
    /// Seconds each request to the backend may take
    #[arg(long, default_value_t = 30, value_name = "S", requires = "backend")]
    pub backend_timeout: u64,
}

/// `export --format opensearch`'s own flags.
#[derive(Debug, Clone, Args)]
pub struct OpensearchExportOpts {
    /// The OpenSearch index name the bulk files address (with --format opensearch)
    #[arg(long, default_value = "litindex", value_parser = parse_index)]
    pub index: String,
    /// Largest bulk file, in MiB (with --format opensearch; a paper is never split)
    #[arg(long, default_value_t = 8, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub bulk_mib: u64,
    /// Primary shards of the index (with --format opensearch; 1 keeps BM25's statistics exact)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub shards: u32,
    /// After writing, create the index on this cluster and load the bulk files (HOST:PORT)
    #[arg(long, value_name = "HOST:PORT")]
    pub upload: Option<String>,
}

fn parse_target(s: &str) -> Result<Target, String> {
    s.parse().map_err(|e: anyhow::Error| e.to_string())
}

fn parse_index(s: &str) -> Result<String, String> {
    litindex::opensearch::client::check_index_name(s).map(|()| s.to_string()).map_err(|e| e.to_string())
}
