//! [`super::in_merge_by_node`]: the weighted score's sums by node joined to
//! the merged papers, through the walk's handles (a list in node order)
//! and, for a node the walk did not read, by id.

use super::in_merge_by_node;
use crate::graph::{MemoryGraph, NodeMap};
use crate::search::retriever::{Merged, MergedPaper, Papers};

#[test]
fn sums_join_the_merge_through_the_handles_and_by_id_for_the_rest() {
    // Nodes in order of first appearance: a 0, b 1, c 2, d 3, e 4.
    let graph = MemoryGraph::new([("a", "b"), ("a", "c"), ("d", "e")]);
    // The walk read a, b and c: c is no paper.
    let handles = [(0, Some(10)), (1, Some(11)), (2, None)];
    // d and e were reached from elsewhere (a favorite): their handles come by id.
    let sums: NodeMap<f64> = [(1, 0.5), (2, 0.7), (3, 0.2), (4, 0.9)].into_iter().collect();
    let papers: Papers<i64> = [("d".to_string(), (13, None)), ("e".to_string(), (14, None))].into_iter().collect();
    let merged: Merged<i64> =
        [11, 13].into_iter().map(|doc| (doc, MergedPaper { id: None, distance: None, year: None })).collect();
    let mut joined = in_merge_by_node(&graph, &sums, &handles, &papers, &merged).unwrap();
    joined.sort_by_key(|&(doc, _)| doc);
    // a has no sum, c is no paper, e is not in the merge.
    assert_eq!(joined, [(11, 0.5), (13, 0.2)]);

    // Every summed node read by the walk: nothing to look up by id.
    let read: NodeMap<f64> = [(0, 0.3), (1, 0.5)].into_iter().collect();
    let merged_a: Merged<i64> =
        [10, 11].into_iter().map(|doc| (doc, MergedPaper { id: None, distance: None, year: None })).collect();
    let mut joined = in_merge_by_node(&MemoryGraph::default(), &read, &handles, &Papers::default(), &merged_a).unwrap();
    joined.sort_by_key(|&(doc, _)| doc);
    assert_eq!(joined, [(10, 0.3), (11, 0.5)]);
}
