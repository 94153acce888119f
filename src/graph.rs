//! The citation-graph walk: k-hop expansion from seed ids, twice.
//!
//! [`bfs`] is a breadth-first search in Rust over any [`Adjacency`] (the
//! persisted integer adjacency read a frontier at a time, or an in-memory
//! edge list); it is the reference. `Store::expand_cte` is one recursive
//! SQL query over the `adjacency` table. Both walk integer nodes; ids map
//! to nodes once before and back once after. Property tests hold the two to
//! identical `{id → distance}` maps.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;

use crate::choice::{self, Choice};

/// Which way to follow citations.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
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
        choice::parse(s)
    }
}

impl Choice for Direction {
    const WHAT: &'static str = "direction";
    fn all() -> &'static [Direction] {
        &[Direction::Both, Direction::References, Direction::Citations]
    }
    fn keyword(self) -> &'static str {
        self.name()
    }
    fn help(self) -> &'static str {
        match self {
            Direction::Both => "Both ways: the graph as undirected",
            Direction::References => "From a paper to the papers it cites",
            Direction::Citations => "From a paper to the papers that cite it",
        }
    }
}

/// A node of the graph: the integer a store (or a [`MemoryGraph`]) gives an id.
pub type Node = i64;

/// A map by node (a fixed, fast hash: nodes are a store's integers, not user input).
pub(crate) type NodeMap<V> = HashMap<Node, V, foldhash::fast::FixedState>;

/// Every id a walk reached, with its distance (a search's walk: in no order).
pub type Reached = HashMap<String, u32, foldhash::fast::FixedState>;

/// A search's walk, as its ranker reads it (`crate::search::rank`): the
/// reached papers by the retriever's handle (`D`: a store's doc id) where
/// the walk read them, the rest by id.
#[derive(Debug, Clone)]
pub(crate) struct Walk<D> {
    /// The reached papers whose handles the walk read, each once: handle,
    /// distance and year (a list: the merge takes them into its own map).
    pub papers: Vec<(D, u32, Option<i32>)>,
    /// Each reached node the walk read, in node order, each once: its
    /// paper's handle, `None` for an id that is not a paper (the weighted
    /// graph score sums by node and joins its sums to the merge through
    /// this list; a list, not a map: one push a node, no hashing).
    pub handles: Vec<(Node, Option<D>)>,
    /// Reached ids the walk did not map to papers (seeds the graph does
    /// not know; every reached id, for a retriever whose walk reads ids only).
    pub ids: Reached,
    /// The reached nodes first reached through a list the walk cut to its
    /// fan-out, with that cut (what a hit explains): by node, as the walk
    /// found them (a hit's node comes from `handles`, or by id for a walk
    /// that reads ids only).
    pub via: NodeMap<Cut>,
}

impl<D> Default for Walk<D> {
    fn default() -> Walk<D> {
        Walk { papers: Vec::new(), handles: Vec::new(), ids: Reached::default(), via: NodeMap::default() }
    }
}

/// Who is linked to whom, by integer node. An id maps to its node once at
/// the start of a walk and back once at the end ([`bfs`]); the walk itself
/// runs over integers.
pub trait Adjacency {
    /// The node of each of `ids` the graph knows (ids it does not know are
    /// left out), in one call.
    fn nodes_of(&self, ids: &[String]) -> anyhow::Result<Vec<(String, Node)>>;

    /// The id of each of `nodes`, in one call.
    fn ids_of(&self, nodes: &[Node]) -> anyhow::Result<Vec<(Node, String)>>;

    /// Each of `nodes`' neighbours in `direction`, one list per node and
    /// way (`each(node, References | Citations, list)`; a node with none
    /// may be left out). A store answers a whole frontier in one statement.
    fn neighbor_lists(&self, nodes: &[Node], direction: Direction, each: &mut EachList) -> anyhow::Result<()>;
}

/// What [`Adjacency::neighbor_lists`] calls with each list: node, way, neighbours.
pub type EachList<'a> = dyn FnMut(Node, Direction, &[Node]) + 'a;

