//! Arguments of `litindex postings`.

use std::path::PathBuf;

use clap::Args;

use super::Format;

#[derive(Debug, Args)]
pub struct PostingsArgs {
    /// The term (analysed as the index's text was: one token)
    #[arg(required_unless_present = "decoded_for")]
    pub term: Option<String>,
    /// How many postings to list (0: all); the blocks are always all listed
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
    /// Instead of a term: for each query of FILE (one a line), how many of its
    /// terms' postings the block-max top-k search decoded
    #[arg(long, value_name = "FILE", conflicts_with = "term")]
    pub decoded_for: Option<PathBuf>,
    /// The k of the top-k search that --decoded-for runs
    #[arg(long, default_value_t = 10, value_name = "K", requires = "decoded_for")]
    pub k: usize,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}
