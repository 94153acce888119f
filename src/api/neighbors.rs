//! The citation neighbourhood of one id: what `litindex neighbors` and
//! MCP's `neighbors` list.

use serde::Serialize;

use super::limits::{MAX_NEIGHBOR_HOPS, hops};
use super::resolve::resolve_node;
use crate::graph::{Direction, bfs};
use crate::store::{Store, StoreAdjacency};

/// Which walk computes the neighbourhood (both give the same nodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WalkEngine {
    /// One recursive SQL query over the edges table.
    #[default]
    Sql,
    /// Breadth-first search over the stored adjacency.
    Memory,
}

/// A neighbourhood asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeighborsRequest {
    /// A paper id or alias, or any id of the citation graph.
    pub id: String,
    /// 0 to [`MAX_NEIGHBOR_HOPS`].
    pub hops: u32,
    pub direction: Direction,
    pub engine: WalkEngine,
}

/// One id reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub id: String,
    pub distance: u32,
    /// Whether the id is an indexed paper (false: a dangling id).
    pub indexed: bool,
    /// The paper's title (not in the JSON, which lists ids only).
    #[serde(skip)]
    pub title: Option<String>,
}

/// What `neighbors --format json` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Neighborhood {
    pub seed: String,
    pub hops: u32,
    pub direction: &'static str,
    /// By distance, then id.
    pub nodes: Vec<Node>,
}

/// The ids within `request.hops` of the seed, each with its distance.
pub fn neighbors(store: &Store, request: &NeighborsRequest) -> anyhow::Result<Neighborhood> {
    hops(u64::from(request.hops), MAX_NEIGHBOR_HOPS, "")?;
    store.snapshot(|| {
        let seed = resolve_node(store, &request.id)?;
        let seeds = [seed.clone()];
        let reached = match request.engine {
            WalkEngine::Sql => store.expand_cte(&seeds, request.hops, request.direction)?,
            WalkEngine::Memory => bfs(&StoreAdjacency(store), &seeds, request.hops, request.direction)?,
        };
        let mut nodes = Vec::with_capacity(reached.len());
        for (id, distance) in reached {
            let title = store.paper(&id)?.map(|p| p.title);
            nodes.push(Node { indexed: title.is_some(), title, id, distance });
        }
        nodes.sort_by(|a, b| a.distance.cmp(&b.distance).then_with(|| a.id.cmp(&b.id)));
        Ok(Neighborhood { seed, hops: request.hops, direction: request.direction.name(), nodes })
    })
}
