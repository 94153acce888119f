//! `litindex export`: which papers, in which citation format, to where.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use litindex::cite::CiteFormat;

use super::SearchOpts;

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// BibTeX (`@misc` entries, keys `surnameYEARword`)
    Bibtex,
    /// CSL-JSON: one array of items (Zotero, Pandoc, citeproc)
    CslJson,
    /// RIS (Zotero, Mendeley, EndNote)
    Ris,
    /// Paper JSON Lines, which `ingest` reads back
    Jsonl,
}

impl ExportFormat {
    pub fn cite(self) -> CiteFormat {
        match self {
            ExportFormat::Bibtex => CiteFormat::Bibtex,
            ExportFormat::CslJson => CiteFormat::CslJson,
            ExportFormat::Ris => CiteFormat::Ris,
            ExportFormat::Jsonl => CiteFormat::Jsonl,
        }
    }
}

/// Papers to export: the ids given, else the hits of `--query`, else the
/// whole index (streamed, in id order).
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Papers by id or any alias (DOI, arXiv id, CorpusId, OpenAlex id, citation key); none: the whole index, or the hits of --query
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Export the hits of this search (the search flags apply) instead of ids
    #[arg(long, conflicts_with = "ids")]
    pub query: Option<String>,
    #[command(flatten)]
    pub search: SearchOpts,
    /// How many hits of --query to export
    #[arg(long, default_value_t = litindex::search::DEFAULT_LIMIT)]
    pub limit: usize,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Write to FILE instead of stdout (atomically: a temporary file renamed into place)
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}
