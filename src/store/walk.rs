//! The citation graph as one search reads it ([`SearchGraph`]): the stored
//! adjacency, with every node's neighbours and id kept once read, for the
//! rest of that search. A search walks its graph more than once: the walk
//! from all its seeds (`walk_papers`), then, for the weighted graph score,
//! a walk from each seed alone (`crate::search::score::seed_evidence`) and
//! the favorites' reach. The later walks go over nodes the first one read:
//! kept, they cost no statement. Built per search, dropped with it, so a
//! search never sees another's (or an older snapshot's) edges.

use std::cell::RefCell;
use std::collections::HashMap;

use super::Store;
use super::graph::{StoreAdjacency, dirs, sorted, way};
use crate::graph::{Adjacency, Bfs, Direction, EachList, Node, NodeMap, Reach, Walk, walk_by_id};

/// The stored graph with what this search has read of it.
pub struct SearchGraph<'a> {
    store: &'a Store,
    /// The neighbours of each (node, direction: 0 references, 1 citers) read so far.
    edges: RefCell<HashMap<(Node, i64), Vec<Node>, foldhash::fast::FixedState>>,
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
        let mut walk = Walk { ids: unknown.into_iter().collect(), ..Walk::default() };
        // By node, with each one's distance beside it (no lookup per node below).
        let mut reached: Vec<(Node, u32)> = dist.into_iter().collect();
        reached.sort_unstable_by_key(|&(n, _)| n);
        let nodes: Vec<Node> = reached.iter().map(|&(n, _)| n).collect();
        walk.papers.reserve(nodes.len());
        walk.handles.reserve(nodes.len());
        super::node_meta::doc_years(&self.store.conn, &nodes, |i, doc, year| {
            let (node, distance) = reached[i];
            if let Some(doc) = doc {
                walk.papers.push((doc, distance, year));
                if let Some(&cut) = via.get(&node) {
                    walk.via.insert(doc, cut);
                }
            }
            walk.handles.push((node, doc));
        })?;
        // Chunks marked dirty are read last: in node order again.
        if !walk.handles.is_sorted_by_key(|&(n, _)| n) {
            walk.handles.sort_unstable_by_key(|&(n, _)| n);
        }
        Ok(walk)
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
