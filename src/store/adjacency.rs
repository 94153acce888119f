//! The adjacency as stored (migration 018): one `adjacency_lists` row per
//! node, its references (`cites`, `dir` 0) and its citers (`cited_by`,
//! `dir` 1) each a JSON array of node integers in ascending order, NULL
//! when empty. Reading a frontier's lists ([`read_lists`]) and changing
//! them ([`Edits`]: the lists a write touches are read once, changed in
//! memory and written once) live here; every other module goes through
//! these.

use std::collections::BTreeMap;

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};

use crate::graph::Node;

/// How many edges the index holds.
pub(super) const COUNT_EDGES: &str = "SELECT coalesce(sum(json_array_length(cites)), 0) FROM adjacency_lists";

/// How many edges have an end that is no indexed paper.
pub(super) const COUNT_DANGLING_EDGES: &str = "SELECT count(*) FROM adjacency_lists AS l, json_each(l.cites) AS a
     JOIN nodes AS c ON c.node = l.node JOIN nodes AS d ON d.node = a.value
     WHERE c.doc IS NULL OR d.doc IS NULL";

/// The column of a direction: 0 references, 1 citers.
fn column(dir: i64) -> &'static str {
    if dir == 0 { "cites" } else { "cited_by" }
}

/// A stored list: a JSON array of integers (whitespace allowed), or NULL.
pub(super) fn parse(text: Option<&str>) -> Option<Vec<Node>> {
    let text = text?.trim();
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

/// A list as stored: NULL when empty.
fn format(list: &[Node]) -> Option<String> {
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

/// One row's column as a list, or an error naming the row.
fn list_of(node: Node, dir: i64, text: Option<&str>) -> anyhow::Result<Vec<Node>> {
    match text {
        None => Ok(Vec::new()),
        Some(_) => parse(text).with_context(|| {
            format!("adjacency_lists row {node}: {} is not a JSON array of node integers", column(dir))
        }),
    }
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
        (1, 1) => "SELECT l.node, NULL, l.cited_by FROM json_each(?1) AS j JOIN adjacency_lists AS l ON l.node = j.value",
        _ => "SELECT l.node, l.cites, l.cited_by FROM json_each(?1) AS j JOIN adjacency_lists AS l ON l.node = j.value",
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([serde_json::to_string(nodes)?])?;
    while let Some(r) = rows.next()? {
        let node: Node = r.get(0)?;
        for dir in lo..=hi {
            let text = r.get_ref(1 + dir as usize)?.as_str_or_null()?;
            let list = list_of(node, dir, text)?;
            if !list.is_empty() {
                each(node, dir, list);
            }
        }
    }
    Ok(())
}

/// The lists of one node: (references, citers).
pub(super) fn lists_of(conn: &Connection, node: Node) -> anyhow::Result<[Vec<Node>; 2]> {
    let row: Option<(Option<String>, Option<String>)> = conn
        .prepare_cached("SELECT cites, cited_by FROM adjacency_lists WHERE node = ?1")?
        .query_row([node], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (cites, cited_by) = row.unwrap_or_default();
    Ok([list_of(node, 0, cites.as_deref())?, list_of(node, 1, cited_by.as_deref())?])
}

/// Changes to the lists within one write: each list touched is read once,
/// changed in memory, and written once by [`Edits::flush`].
/// A list re-derived to what it was is not written again.
#[derive(Default)]
pub(super) struct Edits {
    /// Each node's lists as read, and as they are now.
    lists: BTreeMap<Node, ([Vec<Node>; 2], [Vec<Node>; 2])>,
}

impl Edits {
    fn lists(&mut self, conn: &Connection, node: Node) -> anyhow::Result<&mut [Vec<Node>; 2]> {
        if !self.lists.contains_key(&node) {
            let lists = lists_of(conn, node)?;
            self.lists.insert(node, (lists.clone(), lists));
        }
        Ok(&mut self.lists.get_mut(&node).expect("just inserted").1)
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

/// Every list from `temp.pairs (a, b)` (a cites b; the bulk load: every
/// edge there is), in place of those stored (a PDF's references may have
/// derived some already in the same load).
pub(super) fn load_pairs(conn: &Connection) -> anyhow::Result<()> {
    conn.execute_batch(
        "DELETE FROM adjacency_lists;
         INSERT INTO adjacency_lists (node, cites)
             SELECT a, json_group_array(b ORDER BY b) FROM temp.pairs WHERE true GROUP BY a;
         INSERT INTO adjacency_lists (node, cited_by)
             SELECT b, json_group_array(a ORDER BY a) FROM temp.pairs WHERE true GROUP BY b
             ON CONFLICT (node) DO UPDATE SET cited_by = excluded.cited_by;",
    )?;
    Ok(())
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
        let err = list_of(4, 1, Some("[x]")).unwrap_err().to_string();
        assert!(err.contains("row 4") && err.contains("cited_by"), "{err}");
    }
}
