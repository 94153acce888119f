//! `litindex bench`: build an index from a corpus and time the build and the
//! query paths, optionally beside SQLite FTS5 (see [`litindex::bench`]).

use std::io::Write;

use crate::cli::{BenchArgs, Format, Peer};
use litindex::bench::{BenchOptions, run_bench, write_table};

pub fn run(args: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let opts = BenchOptions {
        corpus: args.corpus.clone(),
        queries: args.queries.clone(),
        analyzer: args.analyzer,
        fts5: args.peer == Some(Peer::Fts5),
        dir: args.dir.clone(),
        exe: std::env::current_exe().ok(),
        reuse: args.reuse,
    };
    let report = run_bench(&opts)?;
    match args.format {
        Format::Json => super::write_json(out, &report),
        Format::Table => write_table(&report, out),
    }
}
