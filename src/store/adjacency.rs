//! The adjacency as stored (migration 018): one `adjacency_lists` row per
//! node, its references (`cites`, `dir` 0) and its citers (`cited_by`,
//! `dir` 1) each a JSON array of node integers in ascending order, NULL
//! when empty. Reading a frontier's lists ([`read_lists`]) and changing
//! them ([`Edits`]: the lists a write touches are read once, changed in
//! memory and written once) live here; every other module goes through
//! these.

use std::collections::BTreeMap;

use anyhow::Context;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};

use crate::graph::Node;

/// How many edges the index holds.
pub(super) const COUNT_EDGES: &str = "SELECT coalesce(sum(json_array_length(cites)), 0) FROM adjacency_lists";

/// How many edges have an end that is no indexed paper: the references of
/// the nodes without a paper, plus their citers that have one. Only those
/// nodes' lists are read (the lists are each other's mirror: invariant
/// `adjacency-symmetric`), not every edge joined with both its ends, which
/// took 13 s at 1M papers in every `stats` and MCP `describe_index`.
pub(super) const COUNT_DANGLING_EDGES: &str = "WITH d(node) AS (SELECT node FROM nodes WHERE doc IS NULL)
     SELECT (SELECT coalesce(sum(json_array_length(l.cites)), 0) FROM adjacency_lists AS l
             WHERE l.node IN (SELECT node FROM d))
          + (SELECT count(*) FROM adjacency_lists AS l, json_each(l.cited_by) AS a
             WHERE l.node IN (SELECT node FROM d) AND a.value NOT IN (SELECT node FROM d))";

/// The column of a direction: 0 references, 1 citers.
fn column(dir: i64) -> &'static str {
    if dir == 0 { "cites" } else { "cited_by" }
}

/// A stored list: a JSON array of integers (whitespace allowed), or NULL.
pub(super) fn parse(text: Option<&str>) -> Option<Vec<Node>> {
    let text = text?;
    if let Some(list) = parse_canonical(text.as_bytes()) {
        return Some(list);
    }
    let text = text.trim();
    let inner = text.strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::with_capacity(inner.len() / 6 + 1);
    for part in inner.split(',') {
        out.push(part.trim().parse::<Node>().ok()?);
    }
    Some(out)
}

