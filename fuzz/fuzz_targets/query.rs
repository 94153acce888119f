//! The query path on the mock index: any text is a query that is answered
//! (never an error, never a panic), with finite scores in rank order, and
//! any text is an id that resolves or not.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litindex::ingest::{build, IngestOptions, Input};
use litindex::search::{search, SearchParams, SearchRequest};
use litindex::store::Store;

thread_local! {
    static STORE: (tempfile::TempDir, Store) = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mock.db");
        build(&path, &[Input::Mock], &IngestOptions::default()).unwrap();
        let store = Store::open(&path).unwrap();
        (dir, store)
    };
}

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    STORE.with(|(_, store)| {
        let request = SearchRequest::new(query.as_ref(), SearchParams::default());
        let r = search(store, &request, None).expect("every query is answered");
        assert!(r.hit_count >= r.ranked.len());
        assert!(r.top_score.is_finite() && r.average_score.is_finite());
        for h in &r.ranked {
            assert!(h.final_score.is_finite() && h.bm25_score.is_finite() && h.bm25_score >= 0.0, "{h:?}");
        }
        assert!(r.ranked.windows(2).all(|w| w[0].final_score >= w[1].final_score), "not in rank order");
        store.resolve(&query).expect("resolving an id never fails");
    });
});