/// How many of one paper's references, and of its citers, a search's walk
/// follows ([`bfs_nodes`]); `None`: all. A hub cited by thousands would
/// otherwise bring every citer and, at two hops, every citer's links: on a
/// 1M-paper index a search's merged set held 80,902–333,421 papers; at most
/// 100 per list, 40,063–83,276 (docs/PERFORMANCE.md, "The walk's fan-out").
pub type FanOut = Option<usize>;

/// The fan-out of a search when the caller does not choose (docs/PERFORMANCE.md:
/// chosen by time at 1M; CACM's and SciFact's rankings do not change, their
/// lists being shorter; at 1M the top 10 overlap 0.920 with every link's).
pub const DEFAULT_FAN_OUT: FanOut = Some(100);

/// How a walk goes: `hops` steps at most, which `direction`, and at most
/// `fan_out` of one paper's references or citers ([`bfs_nodes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    pub hops: u32,
    pub direction: Direction,
    pub fan_out: FanOut,
}

/// One list a walk cut to its fan-out: the paper (by node), the way (its
/// references or its citers) and how many the list held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub node: Node,
    pub direction: Direction,
    pub total: usize,
}

/// A walk over integers: each reached node's minimum distance (seeds at
/// 0), and for a node first reached through a list the fan-out cut, that cut.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bfs {
    pub dist: NodeMap<u32>,
    pub via: NodeMap<Cut>,
    /// The part of each list cut so far that a walk follows, by node, way
    /// and fan-out: kept across the walks of one walker ([`bfs_nodes_into`];
    /// the weighted score walks from 30 seeds, and a hub's list of
    /// thousands would be sampled again in each walk that meets it).
    samples: HashMap<(Node, Direction, usize), Vec<Node>, foldhash::fast::FixedState>,
}

/// The `k` of `list` a cut list keeps: those with the smallest hash of their
/// node, an even sample that is the same in every walk over this index.
fn sample(list: &[Node], k: usize, buf: &mut Vec<Node>) {
    buf.clear();
    if k == 0 {
        return;
    }
    let key = |n: &Node| {
        let mut z = (*n as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31), *n)
    };
    buf.extend_from_slice(list);
    buf.select_nth_unstable_by_key(k - 1, key);
    buf.truncate(k);
    buf.sort_unstable_by_key(key);
}

/// Breadth-first expansion over integers: every node within `reach.hops`
/// steps of a seed, with its minimum distance (seeds at 0), following at
/// most `reach.fan_out` of any one list ([`FanOut`]).
pub(crate) fn bfs_nodes(adj: &impl Adjacency, seeds: &[Node], reach: Reach) -> anyhow::Result<Bfs> {
    let mut walk = Bfs::default();
    bfs_nodes_into(adj, seeds, reach, &mut walk)?;
    Ok(walk)
}

/// [`bfs_nodes`] into `walk`, cleared first: a caller walking from one
/// seed after another keeps the maps' room from one walk to the next.
pub(crate) fn bfs_nodes_into(adj: &impl Adjacency, seeds: &[Node], reach: Reach, walk: &mut Bfs) -> anyhow::Result<()> {
    let Reach { hops, direction, fan_out } = reach;
    // Level by level: every node of the frontier is at distance `d`, so a
    // node first seen from it is at `d + 1`, its minimum.
    let Bfs { dist, via, samples } = walk;
    dist.clear();
    via.clear();
    let mut frontier: Vec<Node> = Vec::new();
    for &s in seeds {
        if dist.insert(s, 0).is_none() {
            frontier.push(s);
        }
    }
    for d in 0..hops {
        if frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        adj.neighbor_lists(&frontier, direction, &mut |node, way, list| {
            let (list, cut) = match fan_out {
                Some(k) if list.len() > k => {
                    let kept = samples.entry((node, way, k)).or_insert_with(|| {
                        let mut kept = Vec::new();
                        sample(list, k, &mut kept);
                        kept.shrink_to_fit();
                        kept
                    });
                    (&kept[..], Some(Cut { node, direction: way, total: list.len() }))
                }
                _ => (list, None),
            };
            for &n in list {
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(n) {
                    e.insert(d + 1);
                    next.push(n);
                    if let Some(cut) = cut {
                        via.insert(n, cut);
                    }
                }
            }
        })?;
        frontier = next;
    }
    Ok(())
}

