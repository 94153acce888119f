//! Command-line arguments (clap derive): the command enum and the small
//! commands' arguments here, a larger group's in a file of its own
//! (`search.rs`: the retrieval flags of `search`, `eval` and `run`).

mod context;
mod explore;
mod export;
mod fetch;
mod marks;
mod mcp;
mod opensearch;
mod postings;
mod screen;
mod search;
mod serve;

pub use context::*;
pub use explore::*;
pub use export::*;
pub use fetch::*;
pub use marks::*;
pub use mcp::*;
pub use opensearch::*;
pub use postings::*;
pub use screen::*;
pub use search::*;
pub use serve::*;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use litindex::analyzer::Analyzer;
use litindex::bm25::{DEFAULT_B, DEFAULT_K1};
use litindex::choice::{self, Choice};
use litindex::embed::{DEFAULT_EMBED_BATCH, MODEL_DIR_ENV};
use litindex::graph::Direction;

/// The database used when neither `--db` nor `LITINDEX_DB` names one.
pub const DEFAULT_DB: &str = "litindex.db";

/// A persistent local literature index: BM25 plus a citation-graph walk, in one SQLite file.
#[derive(Debug, Parser)]
#[command(name = "litindex", version, about, max_term_width = 100)]
pub struct Cli {
    /// The index file [default: litindex.db]
    #[arg(long, global = true, env = "LITINDEX_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// (Re)build the index from the given sources (the mock corpus when none is given)
    Build(BuildArgs),
    /// Add files to the index incrementally (creating it if absent)
    Ingest(IngestArgs),
    /// Search the index: BM25 hits plus what a citation walk from them reaches
    Search(SearchArgs),
    /// List the papers within some hops of an id in the citation graph
    Neighbors(NeighborsArgs),
    /// Show one paper
    Paper(PaperArgs),
    /// Show the sentences in which paper A cites B (from A's full text), with their pages
    Why(WhyArgs),
    /// Show what the index holds
    Stats(StatsArgs),
    /// List the merges made by title fallback or by a record bridging two papers
    Dupes(DupesArgs),
    /// Evaluate retrieval against judged queries (nDCG@10, Recall@100, MRR@10, MAP@100)
    Eval(EvalArgs),
    /// Answer every query of a file and print a TREC run (or JSON Lines)
    Run(RunArgs),
    /// Verify the index: SQLite integrity and litindex's own invariants
    Check(CheckArgs),
    /// Show a term's postings blocks and the postings they hold
    Postings(PostingsArgs),
    /// Write a synthetic corpus (Paper JSON Lines) to stdout
    Gen(GenArgs),
    /// Build and query an index from a corpus, timing everything (optionally against FTS5)
    Bench(BenchArgs),
    /// Embed every paper that has no vector yet for the model (for --mode dense and hybrid)
    Embed(EmbedArgs),
    /// Mark papers: favorite (feeds the ranking), exclude (never shown), to-read, read; or tag them
    Mark(MarkArgs),
    /// Remove marks (a label, every label, or tags) from papers
    Unmark(UnmarkArgs),
    /// List the marked papers (or the favorites as qrels)
    Marks(MarksArgs),
    /// Saved searches: `watch add NAME QUERY [flags]`, `watch list`, `watch rm NAME`; `watch [NAME]` shows what is new
    Watch(WatchArgs),
    /// Papers like the given ones: co-citation, bibliographic coupling and text similarity
    Related(RelatedArgs),
    /// Ids the given papers (or the whole index) cite most that are not in the index
    Gaps(GapsArgs),
    /// Measure the evidence sentences on SciFact's rationales (Hit@1, Hit@3)
    EvalEvidence(EvalEvidenceArgs),
    /// Fetch papers from OpenAlex, Semantic Scholar and arXiv into the index (cached, resumable)
    Fetch(FetchArgs),
    /// Export papers as BibTeX, CSL-JSON, RIS or Paper JSON Lines: the ids given, the hits of --query, or the whole index
    Export(ExportArgs),
    /// A numbered source pack for an LLM: instructions, then each hit's evidence sentences as [n]
    Context(ContextArgs),
    /// Check an answer's [n] citations against its pack (exit 1 if one points outside it)
    VerifyCitations(VerifyCitationsArgs),
    /// Measure the citation check on SciFact claims (gold, top wrong BM25 hit, random abstract)
    EvalCitations(EvalCitationsArgs),
    /// Screen a review's candidates: `screen new|label|import|export|next|status|simulate` (active learning on text, citations and vectors)
    Screen(ScreenArgs),
    /// Measure the PDF reader against a gold set (title, authors, abstract, sections, references, DOI, pages)
    EvalPdf(EvalPdfArgs),
    /// Serve a local web page: search with score bars and evidence, papers, their citation neighbourhood, marks
    Serve(ServeArgs),
    /// Serve the index to agents: a Model Context Protocol server over stdio (read-only unless --allow-writes)
    Mcp(McpArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one page per command with --out-dir
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct EvalPdfArgs {
    /// The gold annotations, one JSON object a paper (the dev set's gold.jsonl)
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The folder holding the gold papers' PDFs
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// A table for people
    #[default]
    Table,
    /// JSON for programs
    Json,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Include the built-in mock corpus (arXiv-like text plus Semantic-Scholar-like graph)
    #[arg(long)]
    pub mock: bool,
    /// A JSON Lines file of paper records (repeatable; gzip-compressed or not)
    #[arg(long, value_name = "FILE")]
    pub jsonl: Vec<PathBuf>,
    /// Skip malformed records (counted and listed) instead of failing the whole build
    #[arg(long)]
    pub skip_invalid: bool,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
    /// BM25 term-frequency saturation
    #[arg(long, default_value_t = DEFAULT_K1)]
    pub k1: f64,
    /// BM25 length normalisation, 0..=1
    #[arg(long, default_value_t = DEFAULT_B)]
    pub b: f64,
    /// Text analyzer: `english` (stemmed, stop words dropped; within 0.01 nDCG@10 of the best BM25 peer on seven unseen collections) or `plain` (the default before issue 22)
    #[arg(long, default_value = "english", value_parser = chosen::<Analyzer>())]
    pub analyzer: Analyzer,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Input files (gzip-compressed or not)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Input format: auto, paper, beir, arxiv-oai, arxiv-atom, s2, s2-papers, s2-abstracts, s2-citations, openalex, edges, bibtex, csl-json, ris, pdf, zotero (a zotero.sqlite or the Zotero data folder)
    #[arg(long, default_value = "auto", value_parser = parse_format)]
    pub format: FormatChoice,
    /// The paper a Semantic Scholar /references or /citations page belongs to
    #[arg(long, value_name = "ID")]
    pub paper: Option<String>,
    /// Zotero libraries: record the attachments (paths, found or missing) but do not read their PDFs
    #[arg(long)]
    pub no_attachments: bool,
    /// Skip malformed records (counted and listed) instead of failing the whole ingest
    #[arg(long)]
    pub skip_invalid: bool,
    /// The text encoding of BibTeX, RIS and CSL-JSON files (`utf-8`, `utf-16le`, `windows-1252`, `latin1`, `gbk`, `shift_jis`, … any WHATWG label); default: UTF-8 or UTF-16 by byte-order mark, else detected
    #[arg(long, value_name = "NAME", value_parser = parse_encoding)]
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub index: NewIndexArgs,
}

/// The settings of an index that `ingest` or `fetch` creates (ignored when it exists).
#[derive(Debug, Args)]
pub struct NewIndexArgs {
    /// Text analyzer, when this command creates the index: `english` or `plain` (an existing index keeps its own)
    #[arg(long, default_value = "english", value_parser = chosen::<Analyzer>())]
    pub analyzer: Analyzer,
    /// BM25 k1, when this command creates the index
    #[arg(long, default_value_t = DEFAULT_K1)]
    pub k1: f64,
    /// BM25 b, when this command creates the index
    #[arg(long, default_value_t = DEFAULT_B)]
    pub b: f64,
}

/// `--format auto` or one named format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatChoice {
    Auto,
    Named(litindex::ingest::InputFormat),
}

#[derive(Debug, Args)]
pub struct DupesArgs {
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// The sentence-transformers model directory [default: the one the last `embed` recorded]
    #[arg(long, env = MODEL_DIR_ENV, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// Papers per forward pass and per commit
    #[arg(long, default_value_t = DEFAULT_EMBED_BATCH, value_name = "N")]
    pub batch: usize,
    /// Also embed sentence-window chunks of each abstract (about 512 characters), for `--rerank`
    #[arg(long)]
    pub chunks: bool,
    /// Also embed every passage of the PDFs' full text (abstract, body, caption), for `search --passages --mode dense|hybrid`
    #[arg(long)]
    pub passages: bool,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// How many papers to write
    #[arg(long)]
    pub papers: u64,
    /// Random seed: the same seed gives the same corpus
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write a query set drawn from the same distribution to FILE, one per line
    #[arg(long, value_name = "FILE")]
    pub queries: Option<PathBuf>,
    /// How many queries to write with --queries
    #[arg(long, default_value_t = 200)]
    pub num_queries: usize,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Corpus: Paper JSON Lines (e.g. from `litindex gen`)
    #[arg(long, value_name = "FILE")]
    pub corpus: PathBuf,
    /// Queries, one per line
    #[arg(long, value_name = "FILE")]
    pub queries: PathBuf,
    #[arg(long, default_value = "plain", value_parser = chosen::<Analyzer>())]
    pub analyzer: Analyzer,
    /// Also measure peers on the same documents and queries: a list, e.g. `fts5,tantivy` (tantivy needs a build with `--features tantivy`)
    #[arg(long, value_enum, value_delimiter = ',')]
    pub peer: Vec<Peer>,
    /// tantivy's indexing threads, 1-8 (default: the machine's, at most 8)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=8))]
    pub tantivy_threads: Option<u16>,
    /// How many BM25 papers litindex's and tantivy's timed top-k keep (FTS5: 10 only)
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub top: u16,
    /// Where to build (default: a temporary directory, removed afterwards)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Time the queries over the index an earlier `bench --dir DIR` left there, without building
    #[arg(long, requires = "dir")]
    pub reuse: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Peers `bench` can measure against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Peer {
    /// SQLite FTS5 with bm25()
    Fts5,
    /// The tantivy crate's BM25 (a build with `--features tantivy`)
    Tantivy,
}

#[derive(Debug, Args)]
pub struct NeighborsArgs {
    /// A paper id or alias (arXiv id, DOI, CorpusId:N, OpenAlex W-id, S2 sha, in any usual spelling), or any id in the citation graph
    pub id: String,
    /// How many hops to walk (0-10)
    #[arg(long, default_value_t = 1, value_parser = neighbor_hops)]
    pub hops: u32,
    /// Which way to follow citations
    #[arg(long, default_value = "both", value_parser = chosen::<Direction>())]
    pub direction: Direction,
    /// The walk's engine: one recursive SQL query, or a breadth-first search in memory
    #[arg(long, value_enum, default_value_t)]
    pub engine: Engine,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// The two graph engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Engine {
    /// A recursive CTE over the edges table
    #[default]
    Sql,
    /// Breadth-first search over the stored adjacency
    Memory,
}

#[derive(Debug, Args)]
pub struct PaperArgs {
    /// The paper's id or any alias (arXiv id with or without version, DOI, CorpusId:N, W-id, S2 sha, or their URLs)
    pub id: String,
    /// Print the full text of its PDFs (front matter, sections with headings, paragraphs, captions, pages) instead
    #[arg(long)]
    pub text: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct WhyArgs {
    /// The citing paper (its id or any alias); its full text must be in the index (`ingest` a PDF)
    pub citing: String,
    /// The cited paper (id or alias), or a dangling id a reference names (`gaps` lists them)
    pub cited: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

// clap value parsers: the error text is ours, clap adds the flag name.
/// A value parser for a [`ValueEnum`] (its names and aliases) whose error
/// names the values on the one line an error gets: "unknown mode `x` (use
/// bm25, dense or hybrid)". The arguments' own help names the values, so
/// clap's list of them (with each variant's long doc) is not shown.
pub(crate) fn named<T: ValueEnum + Clone + Send + Sync + 'static>(
    what: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |s| {
        T::from_str(s, false).map_err(|_| {
            let names: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value())
                .map(|p| p.get_name().to_string())
                .collect();
            let list = match names.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            format!("unknown {what} `{s}` (use {list})")
        })
    }
}
/// [`named`] for a library enum: its names and aliases come from its
/// [`Choice`] list (the library knows no clap), and so does the error:
/// "unknown mode `x` (use bm25, dense or hybrid)". Like [`named`], it lists
/// no possible values: the arguments' own help names them.
pub(crate) fn chosen<T: Choice + Send + Sync>() -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |s| choice::choose::<T>(s).ok_or_else(|| choice::unknown::<T>(s))
}

/// A value parser for a library enum whose possible values (each with its
/// help line; aliases accepted, not listed) are shown in `--help` and
/// offered by the shell completions, as a clap `ValueEnum`'s are.
pub(crate) fn listed<T: Choice + Send + Sync>() -> ListedParser<T> {
    ListedParser(std::marker::PhantomData)
}

#[derive(Clone)]
pub(crate) struct ListedParser<T>(std::marker::PhantomData<T>);

impl<T: Choice + Send + Sync> clap::builder::TypedValueParser for ListedParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let names = clap::builder::PossibleValuesParser::new(self.possible_values().into_iter().flatten());
        let word = names.parse_ref(cmd, arg, value)?;
        Ok(choice::choose::<T>(&word).expect("a possible value names a variant"))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(T::all().iter().map(|v| {
            clap::builder::PossibleValue::new(v.keyword()).help(v.help()).aliases(v.aliases().iter().copied())
        })))
    }
}

