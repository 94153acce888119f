//! `litindex check`'s invariants of the integer graph: nodes agree with the
//! papers, the adjacency lists are well formed and hold every edge in both
//! directions, and the edges are exactly what the stated links derive to.

use rusqlite::Connection;

use super::check::{EXAMPLES, InvariantResult, Render, by_query, quoted, text};

/// The graph's invariants as "rows that break it" queries.
const QUERIES: &[(&str, &str, &str, Render)] = &[
    (
        "paper-node",
        "every paper is a node carrying its doc id and year",
        "SELECT p.id, p.doc, p.year FROM papers AS p
         WHERE NOT EXISTS (SELECT 1 FROM nodes AS n WHERE n.id = p.id AND n.doc = p.doc AND n.year IS p.year)
         ORDER BY p.id",
        |r| {
            format!("paper {} (doc {}, year {}) has no node with its doc id and year", quoted(&r[0]), text(&r[1]), text(&r[2]))
        },
    ),
    (
        "node-paper",
        "a node with a doc id is that paper; a node without one carries no year",
        "SELECT n.id, n.doc FROM nodes AS n WHERE (n.doc IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM papers AS p WHERE p.doc = n.doc AND p.id = n.id))
            OR (n.doc IS NULL AND n.year IS NOT NULL) ORDER BY n.id",
        |r| match r[1] {
            rusqlite::types::Value::Null => format!("node {} is no paper but carries a year", quoted(&r[0])),
            _ => format!("node {} says doc {}, which is not that paper", quoted(&r[0]), text(&r[1])),
        },
    ),
    (
        "adjacency-lists",
        "every adjacency list is a JSON array of node integers, ascending, without repeats or the node itself",
        "SELECT l.node, c.name FROM adjacency_lists AS l, (SELECT 'cites' AS name UNION ALL SELECT 'cited_by') AS c
         WHERE CASE
             WHEN (CASE c.name WHEN 'cites' THEN l.cites ELSE l.cited_by END) IS NULL THEN 0
             WHEN NOT json_valid(CASE c.name WHEN 'cites' THEN l.cites ELSE l.cited_by END)
                  OR json_type(CASE c.name WHEN 'cites' THEN l.cites ELSE l.cited_by END) <> 'array' THEN 1
             ELSE EXISTS (SELECT 1 FROM (SELECT type, value, lag(value) OVER (ORDER BY key) AS prev
                                         FROM json_each(CASE c.name WHEN 'cites' THEN l.cites ELSE l.cited_by END))
                          WHERE type <> 'integer' OR value = l.node OR value <= prev)
         END
         ORDER BY 1, 2",
        |r| format!("adjacency_lists row {}: {} is not an ascending JSON array of other nodes", text(&r[0]), text(&r[1])),
    ),
    (
        "adjacency-node",
        "both ends of every edge are nodes",
        "SELECT a.node, a.dir, a.nbr FROM adjacency AS a
         WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE node = a.node) OR NOT EXISTS (SELECT 1 FROM nodes WHERE node = a.nbr)
         ORDER BY 1, 2, 3",
        |r| format!("adjacency ({}, {}, {}) names a node that does not exist", text(&r[0]), text(&r[1]), text(&r[2])),
    ),
    (
        "adjacency-symmetric",
        "every edge is stored in both directions",
        "WITH one_way (node, dir, nbr) AS (
             SELECT node, dir, nbr FROM (SELECT node, dir, nbr FROM adjacency
                                         EXCEPT SELECT nbr, 1 - dir, node FROM adjacency))
         SELECT coalesce(c.id, a.node), a.dir, coalesce(d.id, a.nbr) FROM one_way AS a
         LEFT JOIN nodes AS c ON c.node = a.node LEFT JOIN nodes AS d ON d.node = a.nbr
         ORDER BY 1, 2, 3",
        |r| {
            let (a, b) = if text(&r[1]) == "0" { (&r[0], &r[2]) } else { (&r[2], &r[0]) };
            format!("edge {} -> {} is stored in one direction only", quoted(a), quoted(b))
        },
    ),
    (
        "stated-lists",
        "every stated list is a non-empty JSON array of node integers, ascending, without repeats",
        "SELECT l.own, l.origin FROM stated_lists AS l
         WHERE CASE
             WHEN NOT json_valid(l.others) OR json_type(l.others) <> 'array' OR json_array_length(l.others) = 0 THEN 1
             ELSE EXISTS (SELECT 1 FROM (SELECT type, value, lag(value) OVER (ORDER BY key) AS prev
                                         FROM json_each(l.others))
                          WHERE type <> 'integer' OR value <= prev)
         END
         ORDER BY 1, 2",
        |r| format!("stated_lists row ({}, {}): others is not a non-empty ascending JSON array of nodes", text(&r[0]), text(&r[1])),
    ),
    (
        "link-node",
        "both ends of every stated link are nodes, and its source is known",
        "SELECT l.citing, l.cited, l.origin FROM stated_links AS l
         WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE node = l.citing) OR NOT EXISTS (SELECT 1 FROM nodes WHERE node = l.cited)
            OR (l.origin <> 0 AND NOT EXISTS (SELECT 1 FROM link_sources WHERE code = l.origin / 2))
         ORDER BY 1, 2, 3",
        |r| format!("stated link ({}, {}, origin {}) names an unknown node or source", text(&r[0]), text(&r[1]), text(&r[2])),
    ),
    (
        "edges-derived",
        "the edges are the stated links with both ends resolved through the aliases, no more, no fewer",
        "WITH canon AS (
             SELECT n.node, c.node AS to_node FROM nodes AS n
             JOIN aliases AS x ON x.alias = n.id JOIN nodes AS c ON c.id = x.paper_id),
         derived AS (
             SELECT DISTINCT coalesce(ca.to_node, l.citing) AS a, coalesce(cb.to_node, l.cited) AS b
             FROM stated_links AS l
             LEFT JOIN canon AS ca ON ca.node = l.citing LEFT JOIN canon AS cb ON cb.node = l.cited),
         wrong AS (
             SELECT 'missing' AS what, a, b FROM (SELECT a, b FROM derived WHERE a <> b
                                                  EXCEPT SELECT l.node, j.value FROM adjacency_lists AS l, json_each(l.cites) AS j)
             UNION ALL
             SELECT 'not derived', a, b FROM (SELECT l.node AS a, j.value AS b FROM adjacency_lists AS l, json_each(l.cites) AS j
                                              EXCEPT SELECT a, b FROM derived))
         SELECT w.what, coalesce(c.id, w.a), coalesce(d.id, w.b) FROM wrong AS w
         LEFT JOIN nodes AS c ON c.node = w.a LEFT JOIN nodes AS d ON d.node = w.b ORDER BY 1, 2, 3",
        |r| match &r[0] {
            rusqlite::types::Value::Text(w) if w == "missing" => {
                format!("edge {} -> {} follows from the links but is not stored", quoted(&r[1]), quoted(&r[2]))
            }
            _ => format!("edge {} -> {} is stored but no link states it", quoted(&r[1]), quoted(&r[2])),
        },
    ),
    (
        "pdf-links",
        "the links a PDF states are exactly its reference entries' targets (migration 011)",
        "WITH o AS (SELECT 2 * code AS origin FROM link_sources WHERE source = 'pdf'),
         stated AS (SELECT c.id AS citing, m.id AS cited FROM stated_links AS l JOIN o ON l.origin = o.origin
                    JOIN nodes AS c ON c.node = l.citing JOIN nodes AS m ON m.node = l.cited
                    LEFT JOIN records AS r ON r.source = 'pdf' AND r.source_id = c.id
                    -- a target that has since become the citing paper itself (a merge) is no link to want
                    WHERE r.paper_id IS NULL
                       OR coalesce((SELECT x.paper_id FROM aliases AS x WHERE x.alias = m.id), m.id) <> r.paper_id),
         want AS (
             SELECT DISTINCT d.source_id AS citing, e.target AS cited
             FROM doc_references AS e
             JOIN documents AS d ON d.document = e.document
             JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
             WHERE e.target IS NOT NULL AND e.target <> d.source_id
               AND coalesce((SELECT x.paper_id FROM aliases AS x WHERE x.alias = e.target), e.target) <> r.paper_id),
         wrong AS (
             SELECT 'missing' AS what, citing, cited FROM (SELECT citing, cited FROM want EXCEPT SELECT citing, cited FROM stated)
             UNION ALL
             SELECT 'extra', citing, cited FROM (SELECT citing, cited FROM stated EXCEPT SELECT citing, cited FROM want))
         SELECT what, citing, cited FROM wrong ORDER BY 1, 2, 3",
        |r| match &r[0] {
            rusqlite::types::Value::Text(w) if w == "missing" => {
                format!("a reference entry of {} names {} but the PDF states no such link", quoted(&r[1]), quoted(&r[2]))
            }
            _ => format!("the PDF of {} states a link to {} that no reference entry names", quoted(&r[1]), quoted(&r[2])),
        },
    ),
];

/// The graph's invariants, each evaluated.
pub(crate) fn invariants(conn: &Connection) -> Vec<InvariantResult> {
    let mut out: Vec<InvariantResult> = QUERIES
        .iter()
        .map(|&(name, description, sql, render)| by_query(conn, name, description, sql, render))
        .collect();
    out.push(node_meta(conn));
    out
}

/// The walk's chunks of doc ids and years are what `nodes` holds.
fn node_meta(conn: &Connection) -> InvariantResult {
    let description = "the walk's chunks of doc ids and years (node_meta) are what nodes holds";
    let (violations, examples) = match super::node_meta::stale_chunks(conn, usize::MAX) {
        Ok(stale) => (
            stale.len() as u64,
            stale.iter().take(EXAMPLES).map(|(chunk, what)| format!("chunk {chunk}: {what}")).collect(),
        ),
        Err(e) => (1, vec![format!("cannot read node_meta: {e}")]),
    };
    InvariantResult { name: "node-meta", description, ok: violations == 0, violations, examples }
}
