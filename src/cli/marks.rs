//! Arguments of `mark`, `unmark`, `marks` and `watch`, and the feedback flags of `search` and `eval`.

use clap::{Args, Parser, Subcommand, ValueEnum};

use litindex::search::FeedbackParams;
use litindex::store::Label;

use super::{Format, SearchOpts, chosen, named};

#[derive(Debug, Args)]
pub struct MarkArgs {
    /// Paper ids (the index's, or any alias it knows: DOI, arXiv id, …), then the label:
    /// favorite, exclude, to-read or read (the label may be left out when --tag is given)
    #[arg(required = true, value_name = "ID... LABEL")]
    pub args: Vec<String>,
    /// A note kept with the label (replaces the label's earlier note)
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// A free tag to add (repeatable)
    #[arg(long, value_name = "NAME")]
    pub tag: Vec<String>,
    /// Keep marks of ids the index does not hold (listed by `marks --dangling`) instead of failing
    #[arg(long)]
    pub allow_missing: bool,
}

#[derive(Debug, Args)]
pub struct UnmarkArgs {
    /// Paper ids, then optionally the one label to remove (every label when left out)
    #[arg(required = true, value_name = "ID... [LABEL]")]
    pub args: Vec<String>,
    /// Remove this tag instead of labels (repeatable)
    #[arg(long, value_name = "NAME")]
    pub tag: Vec<String>,
}

/// Output formats of `marks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum MarksFormat {
    #[default]
    Table,
    Json,
    /// The favorites as TREC qrels (`QID 0 ID 1`) for the query id of --query-id, for `eval --qrels`
    Qrels,
}

#[derive(Debug, Args)]
pub struct MarksArgs {
    /// Only papers with this label
    #[arg(long, value_parser = chosen::<Label>())]
    pub label: Option<Label>,
    /// Only papers with this tag
    #[arg(long, value_name = "NAME")]
    pub tag: Option<String>,
    /// Only marks whose id names no paper of the index
    #[arg(long)]
    pub dangling: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: MarksFormat,
    /// The query id of the qrels lines (--format qrels)
    #[arg(long, value_name = "QID")]
    pub query_id: Option<String>,
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Switch {
    #[default]
    On,
    Off,
}

/// How favorites feed the ranking (`search`, `watch`, and `eval --feedback`).
#[derive(Debug, Clone, Args)]
pub struct FeedbackOpts {
    /// How many expansion terms the favorites give (0: no expansion)
    #[arg(long, default_value_t = FeedbackParams::default().terms, value_name = "N")]
    pub feedback_terms: usize,
    /// Weight of the favorites' expansion against the query's own BM25
    #[arg(long, default_value_t = FeedbackParams::default().beta, value_name = "F")]
    pub feedback_beta: f64,
    /// Whether the favorites also seed the citation walk
    #[arg(long, default_value = "on", value_parser = named::<Switch>("switch"))]
    pub feedback_walk: Switch,
    /// Added to the final score times the by-hops graph score of a paper's distance from the nearest favorite
    #[arg(long, default_value_t = FeedbackParams::default().near, value_name = "F")]
    pub feedback_near: f64,
}

impl FeedbackOpts {
    pub fn params(&self) -> FeedbackParams {
        FeedbackParams {
            terms: self.feedback_terms,
            beta: self.feedback_beta,
            seed: self.feedback_walk == Switch::On,
            near: self.feedback_near,
        }
    }
}

/// The marks' flags of `search` (and of a saved search).
#[derive(Debug, Clone, Args)]
pub struct MarkedSearchOpts {
    /// Let the index's favorites feed the ranking (query expansion and walk seeds): on by default when it has any
    #[arg(long, default_value = "on", value_parser = named::<Switch>("switch"))]
    pub feedback: Switch,
    /// Show papers marked `exclude` too, flagged
    #[arg(long)]
    pub show_excluded: bool,
    #[command(flatten)]
    pub tuning: FeedbackOpts,
}

/// What `eval --feedback` simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum EvalFeedback {
    /// No feedback
    #[default]
    Off,
    /// Mark the best-ranked relevant paper of the top 10 as favorite, score the rest (residual ranking)
    FirstRelevant,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WatchArgs {
    #[command(subcommand)]
    pub action: Option<WatchAction>,
    /// Check only this saved search (every one when left out)
    pub name: Option<String>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum WatchAction {
    /// Save a search: NAME, the query, then any `search` flags (--top-k, --mode, --limit, …)
    Add {
        /// The saved search's name
        name: String,
        /// What it looks for, as `search QUERY` takes it
        query: String,
        /// `search` flags, kept as given and applied at every check (everything after QUERY; --db goes before `watch`)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "SEARCH FLAGS")]
        flags: Vec<String>,
    },
    /// List the saved searches
    List {
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Remove a saved search
    Rm { name: String },
}

/// The search flags a saved search keeps, parsed again at each check.
#[derive(Debug, Parser)]
#[command(name = "watch add NAME QUERY", no_binary_name = true)]
pub struct WatchFlags {
    #[command(flatten)]
    pub search: SearchOpts,
    #[command(flatten)]
    pub marks: MarkedSearchOpts,
    /// How many hits each check compares
    #[arg(long, default_value_t = litindex::search::DEFAULT_LIMIT)]
    pub limit: usize,
}
