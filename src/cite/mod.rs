//! Citing: the papers of an index written as BibTeX, CSL-JSON, RIS or the
//! Paper JSON Lines `ingest` reads back, with stable citation keys
//! ([`key`]), LaTeX escaping ([`latex`]) and `Last, First` names
//! ([`names`]). The readers of those formats are ingest formats
//! (`ingest/formats/{bibtex,csl_json,ris}.rs`); they share `latex` and `names`.
//!
//! An export streams: each paper is read, written and dropped, so the whole
//! index goes out in memory proportional to one paper (plus the set of
//! citation keys given out, which deduplication needs).

mod bibtex;
mod csl;
pub(crate) mod key;
pub(crate) mod latex;
pub(crate) mod name_parts;
mod ris;

use std::io::Write;

use serde::Serialize;

use crate::paper::PaperId;
use crate::store::{PaperRow, Store};

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CiteFormat {
    Bibtex,
    CslJson,
    Ris,
    /// The Paper JSON Lines of `ingest --format paper`.
    Jsonl,
}

/// One paper as an export writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The citation key, unique within the export.
    pub key: String,
    /// The canonical id in the index.
    pub id: String,
    pub title: String,
    pub abstract_: String,
    pub year: Option<i32>,
    /// Display names (`Jan van der Berg`).
    pub authors: Vec<String>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    /// The paper's landing page: arXiv abs page, else doi.org, else OpenAlex, else Semantic Scholar.
    pub url: Option<String>,
    /// Where it was published, when a source said.
    pub venue: Option<String>,
    /// Ids it cites (for `jsonl`).
    pub references: Vec<String>,
}

/// Writes entries in one format, deduplicating their keys.
pub struct Exporter<'w> {
    format: CiteFormat,
    out: &'w mut dyn Write,
    keys: key::Keys,
    written: usize,
}

impl<'w> Exporter<'w> {
    pub fn new(format: CiteFormat, out: &'w mut dyn Write) -> Self {
        Exporter { format, out, keys: key::Keys::default(), written: 0 }
    }

    /// Writes the paper `row` of `store`, with its aliases and references.
    pub fn write_paper(&mut self, store: &Store, row: PaperRow) -> anyhow::Result<()> {
        let aliases = store.aliases_of(&row.id)?;
        let references = if self.format == CiteFormat::Jsonl {
            store.linked(&row.id, crate::graph::Direction::References)?
        } else {
            Vec::new()
        };
        let entry = self.entry(row, &aliases, references);
        self.write(&entry)
    }

    /// The entry of a paper: its key is the citation key an imported library
    /// gave it when that key is safe to write, else [`key::base_key`];
    /// deduplicated either way.
    fn entry(&mut self, row: PaperRow, aliases: &[PaperId], references: Vec<String>) -> Entry {
        let find = |kind: &str| aliases.iter().find(|a| a.kind() == kind).map(|a| a.key());
        let citekey = aliases.iter().find_map(|a| match a {
            PaperId::Citekey(k) if key::is_safe(k) => Some(k.clone()),
            _ => None,
        });
        let base = citekey.unwrap_or_else(|| key::base_key(&row.authors, row.year, &row.title));
        let (doi, arxiv) = (find("doi"), find("arxiv"));
        let url = arxiv
            .as_ref()
            .map(|a| format!("https://arxiv.org/abs/{a}"))
            .or_else(|| doi.as_ref().map(|d| format!("https://doi.org/{d}")))
            .or_else(|| find("openalex").map(|w| format!("https://openalex.org/{w}")))
            .or_else(|| find("s2").map(|s| format!("https://www.semanticscholar.org/paper/{s}")));
        Entry {
            key: self.keys.unique(&base),
            id: row.id,
            title: row.title,
            abstract_: row.abstract_,
            year: row.year,
            authors: row.authors,
            doi,
            arxiv,
            url,
            venue: row.venue,
            references,
        }
    }

    fn write(&mut self, e: &Entry) -> anyhow::Result<()> {
        let first = self.written == 0;
        match self.format {
            CiteFormat::Bibtex => bibtex::write(self.out, e, first)?,
            CiteFormat::CslJson => csl::write(self.out, e, first)?,
            CiteFormat::Ris => ris::write(self.out, e)?,
            CiteFormat::Jsonl => {
                let line = PaperLine {
                    id: &e.id,
                    title: &e.title,
                    abstract_: &e.abstract_,
                    year: e.year,
                    authors: &e.authors,
                    venue: e.venue.as_deref(),
                    references: &e.references,
                };
                // Serialised first: a closed pipe then surfaces as the plain
                // `io::Error` the binary treats as success.
                let mut text = serde_json::to_string(&line)?;
                text.push('\n');
                self.out.write_all(text.as_bytes())?;
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Ends the output (closes the CSL-JSON array); the number of papers written.
    pub fn finish(self) -> anyhow::Result<usize> {
        if self.format == CiteFormat::CslJson {
            csl::finish(self.out, self.written == 0)?;
        }
        self.out.flush()?;
        Ok(self.written)
    }
}

/// A line of the Paper JSON Lines format.
#[derive(Serialize)]
struct PaperLine<'a> {
    id: &'a str,
    title: &'a str,
    #[serde(rename = "abstract")]
    abstract_: &'a str,
    year: Option<i32>,
    authors: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    venue: Option<&'a str>,
    references: &'a [String],
}

/// Writes the papers `ids` (canonical ids, in order) of `store` to `out`;
/// the number written.
pub fn export_ids(store: &Store, ids: &[String], format: CiteFormat, out: &mut dyn Write) -> anyhow::Result<usize> {
    let mut exporter = Exporter::new(format, out);
    store.snapshot(|| {
        for id in ids {
            let row = store.paper(id)?.ok_or_else(|| anyhow::anyhow!("unknown paper id `{id}`"))?;
            exporter.write_paper(store, row)?;
        }
        Ok(())
    })?;
    exporter.finish()
}

/// Writes every paper of `store`, in id order, streaming; the number written.
pub fn export_all(store: &Store, format: CiteFormat, out: &mut dyn Write) -> anyhow::Result<usize> {
    let mut exporter = Exporter::new(format, out);
    store.snapshot(|| store.for_each_paper(|row| exporter.write_paper(store, row)))?;
    exporter.finish()
}
