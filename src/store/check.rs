//! `litindex check`: SQLite's own integrity check, then litindex's invariants.
//!
//! Every invariant is a query for the rows that break it, so a violation is
//! reported with examples (the first [`EXAMPLES`]) and a count. A query that
//! cannot run (a badly damaged file) counts as a violation of its invariant.
//! The postings invariants decode the blocks instead (`check_blocks.rs`).
//! Edge ends that are not papers are dangling ids: allowed, and counted.

use rusqlite::Connection;
use rusqlite::types::Value;
use serde::Serialize;

use super::{APPLICATION_ID, SCHEMA_VERSION};
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;

/// How many examples each violated invariant lists.
pub(crate) const EXAMPLES: usize = 10;

/// The outcome of one invariant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvariantResult {
    /// A short key: `integrity`, `num-docs`, `df`, …
    pub name: &'static str,
    /// What must hold.
    pub description: &'static str,
    pub ok: bool,
    /// How many rows (or facts) break it.
    pub violations: u64,
    /// The first [`EXAMPLES`] of them, in words.
    pub examples: Vec<String>,
}

/// Everything `check` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    pub ok: bool,
    pub schema_version: i64,
    pub journal_mode: String,
    pub papers: u64,
    pub terms: u64,
    pub postings: u64,
    pub edges: u64,
    pub aliases: u64,
    /// Distinct edge ends that are not indexed papers (allowed).
    pub dangling_ids: u64,
    /// Edges with at least one dangling end (allowed).
    pub dangling_edges: u64,
    /// Every invariant checked, in order.
    pub invariants: Vec<InvariantResult>,
}

impl CheckReport {
    /// The invariants that do not hold.
    pub fn violated(&self) -> impl Iterator<Item = &InvariantResult> {
        self.invariants.iter().filter(|i| !i.ok)
    }
}

/// A row rendered as text for an example.
pub(super) type Render = fn(&[Value]) -> String;

