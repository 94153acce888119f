//! The citation-graph walk: k-hop expansion from seed ids, twice.
//!
//! [`bfs`] is a breadth-first search in Rust over any [`Adjacency`] (the
//! persisted edges read node by node, or an in-memory edge list); it is the
//! reference. `Store::expand_cte` is one recursive SQL query over the `edges`
//! table. Property tests hold the two to identical `{id → distance}` maps.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;

/// Which way to follow citations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Direction {
    /// Both ways: the graph as undirected.
    #[default]
    Both,
    /// From a paper to the papers it cites.
    References,
    /// From a paper to the papers that cite it.
    Citations,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Both => "both",
            Direction::References => "references",
            Direction::Citations => "citations",
        }
    }

    pub(crate) fn follows_references(self) -> bool {
        matches!(self, Direction::Both | Direction::References)
    }

    pub(crate) fn follows_citations(self) -> bool {
        matches!(self, Direction::Both | Direction::Citations)
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Direction {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Direction> {
        match s {
            "both" => Ok(Direction::Both),
            "references" => Ok(Direction::References),
            "citations" => Ok(Direction::Citations),
            other => anyhow::bail!("unknown direction `{other}` (use both, references or citations)"),
        }
    }
}

/// Who is linked to whom.
pub trait Adjacency {
    /// The ids one step from `id` in `direction` (any order, repeats allowed).
    fn neighbors(&self, id: &str, direction: Direction) -> anyhow::Result<Vec<String>>;

    /// The ids one step from any of `ids` (any order, repeats allowed). A
    /// store answers a whole frontier in one statement per direction.
    fn neighbors_of_all(&self, ids: &[String], direction: Direction) -> anyhow::Result<Vec<String>> {
        let mut out = Vec::new();
        for id in ids {
            out.extend(self.neighbors(id, direction)?);
        }
        Ok(out)
    }
}

/// Breadth-first expansion: every id within `hops` steps of a seed, with its
/// minimum distance (seeds at 0).
pub fn bfs(
    adj: &impl Adjacency,
    seeds: &[String],
    hops: u32,
    direction: Direction,
) -> anyhow::Result<BTreeMap<String, u32>> {
    // Level by level: every id of the frontier is at distance `d`, so an id
    // first seen from it is at `d + 1`, its minimum.
    let mut dist: HashMap<String, u32> = HashMap::new();
    let mut frontier: Vec<String> = Vec::new();
    for s in seeds {
        if dist.insert(s.clone(), 0).is_none() {
            frontier.push(s.clone());
        }
    }
    for d in 0..hops {
        if frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for n in adj.neighbors_of_all(&frontier, direction)? {
            if !dist.contains_key(&n) {
                dist.insert(n.clone(), d + 1);
                next.push(n);
            }
        }
        frontier = next;
    }
    Ok(dist.into_iter().collect())
}

/// An edge list held in memory (tests, and callers without a store).
/// Self-loops and repeated edges are allowed and change nothing.
#[derive(Debug, Default, Clone)]
pub struct MemoryGraph {
    out: HashMap<String, Vec<String>>,
    inc: HashMap<String, Vec<String>>,
}

impl MemoryGraph {
    pub fn new<'a>(edges: impl IntoIterator<Item = (&'a str, &'a str)>) -> MemoryGraph {
        let mut g = MemoryGraph::default();
        for (citing, cited) in edges {
            g.out.entry(citing.to_string()).or_default().push(cited.to_string());
            g.inc.entry(cited.to_string()).or_default().push(citing.to_string());
        }
        g
    }
}

impl Adjacency for MemoryGraph {
    fn neighbors(&self, id: &str, direction: Direction) -> anyhow::Result<Vec<String>> {
        let mut v = Vec::new();
        if direction.follows_references() {
            v.extend(self.out.get(id).into_iter().flatten().cloned());
        }
        if direction.follows_citations() {
            v.extend(self.inc.get(id).into_iter().flatten().cloned());
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn chain() -> MemoryGraph {
        // a cites b, b cites c, d cites a
        MemoryGraph::new([("a", "b"), ("b", "c"), ("d", "a")])
    }

    #[test]
    fn zero_hops_is_only_the_seeds() {
        let m = bfs(&chain(), &s(&["a", "c"]), 0, Direction::Both).unwrap();
        assert_eq!(m, BTreeMap::from([("a".into(), 0), ("c".into(), 0)]));
    }

    #[test]
    fn one_hop_reaches_references_and_citations() {
        let m = bfs(&chain(), &s(&["a"]), 1, Direction::Both).unwrap();
        assert_eq!(m, BTreeMap::from([("a".into(), 0), ("b".into(), 1), ("d".into(), 1)]));
        let r = bfs(&chain(), &s(&["a"]), 1, Direction::References).unwrap();
        assert_eq!(r.keys().collect::<Vec<_>>(), ["a", "b"]);
        let c = bfs(&chain(), &s(&["a"]), 1, Direction::Citations).unwrap();
        assert_eq!(c.keys().collect::<Vec<_>>(), ["a", "d"]);
    }

    #[test]
    fn distances_are_minimal_and_bounded() {
        let m = bfs(&chain(), &s(&["d"]), 5, Direction::References).unwrap();
        assert_eq!(m, BTreeMap::from([("d".into(), 0), ("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]));
        let m = bfs(&chain(), &s(&["d"]), 2, Direction::References).unwrap();
        assert!(!m.contains_key("c"));
    }

    #[test]
    fn cycles_and_self_loops_terminate() {
        let g = MemoryGraph::new([("a", "b"), ("b", "a"), ("a", "a")]);
        let m = bfs(&g, &s(&["a"]), 10, Direction::Both).unwrap();
        assert_eq!(m, BTreeMap::from([("a".into(), 0), ("b".into(), 1)]));
    }

    #[test]
    fn directions_parse() {
        assert_eq!("citations".parse::<Direction>().unwrap(), Direction::Citations);
        assert!("sideways".parse::<Direction>().is_err());
    }
}
