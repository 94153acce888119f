//! `litindex fetch` against a local server playing OpenAlex, Semantic
//! Scholar and arXiv (nothing here touches the internet): paging, the
//! cache, ids, snowballing, retries, timeouts, malformed answers, a killed
//! fetch, and the rate limiter's spacing measured by the server.

mod carry;
mod faults;
mod fixtures;
mod server;
mod snowball;
mod wire;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

use crate::common::{litindex, stderr, stdout};
use fixtures::*;
use server::{Hit, MockApi, Reply};

/// `litindex --db DIR/x.db fetch --quiet` with every API at `api`, tiny
/// intervals and backoffs (unless `args` name them), and none of the
/// user's fetch settings.
fn fetch_cmd(dir: &Path, api: &MockApi, args: &[&str]) -> Command {
    let mut c = litindex();
    for var in ["LITINDEX_MAILTO", "S2_API_KEY", "LITINDEX_FETCH_MIN_INTERVAL_MS"] {
        c.env_remove(var);
    }
    c.arg("--db").arg(db(dir)).arg("fetch").arg("--quiet");
    let defaults = [
        ("--openalex-base", api.base.as_str()),
        ("--s2-base", &api.base),
        ("--arxiv-base", &api.base),
        ("--min-interval-ms", "1"),
        ("--backoff-ms", "10"),
    ];
    for (flag, value) in defaults {
        if !args.contains(&flag) {
            c.args([flag, value]);
        }
    }
    c.args(args);
    c
}

fn run_fetch(dir: &Path, api: &MockApi, args: &[&str]) -> Output {
    fetch_cmd(dir, api, args).output().expect("run litindex fetch")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "fetch failed: {}", stderr(o));
    stdout(o)
}

fn db(dir: &Path) -> PathBuf {
    dir.join("x.db")
}