/// The invariants expressed as "rows that break it" queries.
const QUERIES: &[(&str, &str, &str, Render)] = &[
    (
        "num-docs",
        "N (index_meta.num_docs) equals the number of indexed papers",
        "SELECT m.num_docs, (SELECT count(*) FROM papers) FROM index_meta AS m
         WHERE m.num_docs IS NOT (SELECT count(*) FROM papers)",
        |r| format!("num_docs is {} but there are {} papers", text(&r[0]), text(&r[1])),
    ),
    (
        "total-len",
        "the stored total length equals the sum of the document lengths",
        "SELECT m.total_len, (SELECT coalesce(sum(doc_len), 0) FROM papers) FROM index_meta AS m
         WHERE m.total_len IS NOT (SELECT coalesce(sum(doc_len), 0) FROM papers)",
        |r| format!("total_len is {} but the document lengths sum to {}", text(&r[0]), text(&r[1])),
    ),
    (
        "year-range",
        "the stored year range is that of the papers",
        "SELECT m.min_year, m.max_year, (SELECT min(year) FROM papers), (SELECT max(year) FROM papers)
         FROM index_meta AS m
         WHERE m.min_year IS NOT (SELECT min(year) FROM papers) OR m.max_year IS NOT (SELECT max(year) FROM papers)",
        |r| format!("stored {}..{}, papers span {}..{}", text(&r[0]), text(&r[1]), text(&r[2]), text(&r[3])),
    ),
    (
        "alias-paper",
        "every alias points to a paper",
        "SELECT a.alias, a.paper_id FROM aliases AS a WHERE NOT EXISTS (SELECT 1 FROM papers AS p WHERE p.id = a.paper_id)
         ORDER BY a.alias",
        |r| format!("alias {} points to {}, which is not a paper", quoted(&r[0]), quoted(&r[1])),
    ),
    (
        "paper-alias",
        "every paper's id is an alias of itself",
        "SELECT p.id FROM papers AS p
         WHERE NOT EXISTS (SELECT 1 FROM aliases AS a WHERE a.alias = p.id AND a.paper_id = p.id) ORDER BY p.id",
        |r| format!("paper {} is not an alias of itself", quoted(&r[0])),
    ),
    (
        "record-paper",
        "every source record belongs to a paper",
        "SELECT r.source, r.source_id, r.paper_id FROM records AS r
         WHERE NOT EXISTS (SELECT 1 FROM papers AS p WHERE p.id = r.paper_id) ORDER BY r.source, r.source_id",
        |r| format!("record {}:{} belongs to {}, which is not a paper", text(&r[0]), text(&r[1]), quoted(&r[2])),
    ),
    (
        "self-edge",
        "no paper cites itself",
        "SELECT coalesce(n.id, a.node) FROM adjacency AS a LEFT JOIN nodes AS n ON n.node = a.node
         WHERE a.node = a.nbr ORDER BY 1",
        |r| format!("edge {} -> itself", quoted(&r[0])),
    ),
    (
        "duplicate-edge",
        "no edge is stored twice",
        "SELECT citing, cited, count(*) FROM edges GROUP BY citing, cited HAVING count(*) > 1 ORDER BY 1, 2",
        |r| format!("edge {} -> {} stored {} times", quoted(&r[0]), quoted(&r[1]), text(&r[2])),
    ),
    (
        "mark-label",
        "every mark has a known label (favorite, exclude, to-read, read)",
        "SELECT paper_id, label FROM marks WHERE label NOT IN ('favorite', 'exclude', 'to-read', 'read') ORDER BY 1",
        |r| format!("mark of {} has the unknown label {}", quoted(&r[0]), quoted(&r[1])),
    ),
    (
        "mark-contradiction",
        "no paper is both a favorite and excluded",
        "SELECT paper_id FROM marks WHERE label = 'favorite'
         INTERSECT SELECT paper_id FROM marks WHERE label = 'exclude' ORDER BY 1",
        |r| format!("paper {} is marked both favorite and exclude", quoted(&r[0])),
    ),
    (
        "mark-tag",
        "no tag is empty",
        "SELECT paper_id FROM mark_tags WHERE trim(tag) = '' ORDER BY 1",
        |r| format!("paper {} has an empty tag", quoted(&r[0])),
    ),
    (
        "watch-seen",
        "every watch_seen row belongs to a saved search",
        "SELECT s.watch, s.paper_id FROM watch_seen AS s
         WHERE NOT EXISTS (SELECT 1 FROM watches AS w WHERE w.name = s.watch) ORDER BY 1, 2",
        |r| format!("watch_seen row {} of {}, which is not a saved search", quoted(&r[1]), quoted(&r[0])),
    ),
    (
        "screen-candidate",
        "every screening candidate belongs to a review",
        "SELECT c.review, c.given_id FROM screen_candidates AS c
         WHERE NOT EXISTS (SELECT 1 FROM screen_reviews AS r WHERE r.name = c.review) ORDER BY 1, 2",
        |r| format!("candidate {} of {}, which is not a review", quoted(&r[1]), quoted(&r[0])),
    ),
    (
        "screen-decision",
        "every screening decision is on a candidate of its review, labelled include or exclude",
        "SELECT d.review, d.given_id FROM screen_decisions AS d
         WHERE d.label NOT IN ('include', 'exclude') OR NOT EXISTS
               (SELECT 1 FROM screen_candidates AS c WHERE c.review = d.review AND c.given_id = d.given_id)
         ORDER BY 1, 2",
        |r| format!("decision on {} in {} is not on one of its candidates or has an unknown label", quoted(&r[1]), quoted(&r[0])),
    ),
    (
        "screen-seq",
        "no two decisions of a review share a sequence number",
        "SELECT review, seq FROM screen_decisions GROUP BY review, seq HAVING count(*) > 1 ORDER BY 1, 2",
        |r| format!("review {} has two decisions numbered {}", quoted(&r[0]), text(&r[1])),
    ),
    (
        "watch-flags",
        "every saved search's flags are a JSON array of strings",
        "SELECT name FROM watches
         WHERE NOT (json_valid(flags) AND json_type(flags) = 'array' AND NOT EXISTS
                    (SELECT 1 FROM json_each(CASE WHEN json_valid(flags) THEN flags ELSE '[]' END) WHERE type <> 'text'))
         ORDER BY 1",
        |r| format!("watch {} has flags that are not a JSON array of strings", quoted(&r[0])),
    ),
    (
        "vector-dim",
        "every paper vector has its model's dimension",
        "SELECT v.model_id, v.doc, length(v.vector), m.dim FROM vectors AS v
         LEFT JOIN embed_models AS m ON m.model_id = v.model_id
         WHERE m.model_id IS NULL OR length(v.vector) IS NOT 4 * m.dim ORDER BY 1, 2",
        |r| {
            format!(
                "doc {}: vector of {} bytes for model {}, whose dimension is {}",
                text(&r[1]),
                text(&r[2]),
                text(&r[0]),
                text(&r[3])
            )
        },
    ),
    (
        "passage-vector-passage",
        "every passage vector belongs to a stored passage",
        "SELECT v.model_id, v.passage FROM passage_vectors AS v
         WHERE NOT EXISTS (SELECT 1 FROM passages AS x WHERE x.passage = v.passage) ORDER BY 1, 2",
        |r| format!("passage vector of model {} for passage {}, which is not stored", text(&r[0]), text(&r[1])),
    ),
    (
        "passage-vector-dim",
        "every passage vector has its model's dimension",
        "SELECT v.model_id, v.passage, length(v.vector), m.dim FROM passage_vectors AS v
         LEFT JOIN embed_models AS m ON m.model_id = v.model_id
         WHERE m.model_id IS NULL OR length(v.vector) IS NOT 4 * m.dim ORDER BY 1, 2",
        |r| {
            format!(
                "passage {}: vector of {} bytes for model {}, whose dimension is {}",
                text(&r[1]),
                text(&r[2]),
                text(&r[0]),
                text(&r[3])
            )
        },
    ),
];

