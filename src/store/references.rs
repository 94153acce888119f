//! A PDF's reference list and citation contexts into the store and the
//! citation graph (migration 011): each entry matched to a paper of the
//! index by DOI, arXiv id or title signature, exact matches only; a matched
//! entry is a link stated by the PDF (origin: the `pdf` record's
//! references, so it goes through `stated_links` and the one derivation of
//! edges like every other source's), an unmatched one a link to a dangling
//! id (its DOI, else its arXiv id, else `ref:` + a hash of its title) that
//! carries the parsed title, so `gaps` can list it by title.
//!
//! **Matching.** An entry's DOI (then its arXiv id) that is an alias of an
//! indexed paper matches that paper (`matched_by` doi, arxiv). Otherwise its
//! title signature ([`title_key`]) equal to one paper's record title matches
//! that paper (`title`) when nothing disagrees: the years (when both are
//! known) within one, the first authors' surnames (when both are known)
//! equal, no DOI of the entry's that differs from the paper's DOIs; the
//! evidence is kept. A title that matches a paper on which something
//! disagrees, or several papers, is a near miss: not matched, the reason in
//! `evidence`.
//!
//! **Later arrivals.** [`relink`] runs at the end of every ingest (fetch's
//! too): an unmatched entry whose paper has arrived since is matched then,
//! and its stated link moved from the dangling id to the paper.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::{Handle, PaperDoc, edges, record_data};
use crate::fulltext::{Document, ParsedRef};
use crate::paper::PaperId;
use crate::paper::title::{normalize, surname, title_key};

/// The `records.source` of a PDF's record, whose references origin the PDF's links take.
pub(crate) const PDF_SOURCE: &str = "pdf";

/// What [`write_document_links`] stored for one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LinkCounts {
    /// Reference entries stored.
    pub entries: u64,
    /// Entries matched to an indexed paper, by DOI, arXiv id and title.
    pub by_doi: u64,
    pub by_arxiv: u64,
    pub by_title: u64,
    /// Entries that name a dangling id (not in the index).
    pub dangling: u64,
    /// Entries nothing identifies (kept raw, no link).
    pub raw_only: u64,
    /// Title matches refused (kept as evidence).
    pub near_misses: u64,
    /// Citation contexts stored, and the (context, entry) pairs they cite.
    pub contexts: u64,
    pub cited_pairs: u64,
    /// The citation links the document states (its matched and dangling
    /// entries' distinct targets), and of those, how many it did not state before.
    pub links: u64,
    pub links_added: u64,
}

/// One entry's match: the id its stated link names, how it matched a paper, and the evidence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Match {
    pub target: Option<String>,
    pub matched_by: Option<&'static str>,
    pub evidence: Option<String>,
}

