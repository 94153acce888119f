//! The arguments of `litindex fetch`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::NewIndexArgs;

/// Which links `--expand` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExpandChoice {
    /// What the fetched papers cite
    References,
    /// What cites them
    Citations,
    /// Both
    Both,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Paper ids: doi:10.…, arXiv:2101.00001, W2741809807 (OpenAlex), CorpusId:123, an S2 paper sha
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// A file of ids, one per line (blank lines and lines starting with # are skipped),
    /// or a BibTeX library (`.bib`, or starting with `@`): the DOI or arXiv id of each entry
    #[arg(long, value_name = "FILE")]
    pub ids_from: Option<PathBuf>,
    /// Fetch the ids `gaps --all` lists: the ones the index's papers cite most and it lacks
    /// (by the id itself or a DOI/arXiv alias the index knows for it; at most --limit of them)
    #[arg(long)]
    pub from_gaps: bool,
    /// OpenAlex works search (`search=`)
    #[arg(long, value_name = "QUERY")]
    pub openalex: Option<String>,
    /// OpenAlex works filter (`filter=`, their syntax: publication_year:2023,type:article)
    #[arg(long, value_name = "FILTER")]
    pub openalex_filter: Option<String>,
    /// Semantic Scholar paper search
    #[arg(long, value_name = "QUERY")]
    pub s2: Option<String>,
    /// arXiv search_query (their syntax: ti:attention AND cat:cs.CL)
    #[arg(long, value_name = "QUERY")]
    pub arxiv: Option<String>,
    /// Papers per search (and the most ids --from-gaps takes)
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    /// Snowball from what is fetched
    #[arg(long, value_enum, value_name = "WHICH")]
    pub expand: Option<ExpandChoice>,
    /// Snowball hops, 1 or 2
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2), requires = "expand")]
    pub depth: u8,
    /// The most papers requested per snowball hop
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..), requires = "expand")]
    pub expand_limit: u64,
    /// An e-mail address for OpenAlex's polite pool and the User-Agent
    #[arg(long, env = "LITINDEX_MAILTO", value_name = "EMAIL")]
    pub mailto: Option<String>,
    /// A Semantic Scholar API key (sent as x-api-key)
    #[arg(long, env = "S2_API_KEY", hide_env_values = true, value_name = "KEY")]
    pub s2_api_key: Option<String>,
    /// OpenAlex API base URL (a mirror, a proxy, a test server)
    #[arg(long, default_value = "https://api.openalex.org", value_name = "URL")]
    pub openalex_base: String,
    /// Semantic Scholar API base URL
    #[arg(long, default_value = "https://api.semanticscholar.org", value_name = "URL")]
    pub s2_base: String,
    /// arXiv API base URL
    #[arg(long, default_value = "https://export.arxiv.org", value_name = "URL")]
    pub arxiv_base: String,
    /// One interval between requests for every API, in ms, instead of each API's published limit
    #[arg(long, env = "LITINDEX_FETCH_MIN_INTERVAL_MS", value_name = "MS")]
    pub min_interval_ms: Option<u64>,
    /// Timeout of one request (connect, send, answer), in seconds
    #[arg(long, default_value_t = 30.0, value_parser = positive_secs, value_name = "SECS")]
    pub timeout: f64,
    /// Retries of a request after a 429, a 5xx, a timeout or a failed connection
    #[arg(long, default_value_t = 5)]
    pub retries: u32,
    /// The first backoff between retries, in ms (doubled each time, plus jitter, at most 60 s)
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub backoff_ms: u64,
    /// Ask the APIs again for pages the cache already has
    #[arg(long)]
    pub refresh: bool,
    /// Ask again for cached pages older than this many days (default: cached pages never go stale)
    #[arg(long, value_name = "DAYS", value_parser = non_negative_days)]
    pub max_age_days: Option<f64>,
    /// Skip malformed records of an answer (counted, and named on stderr) instead of stopping the fetch
    #[arg(long)]
    pub skip_invalid: bool,
    /// Print the first request of each search and id batch, and fetch nothing
    #[arg(long)]
    pub dry_run: bool,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub index: NewIndexArgs,
}

fn non_negative_days(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("invalid value '{s}' for '--max-age-days <DAYS>': expected a number of days, 0 or more")),
    }
}

fn positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("invalid value '{s}' for '--timeout <SECS>': expected a positive number of seconds")),
    }
}
