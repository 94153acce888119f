//! `litindex check`: SQLite's integrity check and litindex's own invariants.
//! Prints every invariant with its outcome; when any is violated, exits
//! non-zero with one error line naming each violation.

use std::io::Write;

use crate::cli::{CheckArgs, Format};
use litindex::store::{CheckReport, Store};

pub fn run(args: &CheckArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = store.check();
    match args.format {
        Format::Json => super::write_json(out, &report)?,
        Format::Table => write_table(out, store, &report)?,
    }
    if report.ok {
        return Ok(());
    }
    // One line naming each violated invariant with its first example.
    let named: Vec<String> = report
        .violated()
        .map(|i| {
            let first = i.examples.first().map(String::as_str).unwrap_or("");
            let more = if i.violations > 1 { format!(" (and {} more)", i.violations - 1) } else { String::new() };
            format!("{}: {first}{more}", i.name)
        })
        .collect();
    out.flush()?;
    anyhow::bail!(
        "check failed: {} of {} invariants violated in {}: {}",
        named.len(),
        report.invariants.len(),
        store.path().display(),
        named.join("; ")
    )
}

fn write_table(out: &mut dyn Write, store: &Store, report: &CheckReport) -> anyhow::Result<()> {
    writeln!(out, "check of {} (journal mode {})", store.path().display(), report.journal_mode)?;
    for i in &report.invariants {
        let status = if i.ok { "ok" } else { "FAIL" };
        write!(out, "{status:<5} {:<15} {}", i.name, i.description)?;
        if i.ok {
            writeln!(out)?;
        } else {
            writeln!(out, ": {} violation(s)", i.violations)?;
            for e in &i.examples {
                writeln!(out, "        {e}")?;
            }
            if i.violations > i.examples.len() as u64 {
                writeln!(out, "        … and {} more", i.violations - i.examples.len() as u64)?;
            }
        }
    }
    writeln!(
        out,
        "{} papers, {} terms, {} postings, {} aliases, {} edges ({} with a dangling end; {} dangling ids, allowed)",
        report.papers,
        report.terms,
        report.postings,
        report.aliases,
        report.edges,
        report.dangling_edges,
        report.dangling_ids
    )?;
    let failed = report.violated().count();
    if failed == 0 {
        writeln!(out, "check passed: all {} invariants hold", report.invariants.len())?;
    } else {
        writeln!(out, "check FAILED: {failed} of {} invariants violated", report.invariants.len())?;
    }
    Ok(())
}