/// Stores `doc`'s reference entries and citation contexts for document
/// `paper_doc`, replacing what an earlier read of the same document stored
/// (entries, contexts and the links the PDF stated; links from other
/// sources stay), inside the caller's write transaction.
pub(crate) fn write_document_links(tx: Handle<'_>, paper_doc: &PaperDoc, doc: &Document) -> anyhow::Result<LinkCounts> {
    let conn = tx.conn;
    let origin = edges::record_origin(conn, PDF_SOURCE, false)?;
    let own = edges::node_of(conn, &paper_doc.source_id)?;
    let old_targets = stated_targets(conn, own, origin)?;
    edges::delete_record_links(conn, own, origin)?;
    for sql in [
        "DELETE FROM context_references WHERE document = ?1",
        "DELETE FROM citation_contexts WHERE document = ?1",
        "DELETE FROM doc_references WHERE document = ?1",
    ] {
        conn.prepare_cached(sql)?.execute([paper_doc.document])?;
    }

    let mut counts = LinkCounts::default();
    let mut ins = conn.prepare_cached(
        "INSERT INTO doc_references (document, position, label, raw, page, title, authors, et_al, year, venue,
                                     doi, arxiv, title_key, target, matched_by, evidence)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?;
    for (position, entry) in doc.references.iter().enumerate() {
        let p = &entry.parsed;
        let m = match_entry(conn, p, &paper_doc.paper_id)?;
        ins.execute(params![
            paper_doc.document,
            position as i64,
            entry.label,
            entry.raw,
            entry.page,
            p.title,
            serde_json::to_string(&p.authors)?,
            p.et_al,
            p.year,
            p.venue,
            p.doi,
            p.arxiv,
            p.title.as_deref().and_then(title_key).map(|k| record_data::title_code(&k)),
            m.target,
            m.matched_by,
            m.evidence,
        ])?;
        counts.entries += 1;
        match (m.matched_by, &m.target) {
            (Some("doi"), _) => counts.by_doi += 1,
            (Some("arxiv"), _) => counts.by_arxiv += 1,
            (Some(_), _) => counts.by_title += 1,
            (None, Some(_)) => counts.dangling += 1,
            (None, None) => counts.raw_only += 1,
        }
        if m.matched_by.is_none() && m.evidence.is_some() {
            counts.near_misses += 1;
        }
    }
    drop(ins);
    // Every document filed under the same record key (two copies of one PDF)
    // states its links from the same node: they are the union of theirs.
    let mut new_targets = BTreeSet::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT DISTINCT e.target FROM documents AS d JOIN doc_references AS e ON e.document = d.document
             WHERE d.source_id = ?1 AND e.target IS NOT NULL",
        )?;
        for t in stmt.query_map([&paper_doc.source_id], |r| r.get::<_, String>(0))? {
            new_targets.insert(t?);
        }
    }
    for target in &new_targets {
        state_link(conn, own, target, origin, &paper_doc.paper_id)?;
    }
    counts.links = new_targets.len() as u64;
    counts.links_added = new_targets.difference(&old_targets).count() as u64;
    for old in old_targets.difference(&new_targets) {
        if let Some(node) = edges::find_node(conn, old)? {
            edges::forget_edge_unless_stated(conn, own, node)?;
        }
    }

    let mut ctx = conn.prepare_cached(
        "INSERT INTO citation_contexts (document, context, section, heading, paragraph, start, end, page, sentence, markers)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut cites = conn
        .prepare_cached("INSERT OR IGNORE INTO context_references (document, position, context) VALUES (?1, ?2, ?3)")?;
    for c in &doc.contexts {
        // A context whose indexes do not name a sentence of the document is
        // not stored (the finder's bug, not the user's input: never an error).
        let Some(section) = doc.sections.get(c.section) else { continue };
        let Some(sentence) = section.paragraphs.get(c.paragraph).and_then(|p| p.text.get(c.start..c.end)) else {
            continue;
        };
        let cited: Vec<usize> = c.references.iter().copied().filter(|&r| r < doc.references.len()).collect();
        if cited.is_empty() {
            continue;
        }
        let context = counts.contexts as i64;
        ctx.execute(params![
            paper_doc.document,
            context,
            c.section as i64,
            section.heading,
            c.paragraph as i64,
            c.start as i64,
            c.end as i64,
            c.page,
            sentence.trim(),
            serde_json::to_string(&c.markers)?,
        ])?;
        counts.contexts += 1;
        for r in cited {
            counts.cited_pairs += cites.execute(params![paper_doc.document, r as i64, context])? as u64;
        }
    }
    Ok(counts)
}

/// The ids the links of origin `origin` from node `own` name.
fn stated_targets(conn: &Connection, own: i64, origin: i64) -> anyhow::Result<BTreeSet<String>> {
    Ok(edges::stated_ids(conn, own, origin)?.into_iter().collect())
}

/// States the link `own → target` (unless `target` is the citing paper
/// itself) and adds the edge it implies.
fn state_link(conn: &Connection, own: i64, target: &str, origin: i64, citing_paper: &str) -> anyhow::Result<()> {
    if target == citing_paper || super::read::resolve_on(conn, target)?.as_deref() == Some(citing_paper) {
        return Ok(());
    }
    let cited = edges::node_of(conn, target)?;
    if own != cited && edges::insert_link(conn, own, cited, origin)? {
        edges::derive_one(conn, own, cited)?;
    }
    Ok(())
}

/// The dangling id of an entry nothing in the index matches: its DOI, else
/// its arXiv id, else `ref:` and 16 hex digits of BLAKE3 of its normalised
/// title (two words at least); `None` when it has none of them.
pub(crate) fn dangling_id(p: &ParsedRef) -> Option<String> {
    if let Some(id) = entry_doi(p).or_else(|| entry_arxiv(p)) {
        return Some(id);
    }
    let title = normalize(p.title.as_deref()?);
    if title.split(' ').count() < 2 {
        return None;
    }
    let hash = blake3::hash(title.as_bytes()).to_hex();
    Some(format!("ref:{}", &hash[..16]))
}

