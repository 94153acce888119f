//! [`super::page`]: the hits from `offset` to `end`, best first, ties by id,
//! against a whole sort of every hit; ids read only for the hits up to
//! `end` and those tied with the `end`-th (the rest only counted).

use super::{Scored, page};
use crate::ingest::{IngestOptions, Input, build};
use crate::search::SearchRequest;
use crate::search::retriever::Local;
use crate::store::Store;

/// A scored paper: `doc`, its score, and its id when the merge had read it
/// (also `join_tests`' shown hits).
pub(super) fn scored(doc: i64, final_score: f64, id: Option<&str>) -> Scored<i64> {
    Scored {
        id: id.map(str::to_string),
        doc,
        year: None,
        bm25_score: 0.0,
        bm25_norm: 0.0,
        distance: None,
        graph_score: 0.0,
        recency_score: 0.0,
        final_score,
        fused: 0.0,
        dense: None,
        rerank: None,
        excluded: false,
        reached: false,
    }
}

#[test]
fn a_page_is_the_slice_of_the_whole_sort_ties_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mock.db");
    build(&db, &[Input::Mock], &IngestOptions::default()).unwrap();
    let store = Store::open(&db).unwrap();
    let docs = store.all_docs().unwrap();
    assert!(docs.len() >= 40, "the mock corpus has {} papers", docs.len());
    let ids: Vec<String> = store.ids_by_doc(&docs).unwrap().into_iter().map(|(id, _)| id).collect();
    // Scores with many ties (seven values over forty papers), in doc order
    // (which is not id order for ties to be broken by); every third paper
    // with its id already read, as the merge leaves the first stage's.
    let hits: Vec<(i64, f64, Option<&str>)> = docs
        .iter()
        .zip(&ids)
        .take(40)
        .enumerate()
        .map(|(i, (&doc, id))| (doc, ((i * 7919) % 7) as f64 / 4.0, (i % 3 == 0).then_some(id.as_str())))
        .collect();
    let id_of = |doc: i64| ids[docs.iter().position(|&d| d == doc).unwrap()].clone();
    let mut whole: Vec<(String, f64)> = hits.iter().map(|&(doc, s, _)| (id_of(doc), s)).collect();
    whole.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));

    // Three papers the index does not hold, scored below every other:
    // their ids cannot be read, so a page that does not reach them must not
    // try, and one that does fails.
    let phantoms = [(-1, -1.0), (-2, -1.0), (-3, -1.0)];
    let list = || -> Vec<Scored<i64>> {
        hits.iter()
            .map(|&(d, s, id)| scored(d, s, id))
            .chain(phantoms.iter().map(|&(d, s)| scored(d, s, None)))
            .collect()
    };

    let request = SearchRequest::new("sparse attention", Default::default());
    store
        .snapshot(|| {
            let p = super::parsed(&request)?;
            let mut r = Local::new(&store, &p, None)?;
            for (offset, end) in
                [(0, 10), (0, 1), (3, 7), (10, 20), (35, 40), (0, 40), (38, 40), (5, 5), (0, 0), (9, 3)]
            {
                let got: Vec<(String, f64)> =
                    page(&mut r, list(), end, offset)?.into_iter().map(|(id, h)| (id, h.final_score)).collect();
                let want: Vec<(String, f64)> = whole.iter().take(end).skip(offset).cloned().collect();
                assert_eq!(got, want, "offset {offset}, end {end}");
                for (id, h) in page(&mut r, list(), end, offset)? {
                    assert_eq!(id, id_of(h.doc), "a read id is the paper's own");
                }
            }
            let past = page(&mut r, list(), 41, 0).map(|_| ()).unwrap_err().to_string();
            assert!(past.contains("no paper with doc id -"), "{past}");
            Ok(())
        })
        .unwrap();
}
