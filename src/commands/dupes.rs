//! `litindex dupes`: the merges made without a shared id.

use std::io::Write;

use serde::Serialize;

use crate::cli::{DupesArgs, Format};
use crate::store::Store;

#[derive(Serialize)]
struct Merge {
    paper_id: String,
    rule: String,
    record: String,
    other: String,
    detail: String,
}

pub fn run(args: &DupesArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut stmt =
        store.conn().prepare("SELECT paper_id, rule, record, other, detail FROM merges ORDER BY paper_id, id")?;
    let merges = stmt
        .query_map([], |r| {
            Ok(Merge { paper_id: r.get(0)?, rule: r.get(1)?, record: r.get(2)?, other: r.get(3)?, detail: r.get(4)? })
        })?
        .collect::<Result<Vec<_>, _>>()?;
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