/// The form every write stores (`[1,22,333]`: digits and commas, no
/// sign, space or empty item), parsed byte by byte; `None` for anything
/// else, which [`parse`] reads the general way. A search parses some
/// thousand lists.
fn parse_canonical(text: &[u8]) -> Option<Vec<Node>> {
    let inner = text.strip_prefix(b"[")?.strip_suffix(b"]")?;
    let mut out = Vec::with_capacity(inner.len() / 6 + 1);
    // One pass: a number's digits (at most 18, which cannot overflow), a
    // comma after each but the last.
    let (mut n, mut digits): (Node, u32) = (0, 0);
    for &b in inner {
        let d = b.wrapping_sub(b'0');
        if d < 10 && digits < 18 {
            n = n * 10 + Node::from(d);
            digits += 1;
        } else if b == b',' && digits > 0 {
            out.push(n);
            (n, digits) = (0, 0);
        } else {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    out.push(n);
    Some(out)
}

/// A list as stored: NULL when empty.
pub(super) fn format(list: &[Node]) -> Option<String> {
    use std::fmt::Write;
    if list.is_empty() {
        return None;
    }
    let mut s = String::with_capacity(list.len() * 8 + 2);
    s.push('[');
    for (i, n) in list.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        write!(s, "{n}").expect("a String takes any write");
    }
    s.push(']');
    Some(s)
}

/// One row's column as a list (NULL: none), or an error naming the row.
fn list_of(node: Node, dir: i64, value: ValueRef<'_>) -> anyhow::Result<Vec<Node>> {
    let text = match value {
        ValueRef::Null => return Ok(Vec::new()),
        ValueRef::Text(bytes) => std::str::from_utf8(bytes).ok(),
        _ => None,
    };
    parse(text)
        .with_context(|| format!("adjacency_lists row {node}: {} is not a JSON array of node integers", column(dir)))
}

/// The lists of `nodes` (ascending, no repeats) in the directions
/// `lo..=hi`: `each(node, dir, list)` for every stored non-empty list, in
/// node order.
pub(super) fn read_lists(
    conn: &Connection,
    nodes: &[Node],
    (lo, hi): (i64, i64),
    each: &mut dyn FnMut(Node, i64, Vec<Node>),
) -> anyhow::Result<()> {
    let sql = match (lo, hi) {
        (0, 0) => "SELECT l.node, l.cites, NULL FROM json_each(?1) AS j JOIN adjacency_lists AS l ON l.node = j.value",
        (1, 1) => {
            "SELECT l.node, NULL, l.cited_by FROM json_each(?1) AS j JOIN adjacency_lists AS l ON l.node = j.value"
        }
        _ => "SELECT l.node, l.cites, l.cited_by FROM json_each(?1) AS j JOIN adjacency_lists AS l ON l.node = j.value",
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([serde_json::to_string(nodes)?])?;
    while let Some(r) = rows.next()? {
        let node: Node = r.get(0)?;
        for dir in lo..=hi {
            let list = list_of(node, dir, r.get_ref(1 + dir as usize)?)?;
            if !list.is_empty() {
                each(node, dir, list);
            }
        }
    }
    Ok(())
}

/// The lists of one node: (references, citers), [`read_lists`] of it alone.
pub(super) fn lists_of(conn: &Connection, node: Node) -> anyhow::Result<Lists> {
    let mut lists = Lists::default();
    read_lists(conn, &[node], (0, 1), &mut |_, dir, list| lists[dir as usize] = list)?;
    Ok(lists)
}

/// Changes to the lists within one write: each list touched is read once,
/// changed in memory, and written once by [`Edits::flush`].
/// A list re-derived to what it was is not written again.
#[derive(Default)]
pub(super) struct Edits {
    /// Each node's lists as read, and as they are now.
    lists: BTreeMap<Node, (Lists, Lists)>,
}

/// A node's references and citers.
type Lists = [Vec<Node>; 2];

impl Edits {
    fn lists(&mut self, conn: &Connection, node: Node) -> anyhow::Result<&mut Lists> {
        let entry = match self.lists.entry(node) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let lists = lists_of(conn, node)?;
                e.insert((lists.clone(), lists))
            }
        };
        Ok(&mut entry.1)
    }

    /// Adds the edge `citing → cited`, both directions (no change if held).
    pub(super) fn add(&mut self, conn: &Connection, citing: Node, cited: Node) -> anyhow::Result<()> {
        for (node, dir, nbr) in [(citing, 0, cited), (cited, 1, citing)] {
            let list = &mut self.lists(conn, node)?[dir];
            if let Err(at) = list.binary_search(&nbr) {
                list.insert(at, nbr);
            }
        }
        Ok(())
    }

    /// Removes the edge `citing → cited`, both directions (no change if absent).
    pub(super) fn remove(&mut self, conn: &Connection, citing: Node, cited: Node) -> anyhow::Result<()> {
        for (node, dir, nbr) in [(citing, 0, cited), (cited, 1, citing)] {
            let list = &mut self.lists(conn, node)?[dir];
            if let Ok(at) = list.binary_search(&nbr) {
                list.remove(at);
            }
        }
        Ok(())
    }

    /// The nodes `node` cites and those citing it, as the edits have them now.
    pub(super) fn neighbours(&mut self, conn: &Connection, node: Node) -> anyhow::Result<Vec<Node>> {
        let [refs, citers] = self.lists(conn, node)?;
        Ok(refs.iter().chain(citers.iter()).copied().collect())
    }

    /// Removes every edge with an end at `node`, both directions.
    pub(super) fn clear(&mut self, conn: &Connection, node: Node) -> anyhow::Result<()> {
        let [refs, citers] = std::mem::take(self.lists(conn, node)?);
        for m in refs {
            self.remove(conn, node, m)?;
        }
        for m in citers {
            self.remove(conn, m, node)?;
        }
        Ok(())
    }

    /// Writes every list changed: a node left with none loses its row.
    pub(super) fn flush(self, conn: &Connection) -> anyhow::Result<()> {
        let mut put = conn.prepare_cached(
            "INSERT INTO adjacency_lists (node, cites, cited_by) VALUES (?1, ?2, ?3)
             ON CONFLICT (node) DO UPDATE SET cites = excluded.cites, cited_by = excluded.cited_by",
        )?;
        let mut drop = conn.prepare_cached("DELETE FROM adjacency_lists WHERE node = ?1")?;
        for (node, (stored, [cites, cited_by])) in self.lists {
            if stored[0] == cites && stored[1] == cited_by {
                continue;
            }
            if cites.is_empty() && cited_by.is_empty() {
                drop.execute([node])?;
            } else {
                put.execute(params![node, format(&cites), format(&cited_by)])?;
            }
        }
        Ok(())
    }
}

