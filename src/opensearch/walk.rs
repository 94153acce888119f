//! The citation graph of an index on a cluster, a whole frontier per
//! request: the [`Adjacency`] that [`crate::graph::bfs`] walks.
//!
//! ```text
//! references of F   the `references` of F's papers: an `ids` query, _source = references
//! citations of F    the papers whose `references` hold an id of F: a `terms` query
//!                   (also for dangling ids of F, which are no papers of the index)
//! ```
//!
//! both in batches of [`BATCH`] ids, paged by `search_after`. Every answer is
//! kept per id for the rest of the search: the `weighted` graph score walks
//! again from each seed alone, and those walks are answered from what the
//! walk from all seeds read, without a request.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Value, json};

use super::backend::{BATCH, Backend, hit_id};
use crate::graph::{Adjacency, Direction, EachList, Node};

/// The cluster's citation graph, with what one search has read of it.
pub struct RemoteAdjacency<'a> {
    backend: &'a Backend,
    references: RefCell<HashMap<String, Vec<String>>>,
    citations: RefCell<HashMap<String, Vec<String>>>,
    /// The integers the walk runs over: every id this search has named, in
    /// the order first seen (a node is its index in `ids`).
    interned: RefCell<Interned>,
}

#[derive(Default)]
struct Interned {
    nodes: HashMap<String, Node>,
    ids: Vec<String>,
}

impl Interned {
    fn node(&mut self, id: &str) -> Node {
        if let Some(&n) = self.nodes.get(id) {
            return n;
        }
        let n = self.ids.len() as Node;
        self.ids.push(id.to_string());
        self.nodes.insert(id.to_string(), n);
        n
    }
}

fn strings(v: &Value) -> impl Iterator<Item = String> + '_ {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string))
}

impl<'a> RemoteAdjacency<'a> {
    pub fn new(backend: &'a Backend) -> RemoteAdjacency<'a> {
        RemoteAdjacency {
            backend,
            references: RefCell::default(),
            citations: RefCell::default(),
            interned: RefCell::default(),
        }
    }

    /// Reads the neighbours of the `ids` not yet known in `direction` (References or Citations).
    fn fill(&self, ids: &[String], direction: Direction) -> anyhow::Result<()> {
        let cache = if direction == Direction::References { &self.references } else { &self.citations };
        let mut missing: Vec<String> = ids.iter().filter(|id| !cache.borrow().contains_key(*id)).cloned().collect();
        missing.sort();
        missing.dedup();
        for batch in missing.chunks(BATCH) {
            let mut found: HashMap<String, Vec<String>> = batch.iter().map(|id| (id.clone(), Vec::new())).collect();
            if direction == Direction::References {
                for (id, source) in self.backend.sources(batch, &["references"])? {
                    found.insert(id, strings(&source["references"]).collect());
                }
            } else {
                let query = json!({"terms": {"references": batch}});
                for h in self.backend.search_all(query, &["references"])? {
                    let citing = hit_id(&h);
                    for cited in strings(&h["_source"]["references"]) {
                        if let Some(list) = found.get_mut(&cited) {
                            list.push(citing.clone());
                        }
                    }
                }
            }
            cache.borrow_mut().extend(found);
        }
        Ok(())
    }
}

impl Adjacency for RemoteAdjacency<'_> {
    /// Every id is a node of the cluster's graph (one with no neighbours
    /// when no paper names it): the id is interned.
    fn nodes_of(&self, ids: &[String]) -> anyhow::Result<Vec<(String, Node)>> {
        let mut interned = self.interned.borrow_mut();
        Ok(ids.iter().map(|id| (id.clone(), interned.node(id))).collect())
    }

    fn ids_of(&self, nodes: &[Node]) -> anyhow::Result<Vec<(Node, String)>> {
        let interned = self.interned.borrow();
        nodes
            .iter()
            .map(|&n| {
                let id = usize::try_from(n).ok().and_then(|i| interned.ids.get(i));
                id.map(|id| (n, id.clone())).ok_or_else(|| anyhow::anyhow!("node {n} was not given by this walk"))
            })
            .collect()
    }

    fn neighbor_lists(&self, nodes: &[Node], direction: Direction, each: &mut EachList) -> anyhow::Result<()> {
        let ids: Vec<String> = self.ids_of(nodes)?.into_iter().map(|(_, id)| id).collect();
        let ways = [
            (Direction::References, direction.follows_references()),
            (Direction::Citations, direction.follows_citations()),
        ];
        for way in ways.into_iter().filter(|w| w.1).map(|w| w.0) {
            self.fill(&ids, way)?;
            let cache = if way == Direction::References { &self.references } else { &self.citations };
            let cache = cache.borrow();
            let mut interned = self.interned.borrow_mut();
            for (&node, id) in nodes.iter().zip(&ids) {
                let list: Vec<Node> = cache.get(id).into_iter().flatten().map(|id| interned.node(id)).collect();
                each(node, way, &list);
            }
        }
        Ok(())
    }
}
