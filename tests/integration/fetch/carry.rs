//! `build` replaces the index but keeps its fetch cache: the next fetch gets
//! the papers back from it without asking the API.

use super::*;

#[test]
fn a_rebuild_keeps_the_fetch_cache_and_the_next_fetch_reingests_it_without_asking() {
    let api = MockApi::start(three_pages);
    let dir = tempfile::tempdir().unwrap();
    let query = ["--openalex", "sparse routing", "--limit", "50"];
    ok(&run_fetch(dir.path(), &api, &query));
    assert_eq!(api.hits().len(), 3);
    assert_eq!(stats(dir.path())["papers"], 5);

    // Rebuilt from the mock corpus: the fetched papers are gone, the cache is not.
    let o = litindex().arg("--db").arg(db(dir.path())).args(["build", "--quiet"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let mock_papers = stats(dir.path())["papers"].as_u64().unwrap();
    let paper = |id: &str| litindex().arg("--db").arg(db(dir.path())).args(["paper", id]).output().unwrap();
    assert!(!paper("W10").status.success(), "the build holds only its inputs");
    let o = litindex().arg("--db").arg(db(dir.path())).args(["check"]).output().unwrap();
    assert!(o.status.success(), "check after the rebuild: {}{}", stdout(&o), stderr(&o));

    // The rerun asks for nothing and ingests the carried pages.
    let again = ok(&run_fetch(dir.path(), &api, &query));
    assert_eq!(api.hits().len(), 3, "the carried cache answers: {again}");
    assert!(again.contains("3 pages (3 from the cache), 0 requests"), "{again}");
    assert!(again.contains("5 records"), "carried pages are ingested: {again}");
    assert_eq!(stats(dir.path())["papers"].as_u64().unwrap(), mock_papers + 5);
    assert!(paper("W10").status.success());

    // Ingested now: a third run neither asks nor ingests.
    let third = ok(&run_fetch(dir.path(), &api, &query));
    assert_eq!(api.hits().len(), 3);
    assert!(third.contains("0 records"), "{third}");
}