fn entry_doi(p: &ParsedRef) -> Option<String> {
    p.doi.as_deref().and_then(PaperId::parse_doi).map(|id| id.key())
}

fn entry_arxiv(p: &ParsedRef) -> Option<String> {
    let from_doi = p.doi.as_deref().and_then(PaperId::parse_doi).filter(|id| matches!(id, PaperId::Arxiv(_)));
    p.arxiv.as_deref().and_then(PaperId::parse_arxiv).map(|(id, _)| id).or(from_doi).map(|id| id.key())
}

/// A paper a title signature names: its id, year, authors and DOIs.
struct TitlePaper {
    id: String,
    year: Option<i32>,
    first_author: Option<String>,
    dois: Vec<String>,
}

/// The papers with a record whose title signature is `key`, sorted by id.
fn papers_titled(conn: &Connection, key: &str) -> anyhow::Result<Vec<TitlePaper>> {
    let mut rows: Vec<(String, Option<i32>, String)> = Vec::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT p.id, p.year, p.authors,
                    CASE WHEN r.shared & 1 THEN p.title ELSE coalesce(json_extract(r.data, '$.title'), '') END
             FROM records AS r JOIN papers AS p ON p.id = r.paper_id
             WHERE r.title_key = ?1 ORDER BY p.id",
        )?;
        let found = stmt.query_map([record_data::title_code(key)], |r| {
            Ok(((r.get(0)?, r.get(1)?, r.get(2)?), r.get::<_, String>(3)?))
        })?;
        for row in found {
            let (paper, title) = row?;
            if record_data::titled(&title, key) && rows.last().is_none_or(|last| last.0 != paper.0) {
                rows.push(paper);
            }
        }
    }
    let mut dois =
        conn.prepare_cached("SELECT alias FROM aliases WHERE paper_id = ?1 AND kind = 'doi' ORDER BY alias")?;
    let mut out = Vec::new();
    for (id, year, authors) in rows {
        let authors: Vec<String> = serde_json::from_str(&authors).unwrap_or_default();
        let list = dois.query_map([&id], |r| r.get::<_, String>(0))?.collect::<Result<_, _>>()?;
        out.push(TitlePaper { first_author: authors.first().and_then(|a| surname(a)), id, year, dois: list });
    }
    Ok(out)
}

/// Matches one entry to a paper of the index (exact matches only), or
/// names the dangling id its link takes; see the module's documentation.
pub(crate) fn match_entry(conn: &Connection, p: &ParsedRef, citing_paper: &str) -> anyhow::Result<Match> {
    let doi = entry_doi(p);
    let arxiv = entry_arxiv(p);
    for (id, by) in [(&doi, "doi"), (&arxiv, "arxiv")] {
        if let Some(id) = id {
            if let Some(paper) = super::read::resolve_on(conn, id)? {
                return Ok(Match { target: Some(paper), matched_by: Some(by), evidence: None });
            }
        }
    }
    let dangling = Match { target: dangling_id(p), matched_by: None, evidence: None };
    let Some(key) = p.title.as_deref().and_then(title_key) else { return Ok(dangling) };
    let papers: Vec<TitlePaper> = papers_titled(conn, &key)?.into_iter().filter(|t| t.id != citing_paper).collect();
    let paper = match papers.as_slice() {
        [] => return Ok(dangling),
        [one] => one,
        many => {
            let ids: Vec<&str> = many.iter().map(|t| t.id.as_str()).collect();
            let why = format!("near miss: title \"{key}\" matches {} papers ({})", many.len(), ids.join(", "));
            return Ok(Match { evidence: Some(why), ..dangling });
        }
    };
    let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let ref_author = p.authors.first().and_then(|a| surname(a));
    let years = format!("{}/{}", show(p.year.map(|y| y.to_string())), show(paper.year.map(|y| y.to_string())));
    let authors = format!("{}/{}", show(ref_author.clone()), show(paper.first_author.clone()));
    let mut disagree = Vec::new();
    if let (Some(a), Some(b)) = (p.year, paper.year) {
        if (a - b).abs() > 1 {
            disagree.push(format!("years {years}"));
        }
    }
    if let (Some(a), Some(b)) = (&ref_author, &paper.first_author) {
        if a != b {
            disagree.push(format!("first authors {authors}"));
        }
    }
    if let Some(d) = doi.as_deref().filter(|d| !paper.dois.is_empty() && !paper.dois.iter().any(|x| x == d)) {
        disagree.push(format!("DOIs {d}/{}", paper.dois.join("|")));
    }
    if !disagree.is_empty() {
        let why = format!("near miss: title \"{key}\" matches {} but {}", paper.id, disagree.join(", "));
        return Ok(Match { evidence: Some(why), ..dangling });
    }
    Ok(Match {
        target: Some(paper.id.clone()),
        matched_by: Some("title"),
        evidence: Some(format!("title \"{key}\", years {years}, first authors {authors}")),
    })
}