impl super::Store {
    /// Checks the index: SQLite's integrity check, then every invariant.
    /// Never fails: what cannot be evaluated is reported as a violation.
    pub fn check(&self) -> CheckReport {
        check(&self.conn)
    }
}

/// Checks the index open on `conn` (see [`super::Store::check`]).
pub(crate) fn check(conn: &Connection) -> CheckReport {
    let mut invariants = vec![integrity(conn), schema(conn), meta_row(conn)];
    for &(name, description, sql, render) in QUERIES {
        invariants.push(by_query(conn, name, description, sql, render));
    }
    invariants.extend(super::check_blocks::check_postings(conn));
    invariants.extend(super::check_graph::invariants(conn));
    invariants.push(avgdl(conn));
    invariants.push(settings(conn));
    invariants.push(super::fetch::check_responses(conn));
    invariants.push(passage_postings(conn));
    invariants.push(vector_codes(conn));
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n.max(0) as u64).unwrap_or(0);
    CheckReport {
        ok: invariants.iter().all(|i| i.ok),
        schema_version: conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap_or(-1),
        journal_mode: conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap_or_default(),
        papers: count("SELECT count(*) FROM papers"),
        terms: count("SELECT count(*) FROM terms"),
        postings: super::blocks::count_postings(conn).map(|n| n.max(0) as u64).unwrap_or(0),
        edges: count(super::adjacency::COUNT_EDGES),
        aliases: count("SELECT count(*) FROM aliases"),
        dangling_ids: count(
            "SELECT count(*) FROM nodes AS n
             WHERE n.doc IS NULL AND EXISTS (SELECT 1 FROM adjacency_lists AS l WHERE l.node = n.node)",
        ),
        dangling_edges: count(super::adjacency::COUNT_DANGLING_EDGES),
        invariants,
    }
}

/// The passage field (migration 010) against the passages' text.
fn passage_postings(conn: &Connection) -> InvariantResult {
    const NAME: &str = "passage_postings";
    const DESCRIPTION: &str =
        "passage postings, passage frequencies, N and total length are exactly those of the passages' text";
    match super::passages::check_passages(conn) {
        Ok(problems) => {
            let n = problems.len() as u64;
            result(NAME, DESCRIPTION, n, problems.into_iter().take(5).collect())
        }
        Err(e) => result(NAME, DESCRIPTION, 1, vec![format!("could not be evaluated: {e:#}")]),
    }
}

fn vector_codes(conn: &Connection) -> InvariantResult {
    const NAME: &str = "vector-codes";
    const DESCRIPTION: &str =
        "the chunks of vector codes (vector_codes) are those of the paper vectors, and nothing else";
    match super::vector_codes::stale_chunks(conn, usize::MAX) {
        Ok(problems) => {
            let n = problems.len() as u64;
            result(NAME, DESCRIPTION, n, problems.into_iter().take(EXAMPLES).collect())
        }
        Err(e) => result(NAME, DESCRIPTION, 1, vec![format!("could not be evaluated: {e:#}")]),
    }
}

fn result(name: &'static str, description: &'static str, violations: u64, examples: Vec<String>) -> InvariantResult {
    InvariantResult { name, description, ok: violations == 0, violations, examples }
}

