//! `litindex ingest`: add files incrementally.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::UsageError;
use crate::bm25::Bm25;
use crate::cli::{FormatChoice, IngestArgs};
use crate::ingest::{ingest_files, IngestOptions};
use crate::store::Store;

pub fn run(args: &IngestArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let bm25 = Bm25::new(args.k1, args.b).map_err(|e| UsageError(e.to_string()))?;
    let opts = IngestOptions {
        format: match args.format {
            FormatChoice::Auto => None,
            FormatChoice::Named(f) => Some(f),
        },
        paper: args.paper.clone(),
        skip_invalid: args.skip_invalid,
        progress: !args.quiet,
        analyzer: args.analyzer,
        bm25,
    };
    let started = Instant::now();
    let summary = ingest_files(db, &args.files, &opts)?;
    let secs = started.elapsed().as_secs_f64();
    let r = &summary.report;
    for line in &summary.skipped {
        eprintln!("litindex: skipped {line}");
    }
    if r.skipped as usize > summary.skipped.len() {
        eprintln!("litindex: … and {} more skipped records", r.skipped as usize - summary.skipped.len());
    }
    // N from the statistics row: counting edges (and dangling ones) reads the
    // whole graph, 16 s on a 1M-paper index after a 1 s ingest; `stats` does that.
    let papers = Store::open(db)?.meta()?.num_docs;
    let mut formats: Vec<&str> = summary.files.iter().map(|(_, f)| f.name()).collect();
    formats.dedup();
    writeln!(
        out,
        "{} {} from {} file(s) ({}): {} records: {} added, {} updated, {} merged, {} unchanged, {} skipped, \
         {} without id; {} links ({} new); index now {} papers; {:.2} s, {:.0} records/s",
        if summary.created { "created" } else { "ingested into" },
        db.display(),
        summary.files.len(),
        formats.join(", "),
        r.records,
        r.added,
        r.updated,
        r.merged,
        r.unchanged,
        r.skipped,
        r.skipped_null_ids,
        r.links,
        r.links_added,
        papers,
        secs,
        r.records as f64 / secs.max(1e-9),
    )?;
    Ok(())
}
