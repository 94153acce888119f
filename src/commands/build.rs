//! `litindex build`: union the sources and write a fresh index atomically.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::cli::BuildArgs;
use crate::source::{ArxivMock, JsonlFile, SemanticScholarMock, Source, Union};
use crate::store::{build_index, BuildReport};

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
    let report = build_from(db, &sources, args.analyzer, bm25)?;
    writeln!(
        out,
        "built {}: {} papers, {} terms, {} postings, {} edges ({} dangling), {} source disagreements in {:.2} s",
        db.display(),
        report.papers,
        report.terms,
        report.postings,
        report.edges,
        report.dangling_edges,
        report.disagreements,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Builds the mock-corpus index at `db` with default settings.
pub fn build_mock(db: &Path) -> anyhow::Result<BuildReport> {
    let sources: Vec<Box<dyn Source>> = vec![Box::new(ArxivMock), Box::new(SemanticScholarMock)];
    build_from(db, &sources, Analyzer::default(), Bm25::default())
}

fn build_from(db: &Path, sources: &[Box<dyn Source>], analyzer: Analyzer, bm25: Bm25) -> anyhow::Result<BuildReport> {
    let mut union = Union::new();
    for s in sources {
        union.add_source(s.as_ref())?;
    }
    let (papers, disagreements) = union.finish();
    build_index(db, &papers, &disagreements, analyzer, bm25)
}
