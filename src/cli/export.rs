//! `litindex export`: which papers, in which citation format, to where.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use litindex::cite::CiteFormat;
use litindex::store::Label;

use super::{SearchOpts, chosen};

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// BibTeX (`@article` with a venue, else `@misc`; keys `surnameYEARword`)
    Bibtex,
    /// CSL-JSON: one array of items (Zotero, Pandoc, citeproc)
    CslJson,
    /// RIS (Zotero, Mendeley, EndNote)
    Ris,
    /// Paper JSON Lines, which `ingest` reads back
    Jsonl,
    /// An OpenSearch index definition and `_bulk` NDJSON files, into the directory -o names
    Opensearch,
}

impl ExportFormat {
    /// The citation format (`None` for `opensearch`, which is no citation format).
    pub fn cite(self) -> Option<CiteFormat> {
        Some(match self {
            ExportFormat::Bibtex => CiteFormat::Bibtex,
            ExportFormat::CslJson => CiteFormat::CslJson,
            ExportFormat::Ris => CiteFormat::Ris,
            ExportFormat::Jsonl => CiteFormat::Jsonl,
            ExportFormat::Opensearch => return None,
        })
    }
}

/// Papers to export: the ids given, else the hits of `--query`, else the
/// papers marked `--marks`, else the whole index (streamed, in id order).
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Papers by id or any alias (DOI, arXiv id, CorpusId, OpenAlex id, citation key); none: the whole index, or the hits of --query
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Export the hits of this search (the search flags apply) instead of ids
    #[arg(long, conflicts_with = "ids")]
    pub query: Option<String>,
    /// Export the papers marked LABEL (favorite, exclude, to-read, read) instead of ids
    #[arg(long, value_name = "LABEL", value_parser = chosen::<Label>(), conflicts_with_all = ["ids", "query"])]
    pub marks: Option<Label>,
    /// Export the papers tagged NAME (a Zotero collection `zotero/PATH`, a Zotero tag `zotero-tag/NAME`, or your own); a NAME ending in `/` takes every tag under it (`zotero/Thesis/`)
    #[arg(long, value_name = "NAME", conflicts_with_all = ["ids", "query", "marks"])]
    pub tag: Option<String>,
    #[command(flatten)]
    pub search: SearchOpts,
    /// How many hits of --query to export
    #[arg(long, default_value_t = litindex::search::DEFAULT_LIMIT)]
    pub limit: usize,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Write to FILE instead of stdout (atomically: a temporary file renamed into place); with --format opensearch, the directory to create
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub opensearch: super::OpensearchExportOpts,
}