/// `stats --format json` of the index.
fn stats(dir: &Path) -> Value {
    let o = litindex().arg("--db").arg(db(dir)).args(["stats", "--format", "json"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// OpenAlex search pages `cursor=* → c2 → c3 (last)`, two works each, the
/// last one (fewer when `per_page` asks for fewer).
fn three_pages(hit: &Hit) -> Reply {
    let per_page: usize = hit.param("per_page").and_then(|p| p.parse().ok()).unwrap_or(25);
    let page = |n: usize, next: Option<&str>| {
        let works = (0..per_page.min(if next.is_some() { 2 } else { 1 }))
            .map(|i| openalex_work(&format!("W{}{i}", n), &format!("Sparse routing paper {n}.{i}"), None, &[]))
            .collect();
        Reply::ok(openalex_page(works, next))
    };
    match hit.param("cursor").as_deref() {
        Some("*") => page(1, Some("c2")),
        Some("c2") => page(2, Some("c3")),
        Some("c3") => page(3, None),
        _ => Reply::status(404, "{\"error\": \"not found\"}"),
    }
}

#[test]
fn an_openalex_search_pages_to_the_end_and_a_rerun_asks_for_nothing() {
    let api = MockApi::start(three_pages);
    let dir = tempfile::tempdir().unwrap();
    let out =
        ok(&run_fetch(dir.path(), &api, &["--openalex", "sparse routing", "--limit", "50", "--mailto", "a@b.org"]));
    let hits = api.hits();
    assert_eq!(hits.len(), 3, "{hits:#?}");
    assert_eq!(hits[0].path(), "/works");
    assert_eq!(hits[0].param("search").as_deref(), Some("sparse routing"));
    assert_eq!(hits[0].param("per_page").as_deref(), Some("50"));
    assert_eq!(hits[0].param("mailto").as_deref(), Some("a@b.org"), "the polite pool");
    assert_eq!(hits[1].param("per_page").as_deref(), Some("48"), "the limit less what came");
    let ua = hits[0].header("user-agent").unwrap();
    assert_eq!(ua, format!("litindex/{} (mailto:a@b.org)", env!("CARGO_PKG_VERSION")));
    assert!(out.contains("3 pages (0 from the cache), 3 requests"), "{out}");
    assert_eq!(stats(dir.path())["papers"], 5);

    let again = ok(&run_fetch(dir.path(), &api, &["--openalex", "sparse routing", "--limit", "50"]));
    assert_eq!(api.hits().len(), 3, "a rerun asks the API for nothing (a changed --mailto included)");
    assert!(again.contains("3 pages (3 from the cache), 0 requests"), "{again}");
    assert!(again.contains("0 records"), "cached pages are not ingested again: {again}");

    ok(&run_fetch(dir.path(), &api, &["--openalex", "sparse routing", "--limit", "50", "--max-age-days", "1"]));
    assert_eq!(api.hits().len(), 3, "pages of today are fresh");
    let refreshed = ok(&run_fetch(dir.path(), &api, &["--openalex", "sparse routing", "--limit", "50", "--refresh"]));
    assert_eq!(api.hits().len(), 6, "--refresh asks again");
    assert!(refreshed.contains("5 records") && refreshed.contains("5 unchanged"), "{refreshed}");
    ok(&run_fetch(dir.path(), &api, &["--openalex", "sparse routing", "--limit", "50", "--max-age-days", "0"]));
    assert_eq!(api.hits().len(), 9, "--max-age-days 0: every cached page is stale");
    assert_eq!(stats(dir.path())["papers"], 5);
}

#[test]
fn a_limit_stops_paging() {
    let api = MockApi::start(three_pages);
    let dir = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir.path(), &api, &["--openalex", "q", "--limit", "3"]));
    let per_page: Vec<String> = api.hits().iter().map(|h| h.param("per_page").unwrap()).collect();
    assert_eq!(per_page, ["3", "1"], "two pages: 2 works, then the 1 still wanted");
    assert_eq!(stats(dir.path())["papers"], 3);
}

#[test]
fn a_semantic_scholar_search_pages_by_offset_with_the_api_key() {
    let api = MockApi::start(|hit| match hit.param("offset").as_deref() {
        Some("0") => Reply::ok(s2_search_page(
            0,
            Some(2),
            vec![
                s2_paper(&sha('a'), 1, "Sparse routing one", None),
                s2_paper(&sha('b'), 2, "Sparse routing two", None),
            ],
        )),
        Some("2") => Reply::ok(s2_search_page(2, None, vec![s2_paper(&sha('c'), 3, "Sparse routing three", None)])),
        _ => Reply::status(400, "{\"error\": \"bad offset\"}"),
    });
    let dir = tempfile::tempdir().unwrap();
    let out = fetch_cmd(dir.path(), &api, &["--s2", "sparse routing"]).env("S2_API_KEY", "k-123").output().unwrap();
    ok(&out);
    let hits = api.hits();
    assert_eq!(hits.len(), 2, "{hits:#?}");
    assert_eq!(hits[0].path(), "/graph/v1/paper/search");
    assert_eq!(hits[0].param("query").as_deref(), Some("sparse routing"));
    assert!(hits[0].param("fields").unwrap().contains("externalIds"));
    assert_eq!(hits[1].param("offset").as_deref(), Some("2"));
    assert!(hits.iter().all(|h| h.header("x-api-key") == Some("k-123")), "S2_API_KEY is sent");
    assert_eq!(stats(dir.path())["papers"], 3);
}

#[test]
fn an_arxiv_search_pages_by_start_to_total_results() {
    let api = MockApi::start(|hit| match hit.param("start").as_deref() {
        Some("0") => {
            Reply::ok(arxiv_feed(3, 0, &[("2101.00001", "Sparse one", None), ("2101.00002", "Sparse two", None)]))
        }
        Some("2") => Reply::ok(arxiv_feed(3, 2, &[("2101.00003", "Sparse three", None)])),
        _ => Reply::status(400, "bad start"),
    });
    let dir = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir.path(), &api, &["--arxiv", "ti:sparse AND cat:cs.IR"]));
    let hits = api.hits();
    assert_eq!(hits.len(), 2, "stops at totalResults: {hits:#?}");
    assert_eq!(hits[0].path(), "/api/query");
    assert_eq!(hits[0].param("search_query").as_deref(), Some("ti:sparse AND cat:cs.IR"));
    assert_eq!(hits[0].param("max_results").as_deref(), Some("100"));
    assert_eq!(stats(dir.path())["papers"], 3);
}

