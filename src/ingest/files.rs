//! `ingest` and `build`: inputs of any supported format into an index, in
//! one transaction, through one reader stack and one engine.
//!
//! [`ingest`] adds to the index at a path (creating it if absent); [`build`]
//! makes a new one from the same inputs and replaces any index there only
//! when complete. Nothing is committed unless all of it is: a malformed
//! record aborts the whole command (the index stays exactly as it was; a
//! command that was creating the index leaves no file), unless
//! `skip_invalid` asks to skip and list bad records. Faults of an input
//! itself (unreadable, truncated gzip, not the named format) always abort.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::engine::{IngestReport, Ingester};
use super::formats::{self, FormatOptions, InputFormat, MOCK, ReadError};
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::failpoint::failpoint_at;
use crate::fulltext::Limits;
use crate::paper::{Item, PaperId};
use crate::store::fetch::{CachedResponse, put_responses};
use crate::store::{Carried, Handle, Notes, create_index, create_new_index, explain, write_to};

/// How many skipped records are listed by line.
pub(crate) const LISTED_SKIPS: usize = 20;

/// One input of an ingest or a build.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The built-in demo corpus.
    Mock,
    /// A file (gzip or not) in `format`, or in the format its first record
    /// shows when `None`.
    File { path: PathBuf, format: Option<InputFormat> },
    /// Bytes already in memory (a response `fetch` received) in `format`,
    /// named `label` (its URL) in errors and locations.
    Bytes { label: String, format: InputFormat, bytes: Vec<u8> },
}

/// Where an ingest is, for a progress display: input bytes read of the
/// total, and records filed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub bytes: u64,
    pub total_bytes: u64,
    pub records: u64,
}

/// What the caller asked for.
#[derive(Default)]
pub struct IngestOptions<'a> {
    /// The paper an S2 references/citations page belongs to.
    pub paper: Option<String>,
    pub skip_invalid: bool,
    /// The encoding of reference-library files, when forced (else detected).
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// Settings for an index this command creates.
    pub analyzer: Analyzer,
    pub bm25: Bm25,
    /// Called every few hundred items.
    pub progress: Option<&'a dyn Fn(Progress)>,
    /// Told what a user should know (an older index being upgraded).
    pub notes: Option<Notes<'a>>,
    /// Responses to store in the same transaction (the fetch cache): they
    /// are kept exactly when the papers read from them are.
    pub responses: &'a [CachedResponse],
    /// Zotero libraries: record the attachments but do not read their PDFs.
    pub no_attachments: bool,
}

/// What an ingest did, with the inputs' formats and the skipped records.
#[derive(Debug, Clone, Default)]
pub struct IngestSummary {
    pub report: IngestReport,
    /// Each input with the name of its format.
    pub inputs: Vec<(String, &'static str)>,
    /// The first [`LISTED_SKIPS`] skipped records, as `location: problem`.
    pub skipped: Vec<String>,
    /// Whether the index was created (by `build`, or by an ingest into a new path).
    pub created: bool,
    /// What the PDFs among the inputs came to (all zero without PDFs).
    pub pdf: super::pdf::PdfSummary,
    /// What each Zotero library among the inputs came to.
    pub zotero: Vec<super::zotero::ZoteroSummary>,
}

/// Ingests `inputs` into the index at `db`, creating it if absent.
pub fn ingest(db: &Path, inputs: &[Input], opts: &IngestOptions) -> anyhow::Result<IngestSummary> {
    anyhow::ensure!(!inputs.is_empty(), "no input files given");
    let run = |tx: Handle<'_>| ingest_into(tx, inputs, opts);
    if db.exists() {
        write_to(db, opts.notes.unwrap_or(&|_| {}), run)
    } else {
        create_new_index(db, opts.analyzer, opts.bm25, run)
            .map(|mut s| {
                s.created = true;
                s
            })
            .map_err(|e| explain(e, db))
    }
}

/// Builds a new index at `db` from `inputs`, replacing any index there only
/// when the new one is complete. The marks and watches of the old index are
/// carried into the new one (in its build transaction, before the rename).
pub fn build(db: &Path, inputs: &[Input], opts: &IngestOptions) -> anyhow::Result<IngestSummary> {
    anyhow::ensure!(!inputs.is_empty(), "nothing to build from");
    // The user's marks and watches go into the new file before its rename.
    let carried = Carried::read(db)?;
    let fill = |tx: Handle<'_>| {
        let summary = ingest_into(tx, inputs, opts)?;
        carried.restore(tx)?;
        Ok(summary)
    };
    let mut summary = create_index(db, opts.analyzer, opts.bm25, fill).map_err(|e| explain(e, db))?;
    summary.created = true;
    Ok(summary)
}

