//! `litindex ingest`: add files incrementally; and the summary and progress
//! bar `build` shares.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::UsageError;
use crate::cli::{FormatChoice, IngestArgs};
use litindex::bm25::Bm25;
use litindex::ingest::{IngestOptions, IngestReport, IngestSummary, Input, Progress, ingest};
use litindex::store::Store;

pub fn run(args: &IngestArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let bm25 = Bm25::new(args.index.k1, args.index.b).map_err(|e| UsageError(e.to_string()))?;
    let format = match args.format {
        FormatChoice::Auto => None,
        FormatChoice::Named(f) => Some(f),
    };
    let inputs: Vec<Input> = args.files.iter().map(|path| Input::File { path: path.clone(), format }).collect();
    let (summary, secs) = timed_with_progress(!args.quiet, |progress| {
        let opts = IngestOptions {
            paper: args.paper.clone(),
            skip_invalid: args.skip_invalid,
            no_attachments: args.no_attachments,
            encoding: args.encoding,
            analyzer: args.index.analyzer,
            bm25,
            progress,
            notes: Some(&super::print_note),
            ..IngestOptions::default()
        };
        ingest(db, &inputs, &opts)
    })?;
    print_summary(&summary, db, secs, out)
}

/// Runs `f` with a progress callback that draws a bar on stderr (when
/// `enabled` and stderr is a terminal); returns its result and the seconds it took.
pub(super) fn timed_with_progress<T>(
    enabled: bool,
    f: impl FnOnce(Option<&dyn Fn(Progress)>) -> anyhow::Result<T>,
) -> anyhow::Result<(T, f64)> {
    let started = Instant::now();
    let bar = progress_bar(enabled, "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}");
    let draw = |p: Progress| {
        if let Some(bar) = &bar {
            bar.set_length(p.total_bytes);
            bar.set_position(p.bytes);
            let rate = p.records as f64 / started.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!("{} records, {rate:.0}/s", p.records));
        }
    };
    let result = f(bar.as_ref().map(|_| &draw as &dyn Fn(Progress)));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok((result?, started.elapsed().as_secs_f64()))
}

/// A progress bar on stderr drawn with `template`, when `enabled` and
/// stderr is a terminal.
pub(super) fn progress_bar(enabled: bool, template: &str) -> Option<ProgressBar> {
    if !enabled || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template(template).expect("valid progress template"));
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// The skipped records on stderr, then one summary line.
pub(super) fn print_summary(summary: &IngestSummary, db: &Path, secs: f64, out: &mut dyn Write) -> anyhow::Result<()> {
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
    let mut formats: Vec<&str> = summary.inputs.iter().map(|(_, f)| *f).collect();
    formats.dedup();
    writeln!(
        out,
        "{} {} from {} input(s) ({}): {}; index now {} papers; {:.2} s, {:.0} records/s",
        if summary.created { "created" } else { "ingested into" },
        db.display(),
        summary.inputs.len(),
        formats.join(", "),
        report_counts(r),
        papers,
        secs,
        r.records as f64 / secs.max(1e-9),
    )?;
    for z in &summary.zotero {
        for line in &z.messages {
            eprintln!("litindex: note: {line}");
        }
        writeln!(
            out,
            "Zotero {}: {} items: {} added, {} updated, {} removed, {} unchanged ({} in Zotero's trash, not imported); \
             read {} creators, {} collection memberships, {} tags, {} notes, {} attachments ({} files found, {} PDFs, \
             {} missing)",
            z.library,
            z.items,
            z.added,
            z.updated,
            z.removed,
            z.unchanged,
            z.in_trash,
            z.creators,
            z.collections,
            z.tags,
            z.notes,
            z.attachments,
            z.files_found,
            z.pdfs_found,
            z.files_missing
        )?;
    }
    let pdf = &summary.pdf;
    if summary.inputs.iter().any(|(_, f)| *f == "pdf") || pdf.read + pdf.unchanged + pdf.failed > 0 {
        for line in &pdf.notes {
            eprintln!("litindex: note: {line}");
        }
        for line in &pdf.failures {
            eprintln!("litindex: skipped {line}");
        }
        writeln!(
            out,
            "PDFs: {} read, {} attached, {} new, {} unchanged, {} failed; {} references ({} matched to indexed papers), \
             {} citation contexts",
            pdf.read, pdf.attached, pdf.new, pdf.unchanged, pdf.failed, pdf.references, pdf.matched, pdf.contexts
        )?;
    }
    Ok(())
}

/// `N records: A added, … ; L links (M new)`, as the summary lines of
/// `ingest`, `build` and `fetch` put them.
pub(super) fn report_counts(r: &IngestReport) -> String {
    format!(
        "{} records: {} added, {} updated, {} merged, {} repeated, {} unchanged, {} skipped, {} without id; \
         {} links ({} new)",
        r.records,
        r.added,
        r.updated,
        r.merged,
        r.repeated,
        r.unchanged,
        r.skipped,
        r.skipped_null_ids,
        r.links,
        r.links_added
    )
}
