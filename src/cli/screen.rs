//! `litindex screen …`: reviews, decisions and the active-learning order.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{Format, SearchOpts};

#[derive(Debug, Args)]
pub struct ScreenArgs {
    #[command(subcommand)]
    pub action: ScreenAction,
}

#[derive(Debug, Subcommand)]
pub enum ScreenAction {
    /// Make a review: its candidates are the hits of --query (search flags apply), the ids of a file, a source's papers, or every paper
    New(ScreenNewArgs),
    /// Include or exclude a candidate (by the id given or any alias of its paper)
    Label(ScreenLabelArgs),
    /// Record the decisions of a CSV file (`id,label`; label include/exclude or 1/0): all of them or none
    Import(ScreenImportArgs),
    /// Write the decisions (csv), or the included papers (ris, bibtex)
    Export(ScreenExportArgs),
    /// The undecided candidates the model ranks highest, with why (terms, citations, vector similarity)
    Next(ScreenNextArgs),
    /// Screened, included, an estimate of the relevant left, and a stopping suggestion
    Status(ScreenStatusArgs),
    /// Run the screening protocol on a labelled review (SYNERGY's): a fresh index of its works, 1 included + 1 excluded prior per seed, then one record at a time; writes one order per seed
    Simulate(SimulateArgs),
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The review's works (OpenAlex JSON Lines, gzip or not; `referenced_works` become citation links)
    #[arg(long, value_name = "FILE")]
    pub works: PathBuf,
    /// The labels (`openalex_id,label_included` or `id,label`)
    #[arg(long, value_name = "FILE")]
    pub labels: PathBuf,
    /// Seeds: `1..5` (inclusive) or a comma list
    #[arg(long, default_value = "1..5")]
    pub seeds: String,
    /// Where the orders go: DIR/NAME_sSEED.txt (and the index, DIR/NAME.db)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The review's name in the file names (default: the labels file's folder)
    #[arg(long)]
    pub name: Option<String>,
    /// Take each seed's priors from the first two ids of this order file (`{seed}` replaced), e.g. ASReview's orders, instead of drawing them
    #[arg(long, value_name = "PATTERN")]
    pub priors_from: Option<String>,
    /// Weight of the text block (TF-IDF of title + abstract; 0 leaves it out)
    #[arg(long, default_value_t = litindex::screen::Weights::default().text)]
    pub text_weight: f32,
    /// Weight of the citation block (own node, references, citers)
    #[arg(long, default_value_t = litindex::screen::Weights::default().graph)]
    pub graph_weight: f32,
    /// Weight of the stored vectors, when the index has them
    #[arg(long, default_value_t = litindex::screen::Weights::default().vectors)]
    pub vector_weight: f32,
    /// Within the citation block, a direct link between two candidates over a shared reference or citer
    #[arg(long, default_value_t = litindex::screen::Weights::default().link)]
    pub link_weight: f32,
    /// The works' format (`paper` for `litindex gen`'s corpora, for timing)
    #[arg(long, value_parser = ["openalex", "paper"], default_value = "openalex")]
    pub works_format: String,
    /// Embed the fresh index with the model in DIR first, so the vectors block has vectors (see docs/SEMANTIC.md)
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// Stop after K proposals (timing on large sets; the order is then partial)
    #[arg(long, value_name = "K")]
    pub max_steps: Option<usize>,
    /// Print the time per retrain-and-propose step (mean, median, max) on stderr
    #[arg(long)]
    pub timings: bool,
    /// The SVM's cost C
    #[arg(long, default_value_t = litindex::screen::SvmParams::default().c)]
    pub c: f64,
    /// The cap on the included class's weight over the excluded's
    #[arg(long, default_value_t = litindex::screen::SvmParams::default().max_ratio)]
    pub max_ratio: f64,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("from").required(true).args(["query", "ids_from", "source", "all"]))]
pub struct ScreenNewArgs {
    /// The review's name
    pub name: String,
    /// Candidates: the hits of this search (the search flags apply; --limit caps them)
    #[arg(long)]
    pub query: Option<String>,
    /// Candidates: the ids in FILE, one per line (or the first column of a CSV with a header `id`); each must be in the index
    #[arg(long, value_name = "FILE")]
    pub ids_from: Option<PathBuf>,
    /// Candidates: every paper with a record from this source (e.g. openalex)
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// Candidates: every paper of the index
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub search: SearchOpts,
    /// How many hits of --query become candidates
    #[arg(long, default_value_t = 1000)]
    pub limit: usize,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// A screening decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Decision {
    Include,
    Exclude,
}

#[derive(Debug, Args)]
pub struct ScreenLabelArgs {
    /// The review
    pub name: String,
    /// The candidate: the id it was given, or any id or alias of its paper
    pub id: String,
    #[arg(value_enum)]
    pub decision: Decision,
    /// A note kept with the decision
    #[arg(long, default_value = "")]
    pub note: String,
    /// A reason tag (e.g. wrong-population)
    #[arg(long, default_value = "")]
    pub reason: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ScreenImportArgs {
    pub name: String,
    /// CSV with a header `id,label`
    pub file: PathBuf,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// What `screen export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScreenExportFormat {
    /// Every decision: given_id,paper_id,label,reason,note,decided_at
    Csv,
    /// The included papers as RIS
    Ris,
    /// The included papers as BibTeX
    Bibtex,
}

#[derive(Debug, Args)]
pub struct ScreenExportArgs {
    pub name: String,
    #[arg(long, value_enum)]
    pub format: ScreenExportFormat,
}

#[derive(Debug, Args)]
pub struct ScreenNextArgs {
    pub name: String,
    /// How many to propose
    #[arg(long, short, default_value_t = 1)]
    pub n: usize,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ScreenStatusArgs {
    pub name: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}
