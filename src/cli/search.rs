//! The retrieval flags shared by `search`, `eval` and `run`, and those commands' arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use litindex::embed::MODEL_DIR_ENV;
use litindex::graph::{Direction, FanOut};
use litindex::search::{
    DEFAULT_DENSE_K, DEFAULT_RERANK_WEIGHT, Filter, Fusion, GraphScore, Mode, SearchChoices, Weights, YearRange,
};

use super::{Format, chosen, hops_in, named};

/// The query language, as `search --help` shows it.
const QUERY_HELP: &str = "What to look for, in the query language:
  words            free text, ranked by BM25 (or the dense/hybrid first stage)
  +word            must appear (and is ranked as free text)
  -word            must not appear
  \"a phrase\"       must appear as a phrase (through the index's analyzer); -\"a phrase\" must not
  author:NAME      an author's surname or full name, case and accents ignored: author:\"van der Berg\"
  year:2019..2023  also year:2020.. year:..2015 year:2020
  venue:NAME       words of the venue (journal, conference)
  id:PREFIX        papers whose id starts with PREFIX
A + or - before a digit is text (-2, +3, -0.5), as is a - inside a word (COVID-19); --literal takes
the whole query as free text. The filters a query produced are echoed on stderr (`query: …`).
Filters decide which papers are ranked and shown; the citation walk still passes through the others.
A query of filters only lists the newest papers that pass.
Example: litindex search 'sparse attention +window -dense year:2021..'";

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for: words, +must, -not, "phrase", author:, year:, venue:, id: (see --help)
    #[arg(long_help = QUERY_HELP)]
    pub query: String,
    #[command(flatten)]
    pub search: SearchOpts,
    /// How many hits to print (the pool covers --offset + --limit, so every match up to it is listed)
    #[arg(long, default_value_t = litindex::search::DEFAULT_LIMIT)]
    pub limit: usize,
    /// Skip this many ranked hits first: the next page is --offset LIMIT
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Take the whole query as free text: no operators, no filters
    #[arg(long)]
    pub literal: bool,
    /// List passages of the PDFs' full text instead of papers: paper, section, pages, the passage with the query's words marked, its BM25 (the query is plain words); with --mode dense|hybrid, by the passage vectors of `embed --passages`
    #[arg(long)]
    pub passages: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub marks: super::MarkedSearchOpts,
    #[command(flatten)]
    pub backend: super::BackendOpts,
}

/// The retrieval flags shared by `search`, `eval` and `run`.
#[derive(Debug, Clone, Args)]
pub struct SearchOpts {
    /// How many BM25 hits seed the citation walk [default: 10, or the graph-score mode's]
    #[arg(long)]
    pub top_k: Option<usize>,
    /// How many citation hops to walk from the seeds, 0-2 [default: 2, or the mode's]
    #[arg(long, value_parser = search_hops)]
    pub hops: Option<u32>,
    /// Which way to follow citations
    #[arg(long, default_value = "both", value_parser = chosen::<Direction>())]
    pub direction: Direction,
    /// How many of one paper's references, and of its citers, the walk follows at most: a number, or `all` (a hub's cut is named under the hits it brought: `reached via 1 of 4,213 citers of ID`)
    #[arg(long, default_value = "100", value_parser = parse_fan_out, value_name = "N|all")]
    pub fan_out: FanOut,
    /// Weights of BM25, graph and recency in the final score, as B,G,R [default: 0.5,0.3,0.2, or the mode's]
    #[arg(long, value_parser = parse_weights, allow_hyphen_values = true)]
    pub weights: Option<Weights>,
    /// How many top BM25 papers join the merge besides the seeds and what the walk reaches [default: the largest of --top-k, the graph-score mode's pool, and --offset + --limit rounded up to a hundred]
    #[arg(long)]
    pub pool: Option<usize>,
    /// How a reached paper's graph score is computed: `by-hops` (1/0.6/0.3 by hops; also called `lesson`) or `weighted` (by the BM25 evidence of the seeds that reach it) [default: weighted when the index holds citation links, else by-hops]
    #[arg(long, value_parser = chosen::<GraphScore>())]
    pub graph_score: Option<GraphScore>,
    /// First stage: `bm25`, `dense` (cosine over the vectors of `litindex embed`) or `hybrid` (both, fused) [default: hybrid when the index holds vectors for the configured model, else bm25]
    #[arg(long, value_parser = chosen::<Mode>())]
    pub mode: Option<Mode>,
    /// Depth of the dense list, and of the BM25 list hybrid fuses it with
    #[arg(long, default_value_t = DEFAULT_DENSE_K)]
    pub dense_k: usize,
    /// How hybrid fuses the two lists: `minmax` (0.5·BM25 + 0.5·cosine, each min-max normalised; the better measured on SciFact and CACM) or `rrf` (reciprocal rank, k = 60)
    #[arg(long, default_value = "minmax", value_parser = chosen::<Fusion>())]
    pub fusion: Fusion,
    /// Rescore the first N of the dense or hybrid list by their best-matching chunk (needs `embed --chunks`; 0: off)
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub rerank: usize,
    /// Weight of the best chunk's cosine in a reranked score, 0-1
    #[arg(long, default_value_t = DEFAULT_RERANK_WEIGHT, value_name = "F")]
    pub rerank_weight: f64,
    /// The embedding model for dense and hybrid queries [default: the one `litindex embed` recorded]
    #[arg(long, env = MODEL_DIR_ENV, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// Only papers whose title or abstract holds this word or phrase (repeatable; like `+word`)
    #[arg(long, value_name = "WORDS", value_parser = not_blank("--must"))]
    pub must: Vec<String>,
    /// Only papers whose title and abstract lack this word or phrase (repeatable; like `-word`)
    #[arg(long = "not", value_name = "WORDS", value_parser = not_blank("--not"))]
    pub must_not: Vec<String>,
    /// Only papers with this author: surname or full name, case and accents ignored (repeatable)
    #[arg(long, value_name = "NAME", value_parser = not_blank("--author"))]
    pub author: Vec<String>,
    /// Only papers of these years: 2019..2023, 2020.., ..2015 or 2020
    #[arg(long, value_name = "RANGE", value_parser = parse_years, allow_hyphen_values = true)]
    pub year: Option<YearRange>,
    /// Only papers whose venue holds these words (repeatable)
    #[arg(long, value_name = "NAME", value_parser = not_blank("--venue"))]
    pub venue: Vec<String>,
}

