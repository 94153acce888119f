//! The write side of the integer graph: nodes for ids, the links sources
//! stated (by node, with their origin record as an integer, kept as lists
//! by `stated.rs`), and the edges derived from them (`adjacency_lists`,
//! both directions, changed through [`Edits`]).
//! [`super::ingest_writer::IngestWriter`] calls these; they own the SQL.

use std::collections::{BTreeSet, HashMap};

use rusqlite::{Connection, OptionalExtension};

use super::adjacency::{Edits, put_all};
use super::stated;
use crate::graph::Node;

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
    stated::insert(conn, citing, cited, origin)
}

/// Stores the links a record states from its own node `own` (the end
/// `origin` says) to each of `others`, beside those already stored for that
/// node and origin, in one write; returns the other ends that were not
/// stored before.
pub(crate) fn add_record_links(conn: &Connection, own: i64, origin: i64, others: &[i64]) -> anyhow::Result<Vec<i64>> {
    let mut list = stated::list(conn, own, origin)?;
    let mut added: Vec<i64> = others.iter().copied().filter(|o| list.binary_search(o).is_err()).collect();
    added.sort_unstable();
    added.dedup();
    if !added.is_empty() {
        list.extend_from_slice(&added);
        list.sort_unstable();
        stated::put(conn, own, origin, &list)?;
    }
    Ok(added)
}

/// Forgets one stated link (a PDF's entry that no longer names it).
pub(crate) fn remove_link(conn: &Connection, citing: i64, cited: i64, origin: i64) -> anyhow::Result<()> {
    stated::remove(conn, citing, cited, origin)?;
    Ok(())
}

/// Forgets the links a record stated: those with its own node `own` at the
/// end `origin` says, from that origin; returns them (citing, cited), so
/// that the record's new statement counts only the links it adds.
pub(crate) fn delete_record_links(conn: &Connection, own: i64, origin: i64) -> anyhow::Result<Vec<(i64, i64)>> {
    stated::take(conn, own, origin)
}

/// The nodes whose ids are aliases of the paper of node `paper`, and
/// `paper` itself: the nodes that resolve to it.
fn resolving_to(conn: &Connection, paper: Node) -> anyhow::Result<BTreeSet<Node>> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.node FROM nodes AS n JOIN aliases AS x ON x.paper_id = n.id JOIN nodes AS m ON m.id = x.alias
         WHERE n.node = ?1",
    )?;
    let mut out: BTreeSet<Node> = stmt.query_map([paper], |r| r.get(0))?.collect::<Result<_, _>>()?;
    out.insert(paper);
    Ok(out)
}

/// The ids of `nodes`, in their order (a node that is gone is left out).
fn ids_of(conn: &Connection, nodes: &[Node]) -> anyhow::Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT m.id FROM json_each(?1) AS j JOIN nodes AS m ON m.node = j.value ORDER BY j.key")?;
    let rows = stmt.query_map([serde_json::to_string(nodes)?], |r| r.get(0))?;
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

/// Edges held in memory at once by [`derive_all`], counting each of its
/// two directions (16 bytes each: 256 MiB at most, spread evenly).
const PASS_PAIRS: u64 = 16 << 20;

/// Derives every edge from the stated lists into `adjacency_lists` (a bulk
/// load), in place of those stored (a PDF's references may have derived some
/// already in the same load): each end resolved to its paper's node, then
/// each node's two lists sorted and written in one row. The nodes are taken
/// in ranges so that one range's edges fit in [`PASS_PAIRS`]; each range
/// reads every list again (at 1M papers, 20M links in 1M rows, 3 ranges).
pub(crate) fn derive_all(conn: &Connection) -> anyhow::Result<()> {
    derive_all_in(conn, PASS_PAIRS)
}

