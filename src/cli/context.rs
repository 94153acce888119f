//! Arguments of the grounded-answer commands: `context`, `verify-citations`, `eval-citations`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{Format, MarkedSearchOpts, SearchOpts};

/// `context --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PackFormat {
    /// The pack to paste into a chat: instructions, then the numbered sources
    #[default]
    Markdown,
    /// The pack's sources for programs (what `verify-citations --context` reads best)
    Json,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The question (the query language of `search` applies)
    pub question: String,
    /// How many sources at most (the first hits of the search)
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub k: u64,
    /// Keep the pack within this many estimated tokens (characters / 4), dropping whole sources from the end
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub budget_tokens: Option<u64>,
    #[arg(long, value_enum, default_value_t)]
    pub format: PackFormat,
    #[command(flatten)]
    pub search: SearchOpts,
    #[command(flatten)]
    pub marks: MarkedSearchOpts,
}

#[derive(Debug, Args)]
pub struct VerifyCitationsArgs {
    /// The answer to check (Markdown or plain text), citing sources as [n]
    #[arg(value_name = "ANSWER_FILE")]
    pub answer: PathBuf,
    /// The pack the answer cites: the output of `litindex context` (JSON or Markdown)
    #[arg(long, value_name = "PACK")]
    pub context: PathBuf,
    /// The score at or above which a citation is supported (default: the tuned one)
    #[arg(long)]
    pub threshold: Option<f64>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct EvalCitationsArgs {
    /// SciFact claims with evidence (claims_dev.jsonl or claims_train.jsonl)
    #[arg(long, value_name = "FILE")]
    pub claims: PathBuf,
    /// The abstracts as sentence lists (corpus_sentences.jsonl.gz): the pool of random citations
    #[arg(long, value_name = "FILE")]
    pub sentences: PathBuf,
    /// Choose the weights and threshold on these claims (keeping --target-gold of the gold citations supported)
    #[arg(long)]
    pub tune: bool,
    /// With --tune: keep the given (or default) weights and choose the threshold only
    #[arg(long, requires = "tune")]
    pub only_given_weights: bool,
    /// With --tune: the share of gold citations the threshold keeps supported
    #[arg(long, default_value_t = 0.85)]
    pub target_gold: f64,
    /// Seed of the random citations
    #[arg(long, default_value_t = 14)]
    pub seed: u64,
    /// Weights and threshold (default: the tuned ones)
    #[arg(long)]
    pub w_ratio: Option<f64>,
    #[arg(long)]
    pub w_sentence: Option<f64>,
    #[arg(long)]
    pub w_paper: Option<f64>,
    #[arg(long)]
    pub w_bigram: Option<f64>,
    #[arg(long)]
    pub threshold: Option<f64>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}
