//! Failpoints are a cargo feature (`failpoints`): the crash and concurrency
//! tests in `reliability` and `semantic` exist only with
//! `cargo test --features failpoints` (CI enables it). This test runs either
//! way: with the feature, every failpoint fires where `LITINDEX_FAILPOINT`
//! says; without it, the binary ignores `LITINDEX_FAILPOINT` (and says on
//! stderr that the failpoint tests were compiled out).

use std::fs;

use crate::common::{Need, skip, stderr};
use crate::reliability::{cmd, generated_corpus, json, ok, run};

/// Failpoints an ingest that creates its index passes, counted ones at their first count.
const INGEST_FAILPOINTS: [&str; 6] =
    ["after-records", "mid-postings", "before-stats", "before-commit", "after-commit", "before-rename"];

#[test]
fn failpoints_fire_only_in_a_build_with_the_feature() {
    let on = cfg!(feature = "failpoints");
    assert_eq!(litindex::failpoint::ENABLED, on);
    if !on {
        // The rest of this test still runs: the binary ignores the failpoints.
        skip(
            Need::Failpoints,
            "the failpoint tests (crashes, kills, reads during a write) are compiled out; \
             run `cargo test --features failpoints`",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.jsonl");
    fs::write(&corpus, generated_corpus(20, 21)).unwrap();
    for name in INGEST_FAILPOINTS {
        let db = dir.path().join(format!("{name}.db"));
        let o = cmd(&db, &["ingest", "--quiet", corpus.to_str().unwrap()])
            .env("LITINDEX_FAILPOINT", name)
            .env("LITINDEX_FAILPOINT_AFTER", "1")
            .output()
            .unwrap();
        let announced = stderr(&o).contains(&format!("litindex: failpoint {name} reached"));
        if on {
            assert!(announced, "{name} did not fire: {}", stderr(&o));
            assert!(o.status.code().is_none(), "{name}: expected death by abort, got {:?}", o.status);
        } else {
            ok(&o);
            assert!(!announced && !stderr(&o).contains("failpoint"), "{name}: {}", stderr(&o));
            assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 20, "{name}");
        }
    }
}
