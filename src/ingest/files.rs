//! `ingest`: files of any supported format into an index, in one transaction.
//!
//! Nothing from an ingest is committed unless all of it is: a malformed
//! record aborts the whole ingest (the index stays exactly as it was; an
//! ingest that was creating the index leaves no file), unless
//! `--skip-invalid` asks to skip and list bad records. Faults of a file
//! itself (unreadable, truncated gzip, not the named format) always abort.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rusqlite::Connection;

use super::engine::{IngestReport, Ingester};
use super::formats::{self, Format, FormatOptions, ReadError};
use super::ids::PaperId;
use super::record::Item;
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::failpoint::failpoint_at;
use crate::store::{create_new_index, explain, open_for_writing, write_transaction};

/// How many skipped records are listed by line.
pub const LISTED_SKIPS: usize = 20;

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// `None`: sniff each file.
    pub format: Option<Format>,
    /// The paper an S2 references/citations page belongs to.
    pub paper: Option<String>,
    pub skip_invalid: bool,
    /// Show a progress bar (only drawn when stderr is a terminal).
    pub progress: bool,
    /// Settings for an index this ingest creates.
    pub analyzer: Analyzer,
    pub bm25: Bm25,
}

/// What an ingest did, with the files' formats and the skipped records.
#[derive(Debug, Clone, Default)]
pub struct IngestSummary {
    pub report: IngestReport,
    pub files: Vec<(PathBuf, Format)>,
    /// The first [`LISTED_SKIPS`] skipped records, as `location: problem`.
    pub skipped: Vec<String>,
    pub created: bool,
}

/// Ingests `files` into the index at `db`, creating it if absent.
pub fn ingest_files(db: &Path, files: &[PathBuf], opts: &IngestOptions) -> anyhow::Result<IngestSummary> {
    anyhow::ensure!(!files.is_empty(), "no input files given");
    let total: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    let bar = progress_bar(opts.progress, total);
    let run = |conn: &Connection| ingest_into(conn, files, opts, &bar);
    let result = if db.exists() {
        open_for_writing(db).and_then(|mut conn| write_transaction(&mut conn, run))
    } else {
        create_new_index(db, opts.analyzer, opts.bm25, run).map(|mut s| {
            s.created = true;
            s
        })
    };
    bar.finish_and_clear();
    result.map_err(|e| explain(e, db))
}

fn progress_bar(enabled: bool, total: u64) -> ProgressBar {
    if !enabled || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}")
            .expect("valid progress template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn ingest_into(
    conn: &Connection,
    files: &[PathBuf],
    opts: &IngestOptions,
    bar: &ProgressBar,
) -> anyhow::Result<IngestSummary> {
    let mut ingester = Ingester::new(conn)?;
    let mut summary = IngestSummary::default();
    let started = std::time::Instant::now();
    let mut done_bytes = 0u64;
    for path in files {
        let mut input = formats::open_input(path)?;
        let format = match opts.format {
            Some(f) => f,
            None => formats::sniff(&mut input)?,
        };
        summary.files.push((path.clone(), format));
        let counter = input.bytes_read.clone();
        let size = input.total_bytes;
        let fopts = FormatOptions { paper: opts.paper.as_deref().map(PaperId::parse), ..FormatOptions::default() };
        let items = formats::read(format, input, &fopts)
            .map_err(|e| anyhow::anyhow!("{} ({}): {e:#}", path.display(), format.name()))?;
        for (n, item) in items.enumerate() {
            match item {
                Ok((Item::Record(rec), origin)) => {
                    ingester.add_record(rec, format.name(), &origin)?;
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
                    anyhow::bail!(
                        "{e} ({} format; nothing was ingested; --skip-invalid skips bad records)",
                        format.name()
                    )
                }
                Err(ReadError::File(e)) => anyhow::bail!("{e:#} ({} format; nothing was ingested)", format.name()),
            }
            if n % 256 == 0 {
                bar.set_position(done_bytes + counter.load(Ordering::Relaxed));
                let rate = ingester.report.records as f64 / started.elapsed().as_secs_f64().max(1e-9);
                bar.set_message(format!("{} records, {rate:.0}/s", ingester.report.records));
            }
        }
        ingester.report.skipped_null_ids += fopts.skipped_nulls.load(Ordering::Relaxed);
        done_bytes += size;
    }
    summary.report = ingester.finish()?;
    Ok(summary)
}