/// Tries again every entry that matched no paper (at the end of an ingest:
/// the papers it brought may be theirs). An entry that matches now is
/// updated, and its stated link moves from its dangling id to the paper.
/// Returns how many entries matched.
pub(crate) fn relink(conn: &Connection) -> anyhow::Result<u64> {
    // Only entries whose DOI/arXiv target became an alias, or whose title
    // signature some record now has: a probe of an index each.
    let rows: Vec<(i64, i64, String, String)> = {
        let mut stmt = conn.prepare_cached(
            "SELECT e.document, e.position, d.source_id, r.paper_id
             FROM doc_references AS e
             JOIN documents AS d ON d.document = e.document
             JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
             WHERE e.matched_by IS NULL
               AND ((e.title_key IS NOT NULL AND EXISTS (SELECT 1 FROM records AS t WHERE t.title_key = e.title_key))
                    OR (e.target IS NOT NULL AND EXISTS (SELECT 1 FROM aliases AS x WHERE x.alias = e.target)))
             ORDER BY 1, 2",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    if rows.is_empty() {
        return Ok(0);
    }
    let origin = edges::record_origin(conn, PDF_SOURCE, false)?;
    let mut matched = 0;
    let mut moved: BTreeMap<(i64, String), (String, Option<String>)> = BTreeMap::new();
    for (document, position, source_id, citing) in rows {
        let (parsed, old_target) = stored_entry(conn, document, position)?;
        let m = match_entry(conn, &parsed, &citing)?;
        if m.matched_by.is_none() {
            continue;
        }
        conn.prepare_cached(
            "UPDATE doc_references SET target = ?3, matched_by = ?4, evidence = ?5 WHERE document = ?1 AND position = ?2",
        )?
        .execute(params![document, position, m.target, m.matched_by, m.evidence])?;
        matched += 1;
        if let Some(new) = m.target {
            moved.insert((document, new), (source_id.clone(), old_target));
        }
    }
    for ((document, new), (source_id, old)) in moved {
        let own = edges::node_of(conn, &source_id)?;
        let citing: String = conn.query_row(
            "SELECT r.paper_id FROM documents AS d JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
             WHERE d.document = ?1",
            [document],
            |r| r.get(0),
        )?;
        state_link(conn, own, &new, origin, &citing)?;
        let Some(old) = old.filter(|o| *o != new) else { continue };
        let still: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM doc_references WHERE document = ?1 AND target = ?2)",
            params![document, old],
            |r| r.get(0),
        )?;
        if let (false, Some(node)) = (still, edges::find_node(conn, &old)?) {
            edges::remove_link(conn, own, node, origin)?;
            edges::forget_edge_unless_stated(conn, own, node)?;
        }
    }
    Ok(matched)
}

/// An entry's parsed fields and target, as stored.
fn stored_entry(conn: &Connection, document: i64, position: i64) -> anyhow::Result<(ParsedRef, Option<String>)> {
    let row = conn
        .prepare_cached(
            "SELECT title, authors, et_al, year, venue, doi, arxiv, target FROM doc_references
             WHERE document = ?1 AND position = ?2",
        )?
        .query_row(params![document, position], |r| {
            Ok((
                ParsedRef {
                    title: r.get(0)?,
                    authors: serde_json::from_str(&r.get::<_, String>(1)?).unwrap_or_default(),
                    et_al: r.get(2)?,
                    year: r.get(3)?,
                    venue: r.get(4)?,
                    doi: r.get(5)?,
                    arxiv: r.get(6)?,
                },
                r.get(7)?,
            ))
        })
        .optional()?;
    row.ok_or_else(|| anyhow::anyhow!("index damaged: reference {position} of document {document} vanished"))
}
