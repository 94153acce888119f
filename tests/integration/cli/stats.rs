//! `stats`: what it reports of the mock index and of the BM25 parameters a
//! build stored.

use super::*;

#[test]
fn stats_json_describes_the_mock_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let s = stats(&db);
    assert_eq!(u64_of(&s, "papers"), 100);
    assert!(u64_of(&s, "terms") > 0);
    assert!(u64_of(&s, "postings") >= u64_of(&s, "terms"), "every term has a posting");
    assert!(u64_of(&s, "edges") > 0);
    assert!(u64_of(&s, "dangling_edges") <= u64_of(&s, "edges"));
    assert!(f64_of(&s, "avgdl") > 0.0);
    assert_eq!(f64_of(&s, "k1"), 1.5);
    assert_eq!(f64_of(&s, "b"), 0.75);
    assert_eq!(s["analyzer"], "plain");
    assert_eq!(s["schema_version"], litindex::store::SCHEMA_VERSION);
    assert_eq!(s["db"], path_str(&db));
    let (lo, hi) = (s["year_min"].as_i64().unwrap(), s["year_max"].as_i64().unwrap());
    assert!(lo <= hi, "year_min {lo} <= year_max {hi}");
    let disagreements = s["disagreements"].as_object().expect("disagreements is an object");
    for field in ["title", "year"] {
        let n = disagreements.get(field).and_then(Value::as_u64).unwrap_or(0);
        assert!(n > 0, "expected `{field}` disagreements between the mock sources: {s}");
    }
    assert!(s["built_at"].as_str().is_some_and(|t| t.ends_with('Z')), "built_at: {}", s["built_at"]);

    // The dangling count matches the edges table.
    let store = litindex::store::Store::open(&db).unwrap();
    let dangling: u64 = store
        .conn()
        .query_row(
            "SELECT count(*) FROM edges WHERE citing NOT IN (SELECT id FROM papers) OR cited NOT IN (SELECT id FROM papers)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(u64_of(&s, "dangling_edges"), dangling);
}

#[test]
fn build_bm25_parameters_are_stored_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tuned.db");
    assert_success(&run_db(&db, &["build", "--k1", "1.2", "--b", "0.5"]));
    let s = stats(&db);
    assert_eq!(f64_of(&s, "k1"), 1.2);
    assert_eq!(f64_of(&s, "b"), 0.5);
    let out = run_db(&db, &["stats"]);
    assert_success(&out);
    assert!(stdout(&out).contains("k1 = 1.2, b = 0.5"), "{}", stdout(&out));

    // Rebuilding in place with defaults replaces the settings.
    assert_success(&run_db(&db, &["build"]));
    let s = stats(&db);
    assert_eq!((f64_of(&s, "k1"), f64_of(&s, "b")), (1.5, 0.75));
}