fn ingest_into(tx: Handle<'_>, inputs: &[Input], opts: &IngestOptions) -> anyhow::Result<IngestSummary> {
    let total_bytes: u64 = inputs
        .iter()
        .filter_map(|i| match i {
            Input::File { path, .. } => std::fs::metadata(path).ok().map(|m| m.len()),
            Input::Mock => None,
            Input::Bytes { bytes, .. } => Some(bytes.len() as u64),
        })
        .sum();
    let mut ingester = Ingester::new(tx)?;
    let mut summary = IngestSummary::default();
    let mut done_bytes = 0u64;
    let fopts = FormatOptions {
        paper: opts.paper.as_deref().map(PaperId::parse),
        encoding: opts.encoding,
        ..FormatOptions::default()
    };
    let tell = |fopts: &FormatOptions| {
        for note in fopts.take_notes() {
            if let Some(notes) = opts.notes {
                notes(&note);
            }
        }
    };
    // PDFs (files named as such or sniffed, and folders) are filed after the
    // other inputs, so they attach to the papers those bring.
    let mut pdfs: Vec<(PathBuf, Option<PaperId>)> = Vec::new();
    // A Zotero library's PDF attachments: one that cannot be read is listed
    // and skipped (like a missing file), never the end of the library's import.
    let mut zotero_pdfs: Vec<(PathBuf, Option<PaperId>)> = Vec::new();
    let add_pdfs = |pdfs: &mut Vec<(PathBuf, Option<PaperId>)>, paths: Vec<PathBuf>| -> anyhow::Result<()> {
        for p in paths {
            pdfs.push((std::path::absolute(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?, None));
        }
        Ok(())
    };
    for input in inputs {
        let zotero = match input {
            Input::File { path, format: Some(InputFormat::Zotero) } => Some(path),
            Input::File { path, format: None } if super::zotero::is_library(path) => Some(path),
            _ => None,
        };
        if let Some(path) = zotero {
            let z = super::zotero::sync(&mut ingester, path, !opts.no_attachments, &mut zotero_pdfs)
                .map_err(|e| anyhow::anyhow!("{e:#} (zotero format; nothing was ingested)"))?;
            summary.inputs.push((path.display().to_string(), InputFormat::Zotero.name()));
            summary.zotero.push(z);
            continue;
        }
        let (label, format_name, items, counter, size) = match input {
            Input::Mock => (MOCK.to_string(), MOCK, formats::read_mock(), None, 0),
            Input::File { path, format }
                if *format == Some(InputFormat::Pdf) || (format.is_none() && path.is_dir()) =>
            {
                let found = super::pdf::expand(std::slice::from_ref(path))?;
                anyhow::ensure!(!found.is_empty(), "{} is a directory with no *.pdf file in it", path.display());
                add_pdfs(&mut pdfs, found)?;
                summary.inputs.push((path.display().to_string(), InputFormat::Pdf.name()));
                continue;
            }
            Input::File { path, format } => {
                let mut file = formats::open_input(path)?;
                let format = match format {
                    Some(f) => *f,
                    None => formats::sniff(&mut file)?,
                };
                if format == InputFormat::Pdf {
                    add_pdfs(&mut pdfs, vec![path.clone()])?;
                    summary.inputs.push((path.display().to_string(), format.name()));
                    continue;
                }
                let counter = file.bytes_read.clone();
                let size = file.total_bytes;
                let items = formats::read(format, file, &fopts)
                    .map_err(|e| anyhow::anyhow!("{} ({}): {e:#}", path.display(), format.name()))?;
                (path.display().to_string(), format.name(), items, Some(counter), size)
            }
            Input::Bytes { label, format, bytes } => {
                let size = bytes.len() as u64;
                let file = formats::memory_input(label, bytes.clone());
                let items = formats::read(*format, file, &fopts).map_err(|e| anyhow::anyhow!("{e:#}"))?;
                (label.clone(), format.name(), items, None, size)
            }
        };
        summary.inputs.push((label, format_name));
        // Notes of a file read whole come before its records.
        tell(&fopts);
        let mut n = 0usize;
        let text = |item: &Result<(Item, String), ReadError>| match item {
            Ok((Item::Record(rec), _)) => Some((rec.title.clone(), rec.abstract_.clone())),
            _ => None,
        };
        super::ahead::each_analysed(items, ingester.analyzer(), text, |item, analysed| {
            if let Some(analysed) = analysed {
                ingester.analysed_ahead(analysed);
            }
            match item {
                Ok((Item::Record(rec), origin)) => {
                    ingester.add_record(rec, format_name, &origin)?;
                    failpoint_at("after-records", ingester.report.records);
                }
                Ok((Item::Link(link), _)) => ingester.add_link(&link)?,
                Err(ReadError::Record(e)) if opts.skip_invalid => {
                    ingester.report.skipped += 1;
                    if summary.skipped.len() < LISTED_SKIPS {
                        summary.skipped.push(e.to_string());
                    }
                }
                Err(ReadError::Record(e)) => {
                    anyhow::bail!("{e} ({format_name} format; nothing was ingested; --skip-invalid skips bad records)")
                }
                Err(ReadError::File(e)) => anyhow::bail!("{e:#} ({format_name} format; nothing was ingested)"),
            }
            if let (Some(report), 0) = (opts.progress, n % 256) {
                let read = counter.as_ref().map_or(0, |c| c.load(Ordering::Relaxed));
                report(Progress { bytes: done_bytes + read, total_bytes, records: ingester.report.records });
            }
            n += 1;
            Ok(())
        })?;
        done_bytes += size;
        tell(&fopts);
    }
    if !pdfs.is_empty() {
        summary.pdf = super::pdf::ingest_pdfs(&mut ingester, &pdfs, opts.skip_invalid, &Limits::default())?;
    }
    if !zotero_pdfs.is_empty() {
        let z = super::pdf::ingest_pdfs(&mut ingester, &zotero_pdfs, true, &Limits::default())?;
        summary.pdf.merge(z);
    }
    ingester.report.skipped_null_ids += fopts.skipped_nulls.load(Ordering::Relaxed);
    summary.report = ingester.finish()?;
    put_responses(tx, opts.responses)?;
    Ok(summary)
}
