//! `litindex stats`: what the index holds.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use crate::cli::{Format, StatsArgs};
use litindex::store::{SCHEMA_VERSION, Store};

#[derive(Serialize)]
struct Stats {
    db: String,
    schema_version: i64,
    papers: u64,
    terms: u64,
    postings: u64,
    edges: u64,
    dangling_edges: u64,
    avgdl: f64,
    k1: f64,
    b: f64,
    analyzer: String,
    year_min: Option<i32>,
    year_max: Option<i32>,
    /// Source disagreements per field.
    disagreements: BTreeMap<String, u64>,
    built_at: String,
    /// Full-text passages, and passage vectors of any model (`embed --passages`).
    passages: u64,
    passage_vectors: u64,
    /// The Zotero libraries the index reads, and what their last sync did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    zotero: Vec<ZoteroStat>,
}

#[derive(Serialize)]
struct ZoteroStat {
    library: String,
    items: u64,
    synced_at: String,
    added: u64,
    updated: u64,
    removed: u64,
    unchanged: u64,
}

pub fn run(args: &StatsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let meta = store.meta()?;
    let c = store.counts()?;
    let schema_version = store.schema_version()?;
    debug_assert_eq!(schema_version, SCHEMA_VERSION);
    let s = Stats {
        db: store.path().display().to_string(),
        schema_version,
        papers: c.papers,
        terms: c.terms,
        postings: c.postings,
        edges: c.edges,
        dangling_edges: c.dangling_edges,
        avgdl: meta.avgdl,
        k1: meta.k1,
        b: meta.b,
        analyzer: meta.analyzer,
        year_min: meta.min_year,
        year_max: meta.max_year,
        disagreements: c.disagreements,
        built_at: meta.built_at,
        passages: store.passage_stats()?.num_passages,
        passage_vectors: store.passage_vector_total()?,
        zotero: store
            .zotero_libraries()?
            .into_iter()
            .map(|z| ZoteroStat {
                library: z.path,
                items: z.items,
                synced_at: z.synced_at,
                added: z.added,
                updated: z.updated,
                removed: z.removed,
                unchanged: z.unchanged,
            })
            .collect(),
    };
    match args.format {
        Format::Json => {
            super::write_json(out, &s)?;
        }
        Format::Table => {
            let years = match (s.year_min, s.year_max) {
                (Some(a), Some(b)) => format!("{a}–{b}"),
                _ => "-".into(),
            };
            let disagreements = if s.disagreements.is_empty() {
                "none".to_string()
            } else {
                s.disagreements.iter().map(|(f, n)| format!("{f} {n}")).collect::<Vec<_>>().join(", ")
            };
            writeln!(out, "database        {}", s.db)?;
            writeln!(out, "schema version  {}", s.schema_version)?;
            writeln!(out, "built at        {}", s.built_at)?;
            writeln!(out, "papers          {}", s.papers)?;
            writeln!(out, "terms           {}", s.terms)?;
            writeln!(out, "postings        {}", s.postings)?;
            writeln!(out, "edges           {} ({} dangling)", s.edges, s.dangling_edges)?;
            writeln!(out, "avgdl           {:.2}", s.avgdl)?;
            writeln!(out, "bm25            k1 = {}, b = {}", s.k1, s.b)?;
            writeln!(out, "analyzer        {}", s.analyzer)?;
            writeln!(out, "years           {years}")?;
            writeln!(out, "disagreements   {disagreements}")?;
            writeln!(out, "passages        {} ({} with a vector)", s.passages, s.passage_vectors)?;
            for z in &s.zotero {
                writeln!(
                    out,
                    "zotero          {}: {} items; last sync {}: {} added, {} updated, {} removed, {} unchanged",
                    z.library, z.items, z.synced_at, z.added, z.updated, z.removed, z.unchanged
                )?;
            }
        }
    }
    Ok(())
}
