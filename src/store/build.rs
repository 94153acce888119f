//! Writing a whole index: papers, postings, BM25 statistics and edges.
//!
//! The index is built into a temporary file beside the target and renamed
//! into place only when complete, so a failed build leaves the old index (or
//! no file) exactly as it was.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use anyhow::Context;
use rusqlite::{params, Connection};

use super::{configure, migrate, APPLICATION_ID};
use crate::analyzer::{indexed_text, Analyzer};
use crate::bm25::Bm25;
use crate::paper::Paper;
use crate::source::Disagreement;

/// What a build wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildReport {
    pub papers: usize,
    pub terms: usize,
    pub postings: usize,
    pub edges: usize,
    pub dangling_edges: usize,
    pub disagreements: usize,
}

/// Builds a fresh index of `papers` at `path`, replacing any file there only
/// once the new one is complete.
pub fn build_index(
    path: &Path,
    papers: &[Paper],
    disagreements: &[Disagreement],
    analyzer: Analyzer,
    bm25: Bm25,
) -> anyhow::Result<BuildReport> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        anyhow::bail!("cannot build {}: directory {} does not exist", path.display(), dir.display());
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".litindex-build-").suffix(".db");
    // A temporary file is private (0600) by default; the index is an ordinary
    // file, so ask for 0666 and let the umask decide, as for any new file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let tmp =
        builder.tempfile_in(dir).with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    // Rebuilding keeps the permissions the old index had.
    if let Ok(old) = std::fs::metadata(path) {
        if old.is_file() {
            std::fs::set_permissions(tmp.path(), old.permissions())?;
        }
    }
    let report = {
        let mut conn = Connection::open(tmp.path())?;
        configure(&conn)?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        migrate::migrate(&mut conn)?;
        let report = write_all(&mut conn, papers, disagreements, analyzer, bm25)?;
        conn.close().map_err(|(_, e)| e)?;
        report
    };
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot move the new index into place at {}", path.display()))?;
    Ok(report)
}

fn write_all(
    conn: &mut Connection,
    papers: &[Paper],
    disagreements: &[Disagreement],
    analyzer: Analyzer,
    bm25: Bm25,
) -> anyhow::Result<BuildReport> {
    let tx = conn.transaction()?;
    let ids: BTreeSet<&str> = papers.iter().map(|p| p.id.as_str()).collect();
    anyhow::ensure!(ids.len() == papers.len(), "duplicate paper ids given to build_index");

    // Papers and per-document term frequencies.
    let mut term_ids: HashMap<String, i64> = HashMap::new();
    let mut terms: Vec<(String, i64)> = Vec::new(); // (term, df), index = term_id - 1
    let mut postings: Vec<(i64, i64, i64)> = Vec::new();
    let mut total_len: i64 = 0;
    {
        let mut insert = tx.prepare(
            "INSERT INTO papers (doc, id, title, abstract, year, authors, source, doc_len)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for (i, p) in papers.iter().enumerate() {
            let doc = i as i64 + 1;
            let tokens = analyzer.tokenize(&indexed_text(&p.title, &p.abstract_));
            let mut tf: HashMap<&str, i64> = HashMap::new();
            for t in &tokens {
                *tf.entry(t.as_str()).or_default() += 1;
            }
            for (t, f) in tf {
                let id = *term_ids.entry(t.to_string()).or_insert_with(|| {
                    terms.push((t.to_string(), 0));
                    terms.len() as i64
                });
                terms[id as usize - 1].1 += 1;
                postings.push((id, doc, f));
            }
            total_len += tokens.len() as i64;
            let authors = serde_json::to_string(&p.authors)?;
            insert
                .execute(params![doc, p.id, p.title, p.abstract_, p.year, authors, p.source, tokens.len() as i64])
                .with_context(|| format!("cannot store paper {}", p.id))?;
        }
    }
    {
        let mut insert = tx.prepare("INSERT INTO terms (term_id, term, df) VALUES (?1, ?2, ?3)")?;
        for (i, (term, df)) in terms.iter().enumerate() {
            insert.execute(params![i as i64 + 1, term, df])?;
        }
    }
    postings.sort_unstable();
    {
        let mut insert = tx.prepare("INSERT INTO postings (term_id, doc, tf) VALUES (?1, ?2, ?3)")?;
        for (term_id, doc, tf) in &postings {
            insert.execute(params![term_id, doc, tf])?;
        }
    }

    // Edges: the union of every paper's references and citations.
    let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
    for p in papers {
        for r in &p.references {
            edges.insert((p.id.as_str(), r.as_str()));
        }
        for c in &p.citations {
            edges.insert((c.as_str(), p.id.as_str()));
        }
    }
    edges.retain(|(a, b)| a != b);
    let dangling_edges = edges.iter().filter(|(a, b)| !ids.contains(a) || !ids.contains(b)).count();
    {
        let mut insert = tx.prepare("INSERT INTO edges (citing, cited) VALUES (?1, ?2)")?;
        for (citing, cited) in &edges {
            insert.execute(params![citing, cited])?;
        }
    }
    {
        let mut insert = tx.prepare(
            "INSERT INTO disagreements (paper_id, field, kept, kept_source, other, other_source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for d in disagreements {
            insert.execute(params![d.paper_id, d.field, d.kept, d.kept_source, d.other, d.other_source])?;
        }
    }

    let n = papers.len() as i64;
    let avgdl = if n == 0 { 0.0 } else { total_len as f64 / n as f64 };
    let years = papers.iter().filter_map(|p| p.year);
    let (min_year, max_year) = (years.clone().min(), years.max());
    tx.execute(
        "INSERT INTO index_meta (id, analyzer, k1, b, num_docs, total_len, avgdl, min_year, max_year, built_at)
         VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
        params![analyzer.name(), bm25.k1, bm25.b, n, total_len, avgdl, min_year, max_year],
    )?;
    tx.commit()?;
    Ok(BuildReport {
        papers: papers.len(),
        terms: terms.len(),
        postings: postings.len(),
        edges: edges.len(),
        dangling_edges,
        disagreements: disagreements.len(),
    })
}