/// Writes the lists of the nodes that `cites` ((a, b): a cites b) and
/// `citers` ((b, a): the same edge from its cited end) hold, each sorted
/// and without repeats, as new rows (the bulk load, a range of nodes at a
/// time, the old rows deleted first).
pub(super) fn put_all(conn: &Connection, cites: &[(Node, Node)], citers: &[(Node, Node)]) -> anyhow::Result<()> {
    let mut put = conn.prepare_cached("INSERT INTO adjacency_lists (node, cites, cited_by) VALUES (?1, ?2, ?3)")?;
    let (mut i, mut j) = (0, 0);
    // The run of `pairs` from `at` whose first element is `node`, as a list of seconds.
    let run = |pairs: &[(Node, Node)], at: &mut usize, node: Node| {
        let start = *at;
        while pairs.get(*at).is_some_and(|p| p.0 == node) {
            *at += 1;
        }
        pairs[start..*at].iter().map(|p| p.1).collect::<Vec<Node>>()
    };
    loop {
        let node = match (cites.get(i), citers.get(j)) {
            (Some(a), Some(b)) => a.0.min(b.0),
            (Some(a), None) => a.0,
            (None, Some(b)) => b.0,
            (None, None) => return Ok(()),
        };
        let (refs, by) = (run(cites, &mut i, node), run(citers, &mut j, node));
        put.execute(params![node, format(&refs), format(&by)])?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_reads_back_and_bad_text_is_none() {
        for list in [vec![], vec![7], vec![1, 20, 300_000, i64::MAX]] {
            let text = format(&list);
            assert_eq!(parse(text.as_deref()).unwrap_or_default(), list);
        }
        assert_eq!(format(&[]), None);
        assert_eq!(parse(Some(" [ 1 , 2 ] ")), Some(vec![1, 2]));
        assert_eq!(parse(Some("[]")), Some(vec![]));
        for bad in ["", "[", "[1,]", "[1.5]", "{\"a\":1}", "[\"1\"]", "1,2"] {
            assert_eq!(parse(Some(bad)), None, "{bad}");
        }
        for bad in [ValueRef::Text(b"[x]"), ValueRef::Integer(7), ValueRef::Blob(b"[1]"), ValueRef::Text(b"[\xff]")] {
            let err = list_of(4, 1, bad).unwrap_err().to_string();
            assert!(err.contains("row 4") && err.contains("cited_by"), "{err}");
        }
        assert_eq!(list_of(4, 0, ValueRef::Null).unwrap(), Vec::<Node>::new());
    }

    /// The byte-by-byte reading of the stored form gives what the general
    /// reading gives, and leaves every other form to it.
    #[test]
    fn the_stored_form_read_fast_is_read_as_the_general_way_reads_it() {
        let general = |t: &str| -> Option<Vec<Node>> {
            let inner = t.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
            if inner.is_empty() {
                return Some(vec![]);
            }
            inner.split(',').map(|p| p.trim().parse::<Node>().ok()).collect()
        };
        let texts = [
            "[1]",
            "[0,7,123456789012345678]",
            "[1234567890123456789]",
            "[9223372036854775807]",
            "[9223372036854775808]",
            "[]",
            "[,]",
            "[1,,2]",
            "[+1]",
            "[-1,2]",
            "[ 1]",
            "[1 ]",
            " [1]",
            "[01]",
            "[1,2",
            "1,2]",
            "[a]",
            "[1e3]",
        ];
        for t in texts {
            assert_eq!(parse(Some(t)), general(t), "{t}");
            if let Some(fast) = parse_canonical(t.as_bytes()) {
                assert_eq!(Some(fast), general(t), "{t}");
            }
        }
        assert_eq!(parse_canonical(b"[1,22,333]"), Some(vec![1, 22, 333]));
        assert_eq!(parse_canonical(b"[ 1]"), None, "a space: the general way");
    }

    fn rows(conn: &Connection) -> Vec<(Node, Option<String>, Option<String>)> {
        let mut stmt = conn.prepare("SELECT node, cites, cited_by FROM adjacency_lists ORDER BY node").unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    }

    fn row(node: Node, cites: Option<&str>, cited_by: Option<&str>) -> (Node, Option<String>, Option<String>) {
        (node, cites.map(String::from), cited_by.map(String::from))
    }

    #[test]
    fn edits_write_each_changed_list_once_and_the_views_show_them() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::migrate::migrate(&mut conn).unwrap();
        conn.execute_batch("INSERT INTO nodes (node, id) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (10, 'j')").unwrap();

        let mut edits = Edits::default();
        for (a, b) in [(1, 3), (1, 2), (3, 2), (1, 2), (10, 1)] {
            edits.add(&conn, a, b).unwrap();
        }
        edits.flush(&conn).unwrap();
        assert_eq!(
            rows(&conn),
            [
                row(1, Some("[2,3]"), Some("[10]")),
                row(2, None, Some("[1,3]")),
                row(3, Some("[2]"), Some("[1]")),
                row(10, Some("[1]"), None)
            ],
            "ascending, no repeats, NULL when empty"
        );
        let edges: Vec<(String, String)> = conn
            .prepare("SELECT citing, cited FROM edges ORDER BY 1, 2")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let pairs = [("a", "b"), ("a", "c"), ("c", "b"), ("j", "a")].map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(edges, pairs, "the edges view");
        let both: i64 = conn.query_row("SELECT count(*) FROM adjacency", [], |r| r.get(0)).unwrap();
        assert_eq!(both, 8, "the adjacency view: every edge in both directions");

        // A frontier's lists, one direction or both.
        let mut seen = Vec::new();
        read_lists(&conn, &[1, 2, 4], (0, 1), &mut |n, dir, list| seen.push((n, dir, list))).unwrap();
        assert_eq!(seen, [(1, 0, vec![2, 3]), (1, 1, vec![10]), (2, 1, vec![1, 3])]);
        seen.clear();
        read_lists(&conn, &[1, 3], (1, 1), &mut |n, dir, list| seen.push((n, dir, list))).unwrap();
        assert_eq!(seen, [(1, 1, vec![10]), (3, 1, vec![1])]);

        // A list re-derived to what it was is not written; a node left without edges loses its row.
        let before = conn.total_changes();
        let mut edits = Edits::default();
        edits.remove(&conn, 1, 2).unwrap();
        edits.add(&conn, 1, 2).unwrap();
        edits.flush(&conn).unwrap();
        assert_eq!(conn.total_changes(), before, "nothing written");
        let mut edits = Edits::default();
        edits.clear(&conn, 3).unwrap();
        edits.remove(&conn, 10, 1).unwrap();
        edits.flush(&conn).unwrap();
        assert_eq!(rows(&conn), [row(1, Some("[2]"), None), row(2, None, Some("[1]"))]);

        // A list a sqlite3 user broke (bad text, or not text) is an error naming its row, not a panic.
        for broken in ["'[2,x]'", "x'5b325d'", "2"] {
            conn.execute(&format!("UPDATE adjacency_lists SET cites = {broken} WHERE node = 1"), []).unwrap();
            let err = lists_of(&conn, 1).unwrap_err().to_string();
            assert!(err.contains("adjacency_lists row 1: cites"), "{broken}: {err}");
            let err = read_lists(&conn, &[1], (0, 0), &mut |_, _, _| {}).unwrap_err().to_string();
            assert!(err.contains("row 1"), "{broken}: {err}");
        }
    }
}
