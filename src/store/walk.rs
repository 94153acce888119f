//! The citation graph as one search reads it ([`SearchGraph`]): the stored
//! adjacency, with every node's neighbours and id kept once read, for the
//! rest of that search. A search walks its graph more than once: the walk
//! from all its seeds (`walk_papers`), then, for the weighted graph score,
//! a walk from each seed alone (`crate::search::score::seed_evidence`) and
//! the favorites' reach. The later walks go over nodes the first one read:
//! kept, they cost no statement, and they can run on another thread over
//! the lists lent out ([`LentLists`]). Built per search, dropped with it, so a
//! search never sees another's (or an older snapshot's) edges.

use std::cell::RefCell;
use std::collections::HashMap;

use anyhow::Context;

use super::Store;
use super::graph::{StoreAdjacency, dirs, sorted, way};
use crate::graph::{Adjacency, Bfs, Direction, EachList, Node, NodeMap, Reach, Walk, walk_by_id};

/// The neighbours of each (node, direction: 0 references, 1 citers).
type Lists = HashMap<(Node, i64), Vec<Node>, foldhash::fast::FixedState>;

/// The stored graph with what this search has read of it.
pub struct SearchGraph<'a> {
    store: &'a Store,
    /// The neighbours of each (node, direction: 0 references, 1 citers) read so far.
    edges: RefCell<Lists>,
    /// The id of each node read so far.
    ids: RefCell<NodeMap<String>>,
}

