//! The write side of the integer graph: nodes for ids, the links sources
//! stated (`stated_links`, by node, with their origin record as an
//! integer), and the edges derived from them (`adjacency_lists`, both
//! directions, changed through [`Edits`]). [`super::ingest_writer::IngestWriter`]
//! calls these; they own the SQL.

use std::collections::BTreeSet;

use rusqlite::{Connection, OptionalExtension, params};

use super::adjacency::{Edits, load_pairs};

/// `stated_links.origin` of a link read from an edge file.
pub(crate) const ORIGIN_EDGES: i64 = 0;

/// The node of `id`, if the graph knows it.
pub(crate) fn find_node(conn: &Connection, id: &str) -> anyhow::Result<Option<i64>> {
    Ok(conn.prepare_cached("SELECT node FROM nodes WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?)
}

/// The node of `id`, numbered now if it is new.
pub(crate) fn node_of(conn: &Connection, id: &str) -> anyhow::Result<i64> {
    if let Some(n) = find_node(conn, id)? {
        return Ok(n);
    }
    conn.prepare_cached("INSERT INTO nodes (id) VALUES (?1)")?.execute([id])?;
    Ok(conn.last_insert_rowid())
}

/// The `stated_links.origin` of the links of a record from `source`: `2·code`
/// for its references (its own id citing), `2·code + 1` for its citations.
pub(crate) fn record_origin(conn: &Connection, source: &str, own_is_cited: bool) -> anyhow::Result<i64> {
    let find = |conn: &Connection| -> rusqlite::Result<Option<i64>> {
        conn.prepare_cached("SELECT code FROM link_sources WHERE source = ?1")?
            .query_row([source], |r| r.get(0))
            .optional()
    };
    let code = match find(conn)? {
        Some(c) => c,
        None => {
            conn.prepare_cached("INSERT INTO link_sources (source) VALUES (?1)")?.execute([source])?;
            conn.last_insert_rowid()
        }
    };
    Ok(2 * code + i64::from(own_is_cited))
}

/// Stores a stated link; returns whether it was new.
pub(crate) fn insert_link(conn: &Connection, citing: i64, cited: i64, origin: i64) -> anyhow::Result<bool> {
    let n = conn
        .prepare_cached("INSERT OR IGNORE INTO stated_links (citing, cited, origin) VALUES (?1, ?2, ?3)")?
        .execute(params![citing, cited, origin])?;
    Ok(n > 0)
}

/// Forgets the links a record stated: those with its own node `own` at the
/// end `origin` says, from that origin; returns them (citing, cited), so
/// that the record's new statement counts only the links it adds.
pub(crate) fn delete_record_links(conn: &Connection, own: i64, origin: i64) -> anyhow::Result<Vec<(i64, i64)>> {
    let sql = if origin % 2 == 0 {
        "DELETE FROM stated_links WHERE citing = ?1 AND origin = ?2 RETURNING citing, cited"
    } else {
        "DELETE FROM stated_links WHERE cited = ?1 AND origin = ?2 RETURNING citing, cited"
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params![own, origin], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The node of the paper `node`'s id is an alias of, or `node` itself.
fn canonical(conn: &Connection, node: i64) -> anyhow::Result<i64> {
    Ok(conn
        .prepare_cached(
            "SELECT coalesce((SELECT c.node FROM nodes AS n
                              JOIN aliases AS x ON x.alias = n.id
                              JOIN nodes AS c ON c.id = x.paper_id
                              WHERE n.node = ?1), ?1)",
        )?
        .query_row([node], |r| r.get(0))?)
}

/// Adds the edge a new stated link implies to `edits` (outside a bulk
/// load): both ends resolved through the aliases.
pub(crate) fn derive_into(conn: &Connection, edits: &mut Edits, citing: i64, cited: i64) -> anyhow::Result<()> {
    let (a, b) = (canonical(conn, citing)?, canonical(conn, cited)?);
    if a != b {
        edits.add(conn, a, b)?;
    }
    Ok(())
}

/// Adds and stores the edge a new stated link implies (outside a bulk load).
pub(crate) fn derive_one(conn: &Connection, citing: i64, cited: i64) -> anyhow::Result<()> {
    let mut edits = Edits::default();
    derive_into(conn, &mut edits, citing, cited)?;
    edits.flush(conn)
}

/// Derives every edge from `stated_links` into `adjacency_lists` (a bulk
/// load): each end resolved through the aliases once per node (a
/// temporary table of the nodes that are another paper's alias), then each
/// node's list of each direction built in one aggregate.
pub(crate) fn derive_all(conn: &Connection) -> anyhow::Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE canon (node INTEGER PRIMARY KEY, to_node INTEGER NOT NULL);
         INSERT INTO temp.canon (node, to_node)
             SELECT n.node, c.node FROM nodes AS n
             JOIN aliases AS x ON x.alias = n.id
             JOIN nodes AS c ON c.id = x.paper_id
             WHERE c.node <> n.node;
         CREATE TEMP TABLE pairs (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID;
         INSERT OR IGNORE INTO temp.pairs (a, b)
             SELECT a, b FROM (
                 SELECT coalesce(ca.to_node, l.citing) AS a, coalesce(cb.to_node, l.cited) AS b
                 FROM stated_links AS l
                 LEFT JOIN temp.canon AS ca ON ca.node = l.citing
                 LEFT JOIN temp.canon AS cb ON cb.node = l.cited)
             WHERE a <> b;",
    )?;
    load_pairs(conn)?;
    conn.execute_batch("DROP TABLE temp.pairs; DROP TABLE temp.canon;")?;
    Ok(())
}

/// Deletes and re-derives, in `edits`, every edge with an end in `ids`
/// (the incremental case: the ids a record, link or merge touched).
pub(crate) fn rebuild(conn: &Connection, edits: &mut Edits, ids: &BTreeSet<String>) -> anyhow::Result<()> {
    let mut nodes = Vec::new();
    for id in ids {
        if let Some(n) = find_node(conn, id)? {
            nodes.push(n);
        }
    }
    for &n in &nodes {
        edits.clear(conn, n)?;
    }
    let mut pairs: BTreeSet<(i64, i64)> = BTreeSet::new();
    {
        let mut by_citing = conn.prepare_cached("SELECT citing, cited FROM stated_links WHERE citing = ?1")?;
        let mut by_cited = conn.prepare_cached("SELECT citing, cited FROM stated_links WHERE cited = ?1")?;
        for &n in &nodes {
            for stmt in [&mut by_citing, &mut by_cited] {
                for row in stmt.query_map([n], |r| Ok((r.get(0)?, r.get(1)?)))? {
                    pairs.insert(row?);
                }
            }
        }
    }
    for (citing, cited) in pairs {
        derive_into(conn, edits, citing, cited)?;
    }
    Ok(())
}

/// The other ends of the links a record stated (its references for an
/// even `origin`, its citations for an odd one), by id, sorted: what a
/// record stored without its lists had in them.
pub(crate) fn stated_by(conn: &Connection, own: &str, origin: i64) -> anyhow::Result<Vec<String>> {
    let sql = if origin % 2 == 0 {
        "SELECT m.id FROM nodes AS n JOIN stated_links AS l ON l.citing = n.node AND l.origin = ?2
         JOIN nodes AS m ON m.node = l.cited WHERE n.id = ?1"
    } else {
        "SELECT m.id FROM nodes AS n JOIN stated_links AS l ON l.cited = n.node
         JOIN nodes AS m ON m.node = l.citing WHERE n.id = ?1 AND l.origin = ?2"
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let mut out: Vec<String> = stmt.query_map(params![own, origin], |r| r.get(0))?.collect::<Result<_, _>>()?;
    out.sort();
    Ok(out)
}

/// Removes the edge between the papers of nodes `citing` and `cited` (each
/// resolved through the aliases) unless a stated link still implies it: the
/// targeted form of [`rebuild`] for one link that went away.
pub(crate) fn forget_edge_unless_stated(conn: &Connection, citing: i64, cited: i64) -> anyhow::Result<()> {
    let (a, b) = (canonical(conn, citing)?, canonical(conn, cited)?);
    if a == b {
        return Ok(());
    }
    // The nodes that resolve to a paper's node: its id's aliases' nodes, and the node itself.
    let stated: bool = conn
        .prepare_cached(
            "WITH ends(side, node) AS (
                 SELECT 0, m.node FROM nodes AS n JOIN aliases AS x ON x.paper_id = n.id JOIN nodes AS m ON m.id = x.alias
                 WHERE n.node = ?1
                 UNION SELECT 0, ?1
                 UNION SELECT 1, m.node FROM nodes AS n JOIN aliases AS x ON x.paper_id = n.id JOIN nodes AS m ON m.id = x.alias
                 WHERE n.node = ?2
                 UNION SELECT 1, ?2)
             SELECT EXISTS (SELECT 1 FROM stated_links AS l
                            WHERE l.citing IN (SELECT node FROM ends WHERE side = 0)
                              AND l.cited IN (SELECT node FROM ends WHERE side = 1))",
        )?
        .query_row(params![a, b], |r| r.get(0))?;
    if !stated {
        let mut edits = Edits::default();
        edits.remove(conn, a, b)?;
        edits.flush(conn)?;
    }
    Ok(())
}
