//! `build`: a fresh index from whole sources, through the same write path as
//! `ingest`.
//!
//! The sources are first unioned by [`Union`] (the core semantics: the same
//! id in several lines or files is one paper; a later record fills empty
//! fields; conflicts keep the first value and are counted), each merged paper
//! is then filed as one record, labelled with its sources.

use std::path::Path;

use rusqlite::params;

use super::engine::Ingester;
use super::ids::PaperId;
use super::record::Record;
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::paper::Paper;
use crate::source::{Source, Union};
use crate::store::{create_index, Counts, Store};

/// Reads every source, in order, into a [`Union`] keyed by normalised id.
pub fn union_sources(sources: &[Box<dyn Source>]) -> anyhow::Result<Union> {
    let mut union = Union::new();
    for s in sources {
        for record in s.records()? {
            let mut p = record.map_err(anyhow::Error::new)?;
            normalize_ids(&mut p);
            union.add(p);
        }
    }
    Ok(union)
}

/// Ids in their normal form ([`PaperId::key`]), so `arXiv:X` and `X` are one paper.
fn normalize_ids(p: &mut Paper) {
    p.id = PaperId::parse(&p.id).key();
    for list in [&mut p.references, &mut p.citations] {
        for id in list.iter_mut() {
            *id = PaperId::parse(id).key();
        }
    }
}

/// Builds a new index at `path` from `union`, replacing any file there only
/// when complete, and reports what it holds.
pub fn build_index(path: &Path, union: Union, analyzer: Analyzer, bm25: Bm25) -> anyhow::Result<Counts> {
    let (papers, disagreements) = union.finish();
    create_index(path, analyzer, bm25, |conn| {
        let mut ingester = Ingester::new(conn)?;
        for p in papers {
            let source = p.source.clone();
            let record = Record::from_paper(p, source);
            ingester.add_record(record, "paper", "build")?;
        }
        ingester.finish()?;
        let mut ins = conn.prepare(
            "INSERT INTO disagreements (paper_id, field, kept, kept_source, other, other_source, origin)
             VALUES (coalesce((SELECT paper_id FROM aliases WHERE alias = ?1), ?1), ?2, ?3, ?4, ?5, ?6, 'build')",
        )?;
        for d in &disagreements {
            ins.execute(params![d.paper_id, d.field, d.kept, d.kept_source, d.other, d.other_source])?;
        }
        Ok(())
    })?;
    Store::open(path)?.counts()
}
