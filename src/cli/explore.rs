//! Arguments of the explore commands: `related`, `gaps`, `eval-evidence`.

use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueEnum};

use super::{Format, chosen};
use litindex::store::Label;

#[derive(Debug, Args)]
pub struct RelatedArgs {
    /// Seed papers: ids or any alias `paper` accepts (a set is scored as a whole)
    #[arg(required_unless_present = "from_marks", value_name = "ID")]
    pub ids: Vec<String>,
    /// Add the papers marked LABEL (a reading list: favorite, to-read, …) to the seeds
    #[arg(long, value_name = "LABEL", value_parser = chosen::<Label>())]
    pub from_marks: Option<Label>,
    /// Similarity: co-citation, bibliographic coupling, text (BM25 more-like-this) or both (graph and text)
    #[arg(long, value_enum, default_value_t)]
    pub method: RelatedMethod,
    /// How many papers to list
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `related --method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum RelatedMethod {
    /// Cited together with the seeds by the same papers (Salton's cosine)
    Cocitation,
    /// Citing the same papers as the seeds (Salton's cosine)
    Coupling,
    /// Co-citation, coupling and text combined
    #[default]
    Both,
    /// BM25 more-like-this from the seeds' own title and abstract
    Text,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("scope").required(true).args(["from", "all", "from_marks", "source"])))]
pub struct GapsArgs {
    /// Papers whose references to look at (ids or aliases)
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub from: Vec<String>,
    /// Look at the references of every paper in the index
    #[arg(long)]
    pub all: bool,
    /// Look at the references of the papers marked LABEL (favorite, to-read, …)
    #[arg(long, value_name = "LABEL", value_parser = chosen::<Label>())]
    pub from_marks: Option<Label>,
    /// Look at the references of the papers with a record from SOURCE (bibtex, csl-json, ris, openalex, …)
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<String>,
    /// How many missing ids to list
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct EvalEvidenceArgs {
    /// SciFact claims with rationales (claims_dev.jsonl or claims_train.jsonl)
    #[arg(long, value_name = "FILE")]
    pub claims: PathBuf,
    /// The abstracts as sentence lists (corpus_sentences.jsonl.gz)
    #[arg(long, value_name = "FILE")]
    pub sentences: PathBuf,
    /// A sentence-transformers model directory: add each sentence's cosine with the claim
    /// (only when given here: LITINDEX_MODEL_DIR is not read, so the default figures stay BM25's)
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// Weight of the sentence cosine (tuning)
    #[arg(long, hide = true)]
    pub semantic: Option<f64>,
    /// Weight of the neighbouring sentences' BM25 (tuning)
    #[arg(long, hide = true)]
    pub context: Option<f64>,
    /// Weight of the position prior (tuning)
    #[arg(long, hide = true)]
    pub position: Option<f64>,
    /// Weight of the query-term coverage (tuning)
    #[arg(long, hide = true)]
    pub coverage: Option<f64>,
    /// Sentence BM25 k1 (tuning)
    #[arg(long, hide = true)]
    pub k1: Option<f64>,
    /// Sentence BM25 b (tuning)
    #[arg(long, hide = true)]
    pub b: Option<f64>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}