impl SearchOpts {
    /// The user's choices for a search of `query`, showing `limit` hits
    /// after `offset`; what the flags leave open is
    /// [`litindex::search::resolve`]'s to fill. `literal`: the whole query is
    /// free text, else it is read in the query language.
    pub fn choices(&self, query: &str, limit: usize, offset: usize, literal: bool) -> SearchChoices {
        SearchChoices {
            query: query.to_string(),
            literal,
            top_k: self.top_k,
            hops: self.hops,
            direction: Some(self.direction),
            fan_out: Some(self.fan_out),
            weights: self.weights,
            pool: self.pool,
            graph_score: self.graph_score,
            mode: self.mode,
            dense_k: Some(self.dense_k),
            fusion: Some(self.fusion),
            rerank: self.rerank,
            rerank_weight: Some(self.rerank_weight),
            model_dir: self.model_dir.clone(),
            limit: Some(limit),
            offset,
            filter: self.filter(),
        }
    }

    /// The filter of the flags (`--must`, `--not`, `--author`, `--year`, `--venue`).
    pub fn filter(&self) -> Filter {
        Filter {
            must: self.must.clone(),
            must_not: self.must_not.clone(),
            authors: self.author.clone(),
            years: self.year,
            venues: self.venue.clone(),
            id_prefixes: Vec::new(),
        }
    }
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Queries: BEIR queries.jsonl (`_id`, `text`)
    #[arg(long, value_name = "FILE")]
    pub queries: PathBuf,
    /// Judgments: TSV query-id, corpus-id, score (header optional)
    #[arg(long, value_name = "FILE")]
    pub qrels: PathBuf,
    /// Metrics to report (default all): ndcg@10, recall@100, mrr@10, map@100
    #[arg(long, value_delimiter = ',')]
    pub metrics: Vec<String>,
    /// Also report every query's metrics
    #[arg(long)]
    pub per_query: bool,
    /// Read each query in the query language (`+word`, `author:`, `year:`, …), as `search` does;
    /// off by default, since judged query files hold quotes, `+` and `-` that are text
    #[arg(long)]
    pub query_syntax: bool,
    #[command(flatten)]
    pub search: SearchOpts,
    /// How deep each ranking is evaluated
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Simulated feedback: `first-relevant` scores the residual ranking after marking the best-ranked relevant paper of the top 10 as favorite, with and without feedback
    #[arg(long, default_value = "off", value_parser = named::<super::EvalFeedback>("feedback"))]
    pub feedback: super::EvalFeedback,
    #[command(flatten)]
    pub feedback_tuning: super::FeedbackOpts,
    /// Queries ranked at once, each on its own connection to the index (default: the machine's
    /// cores); the figures are the same whatever the number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub backend: super::BackendOpts,
}

/// Output formats of `run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum RunFormat {
    /// TREC run lines: qid Q0 docid rank score tag
    #[default]
    Trec,
    /// One JSON object per query
    Jsonl,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Queries: BEIR queries.jsonl (`_id`, `text`)
    #[arg(long, value_name = "FILE")]
    pub queries: PathBuf,
    #[arg(long, value_enum, default_value_t)]
    pub format: RunFormat,
    /// The run's name, the last column of a TREC run
    #[arg(long, default_value = "litindex")]
    pub run_tag: String,
    /// Read each query in the query language (`+word`, `author:`, `year:`, …), as `search` does;
    /// off by default, since judged query files hold quotes, `+` and `-` that are text
    #[arg(long)]
    pub query_syntax: bool,
    #[command(flatten)]
    pub search: SearchOpts,
    /// How many results per query
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Queries ranked at once, each on its own connection to the index (default: the machine's
    /// cores); the run is the same whatever the number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub backend: super::BackendOpts,
}

// clap value parsers: the error text is ours, clap adds the flag name.
fn parse_years(s: &str) -> Result<YearRange, String> {
    YearRange::parse(s)
}

/// A flag value that must have some text.
fn not_blank(flag: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone + Send + Sync + 'static {
    move |s| {
        if s.trim().is_empty() { Err(format!("{flag} needs a value")) } else { Ok(s.trim().to_string()) }
    }
}
fn parse_weights(s: &str) -> Result<Weights, String> {
    s.parse().map_err(|e: anyhow::Error| e.to_string())
}

/// `--hops` of a search: 0 to `MAX_SEARCH_HOPS`.
fn search_hops(s: &str) -> Result<u32, String> {
    hops_in(s, litindex::search::MAX_SEARCH_HOPS, "for search: use 0 to 2 (`litindex neighbors` walks further)")
}

/// `--fan-out`: a positive number, or `all`.
fn parse_fan_out(s: &str) -> Result<FanOut, String> {
    litindex::api::limits::fan_out(s).map_err(|e| e.0)
}
