//! The links the sources stated, as stored (migration 022): one
//! `stated_lists` row per (node, origin), `others` a JSON array of the
//! other ends' nodes, ascending, without repeats, never empty. A record's
//! links all have its own node at one end: the citing end for an even
//! origin (its references; 0 is an edge file's links, kept by their citing
//! node), the cited end for an odd one (its citations). Every read and
//! write of the lists goes through here; `edges.rs` derives the edges.

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};

use super::adjacency::{format, parse};
use crate::graph::Node;

const GET: &str = "SELECT others FROM stated_lists WHERE own = ?1 AND origin = ?2";
const ALL_OF: &str = "SELECT origin, others FROM stated_lists WHERE own = ?1 ORDER BY origin";
const PUT: &str = "INSERT OR REPLACE INTO stated_lists (own, origin, others) VALUES (?1, ?2, ?3)";
const DROP: &str = "DELETE FROM stated_lists WHERE own = ?1 AND origin = ?2";

/// A stated link `citing → cited` of `origin` as (the row's node, the
/// other end); and the other way, (own, other) as (citing, cited).
pub(super) fn ends(citing: Node, cited: Node, origin: i64) -> (Node, Node) {
    if origin % 2 == 0 { (citing, cited) } else { (cited, citing) }
}

fn read(own: Node, origin: i64, text: &str) -> anyhow::Result<Vec<Node>> {
    parse(Some(text))
        .with_context(|| format!("stated_lists row ({own}, {origin}): others is not a JSON array of node integers"))
}

/// The list of `own` and `origin` (empty when it has none).
pub(super) fn list(conn: &Connection, own: Node, origin: i64) -> anyhow::Result<Vec<Node>> {
    let text: Option<String> = conn.prepare_cached(GET)?.query_row(params![own, origin], |r| r.get(0)).optional()?;
    text.map_or(Ok(Vec::new()), |t| read(own, origin, &t))
}

/// Every list kept by `own`, by origin.
pub(super) fn lists_of(conn: &Connection, own: Node) -> anyhow::Result<Vec<(i64, Vec<Node>)>> {
    let mut stmt = conn.prepare_cached(ALL_OF)?;
    let rows = stmt.query_map([own], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    rows.map(|row| {
        let (origin, text) = row?;
        Ok((origin, read(own, origin, &text)?))
    })
    .collect()
}

/// Stores `list` (ascending, without repeats) as the list of `own` and
/// `origin`; an empty one removes the row.
pub(super) fn put(conn: &Connection, own: Node, origin: i64, list: &[Node]) -> anyhow::Result<()> {
    match format(list) {
        Some(text) => conn.prepare_cached(PUT)?.execute(params![own, origin, text])?,
        None => conn.prepare_cached(DROP)?.execute(params![own, origin])?,
    };
    Ok(())
}

/// Adds the link `citing → cited` of `origin`; returns whether it was new.
pub(super) fn insert(conn: &Connection, citing: Node, cited: Node, origin: i64) -> anyhow::Result<bool> {
    let (own, other) = ends(citing, cited, origin);
    let mut list = list(conn, own, origin)?;
    let Err(at) = list.binary_search(&other) else { return Ok(false) };
    list.insert(at, other);
    put(conn, own, origin, &list)?;
    Ok(true)
}

/// Removes the link `citing → cited` of `origin`; returns whether it was there.
pub(super) fn remove(conn: &Connection, citing: Node, cited: Node, origin: i64) -> anyhow::Result<bool> {
    let (own, other) = ends(citing, cited, origin);
    let mut list = list(conn, own, origin)?;
    let Ok(at) = list.binary_search(&other) else { return Ok(false) };
    list.remove(at);
    put(conn, own, origin, &list)?;
    Ok(true)
}

/// Removes the list of `own` and `origin`; returns its links (citing, cited).
pub(super) fn take(conn: &Connection, own: Node, origin: i64) -> anyhow::Result<Vec<(Node, Node)>> {
    let list = list(conn, own, origin)?;
    conn.prepare_cached(DROP)?.execute(params![own, origin])?;
    Ok(list.into_iter().map(|other| ends(own, other, origin)).collect())
}

/// How many links the lists hold, and the lowest and highest node (0 and 0
/// for none; every end of a list is a node).
pub(super) fn extent(conn: &Connection) -> anyhow::Result<(u64, Node, Node)> {
    Ok(conn.query_row(
        "SELECT (SELECT coalesce(sum(json_array_length(others)), 0) FROM stated_lists),
                coalesce((SELECT min(node) FROM nodes), 0), coalesce((SELECT max(node) FROM nodes), 0)",
        [],
        |r| Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get(1)?, r.get(2)?)),
    )?)
}

/// Calls `f` with every list, in the table's order: its own node, its
/// origin and the other ends.
pub(super) fn each(conn: &Connection, mut f: impl FnMut(Node, i64, &[Node])) -> anyhow::Result<()> {
    let mut stmt = conn.prepare("SELECT own, origin, others FROM stated_lists")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let (own, origin) = (row.get(0)?, row.get(1)?);
        let others = read(own, origin, row.get_ref(2)?.as_str()?)?;
        f(own, origin, &others);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE stated_lists (own INTEGER NOT NULL, origin INTEGER NOT NULL, others TEXT NOT NULL,
                                        PRIMARY KEY (own, origin)) WITHOUT ROWID",
        )
        .unwrap();
        conn
    }

    #[test]
    fn links_are_kept_by_the_records_end_sorted_and_once() {
        let conn = conn();
        // A record's references (even origin) by their citing end, its citations (odd) by their cited end.
        assert!(insert(&conn, 5, 9, 2).unwrap());
        assert!(insert(&conn, 5, 3, 2).unwrap());
        assert!(!insert(&conn, 5, 9, 2).unwrap());
        assert!(insert(&conn, 7, 5, 3).unwrap());
        assert_eq!(list(&conn, 5, 2).unwrap(), [3, 9]);
        assert_eq!(list(&conn, 5, 3).unwrap(), [7]);
        assert_eq!(lists_of(&conn, 5).unwrap(), [(2, vec![3, 9]), (3, vec![7])]);
        assert!(list(&conn, 7, 3).unwrap().is_empty());
        assert!(remove(&conn, 5, 3, 2).unwrap());
        assert!(!remove(&conn, 5, 3, 2).unwrap());
        assert_eq!(take(&conn, 5, 3).unwrap(), [(7, 5)]);
        assert_eq!(take(&conn, 5, 2).unwrap(), [(5, 9)]);
        let rows: i64 = conn.query_row("SELECT count(*) FROM stated_lists", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0, "an emptied list leaves no row");
    }

    #[test]
    fn a_damaged_list_is_an_error_naming_its_row() {
        let conn = conn();
        conn.execute("INSERT INTO stated_lists VALUES (4, 6, '[1,x]')", []).unwrap();
        let err = list(&conn, 4, 6).unwrap_err().to_string();
        assert!(err.contains("stated_lists row (4, 6)"), "{err}");
        assert!(insert(&conn, 4, 2, 6).is_err());
    }
}
