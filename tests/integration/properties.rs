//! Property tests: every "two implementations must agree" claim.
//!
//! * The persisted BM25 index scores exactly as the crate's one brute-force
//!   BM25, `litindex::bm25::reference_scores` (feature `test-support`), which
//!   re-tokenises the raw text on every call; the formula itself is pinned by
//!   numbers computed by hand (tests/integration/bm25.rs, src/bm25.rs).
//! * The recursive-CTE walk and the breadth-first search give identical
//!   `{id → distance}` maps on random graphs.

use std::collections::BTreeMap;

use litindex::analyzer::Analyzer;
use litindex::bm25::{Bm25, reference_scores};
use litindex::graph::{Direction, MemoryGraph, bfs};
use litindex::search::bm25_scores;
use litindex::store::{SearchGraph, StoreAdjacency};
use proptest::prelude::*;

use crate::common::{Paper, build_papers};

/// A small vocabulary so that terms repeat across documents and queries.
const WORDS: &[&str] = &[
    "sparse",
    "attention",
    "graph",
    "citation",
    "retrieval",
    "low",
    "rank",
    "adapter",
    "dataset",
    "model",
    "the",
    "of",
    "Ünïcode",
    "注意",
    "x1",
    "42",
];

fn text() -> impl Strategy<Value = String> {
    let word = prop::sample::select(WORDS);
    let sep = prop::sample::select(&[" ", "-", ", ", ". ", "  ", "/"][..]);
    prop::collection::vec((word, sep), 0..25)
        .prop_map(|parts| parts.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
}

fn paper(id: String, title: String, abstract_: String) -> Paper {
    Paper { id, title, abstract_, ..Paper::default() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Persisted BM25 = the brute-force BM25 from raw text, for every paper.
    #[test]
    fn persisted_bm25_equals_brute_force(
        docs in prop::collection::vec((text(), text()), 1..30),
        queries in prop::collection::vec(text(), 1..5),
        k1 in 0.0f64..3.0,
        b in 0.0f64..=1.0,
    ) {
        let papers: Vec<Paper> = docs
            .iter()
            .enumerate()
            .map(|(i, (t, a))| paper(format!("d{i:02}"), if t.is_empty() { "untitled".into() } else { t.clone() }, a.clone()))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bm25.db");
        let bm25 = Bm25::new(k1, b).unwrap();
        let store = build_papers(&path, &papers, bm25);
        let raw: Vec<(String, String)> =
            papers.iter().map(|p| (p.id.clone(), format!("{} {}", p.title, p.abstract_))).collect();
        for q in &queries {
            let expected = reference_scores(&raw, q, Analyzer::Plain, bm25);
            let by_doc = bm25_scores(&store, q).unwrap();
            for (i, p) in papers.iter().enumerate() {
                let got = by_doc.get(&(i as i64 + 1)).copied().unwrap_or(0.0);
                let want = expected[&p.id];
                prop_assert!(
                    (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "query {q:?}, paper {}: index {got} vs brute force {want}", p.id
                );
            }
        }
    }
}

/// A random citation graph over a small id space: some ids are papers, the
/// rest dangling; edges include self-loops, repeats and cycles.
#[derive(Debug, Clone)]
struct RandomGraph {
    n_papers: usize,
    edges: Vec<(usize, usize)>,
    seeds: Vec<usize>,
    hops: u32,
    direction: Direction,
}

const IDS: usize = 24;

fn node(i: usize) -> String {
    // Ids with characters a careless CTE would mishandle.
    match i % 4 {
        0 => format!("p{i}"),
        1 => format!("x'{i}:y"),
        2 => format!("n_{i}%"),
        _ => format!("\"q {i}\""),
    }
}

fn random_graph() -> impl Strategy<Value = RandomGraph> {
    (
        4usize..IDS,
        prop::collection::vec((0..IDS, 0..IDS), 0..60),
        prop::collection::vec(0..IDS, 1..5),
        0u32..5,
        prop::sample::select(vec![Direction::Both, Direction::References, Direction::Citations]),
    )
        .prop_map(|(n_papers, edges, seeds, hops, direction)| RandomGraph {
            n_papers,
            edges,
            seeds,
            hops,
            direction,
        })
}

impl RandomGraph {
    /// The edges a build can express: at least one end is a paper (every
    /// edge comes from some paper's references or citations).
    fn expressible(&self) -> Vec<(String, String)> {
        self.edges
            .iter()
            .filter(|(a, b)| *a < self.n_papers || *b < self.n_papers)
            .map(|&(a, b)| (node(a), node(b)))
            .collect()
    }

    fn papers(&self) -> Vec<Paper> {
        let mut papers: Vec<Paper> =
            (0..self.n_papers).map(|i| paper(node(i), format!("paper {i}"), String::new())).collect();
        for &(a, b) in &self.edges {
            if a < self.n_papers {
                papers[a].references.push(node(b));
            } else if b < self.n_papers {
                papers[b].citations.push(node(a));
            }
        }
        papers.sort_by(|x, y| x.id.cmp(&y.id));
        papers
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// CTE ≡ BFS: the SQL walk, the BFS over the stored adjacency and the BFS
    /// over the raw edge list (self-loops and repeats included) agree.
    #[test]
    fn cte_walk_equals_bfs(g in random_graph()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.db");
        let store = build_papers(&path, &g.papers(), Bm25::default());
        let seeds: Vec<String> = g.seeds.iter().map(|&i| node(i)).collect();

        let raw = g.expressible();
        let memory = MemoryGraph::new(raw.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        let reference: BTreeMap<String, u32> = bfs(&memory, &seeds, g.hops, g.direction).unwrap();
        let cte = store.expand_cte(&seeds, g.hops, g.direction).unwrap();
        let stored_bfs = bfs(&StoreAdjacency(&store), &seeds, g.hops, g.direction).unwrap();
        prop_assert_eq!(&cte, &reference);
        prop_assert_eq!(&stored_bfs, &reference);
        // A search's graph, which keeps what it read: the same walk twice
        // (the second from what the first kept), and each seed alone after.
        let kept = SearchGraph::new(&store);
        for _ in 0..2 {
            prop_assert_eq!(&bfs(&kept, &seeds, g.hops, g.direction).unwrap(), &reference);
        }
        for seed in &seeds {
            let one = std::slice::from_ref(seed);
            prop_assert_eq!(bfs(&kept, one, g.hops, g.direction).unwrap(), bfs(&memory, one, g.hops, g.direction).unwrap());
        }
    }
}

#[test]
fn cte_handles_a_cycle_and_many_seeds() {
    let papers = vec![
        Paper { references: vec!["b".into()], ..paper("a".into(), "A".into(), String::new()) },
        Paper { references: vec!["c".into()], ..paper("b".into(), "B".into(), String::new()) },
        Paper { references: vec!["a".into(), "zz".into()], ..paper("c".into(), "C".into(), String::new()) },
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cycle.db");
    let store = build_papers(&path, &papers, Bm25::default());
    let m = store.expand_cte(&["a".into()], 10, Direction::References).unwrap();
    let expected: BTreeMap<String, u32> =
        [("a", 0), ("b", 1), ("c", 2), ("zz", 3)].into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    assert_eq!(m, expected);
    let both = store.expand_cte(&["a".into(), "zz".into()], 1, Direction::Both).unwrap();
    assert_eq!(both.get("c"), Some(&1));
    assert_eq!(both.get("zz"), Some(&0));
}
