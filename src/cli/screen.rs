//! `litindex screen …`: reviews, decisions and the active-learning order.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct ScreenArgs {
    #[command(subcommand)]
    pub action: ScreenAction,
}

#[derive(Debug, Subcommand)]
pub enum ScreenAction {
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
    /// The SVM's cost C
    #[arg(long, default_value_t = litindex::screen::SvmParams::default().c)]
    pub c: f64,
    /// The cap on the included class's weight over the excluded's
    #[arg(long, default_value_t = litindex::screen::SvmParams::default().max_ratio)]
    pub max_ratio: f64,
}
