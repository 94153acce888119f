//! `litindex bench`: build an index from a corpus and time the build and the
//! query paths, optionally beside SQLite FTS5 and tantivy (see [`litindex::bench`]).

use std::io::Write;

use super::UsageError;
use crate::cli::{BenchArgs, Format, Peer};
use litindex::bench::{BenchOptions, TANTIVY_AVAILABLE, TOP, run_bench, write_table};

pub fn run(args: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let tantivy = args.peer.contains(&Peer::Tantivy);
    if tantivy && !TANTIVY_AVAILABLE {
        return Err(UsageError(
            "--peer tantivy: this litindex was built without tantivy; build it with `cargo build --release --features tantivy`"
                .into(),
        )
        .into());
    }
    let fts5 = args.peer.contains(&Peer::Fts5);
    if fts5 && usize::from(args.top) != TOP {
        return Err(UsageError(format!(
            "--top {}: FTS5 is measured at top-{TOP} only; drop fts5 from --peer",
            args.top
        ))
        .into());
    }
    // tantivy's writer takes at most 8 threads.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let opts = BenchOptions {
        corpus: args.corpus.clone(),
        queries: args.queries.clone(),
        analyzer: args.analyzer,
        fts5,
        tantivy,
        tantivy_threads: args.tantivy_threads.map_or(threads, usize::from),
        top: usize::from(args.top),
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