impl<'a> SearchGraph<'a> {
    pub fn new(store: &'a Store) -> SearchGraph<'a> {
        SearchGraph { store, edges: RefCell::default(), ids: RefCell::default() }
    }

    /// [`crate::graph::bfs`] over the stored adjacency, with the doc id and
    /// year of every reached paper read a chunk of 256 nodes at a time
    /// (`node_meta`: what ranking needs of them; their ids are read for the
    /// hits shown).
    pub(crate) fn walk_papers(&self, seeds: &[String], reach: Reach) -> anyhow::Result<Walk<i64>> {
        let (Bfs { dist, via, .. }, unknown) = walk_by_id(self, seeds, reach)?;
        let mut walk = Walk { ids: unknown.into_iter().collect(), via, ..Walk::default() };
        // By node, with each one's distance beside it (no lookup per node below).
        let mut reached: Vec<(Node, u32)> = dist.into_iter().collect();
        sort_by_node(&mut reached);
        let nodes: Vec<Node> = reached.iter().map(|&(n, _)| n).collect();
        walk.papers.reserve(nodes.len());
        walk.handles.reserve(nodes.len());
        super::node_meta::doc_years(&self.store.conn, &nodes, |i, doc, year| {
            let (node, distance) = reached[i];
            if let Some(doc) = doc {
                walk.papers.push((doc, distance, year));
            }
            walk.handles.push((node, doc));
        })?;
        // Chunks marked dirty are read last: in node order again.
        if !walk.handles.is_sorted_by_key(|&(n, _)| n) {
            walk.handles.sort_unstable_by_key(|&(n, _)| n);
        }
        Ok(walk)
    }

    /// The lists read so far, lent out ([`LentLists`]): this graph holds
    /// none until they come back through [`SearchGraph::take_back`].
    pub(crate) fn lend(&self) -> LentLists {
        LentLists(std::mem::take(&mut *self.edges.borrow_mut()))
    }

    /// Takes back the lists [`SearchGraph::lend`] lent (and keeps any read since).
    pub(crate) fn take_back(&self, lent: LentLists) {
        let mut edges = self.edges.borrow_mut();
        let read_since = std::mem::replace(&mut *edges, lent.0);
        edges.extend(read_since);
    }
}

/// Sorts a walk's reached nodes (each once) by node: a comparison sort for
/// a short list; for a long one (a walk at 1M reaches some 52,000 nodes),
/// 11 bits of the node at a time, the lowest first, each pass stable.
fn sort_by_node(reached: &mut Vec<(Node, u32)>) {
    const SHORT: usize = 1 << 12;
    const BITS: u32 = 11;
    let (min, max) = reached.iter().fold((0, 0), |(lo, hi), &(n, _)| (n.min(lo), n.max(hi)));
    if reached.len() < SHORT || min < 0 {
        reached.sort_unstable_by_key(|&(n, _)| n);
        return;
    }
    let passes = (u64::BITS - (max as u64).leading_zeros()).div_ceil(BITS);
    let mut from = std::mem::take(reached);
    let mut to = vec![(0, 0); from.len()];
    for pass in 0..passes {
        let digit = |n: Node| ((n as u64) >> (pass * BITS)) as usize & ((1 << BITS) - 1);
        let mut at = vec![0usize; 1 << BITS];
        for &(n, _) in &from {
            at[digit(n)] += 1;
        }
        let mut sum = 0;
        for c in &mut at {
            (*c, sum) = (sum, sum + *c);
        }
        for &(n, d) in &from {
            let i = digit(n);
            to[at[i]] = (n, d);
            at[i] += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    *reached = from;
}

/// The lists a search's graph has read, lent to walk on another thread
/// (no statement there: a list not read is an error, and the caller walks
/// again on its own thread).
pub struct LentLists(Lists);

impl Adjacency for LentLists {
    fn nodes_of(&self, _ids: &[String]) -> anyhow::Result<Vec<(String, Node)>> {
        anyhow::bail!("lent lists map no ids")
    }

    fn ids_of(&self, _nodes: &[Node]) -> anyhow::Result<Vec<(Node, String)>> {
        anyhow::bail!("lent lists map no nodes")
    }

    fn neighbor_lists(&self, nodes: &[Node], direction: Direction, each: &mut EachList) -> anyhow::Result<()> {
        let (lo, hi) = dirs(direction);
        for &n in nodes {
            for dir in lo..=hi {
                let list = self.0.get(&(n, dir)).with_context(|| format!("node {n}'s list was not read"))?;
                each(n, way(dir), list);
            }
        }
        Ok(())
    }
}

impl Adjacency for SearchGraph<'_> {
    fn nodes_of(&self, ids: &[String]) -> anyhow::Result<Vec<(String, Node)>> {
        StoreAdjacency(self.store).nodes_of(ids)
    }

    fn ids_of(&self, nodes: &[Node]) -> anyhow::Result<Vec<(Node, String)>> {
        let mut known = self.ids.borrow_mut();
        let rest: Vec<Node> = nodes.iter().copied().filter(|n| !known.contains_key(n)).collect();
        if !rest.is_empty() {
            known.extend(StoreAdjacency(self.store).ids_of(&rest)?);
        }
        Ok(nodes.iter().filter_map(|n| known.get(n).map(|id| (*n, id.clone()))).collect())
    }

    fn neighbor_lists(&self, nodes: &[Node], direction: Direction, each: &mut EachList) -> anyhow::Result<()> {
        let (lo, hi) = dirs(direction);
        let mut edges = self.edges.borrow_mut();
        let missing: Vec<Node> =
            nodes.iter().copied().filter(|&n| (lo..=hi).any(|dir| !edges.contains_key(&(n, dir)))).collect();
        if !missing.is_empty() {
            let missing = sorted(&missing);
            for &n in &missing {
                for dir in lo..=hi {
                    edges.entry((n, dir)).or_default().clear();
                }
            }
            super::adjacency::read_lists(&self.store.conn, &missing, (lo, hi), &mut |node, dir, list| {
                edges.insert((node, dir), list);
            })?;
        }
        for &n in nodes {
            for dir in lo..=hi {
                if let Some(list) = edges.get(&(n, dir)) {
                    each(n, way(dir), list);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Direction, Reach, bfs_nodes};

    /// A long list sorted by digits comes out as a comparison sort leaves
    /// it, nodes past 2^33 too; a short one, or one with a negative node,
    /// by that sort.
    #[test]
    fn reached_nodes_sort_by_node_as_a_comparison_sort_does() {
        let mut x: u64 = 11;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            x >> 20
        };
        for (len, span, negative) in
            [(10, 1_000, false), (50_000, 1 << 20, false), (9_000, 1 << 34, false), (5_000, 10, true)]
        {
            let mut seen = std::collections::HashSet::new();
            let mut list: Vec<(Node, u32)> = Vec::new();
            while list.len() < len {
                let n = (next() % span) as Node - if negative { 5 } else { 0 };
                if seen.insert(n) {
                    list.push((n, (next() % 3) as u32));
                }
                if negative && seen.len() as u64 == span {
                    break;
                }
            }
            let mut want = list.clone();
            want.sort_unstable_by_key(|&(n, _)| n);
            sort_by_node(&mut list);
            assert_eq!(list, want, "{len} nodes under {span}");
        }
    }

    /// The lists a search's walk read, lent, walk from each of its seeds
    /// as the stored graph does; a list not read is an error, never an
    /// empty list; taken back, the graph holds them again.
    #[test]
    fn lent_lists_walk_as_the_store_does_and_a_list_not_read_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&crate::ingest::pdf::test_support::mock_index(dir.path())).unwrap();
        let stored = super::super::StoreAdjacency(&store);
        let seeds: Vec<(Node, String)> = stored.ids_of(&(1..=6).collect::<Vec<Node>>()).unwrap();
        assert_eq!(seeds.len(), 6);
        let ids: Vec<String> = seeds.iter().map(|(_, id)| id.clone()).collect();
        for fan_out in [Some(2), None] {
            let reach = Reach { hops: 2, direction: Direction::Both, fan_out };
            let graph = SearchGraph::new(&store);
            let walk = graph.walk_papers(&ids, reach).unwrap();
            assert!(walk.handles.len() > seeds.len(), "the walk reaches past its seeds");
            let lent = graph.lend();
            let read = lent.0.len();
            for &(s, _) in &seeds {
                // Against a search's graph reading afresh (the stored
                // adjacency gives the same nodes, but may meet a node's lists
                // in another order, and so name another list as its cut).
                let (from_lent, fresh) =
                    (bfs_nodes(&lent, &[s], reach), bfs_nodes(&SearchGraph::new(&store), &[s], reach));
                let (from_lent, fresh) = (from_lent.unwrap(), fresh.unwrap());
                assert_eq!((&from_lent.dist, &from_lent.via), (&fresh.dist, &fresh.via), "from {s}, {fan_out:?}");
                assert_eq!(from_lent.dist, bfs_nodes(&stored, &[s], reach).unwrap().dist);
            }
            graph.take_back(lent);
            assert_eq!(graph.lend().0.len(), read, "taken back whole");
        }
        // Nothing read yet: a walk of one step needs a list and names it; none of zero steps does not.
        let lent = SearchGraph::new(&store).lend();
        let one = Reach { hops: 1, direction: Direction::Both, fan_out: None };
        let err = bfs_nodes(&lent, &[1], one).unwrap_err().to_string();
        assert!(err.contains("node 1's list was not read"), "{err}");
        assert_eq!(bfs_nodes(&lent, &[1], Reach { hops: 0, ..one }).unwrap().dist.len(), 1);
    }
}
