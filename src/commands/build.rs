//! `litindex build`: a new index from the mock corpus and/or Paper JSON
//! Lines files, through the same reader stack and engine as `ingest`.

use std::io::Write;
use std::path::Path;

use super::UsageError;
use super::ingest::{print_summary, timed_with_progress};
use crate::cli::BuildArgs;
use litindex::bm25::Bm25;
use litindex::ingest::InputFormat;
use litindex::ingest::{IngestOptions, IngestSummary, Input, build};

pub fn run(args: &BuildArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let bm25 = Bm25::new(args.k1, args.b).map_err(|e| UsageError(e.to_string()))?;
    let mut inputs = Vec::new();
    if args.mock || args.jsonl.is_empty() {
        inputs.push(Input::Mock);
    }
    for path in &args.jsonl {
        inputs.push(Input::File { path: path.clone(), format: Some(InputFormat::Paper) });
    }
    let (summary, secs) = timed_with_progress(!args.quiet, |progress| {
        let opts = IngestOptions {
            skip_invalid: args.skip_invalid,
            analyzer: args.analyzer,
            bm25,
            progress,
            ..IngestOptions::default()
        };
        build(db, &inputs, &opts)
    })?;
    print_summary(&summary, db, secs, out)
}

/// Builds the mock-corpus index at `db` with default settings.
pub fn build_mock(db: &Path) -> anyhow::Result<IngestSummary> {
    build(db, &[Input::Mock], &IngestOptions::default())
}
