//! Every node's doc id and year, 256 nodes to a row (`node_meta`, migration
//! 017): what a search's walk reads for each paper it reaches, a chunk at a
//! time instead of a `nodes` lookup per paper. `nodes` stays the source:
//! its triggers mark a changed node's chunk in `node_meta_dirty`,
//! [`refresh`] writes the marked chunks again before a write commits, and
//! [`doc_years`] reads a chunk still marked (an edit made with `sqlite3`)
//! from `nodes`.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use super::chunked::{self, ChunkSql, Chunked};

use crate::graph::Node;

/// Nodes per chunk: `2^CHUNK_BITS`.
const CHUNK_BITS: u32 = 8;
/// Bytes per node: the doc id (i64), then the year (i32), little-endian.
const ENTRY: usize = 12;
/// [`doc_years`] reads a span of chunks in order when it wants at least
/// one chunk in this many of the span, else looks each one up.
const SCAN_SPAN_PER_CHUNK: i64 = 4;
/// A doc id or year that is not there.
const NO_DOC: i64 = i64::MIN;
const NO_YEAR: i32 = i32::MIN;

/// A node's row of `nodes`: the node, its doc id and its year.
type NodeRow = (Node, Option<i64>, Option<i32>);

fn chunk_of(node: Node) -> i64 {
    node >> CHUNK_BITS
}

/// The chunk's bytes for `rows` (its nodes' `(node, doc, year)`, in node
/// order): one entry per node up to the last, a missing node as none.
fn encode(chunk: i64, rows: &[NodeRow]) -> Vec<u8> {
    let first = chunk << CHUNK_BITS;
    let mut data = Vec::with_capacity(rows.len() * ENTRY);
    for &(node, doc, year) in rows {
        let at = (node - first) as usize * ENTRY;
        while data.len() < at {
            data.extend_from_slice(&NO_DOC.to_le_bytes());
            data.extend_from_slice(&NO_YEAR.to_le_bytes());
        }
        data.extend_from_slice(&doc.unwrap_or(NO_DOC).to_le_bytes());
        data.extend_from_slice(&year.unwrap_or(NO_YEAR).to_le_bytes());
    }
    data
}

/// The doc id and year of `node` in its chunk's bytes (none past its end,
/// and none for a malformed chunk, which `litindex check` reports).
fn decode(data: &[u8], node: Node) -> (Option<i64>, Option<i32>) {
    let at = (node - (chunk_of(node) << CHUNK_BITS)) as usize * ENTRY;
    let Some(entry) = data.get(at..at + ENTRY) else { return (None, None) };
    let doc = i64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
    let year = i32::from_le_bytes(entry[8..].try_into().expect("4 bytes"));
    ((doc != NO_DOC).then_some(doc), (year != NO_YEAR).then_some(year))
}