/// Breadth-first expansion by id: every id within `hops` steps of a seed,
/// with its minimum distance (seeds at 0, also those the graph does not
/// know). The seeds map to nodes in one call, the walk runs over integers
/// ([`bfs_nodes`]), and the result maps back in one call.
pub fn bfs(
    adj: &impl Adjacency,
    seeds: &[String],
    hops: u32,
    direction: Direction,
) -> anyhow::Result<BTreeMap<String, u32>> {
    let (walk, mut out) = walk_by_id(adj, seeds, Reach { hops, direction, fan_out: None })?;
    let nodes: Vec<Node> = walk.dist.keys().copied().collect();
    for (node, id) in adj.ids_of(&nodes)? {
        out.insert(id, walk.dist[&node]);
    }
    Ok(out)
}

/// The walk of [`bfs`] before its result maps back: the distances by node,
/// and the seeds the graph does not know, at 0.
pub(crate) fn walk_by_id(
    adj: &impl Adjacency,
    seeds: &[String],
    reach: Reach,
) -> anyhow::Result<(Bfs, BTreeMap<String, u32>)> {
    let known = adj.nodes_of(seeds)?;
    let mut unknown: BTreeMap<String, u32> = seeds.iter().map(|s| (s.clone(), 0)).collect();
    for (id, _) in &known {
        unknown.remove(id);
    }
    let nodes: Vec<Node> = known.iter().map(|&(_, n)| n).collect();
    Ok((bfs_nodes(adj, &nodes, reach)?, unknown))
}

/// An edge list held in memory (tests, and callers without a store), its
/// ids numbered in order of first appearance. Self-loops and repeated
/// edges are allowed and change nothing.
#[derive(Debug, Default, Clone)]
pub struct MemoryGraph {
    node: HashMap<String, Node>,
    id: Vec<String>,
    out: HashMap<Node, Vec<Node>>,
    inc: HashMap<Node, Vec<Node>>,
}

impl MemoryGraph {
    pub fn new<'a>(edges: impl IntoIterator<Item = (&'a str, &'a str)>) -> MemoryGraph {
        let mut g = MemoryGraph::default();
        for (citing, cited) in edges {
            let (a, b) = (g.intern(citing), g.intern(cited));
            g.out.entry(a).or_default().push(b);
            g.inc.entry(b).or_default().push(a);
        }
        g
    }

    fn intern(&mut self, id: &str) -> Node {
        if let Some(&n) = self.node.get(id) {
            return n;
        }
        let n = self.id.len() as Node;
        self.id.push(id.to_string());
        self.node.insert(id.to_string(), n);
        n
    }
}

impl Adjacency for MemoryGraph {
    fn nodes_of(&self, ids: &[String]) -> anyhow::Result<Vec<(String, Node)>> {
        Ok(ids.iter().filter_map(|id| self.node.get(id).map(|&n| (id.clone(), n))).collect())
    }

    fn ids_of(&self, nodes: &[Node]) -> anyhow::Result<Vec<(Node, String)>> {
        Ok(nodes.iter().filter_map(|&n| self.id.get(usize::try_from(n).ok()?).map(|id| (n, id.clone()))).collect())
    }

