//! The read side of migration 011: which reference entries of which PDFs
//! name a paper (through its aliases), the sentences that cite them, and the
//! parsed titles of dangling ids — for `why A B`, `paper ID`'s "cited in
//! context" and `gaps`.

use std::collections::HashMap;

use rusqlite::params;
use serde::Serialize;

use super::Store;

/// One sentence of a citing paper's body that cites an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CitingSentence {
    pub page: u32,
    /// The heading of its section (`""` before the first heading).
    pub section: String,
    pub sentence: String,
    /// The markers as printed ("[12]", "(Smith et al., 2019)").
    pub markers: Vec<String>,
}

/// One entry of a PDF's reference list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CitedEntry {
    /// Its position in the printed list, from 0.
    pub position: u32,
    pub label: Option<String>,
    pub raw: String,
    pub title: Option<String>,
    /// What its link names: the matched paper, or a dangling id.
    pub target: Option<String>,
    /// `doi`, `arxiv` or `title`; `None` when it matched no indexed paper.
    pub matched_by: Option<String>,
    /// Why a title match was accepted, or a near miss refused.
    pub evidence: Option<String>,
}

/// An entry that names a paper, in one citing paper's PDF, with the sentences citing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryContexts {
    /// The paper the PDF is filed under.
    pub citing: String,
    /// `documents.document` of the PDF.
    pub document: i64,
    pub entry: CitedEntry,
    pub sentences: Vec<CitingSentence>,
}

impl Store {
    /// The documents (PDFs) filed under paper `paper_id`, in document order.
    pub fn documents_of(&self, paper_id: &str) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT d.document FROM records AS r JOIN documents AS d ON d.source_id = r.source_id
             WHERE r.source = 'pdf' AND r.paper_id = ?1 ORDER BY d.document",
        )?;
        let rows = stmt.query_map([paper_id], |r| r.get::<_, i64>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many reference entries document `document` has.
    pub fn reference_entries(&self, document: i64) -> anyhow::Result<u64> {
        Ok(self
            .conn
            .prepare_cached("SELECT count(*) FROM doc_references WHERE document = ?1")?
            .query_row([document], |r| r.get(0))?)
    }

    /// Every reference entry whose link names `cited` (the id itself or any
    /// alias of it), in any PDF (or only in `documents`), by citing paper and
    /// position, each with the sentences citing it in document order.
    pub fn entries_naming(&self, cited: &str, documents: Option<&[i64]>) -> anyhow::Result<Vec<EntryContexts>> {
        let json = serde_json::to_string(&documents)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT r.paper_id, e.document, e.position, e.label, e.raw, e.title, e.target, e.matched_by, e.evidence
             FROM doc_references AS e
             JOIN documents AS d ON d.document = e.document
             JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
             WHERE e.target IN (SELECT ?1 UNION SELECT alias FROM aliases WHERE paper_id = ?1)
               AND (json_type(?2) = 'null' OR e.document IN (SELECT value FROM json_each(?2)))
             ORDER BY r.paper_id, e.document, e.position",
        )?;
        let rows = stmt.query_map(params![cited, json], |r| {
            Ok(EntryContexts {
                citing: r.get(0)?,
                document: r.get(1)?,
                entry: CitedEntry {
                    position: r.get(2)?,
                    label: r.get(3)?,
                    raw: r.get(4)?,
                    title: r.get(5)?,
                    target: r.get(6)?,
                    matched_by: r.get(7)?,
                    evidence: r.get(8)?,
                },
                sentences: Vec::new(),
            })
        })?;
        let mut out: Vec<EntryContexts> = rows.collect::<Result<_, _>>()?;
        let mut sentences = self.conn.prepare_cached(
            "SELECT c.page, c.heading, c.sentence, c.markers FROM context_references AS x
             JOIN citation_contexts AS c ON c.document = x.document AND c.context = x.context
             WHERE x.document = ?1 AND x.position = ?2 ORDER BY c.context",
        )?;
        for e in &mut out {
            let rows = sentences.query_map(params![e.document, e.entry.position], |r| {
                Ok(CitingSentence {
                    page: r.get(0)?,
                    section: r.get(1)?,
                    sentence: r.get(2)?,
                    markers: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
                })
            })?;
            e.sentences = rows.collect::<Result<_, _>>()?;
        }
        Ok(out)
    }

    /// Whether some PDF's reference entry names `id` (a dangling id `why` may be asked about).
    pub fn is_reference_target(&self, id: &str) -> anyhow::Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM doc_references WHERE target = ?1)")?
            .query_row([id], |r| r.get(0))?)
    }

    /// The parsed title (and year) of each of `ids` that a PDF's reference
    /// entry names with one: the title printed most often, ties by the first.
    pub fn reference_titles(&self, ids: &[String]) -> anyhow::Result<HashMap<String, (String, Option<i32>)>> {
        let json = serde_json::to_string(ids)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.target, e.title, e.year, count(*) AS n FROM (SELECT DISTINCT value FROM json_each(?1)) AS j
             JOIN doc_references AS e ON e.target = j.value
             WHERE e.title IS NOT NULL
             GROUP BY e.target, e.title, e.year ORDER BY e.target, n DESC, min(e.document), min(e.position)",
        )?;
        let rows = stmt.query_map([json], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?)))?;
        let mut out = HashMap::new();
        for row in rows {
            let (id, title, year) = row?;
            out.entry(id).or_insert((title, year));
        }
        Ok(out)
    }
}
