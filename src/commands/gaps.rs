//! `litindex gaps`: what the given papers (or the whole index) cite that the index lacks.

use std::io::Write;

use super::UsageError;
use crate::cli::{Format, GapsArgs};
use litindex::explore::gaps;
use litindex::store::Store;

pub fn run(args: &GapsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let from = if args.all {
        None
    } else if let Some(label) = args.from_marks {
        Some(litindex::api::marked(store, label)?)
    } else if let Some(source) = &args.source {
        Some(from_source(store, source)?)
    } else {
        Some(litindex::api::resolve_distinct(store, &args.from)?)
    };
    let gaps = gaps(store, from.as_deref(), args.limit)?;
    match args.format {
        Format::Json => super::write_json(out, &gaps)?,
        Format::Table => {
            writeln!(out, "{:>4}  {:<28} {:<8} {:>9}  cited by", "rank", "missing id", "kind", "citations")?;
            for (i, g) in gaps.iter().enumerate() {
                let more = if g.cited_by as usize > g.cited_by_sample.len() { ", …" } else { "" };
                writeln!(
                    out,
                    "{:>4}  {:<28} {:<8} {:>9}  {}{more}",
                    i + 1,
                    g.id,
                    g.kind,
                    g.cited_by,
                    g.cited_by_sample.join(", ")
                )?;
                if let Some(title) = &g.title {
                    let year = g.year.map(|y| format!(" ({y})")).unwrap_or_default();
                    writeln!(out, "{:>6}\"{title}\"{year}", "")?;
                }
                if !g.aliases.is_empty() {
                    writeln!(out, "{:>6}also known as {}", "", g.aliases.join(", "))?;
                }
            }
            let scope = match &from {
                None => "the whole index".to_string(),
                Some(ids) => format!("{} paper(s)", ids.len()),
            };
            writeln!(out, "{} missing id(s) cited by {scope}, most cited first", gaps.len())?;
        }
    }
    Ok(())
}

/// The papers with a record from `source`; a source the index has no record
/// from is a usage error listing the ones it has.
pub(super) fn from_source(store: &Store, source: &str) -> anyhow::Result<Vec<String>> {
    let ids = store.papers_from_source(source)?;
    if ids.is_empty() {
        let known = store.record_sources()?;
        return Err(UsageError(format!(
            "--source: {} has no record from `{source}` (its sources: {})",
            store.path().display(),
            known.join(", ")
        ))
        .into());
    }
    Ok(ids)
}