    fn neighbor_lists(&self, nodes: &[Node], direction: Direction, each: &mut EachList) -> anyhow::Result<()> {
        for &n in nodes {
            if direction.follows_references() {
                each(n, Direction::References, self.out.get(&n).map_or(&[], Vec::as_slice));
            }
            if direction.follows_citations() {
                each(n, Direction::Citations, self.inc.get(&n).map_or(&[], Vec::as_slice));
            }
        }
        Ok(())
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
    fn a_seed_the_graph_does_not_know_stays_at_zero() {
        let m = bfs(&chain(), &s(&["zz", "c"]), 2, Direction::Citations).unwrap();
        assert_eq!(m, BTreeMap::from([("zz".into(), 0), ("c".into(), 0), ("b".into(), 1), ("a".into(), 2)]));
    }

    #[test]
    fn a_list_longer_than_the_fan_out_is_sampled_and_the_cut_kept() {
        // h is cited by c0..c9; c0 is cited by d.
        let mut edges: Vec<(String, String)> = (0..10).map(|i| (format!("c{i}"), "h".to_string())).collect();
        edges.push(("d".into(), "c0".into()));
        let g = MemoryGraph::new(edges.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let h = g.nodes_of(&s(&["h"])).unwrap()[0].1;
        let all = bfs_nodes(&g, &[h], Reach { hops: 2, direction: Direction::Citations, fan_out: None }).unwrap();
        assert_eq!((all.dist.len(), all.via.len()), (12, 0));
        assert_eq!(
            bfs_nodes(&g, &[h], Reach { hops: 2, direction: Direction::Citations, fan_out: Some(10) }).unwrap().dist,
            all.dist,
            "not longer: no cut"
        );
        let cut = bfs_nodes(&g, &[h], Reach { hops: 1, direction: Direction::Citations, fan_out: Some(3) }).unwrap();
        assert_eq!(cut.dist.len(), 4, "the seed and 3 of its 10 citers");
        let want = Cut { node: h, direction: Direction::Citations, total: 10 };
        assert!(cut.via.len() == 3 && cut.via.values().all(|c| *c == want), "{:?}", cut.via);
        let again = bfs_nodes(&g, &[h], Reach { hops: 1, direction: Direction::Citations, fan_out: Some(3) }).unwrap();
        assert_eq!(again.dist, cut.dist, "the same sample in every walk");
        // The references of h (none) are not cut; a fan-out of 0 follows none.
        let refs = bfs_nodes(&g, &[h], Reach { hops: 1, direction: Direction::References, fan_out: Some(1) }).unwrap();
        assert_eq!(refs.dist.len(), 1);
        let none = bfs_nodes(&g, &[h], Reach { hops: 2, direction: Direction::Citations, fan_out: Some(0) }).unwrap();
        assert_eq!((none.dist.len(), none.via.len()), (1, 0));
    }

    #[test]
    fn a_walker_reused_from_seed_to_seed_walks_as_a_new_one_would() {
        // h is cited by c0..c9, each ci by d{i}; the walks from h and from
        // each ci (3 hops, 3 citers a list, 2 a list, none) through one walker.
        let mut edges: Vec<(String, String)> = (0..10).map(|i| (format!("c{i}"), "h".to_string())).collect();
        edges.extend((0..10).map(|i| (format!("d{i}"), format!("c{i}"))));
        let g = MemoryGraph::new(edges.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let ids: Vec<String> = std::iter::once("h".to_string()).chain((0..10).map(|i| format!("c{i}"))).collect();
        let seeds: Vec<Node> = g.nodes_of(&ids).unwrap().into_iter().map(|(_, n)| n).collect();
        let mut walker = Bfs::default();
        for fan_out in [Some(3), Some(2), None] {
            for direction in [Direction::Both, Direction::Citations] {
                let reach = Reach { hops: 3, direction, fan_out };
                for &s in &seeds {
                    bfs_nodes_into(&g, &[s], reach, &mut walker).unwrap();
                    let fresh = bfs_nodes(&g, &[s], reach).unwrap();
                    assert_eq!((&walker.dist, &walker.via), (&fresh.dist, &fresh.via), "{reach:?} from {s}");
                }
            }
        }
        assert!(!walker.samples.is_empty(), "h's citers were cut and the cut kept");
    }

    #[test]
    fn directions_parse() {
        assert_eq!("citations".parse::<Direction>().unwrap(), Direction::Citations);
        assert!("sideways".parse::<Direction>().is_err());
    }
}