fn unevaluated(name: &'static str, description: &'static str, e: rusqlite::Error) -> InvariantResult {
    result(name, description, 1, vec![format!("could not be evaluated: {e}")])
}

fn integrity(conn: &Connection) -> InvariantResult {
    const NAME: &str = "integrity";
    const DESCRIPTION: &str = "SQLite's integrity_check finds nothing wrong";
    let rows: rusqlite::Result<Vec<String>> =
        conn.prepare("PRAGMA integrity_check").and_then(|mut s| s.query_map([], |r| r.get::<_, String>(0))?.collect());
    match rows {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => result(NAME, DESCRIPTION, 0, Vec::new()),
        Ok(rows) => result(NAME, DESCRIPTION, rows.len() as u64, rows.into_iter().take(EXAMPLES).collect()),
        Err(e) => unevaluated(NAME, DESCRIPTION, e),
    }
}

fn schema(conn: &Connection) -> InvariantResult {
    const NAME: &str = "schema";
    const DESCRIPTION: &str = "the file is a litindex index of a schema version this litindex knows";
    let ids = conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i32>(0)).and_then(|app| {
        conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).map(|version| (app, version))
    });
    let mut problems = Vec::new();
    match ids {
        Ok((app, version)) => {
            if app != APPLICATION_ID {
                problems.push(format!("application_id is {app:#x}, not {APPLICATION_ID:#x} (LITX)"));
            }
            if version != SCHEMA_VERSION {
                problems.push(format!("schema version {version}, this litindex knows {SCHEMA_VERSION}"));
            }
        }
        Err(e) => return unevaluated(NAME, DESCRIPTION, e),
    }
    result(NAME, DESCRIPTION, problems.len() as u64, problems)
}

fn meta_row(conn: &Connection) -> InvariantResult {
    const NAME: &str = "meta-row";
    const DESCRIPTION: &str = "index_meta holds exactly one row";
    match conn.query_row("SELECT count(*) FROM index_meta", [], |r| r.get::<_, i64>(0)) {
        Ok(1) => result(NAME, DESCRIPTION, 0, Vec::new()),
        Ok(n) => result(NAME, DESCRIPTION, 1, vec![format!("index_meta has {n} rows")]),
        Err(e) => unevaluated(NAME, DESCRIPTION, e),
    }
}

pub(super) fn by_query(
    conn: &Connection,
    name: &'static str,
    description: &'static str,
    sql: &str,
    render: Render,
) -> InvariantResult {
    let run = || -> rusqlite::Result<(u64, Vec<String>)> {
        let mut stmt = conn.prepare(sql)?;
        let n = stmt.column_count();
        let mut rows = stmt.query([])?;
        let (mut count, mut examples) = (0u64, Vec::new());
        while let Some(row) = rows.next()? {
            count += 1;
            if examples.len() < EXAMPLES {
                let values: Vec<Value> = (0..n).map(|i| row.get(i)).collect::<Result<_, _>>()?;
                examples.push(render(&values));
            }
        }
        Ok((count, examples))
    };
    match run() {
        Ok((count, examples)) => result(name, description, count, examples),
        Err(e) => unevaluated(name, description, e),
    }
}

fn avgdl(conn: &Connection) -> InvariantResult {
    const NAME: &str = "avgdl";
    const DESCRIPTION: &str = "the stored average length equals total_len / N";
    let row = conn.query_row("SELECT num_docs, total_len, avgdl FROM index_meta WHERE id = 1", [], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, f64>(2)?))
    });
    match row {
        Ok((n, total, stored)) => {
            let expected = if n > 0 { total as f64 / n as f64 } else { 0.0 };
            if (stored - expected).abs() <= 1e-9 * expected.abs().max(1.0) {
                result(NAME, DESCRIPTION, 0, Vec::new())
            } else {
                result(
                    NAME,
                    DESCRIPTION,
                    1,
                    vec![format!("avgdl is {stored}, total_len / N is {total} / {n} = {expected}")],
                )
            }
        }
        Err(e) => unevaluated(NAME, DESCRIPTION, e),
    }
}

