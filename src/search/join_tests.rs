//! The walk joined to the merged papers: [`super::evidence_into_merge`],
//! the weighted score's sums by node written into the merged papers, and
//! [`super::graph_via`], a shown hit's cut; each through the walk's
//! handles (a list in node order) and, for a node the walk did not read, by id.

use super::page_tests::scored;
use super::{GraphVia, Scored, evidence_into_merge, graph_via};
use crate::graph::{Cut, Direction, MemoryGraph, NodeMap};
use crate::search::retriever::{Merged, MergedPaper, Papers};

fn merged(docs: [i64; 2]) -> Merged<i64> {
    docs.into_iter().map(|doc| (doc, MergedPaper { id: None, distance: None, year: None, evidence: None })).collect()
}

fn evidence(merged: &Merged<i64>) -> Vec<(i64, Option<f64>)> {
    let mut e: Vec<(i64, Option<f64>)> = merged.iter().map(|(&doc, m)| (doc, m.evidence)).collect();
    e.sort_by_key(|&(doc, _)| doc);
    e
}

#[test]
fn sums_join_the_merge_through_the_handles_and_by_id_for_the_rest() {
    // Nodes in order of first appearance: a 0, b 1, c 2, d 3, e 4.
    let graph = MemoryGraph::new([("a", "b"), ("a", "c"), ("d", "e")]);
    // The walk read a, b and c: c is no paper.
    let handles = [(0, Some(10)), (1, Some(11)), (2, None)];
    // d and e were reached from elsewhere (a favorite): their handles come by id.
    let sums: NodeMap<f64> = [(1, 0.5), (2, 0.7), (3, 0.2), (4, 0.9)].into_iter().collect();
    let papers: Papers<i64> = [("d".to_string(), (13, None)), ("e".to_string(), (14, None))].into_iter().collect();
    let mut m = merged([11, 13]);
    let max = evidence_into_merge(&graph, &sums, &handles, &papers, &mut m).unwrap();
    // a has no sum, c is no paper, e is not in the merge: the largest is b's.
    assert_eq!(evidence(&m), [(11, Some(0.5)), (13, Some(0.2))]);
    assert_eq!(max, 0.5);

    // Every summed node read by the walk: nothing to look up by id; a
    // merged paper no seed reached keeps none.
    let read: NodeMap<f64> = [(1, 0.5)].into_iter().collect();
    let mut m = merged([10, 11]);
    let max = evidence_into_merge(&MemoryGraph::default(), &read, &handles, &Papers::default(), &mut m).unwrap();
    assert_eq!(evidence(&m), [(10, None), (11, Some(0.5))]);
    assert_eq!(max, 0.5);
}

/// A shown hit at `doc` (only its handle matters here).
fn shown(id: &str, doc: i64) -> (String, Scored<i64>) {
    (id.to_string(), scored(doc, 0.0, None))
}

#[test]
fn a_shown_hits_cut_is_found_through_the_handles_or_by_id() {
    // Nodes: x 0, hub 1, y 2, z 3. The walk reached x through hub's citers, cut.
    let graph = MemoryGraph::new([("x", "hub"), ("y", "hub"), ("z", "hub")]);
    let via: NodeMap<Cut> = [(0, Cut { node: 1, direction: Direction::Citations, total: 3 })].into_iter().collect();
    let want = Some(GraphVia { paper: "hub".to_string(), direction: Direction::Citations, followed: 2, total: 3 });
    // A walk that read handles (doc ids 100 + node): the hit at doc 100 is node 0.
    let handles = [(0, Some(100)), (1, Some(101)), (2, Some(102))];
    let hits = [shown("x", 100), shown("y", 102), shown("w", 7)];
    assert_eq!(graph_via(&graph, &handles, &via, &hits, Some(2)).unwrap(), [want.clone(), None, None]);
    // A walk that reads ids only (its handles are the nodes): by id.
    let hits = [shown("y", 2), shown("x", 0)];
    assert_eq!(graph_via(&graph, &[], &via, &hits, Some(2)).unwrap(), [None, want]);
    // No cut: nothing looked up.
    assert_eq!(graph_via(&graph, &handles, &NodeMap::default(), &hits, None).unwrap(), [None, None]);
}