/// `--encoding`: a WHATWG encoding label (`latin1` is windows-1252, as in browsers).
fn parse_encoding(s: &str) -> Result<&'static encoding_rs::Encoding, String> {
    encoding_rs::Encoding::for_label(s.trim().as_bytes()).ok_or_else(|| {
        format!("unknown encoding `{s}` (a WHATWG label: utf-8, utf-16le, windows-1252, gbk, shift_jis, …)")
    })
}

fn parse_format(s: &str) -> Result<FormatChoice, String> {
    if s == "auto" {
        return Ok(FormatChoice::Auto);
    }
    s.parse().map(FormatChoice::Named).map_err(|e: anyhow::Error| e.to_string())
}

/// `--hops` of `neighbors`: 0 to [`MAX_NEIGHBOR_HOPS`].
fn neighbor_hops(s: &str) -> Result<u32, String> {
    hops_in(s, MAX_NEIGHBOR_HOPS, "")
}

pub(crate) fn hops_in(s: &str, max: u32, why: &str) -> Result<u32, String> {
    let range = if why.is_empty() { format!(": use 0 to {max}") } else { format!(" {why}") };
    match s.trim().parse::<u64>() {
        Ok(n) if n <= u64::from(max) => Ok(n as u32),
        Ok(_) => Err(format!("--hops {s} is out of range{range}")),
        Err(_) => Err(format!("--hops takes a number of hops, 0 to {max}; got `{s}`")),
    }
}

/// The farthest `neighbors` walks.
pub const MAX_NEIGHBOR_HOPS: u32 = litindex::api::limits::MAX_NEIGHBOR_HOPS;

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
