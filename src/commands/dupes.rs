//! `litindex dupes`: the merges made without a shared id.

use std::io::Write;

use crate::cli::{DupesArgs, Format};
use litindex::store::Store;

pub fn run(args: &DupesArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let merges = store.merges()?;
    match args.format {
        Format::Json => super::write_json(out, &merges)?,
        Format::Table => {
            for m in &merges {
                writeln!(out, "{}  {}: {} merged with {} ({})", m.paper_id, m.rule, m.record, m.other, m.detail)?;
            }
            writeln!(out, "{} merges by title fallback or bridge", merges.len())?;
        }
    }
    Ok(())
}