/// The `(node, doc, year)` rows of `nodes` in chunk `chunk`, in node order.
fn rows_of(conn: &Connection, chunk: i64) -> anyhow::Result<Vec<NodeRow>> {
    let first = chunk << CHUNK_BITS;
    let mut stmt =
        conn.prepare_cached("SELECT node, doc, year FROM nodes WHERE node BETWEEN ?1 AND ?2 ORDER BY node")?;
    let rows = stmt.query_map([first, first + (1 << CHUNK_BITS) - 1], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `node_meta` as a chunked copy of `nodes`.
struct NodeMeta;

const SQL: ChunkSql = ChunkSql {
    chunks: "SELECT chunk, data FROM node_meta",
    put: "INSERT OR REPLACE INTO node_meta (chunk, data) VALUES (?1, ?2)",
    remove: "DELETE FROM node_meta WHERE chunk = ?1",
    dirty: "SELECT chunk FROM node_meta_dirty ORDER BY chunk",
    clear: "DELETE FROM node_meta_dirty",
};

impl Chunked for NodeMeta {
    type Row = NodeRow;
    fn sql(&self) -> &ChunkSql {
        &SQL
    }
    fn unit(&self) -> &'static str {
        "node"
    }
    fn key(row: &NodeRow) -> i64 {
        row.0
    }
    fn encode(chunk: i64, rows: &[NodeRow]) -> Vec<u8> {
        encode(chunk, rows)
    }
    fn differs(_chunk: i64, data: &[u8], rows: &[NodeRow]) -> String {
        let node = rows.iter().find(|r| decode(data, r.0) != (r.1, r.2)).map_or(rows[0].0, |r| r.0);
        format!("node {node}: the chunk says {:?}, nodes says otherwise", decode(data, node))
    }
}

/// Writes every chunk marked in `node_meta_dirty` again from `nodes` (and
/// drops a chunk left without nodes), then clears the marks. Run inside
/// each write transaction, before it commits.
pub(in crate::store) fn refresh(conn: &Connection) -> anyhow::Result<()> {
    chunked::rewrite_dirty(conn, &NodeMeta, |chunk| rows_of(conn, chunk))
}

/// Calls `each(i, doc, year)` for every node `nodes[i]` (sorted, no
/// repeats) that the graph holds, reading a chunk per 256 nodes.
pub(in crate::store) fn doc_years(
    conn: &Connection,
    nodes: &[Node],
    mut each: impl FnMut(usize, Option<i64>, Option<i32>),
) -> anyhow::Result<()> {
    // Each chunk's nodes: a run of the sorted list.
    let mut runs: HashMap<i64, (usize, usize), foldhash::fast::FixedState> = HashMap::default();
    let mut start = 0;
    for i in 1..=nodes.len() {
        if i == nodes.len() || chunk_of(nodes[i]) != chunk_of(nodes[start]) {
            runs.insert(chunk_of(nodes[start]), (start, i));
            start = i;
        }
    }
    if runs.is_empty() {
        return Ok(());
    }
    let dirty: HashSet<i64> = chunked::dirty(conn, &SQL)?.into_iter().collect();
    let mut clean: Vec<i64> = runs.keys().copied().filter(|c| !dirty.contains(c)).collect();
    clean.sort_unstable();
    if let (Some(&first), Some(&last)) = (clean.first(), clean.last()) {
        let dense = read_in_order(&clean);
        let mut stmt = conn.prepare_cached(if dense {
            "SELECT chunk, data FROM node_meta WHERE chunk BETWEEN ?1 AND ?2"
        } else {
            "SELECT m.chunk, m.data FROM json_each(?1) AS j JOIN node_meta AS m ON m.chunk = j.value"
        })?;
        let mut rows = if dense { stmt.query([first, last])? } else { stmt.query([serde_json::to_string(&clean)?])? };
        while let Some(row) = rows.next()? {
            let chunk: i64 = row.get(0)?;
            let Some(&(from, to)) = runs.get(&chunk).filter(|_| !dirty.contains(&chunk)) else { continue };
            let data = row.get_ref(1)?.as_blob()?;
            for (i, &node) in nodes.iter().enumerate().take(to).skip(from) {
                let (doc, year) = decode(data, node);
                each(i, doc, year);
            }
        }
    }
    // A chunk marked and not yet written again: its nodes as `nodes` has them.
    for chunk in dirty.into_iter().filter(|c| runs.contains_key(c)) {
        let (from, to) = runs[&chunk];
        for (node, doc, year) in rows_of(conn, chunk)? {
            if let Ok(k) = nodes[from..to].binary_search(&node) {
                each(from + k, doc, year);
            }
        }
    }
    Ok(())
}

/// Whether `doc_years` reads the span of `chunks` (sorted, not empty) in
/// order rather than looking each chunk up. Many chunks of a span (a 2-hop
/// walk at 1M reaches most): the span read in order, one page after the
/// next, costs less than a B-tree descent per chunk; a few: one descent each.
fn read_in_order(chunks: &[i64]) -> bool {
    match (chunks.first(), chunks.last()) {
        (Some(&first), Some(&last)) => chunks.len() as i64 * SCAN_SPAN_PER_CHUNK > last - first,
        _ => false,
    }
}

/// The chunks whose bytes differ from what `nodes` holds (not counting
/// those marked dirty, which readers take from `nodes`), as `(chunk,
/// what differs)`, at most `limit`.
pub(in crate::store) fn stale_chunks(conn: &Connection, limit: usize) -> anyhow::Result<Vec<(i64, String)>> {
    let mut by_chunk: std::collections::BTreeMap<i64, Vec<NodeRow>> = Default::default();
    let mut all = conn.prepare("SELECT node, doc, year FROM nodes ORDER BY node")?;
    for row in all.query_map([], |r| Ok((r.get::<_, Node>(0)?, r.get(1)?, r.get(2)?)))? {
        let row = row?;
        by_chunk.entry(chunk_of(row.0)).or_default().push(row);
    }
    chunked::stale(conn, &NodeMeta, &by_chunk, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_holds_each_node_at_its_place_and_gaps_as_none() {
        let rows = vec![(512, Some(7), Some(2019)), (514, None, None), (515, Some(i64::MAX), Some(-44))];
        let data = encode(2, &rows);
        assert_eq!(data.len(), 4 * ENTRY, "up to the last node");
        assert_eq!(decode(&data, 512), (Some(7), Some(2019)));
        assert_eq!(decode(&data, 513), (None, None), "a gap");
        assert_eq!(decode(&data, 514), (None, None));
        assert_eq!(decode(&data, 515), (Some(i64::MAX), Some(-44)));
        assert_eq!(decode(&data, 600), (None, None), "past the end");
        assert_eq!(decode(&data[..5], 512), (None, None), "a cut chunk reads as none, never panics");
    }

    /// A walk reaching most chunks of a span reads the span in order; one
    /// reaching a few looks each up. Both give every node's doc id and year,
    /// and neither reads a chunk marked dirty from its stale bytes.
    #[test]
    fn a_span_read_in_order_and_a_few_chunks_looked_up_agree() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE nodes (node INTEGER PRIMARY KEY, doc INTEGER, year INTEGER);
             CREATE TABLE node_meta (chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);
             CREATE TABLE node_meta_dirty (chunk INTEGER PRIMARY KEY);",
        )
        .unwrap();
        let chunks = 10;
        for node in 0..chunks * 256 {
            let year = if node % 7 == 0 { None } else { Some(1900 + node % 100) };
            conn.execute("INSERT INTO nodes VALUES (?1, ?2, ?3)", rusqlite::params![node, node * 10, year]).unwrap();
        }
        conn.execute_batch("INSERT INTO node_meta_dirty SELECT DISTINCT node >> 8 FROM nodes").unwrap();
        refresh(&conn).unwrap();
        let read = |nodes: &[Node]| -> Vec<NodeRow> {
            let mut got = Vec::new();
            doc_years(&conn, nodes, |i, d, y| got.push((nodes[i], d, y))).unwrap();
            got.sort();
            got
        };
        let truth = |nodes: &[Node]| -> Vec<NodeRow> {
            nodes
                .iter()
                .map(|&n| (n, Some(n * 10), if n % 7 == 0 { None } else { Some(1900 + n as i32 % 100) }))
                .collect()
        };
        // Which way each case reads (the chunks of its nodes, none dirty).
        let chunks_of = |nodes: &[Node]| -> Vec<i64> {
            let mut c: Vec<i64> = nodes.iter().map(|&n| chunk_of(n)).collect();
            c.dedup();
            c
        };
        let dense: Vec<Node> = (0..chunks * 256).step_by(3).collect();
        assert!(read_in_order(&chunks_of(&dense)));
        assert_eq!(read(&dense), truth(&dense), "every chunk of the span: read in order");
        let sparse: Vec<Node> = vec![1, 2, 255, (chunks - 1) * 256 + 4];
        assert!(!read_in_order(&chunks_of(&sparse)));
        assert_eq!(read(&sparse), truth(&sparse), "two chunks of ten: looked up");
        // A chunk marked (an edit of `nodes` not yet written to its chunk) inside a span read in order.
        conn.execute("UPDATE nodes SET year = 1500 WHERE node = 1284", []).unwrap();
        conn.execute("INSERT INTO node_meta_dirty VALUES (5)", []).unwrap();
        let mut want = truth(&dense);
        want.iter_mut().filter(|r| r.0 == 1284).for_each(|r| r.2 = Some(1500));
        assert!(dense.contains(&1284));
        let clean: Vec<i64> = chunks_of(&dense).into_iter().filter(|&c| c != 5).collect();
        assert!(read_in_order(&clean), "nine clean chunks of ten: still read in order");
        assert_eq!(read(&dense), want, "the marked chunk from `nodes`, the others from their bytes");
        assert_eq!(read(&[1284, 1285]), [(1284, Some(12840), Some(1500)), (1285, Some(12850), Some(1985))]);
    }

    /// On a built index: the chunks are what `nodes` holds, a walk reads
    /// them, a `sqlite3` edit of `nodes` is read from `nodes` until the next
    /// write writes its chunk again, and a chunk changed behind the
    /// triggers' back is named by the check.
    #[test]
    fn the_walk_reads_the_chunks_and_an_edit_of_nodes_is_never_missed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("mock.db");
        crate::ingest::build(&db, &[crate::ingest::Input::Mock], &Default::default()).unwrap();
        let raw = Connection::open(&db).unwrap();
        let count = |sql: &str| raw.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        assert_eq!(count("SELECT count(*) FROM node_meta_dirty"), 0, "a build leaves no chunk marked");
        assert!(count("SELECT count(*) FROM node_meta") >= 1);
        assert_eq!(stale_chunks(&raw, 10).unwrap(), []);

        // Every node's doc id and year, as `nodes` has them and as the chunks give them.
        let truth = |conn: &Connection| -> Vec<NodeRow> {
            let mut stmt = conn.prepare("SELECT node, doc, year FROM nodes ORDER BY node").unwrap();
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
        };
        let read = |conn: &Connection, nodes: &[Node]| -> Vec<NodeRow> {
            let mut got = Vec::new();
            doc_years(conn, nodes, |i, d, y| got.push((nodes[i], d, y))).unwrap();
            got.sort();
            got
        };
        let all = truth(&raw);
        assert!(all.iter().any(|r| r.1.is_some()) && all.iter().any(|r| r.2.is_some()));
        let nodes: Vec<Node> = all.iter().map(|r| r.0).collect();
        assert_eq!(read(&raw, &nodes), all);
        let some: Vec<Node> = nodes.iter().copied().step_by(3).collect();
        assert_eq!(read(&raw, &some), all.iter().copied().step_by(3).collect::<Vec<_>>());

        // A year edited with sqlite3: marked, read from `nodes`, not a stale chunk.
        let (node, doc, year) = *all.iter().find(|r| r.1.is_some()).unwrap();
        raw.execute("UPDATE nodes SET year = 1901 WHERE node = ?1", [node]).unwrap();
        assert_eq!(count("SELECT count(*) FROM node_meta_dirty"), 1);
        assert_eq!(read(&raw, &[node]), [(node, doc, Some(1901))]);
        assert_eq!(stale_chunks(&raw, 10).unwrap(), []);
        // The next write writes the chunk again and clears the mark.
        let mut w = super::super::Writable::open(&db, &|_| {}).unwrap();
        w.write(|_| Ok(())).unwrap();
        assert_eq!(count("SELECT count(*) FROM node_meta_dirty"), 0);
        assert_eq!(read(&raw, &[node]), [(node, doc, Some(1901))]);
        raw.execute("UPDATE nodes SET year = ?2 WHERE node = ?1", rusqlite::params![node, year]).unwrap();
        w.write(|_| Ok(())).unwrap();
        assert_eq!(read(&raw, &nodes), all);

        // A chunk changed behind the triggers' back is named.
        raw.execute("UPDATE node_meta SET data = zeroblob(24) WHERE chunk = ?1", [chunk_of(node)]).unwrap();
        let stale = stale_chunks(&raw, 10).unwrap();
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert_eq!(stale[0].0, chunk_of(node));
        let bad = super::super::check_graph::invariants(&raw).into_iter().find(|i| i.name == "node-meta").unwrap();
        assert!(!bad.ok && bad.examples[0].starts_with(&format!("chunk {}: node ", chunk_of(node))), "{bad:?}");
    }
}