fn settings(conn: &Connection) -> InvariantResult {
    const NAME: &str = "settings";
    const DESCRIPTION: &str = "the analyzer is known and k1, b are valid";
    let row = conn.query_row("SELECT analyzer, k1, b FROM index_meta WHERE id = 1", [], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?, r.get::<_, f64>(2)?))
    });
    match row {
        Ok((analyzer, k1, b)) => {
            let mut problems = Vec::new();
            if let Err(e) = analyzer.parse::<Analyzer>() {
                problems.push(format!("analyzer: {e}"));
            }
            if let Err(e) = Bm25::new(k1, b) {
                problems.push(e.to_string());
            }
            result(NAME, DESCRIPTION, problems.len() as u64, problems)
        }
        Err(e) => unevaluated(NAME, DESCRIPTION, e),
    }
}

/// A value as plain text (NULL as `NULL`).
pub(super) fn text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(f) => f.to_string(),
        Value::Text(s) => s.clone(),
        Value::Blob(b) => format!("<{} bytes>", b.len()),
    }
}

/// A user-supplied value (an id, a term) quoted, with control characters escaped.
pub(super) fn quoted(v: &Value) -> String {
    match v {
        Value::Text(s) => format!("{s:?}"),
        other => text(other),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::params;

    use super::*;
    use crate::ingest::engine::Ingester;
    use crate::paper::PaperId;
    use crate::paper::{Link, Record};
    use crate::store::create_index;

    fn record(id: &str, title: &str, year: i32, refs: &[&str]) -> Record {
        Record {
            source: "paper".into(),
            source_id: PaperId::parse(id),
            ids: Vec::new(),
            title: title.into(),
            abstract_: format!("{title} and more words about {title}"),
            year: Some(year),
            authors: vec!["Ada Lovelace".into()],
            references: refs.iter().map(|r| PaperId::parse(r)).collect(),
            citations: Vec::new(),
            arxiv_version: None,
            venue: None,
        }
    }

    fn small_index(dir: &std::path::Path) -> Connection {
        let path = dir.join("c.db");
        create_index(&path, Analyzer::Plain, Bm25::default(), |conn| {
            let mut ing = Ingester::new(conn)?;
            ing.add_record(record("a", "Sparse attention", 2019, &["b", "ghost"]), "paper", "t:1")?;
            ing.add_record(record("b", "Dense retrieval", 2021, &["a"]), "paper", "t:2")?;
            ing.add_record(record("c", "Graph walks for search", 2023, &["a"]), "paper", "t:3")?;
            ing.add_link(&Link { citing: PaperId::parse("c"), cited: PaperId::parse("b") })?;
            ing.finish()?;
            Ok(())
        })
        .unwrap();
        // Behind litindex's back, as `sqlite3` would: no foreign-key enforcement.
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        conn
    }

    fn violated(report: &CheckReport) -> Vec<&str> {
        report.violated().map(|i| i.name).collect()
    }

    #[test]
    fn a_fresh_index_passes_and_counts_dangling_ids() {
        let dir = tempfile::tempdir().unwrap();
        let conn = small_index(dir.path());
        let report = check(&conn);
        assert!(report.ok, "{report:#?}");
        assert_eq!((report.papers, report.dangling_ids, report.dangling_edges), (3, 1, 1));
        assert_eq!(report.journal_mode, "wal");
        assert!(report.invariants.len() >= 15);
    }

    /// Edges to a dangling id, from one, and between two, each counted
    /// once: the count through the dangling nodes' lists is the count
    /// over every edge joined with both its ends.
    #[test]
    fn dangling_edges_are_counted_once_whichever_end_dangles() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        create_index(&path, Analyzer::Plain, Bm25::default(), |conn| {
            let mut ing = Ingester::new(conn)?;
            ing.add_record(record("a", "Sparse attention", 2019, &["b", "ghost"]), "paper", "t:1")?;
            ing.add_record(record("b", "Dense retrieval", 2021, &["a", "ghost"]), "paper", "t:2")?;
            for (citing, cited) in [("ghost2", "a"), ("ghost2", "ghost"), ("ghost3", "ghost2"), ("c", "a")] {
                ing.add_link(&Link { citing: PaperId::parse(citing), cited: PaperId::parse(cited) })?;
            }
            ing.finish()?;
            Ok(())
        })
        .unwrap();
        let conn = Connection::open(&path).unwrap();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        let joined = count(
            "SELECT count(*) FROM adjacency_lists AS l, json_each(l.cites) AS a
             JOIN nodes AS c ON c.node = l.node JOIN nodes AS d ON d.node = a.value
             WHERE c.doc IS NULL OR d.doc IS NULL",
        );
        // a→ghost, b→ghost, ghost2→a, ghost2→ghost, ghost3→ghost2, c→a (c is no paper).
        assert_eq!((count(super::super::adjacency::COUNT_DANGLING_EDGES), joined), (6, 6));
        assert_eq!(check(&conn).dangling_edges, 6);
    }

    #[test]
    fn damage_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let conn = small_index(dir.path());
        // One posting gone: the term's df and the paper's length disagree with the postings.
        let sparse: i64 = conn.query_row("SELECT term_id FROM terms WHERE term = 'sparse'", [], |r| r.get(0)).unwrap();
        let doc =
            |id: &str| -> i64 { conn.query_row("SELECT doc FROM papers WHERE id = ?1", [id], |r| r.get(0)).unwrap() };
        let len_a: u32 = conn.query_row("SELECT doc_len FROM papers WHERE id = 'a'", [], |r| r.get(0)).unwrap();
        assert!(super::super::blocks::remove_posting(&conn, sparse, doc("a"), len_a).unwrap());
        let report = check(&conn);
        assert_eq!(violated(&report), ["df", "doc-len"], "{report:#?}");
        let df = report.invariants.iter().find(|i| i.name == "df").unwrap();
        assert_eq!(df.examples, ["term \"sparse\": df 1, 0 postings"]);

        // A chunk of document lengths that went stale (written past its triggers).
        conn.execute("UPDATE paper_lengths SET data = X'02' WHERE chunk = 0", []).unwrap();
        let report = check(&conn);
        let stale = report.invariants.iter().find(|i| i.name == "paper-lengths").unwrap();
        let first: i64 = conn.query_row("SELECT min(doc) FROM papers", [], |r| r.get(0)).unwrap();
        let said = format!("chunk 0: doc {first}: the chunk says None, the source ");
        assert!(!stale.ok && stale.examples[0].starts_with(&said), "{stale:#?}");

        // A node whose copy of its paper's year went stale (what a walk ranks by).
        conn.execute("UPDATE nodes SET year = year + 1 WHERE id = 'c'", []).unwrap();
        let report = check(&conn);
        let stale = report.invariants.iter().find(|i| i.name == "paper-node").unwrap();
        assert!(!stale.ok && stale.examples[0].starts_with("paper \"c\""), "{stale:#?}");
        conn.execute("UPDATE nodes SET year = (SELECT year FROM papers WHERE id = 'c') WHERE id = 'c'", []).unwrap();
        // A paper's year edited in place is followed by its node.
        conn.execute("UPDATE papers SET year = 1999 WHERE id = 'c'", []).unwrap();
        assert_eq!(conn.query_row("SELECT year FROM nodes WHERE id = 'c'", [], |r| r.get::<_, i64>(0)).unwrap(), 1999);

        // A paper row gone behind our back: N, lengths, aliases, records and postings all notice.
        conn.execute("DELETE FROM papers WHERE id = 'b'", []).unwrap();
        let names = violated(&check(&conn)).join(" ");
        for name in ["num-docs", "total-len", "posting-paper", "alias-paper", "record-paper"] {
            assert!(names.contains(name), "{name} not in {names}");
        }

        // A stated list out of order (a sqlite3 edit appending to it).
        let lists: i64 = conn.query_row("SELECT count(*) FROM stated_lists", [], |r| r.get(0)).unwrap();
        assert!(lists > 0, "the test index states links");
        conn.execute(
            "UPDATE stated_lists SET others = json_insert(others, '$[#]', 0)
             WHERE (own, origin) = (SELECT own, origin FROM stated_lists ORDER BY own, origin LIMIT 1)",
            [],
        )
        .unwrap();
        let names = violated(&check(&conn)).join(" ");
        assert!(names.contains("stated-lists"), "{names}");

        // A self-edge (a list naming its own node), and stale statistics.
        conn.execute(
            "UPDATE adjacency_lists SET cites = json_insert(cites, '$[#]', node)
             WHERE node = (SELECT node FROM nodes WHERE id = 'c')",
            [],
        )
        .unwrap();
        conn.execute("UPDATE index_meta SET avgdl = avgdl + 1, min_year = 1900, analyzer = 'klingon'", []).unwrap();
        conn.execute("UPDATE terms SET df = 0 WHERE term = 'graph'", params![]).unwrap();
        let names = violated(&check(&conn)).join(" ");
        for name in ["self-edge", "adjacency-lists", "adjacency-symmetric", "avgdl", "year-range", "settings", "df"] {
            assert!(names.contains(name), "{name} not in {names}");
        }
    }
}
