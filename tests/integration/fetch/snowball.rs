//! Snowballing, and the rate limiter's spacing as the server saw it.

use std::time::Duration;

use super::*;

/// W1 cites W2; W2 cites W3 and W1; W3 cites W1 (a cycle back to the seed).
fn cycle(hit: &Hit) -> Reply {
    let work = |w: &str| {
        let refs: &[&str] = match w {
            "W1" => &["W2"],
            "W2" => &["W3", "W1"],
            _ => &["W1"],
        };
        openalex_work(w, &format!("Sparse routing work {w}"), None, refs)
    };
    match (hit.param("search"), hit.param("filter").as_deref()) {
        (Some(_), _) => Reply::ok(openalex_page(vec![work("W1")], None)),
        (None, Some(f)) if f.starts_with("openalex:") => {
            let works = f["openalex:".len()..].split('|').map(work).collect();
            Reply::ok(openalex_page(works, None))
        }
        _ => Reply::status(404, "{}"),
    }
}

#[test]
fn references_to_depth_2_through_a_cycle_ask_for_each_paper_once() {
    let api = MockApi::start(cycle);
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&run_fetch(dir.path(), &api, &["--openalex", "q", "--expand", "references", "--depth", "2"]));
    let filters: Vec<Option<String>> = api.hits().iter().map(|h| h.param("filter")).collect();
    assert_eq!(filters, [None, Some("openalex:W2".into()), Some("openalex:W3".into())], "W1 is never asked for again");
    assert!(out.contains("papers found per hop: 1, 1, 1"), "{out}");
    let s = stats(dir.path());
    assert_eq!((s["papers"].as_u64(), s["edges"].as_u64()), (Some(3), Some(4)), "{s}");

    let dir1 = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir1.path(), &api, &["--openalex", "q", "--expand", "references"]));
    assert_eq!(stats(dir1.path())["papers"], 2, "depth 1 stops after W2");
}

#[test]
fn citations_of_a_semantic_scholar_paper_come_from_its_citations_page() {
    let (p, q) = (sha('a'), sha('b'));
    let (p2, q2) = (p.clone(), q.clone());
    let api = MockApi::start(move |hit| {
        if hit.path() == "/graph/v1/paper/batch" {
            assert!(hit.param("fields").unwrap().ends_with(",references.paperId"), "{hit:?}");
            let mut seed = s2_paper(&p2, 1, "Sparse routing seed", None);
            seed["references"] = serde_json::json!([{"paperId": sha('d')}, {"paperId": null}]);
            Reply::ok(Value::Array(vec![seed, Value::Null]).to_string())
        } else if hit.path() == format!("/graph/v1/paper/{p2}/citations") {
            Reply::ok(
                serde_json::json!({"offset": 0, "data": [{"citingPaper": s2_paper(&q2, 2, "A citing paper", None)}]})
                    .to_string(),
            )
        } else {
            Reply::ok(serde_json::json!({"offset": 0, "data": []}).to_string())
        }
    });
    let dir = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir.path(), &api, &["CorpusId:1", "CorpusId:999", "--expand", "citations", "--depth", "2"]));
    let paths: Vec<String> = api.hits().iter().map(|h| h.path().to_string()).collect();
    assert_eq!(
        paths,
        [
            "/graph/v1/paper/batch".to_string(),
            format!("/graph/v1/paper/{p}/citations"),
            format!("/graph/v1/paper/{q}/citations"),
        ]
    );
    let s = stats(dir.path());
    assert_eq!((s["papers"].as_u64(), s["edges"].as_u64()), (Some(2), Some(2)), "a reference and a citation: {s}");
    assert_eq!(s["dangling_edges"], 1, "the reference is to a paper not fetched");
    let o =
        litindex().arg("--db").arg(db(dir.path())).args(["paper", "CorpusId:1", "--format", "json"]).output().unwrap();
    assert!(stdout(&o).contains("CorpusId:2"), "the citation edge is stored: {}", stdout(&o));
}

#[test]
fn a_paper_the_api_does_not_have_is_skipped_while_snowballing() {
    let p = sha('a');
    let api = MockApi::start(move |hit| match hit.path() {
        "/graph/v1/paper/batch" => {
            Reply::ok(Value::Array(vec![s2_paper(&p, 1, "Sparse routing seed", None)]).to_string())
        }
        _ => Reply::status(404, "{\"error\": \"Paper not found\"}"),
    });
    let dir = tempfile::tempdir().unwrap();
    let o = run_fetch(dir.path(), &api, &["CorpusId:1", "--expand", "both"]);
    ok(&o);
    assert_eq!(api.hits().len(), 3, "the batch, then references and citations");
    assert!(stderr(&o).contains("skipped while snowballing") && stderr(&o).contains("HTTP 404"), "{}", stderr(&o));
    assert_eq!(stats(dir.path())["papers"], 1);
    // The same answer to the paper itself ends the fetch.
    let o = run_fetch(dir.path(), &api, &["--s2", "q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("Semantic Scholar answered HTTP 404"), "{}", stderr(&o));
}

#[test]
fn the_rate_limiter_spaces_requests_to_one_api() {
    let api = MockApi::start(three_pages);
    let dir = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir.path(), &api, &["--openalex", "q", "--min-interval-ms", "600"]));
    let g = gaps(&api.hits());
    assert_eq!(g.len(), 2);
    // Measured where the requests arrive. The interval runs from the end of
    // an answer, which comes after the server saw the request, so the
    // arrivals are at least 600 ms apart however loaded the machine is. An
    // unpaced client would be as fast as its ingest of a page.
    assert!(g.iter().all(|d| *d >= Duration::from_millis(600)), "600 ms apart: {g:?}");
}

#[test]
fn citations_of_an_openalex_work_come_from_the_cites_filter() {
    let api = MockApi::start(|hit| match (hit.param("search"), hit.param("filter").as_deref()) {
        (Some(_), _) => Reply::ok(openalex_page(vec![openalex_work("W1", "Sparse routing seed", None, &[])], None)),
        (None, Some("cites:W1")) => Reply::ok(openalex_page(
            vec![
                openalex_work("W5", "Citing work five", None, &["W1"]),
                openalex_work("W6", "Citing work six", None, &["W1", "W5"]),
            ],
            None,
        )),
        _ => Reply::status(404, "{}"),
    });
    let dir = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir.path(), &api, &["--openalex", "q", "--expand", "citations", "--expand-limit", "7"]));
    let hits = api.hits();
    assert_eq!(hits.len(), 2, "{hits:#?}");
    assert_eq!(hits[1].param("per_page").as_deref(), Some("7"), "--expand-limit bounds the hop");
    let s = stats(dir.path());
    assert_eq!((s["papers"].as_u64(), s["edges"].as_u64()), (Some(3), Some(3)), "{s}");
}
