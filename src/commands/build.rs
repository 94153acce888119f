//! `litindex build`: union the sources and write a fresh index atomically.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::cli::BuildArgs;
use crate::ingest::{build_index, union_sources};
use crate::source::{ArxivMock, JsonlFile, SemanticScholarMock, Source};
use crate::store::Counts;

pub fn run(args: &BuildArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let bm25 = Bm25::new(args.k1, args.b).map_err(|e| super::UsageError(e.to_string()))?;
    let mut sources: Vec<Box<dyn Source>> = Vec::new();
    if args.mock || args.jsonl.is_empty() {
        sources.push(Box::new(ArxivMock));
        sources.push(Box::new(SemanticScholarMock));
    }
    for path in &args.jsonl {
        sources.push(Box::new(JsonlFile::new(path)));
    }
    let started = Instant::now();
    let c = build_index(db, union_sources(&sources)?, args.analyzer, bm25)?;
    let disagreements: u64 = c.disagreements.values().sum();
    writeln!(
        out,
        "built {}: {} papers, {} terms, {} postings, {} edges ({} dangling), {} source disagreements in {:.2} s",
        db.display(),
        c.papers,
        c.terms,
        c.postings,
        c.edges,
        c.dangling_edges,
        disagreements,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Builds the mock-corpus index at `db` with default settings.
pub fn build_mock(db: &Path) -> anyhow::Result<Counts> {
    let sources: Vec<Box<dyn Source>> = vec![Box::new(ArxivMock), Box::new(SemanticScholarMock)];
    build_index(db, union_sources(&sources)?, Analyzer::default(), Bm25::default())
}