/// [`derive_all`] holding at most about `pass_pairs` edge directions at once.
pub(super) fn derive_all_in(conn: &Connection, pass_pairs: u64) -> anyhow::Result<()> {
    let canon: HashMap<Node, Node> = conn
        .prepare(
            "SELECT n.node, c.node FROM nodes AS n
             JOIN aliases AS x ON x.alias = n.id
             JOIN nodes AS c ON c.id = x.paper_id
             WHERE c.node <> n.node",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let paper = |n: Node| canon.get(&n).copied().unwrap_or(n);
    let (links, low, high) = stated::extent(conn)?;
    let passes = (2 * links).div_ceil(pass_pairs.max(1)).max(1);
    let width = (high.abs_diff(low) / passes).saturating_add(1);
    conn.execute("DELETE FROM adjacency_lists", [])?;
    for pass in 0..passes {
        // Nodes from `from` to `to`, the first and last ranges open-ended
        // (an end resolved through an alias is a node like any other).
        let from = if pass == 0 { Node::MIN } else { low.saturating_add_unsigned(pass * width) };
        let to = if pass + 1 == passes { Node::MAX } else { low.saturating_add_unsigned((pass + 1) * width) - 1 };
        let (mut cites, mut citers) = (Vec::new(), Vec::new());
        stated::each(conn, |own, origin, others| {
            for &other in others {
                let (citing, cited) = stated::ends(own, other, origin);
                let (a, b) = (paper(citing), paper(cited));
                if a == b {
                    continue;
                }
                if (from..=to).contains(&a) {
                    cites.push((a, b));
                }
                if (from..=to).contains(&b) {
                    citers.push((b, a));
                }
            }
        })?;
        for pairs in [&mut cites, &mut citers] {
            pairs.sort_unstable();
            pairs.dedup();
        }
        put_all(conn, &cites, &citers)?;
    }
    Ok(())
}

/// Deletes and re-derives, in `edits`, every edge with an end in `ids`
/// (the incremental case: the ids a record, link or merge touched).
///
/// A link with an end in `ids` is kept in the list of that end or of its
/// other end. The lists of the other ends are found through the edges the
/// links implied when they were derived, read before they go: a link kept
/// by node `o` gave an edge to `o`'s paper, so `o` is a neighbour of a
/// touched node or a node resolving to one. A node whose alias moved is
/// itself among `ids` (the writer marks every id of a paper it stores or
/// deletes), so its lists are read directly.
pub(crate) fn rebuild(conn: &Connection, edits: &mut Edits, ids: &BTreeSet<String>) -> anyhow::Result<()> {
    let mut nodes = BTreeSet::new();
    for id in ids {
        if let Some(n) = find_node(conn, id)? {
            nodes.insert(n);
        }
    }
    let mut neighbours = BTreeSet::new();
    for &n in &nodes {
        for paper in [n, canonical(conn, n)?] {
            neighbours.extend(edits.neighbours(conn, paper)?);
        }
    }
    let mut owners = nodes.clone();
    for m in neighbours {
        owners.extend(resolving_to(conn, m)?);
    }
    for &n in &nodes {
        edits.clear(conn, n)?;
    }
    let mut pairs: BTreeSet<(i64, i64)> = BTreeSet::new();
    for &o in &owners {
        for (origin, list) in stated::lists_of(conn, o)? {
            let touched = nodes.contains(&o);
            for other in list {
                if touched || nodes.contains(&other) {
                    pairs.insert(stated::ends(o, other, origin));
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
    let Some(node) = find_node(conn, own)? else { return Ok(Vec::new()) };
    let mut out = stated_ids(conn, node, origin)?;
    out.sort();
    Ok(out)
}

/// The ids at the other ends of the links node `own` keeps for `origin`.
pub(crate) fn stated_ids(conn: &Connection, own: Node, origin: i64) -> anyhow::Result<Vec<String>> {
    ids_of(conn, &stated::list(conn, own, origin)?)
}

/// Removes the edge between the papers of nodes `citing` and `cited` (each
/// resolved through the aliases) unless a stated link still implies it: the
/// targeted form of [`rebuild`] for one link that went away.
pub(crate) fn forget_edge_unless_stated(conn: &Connection, citing: i64, cited: i64) -> anyhow::Result<()> {
    let (a, b) = (canonical(conn, citing)?, canonical(conn, cited)?);
    if a == b {
        return Ok(());
    }
    let (ends_a, ends_b) = (resolving_to(conn, a)?, resolving_to(conn, b)?);
    // A link from a node of `a` to one of `b`: kept by its citing end (even
    // origins) or by its cited end (odd ones).
    let mut stated = false;
    for (mine, theirs, parity) in [(&ends_a, &ends_b, 0), (&ends_b, &ends_a, 1)] {
        for &o in mine {
            for (origin, list) in stated::lists_of(conn, o)? {
                stated |= origin % 2 == parity && list.iter().any(|x| theirs.contains(x));
            }
        }
    }
    if !stated {
        let mut edits = Edits::default();
        edits.remove(conn, a, b)?;
        edits.flush(conn)?;
    }
    Ok(())
}