#[test]
fn ids_from_three_apis_for_one_paper_make_one_paper() {
    let doi = "10.1234/shared.paper.2021";
    let api = MockApi::start(move |hit| match hit.path() {
        "/works" => Reply::ok(openalex_page(
            vec![openalex_work("W3000000001", "Sparse Mixtures of Retrieval Experts", Some(doi), &[])],
            None,
        )),
        "/api/query" => {
            Reply::ok(arxiv_feed(1, 0, &[("2101.00001", "Sparse Mixtures of Retrieval Experts", Some(doi))]))
        }
        "/graph/v1/paper/batch" => Reply::ok(
            Value::Array(vec![s2_paper(&sha('e'), 215416146, "Sparse Mixtures of Retrieval Experts", Some(doi))])
                .to_string(),
        ),
        _ => Reply::status(404, "{}"),
    });
    let dir = tempfile::tempdir().unwrap();
    let ids = dir.path().join("ids.txt");
    std::fs::write(&ids, "# my reading list\narXiv:2101.00001\n\nCorpusId:215416146\n").unwrap();
    ok(&run_fetch(dir.path(), &api, &[&format!("doi:{doi}"), "--ids-from", ids.to_str().unwrap()]));
    let hits = api.hits();
    assert_eq!(hits.len(), 3, "one request per API: {hits:#?}");
    assert_eq!(hits[0].param("filter").as_deref(), Some(format!("doi:{doi}").as_str()));
    assert_eq!(hits[1].param("id_list").as_deref(), Some("2101.00001"));
    assert_eq!(hits[2].method, "POST");
    assert_eq!(
        serde_json::from_str::<Value>(&hits[2].body).unwrap(),
        serde_json::json!({"ids": ["CorpusId:215416146"]})
    );
    assert_eq!(stats(dir.path())["papers"], 1, "three sources, one paper");
}

#[test]
fn dry_run_prints_the_first_requests_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let api = MockApi::start(|_| Reply::status(500, "never"));
    let out = ok(&run_fetch(
        dir.path(),
        &api,
        &["--dry-run", "--openalex", "a b", "--s2", "c", "--arxiv", "ti:d", "W12", "--mailto", "m@x.org"],
    ));
    let b = &api.base;
    let fields = "paperId,corpusId,externalIds,title,abstract,year,authors";
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            format!("GET {b}/works?search=a%20b&per_page=100&cursor=%2A&mailto=m%40x.org"),
            format!("GET {b}/graph/v1/paper/search?query=c&offset=0&limit=100&fields={fields}"),
            format!("GET {b}/api/query?search_query=ti%3Ad&start=0&max_results=100"),
            format!("GET {b}/works?filter=openalex%3AW12&per_page=1&cursor=%2A&mailto=m%40x.org"),
        ]
    );
    assert!(api.hits().is_empty());
    assert!(!db(dir.path()).exists());
}

#[test]
fn bad_arguments_exit_2_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let api = MockApi::start(|_| Reply::status(500, "never"));
    let ids = dir.path().join("ids.txt");
    std::fs::write(&ids, "doi:10.1/a\nnot-an-id\n").unwrap();
    let bib = dir.path().join("refs.bib");
    std::fs::write(&bib, "@article{x,\n  doi = {10.1/a,\n}\n").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["nonsense"], "`nonsense` is not an id"),
        (&["--ids-from", ids.to_str().unwrap()], "ids.txt:2: `not-an-id` is not an id"),
        // Read by the BibTeX reader, which locates a bad entry by line and field.
        (&["--ids-from", bib.to_str().unwrap()], "refs.bib:1: field `doi`: the entry is not closed"),
        (&[], "nothing to fetch"),
        (&["--openalex", "q", "--expand", "references", "--depth", "3"], "--depth"),
        (&["--openalex", "q", "--arxiv-base", "ftp://mirror"], "--arxiv-base: `ftp://mirror` is not an http"),
    ];
    for (args, expected) in cases {
        let o = run_fetch(dir.path(), &api, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
    }
    assert!(api.hits().is_empty());
    assert!(!db(dir.path()).exists());
}

/// The gaps between consecutive hits.
fn gaps(hits: &[Hit]) -> Vec<Duration> {
    hits.windows(2).map(|w| w[1].at - w[0].at).collect()
}
