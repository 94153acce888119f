//! Retries, timeouts, malformed answers and a killed fetch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use super::*;

/// Answers `failures` times with `fail`, then with one OpenAlex page.
fn failing_then_ok(failures: usize, fail: impl Fn() -> Reply + Send + Sync + 'static) -> MockApi {
    let n = AtomicUsize::new(0);
    MockApi::start(move |_| {
        if n.fetch_add(1, Ordering::SeqCst) < failures {
            fail()
        } else {
            Reply::ok(openalex_page(vec![openalex_work("W1", "Sparse routing", None, &[])], None))
        }
    })
}

#[test]
fn a_429_waits_for_retry_after_then_succeeds() {
    let api =
        failing_then_ok(1, || Reply::status(429, "{\"error\": \"too many requests\"}").header("Retry-After", "1"));
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&run_fetch(dir.path(), &api, &["--openalex", "q"]));
    let hits = api.hits();
    assert_eq!(hits.len(), 2);
    assert!(gaps(&hits)[0] >= Duration::from_millis(950), "Retry-After: 1 honoured: {:?}", gaps(&hits));
    assert!(out.contains("2 requests (1 retries"), "{out}");
    assert_eq!(stats(dir.path())["papers"], 1);
}

#[test]
fn a_500_twice_backs_off_exponentially_then_succeeds() {
    let api = failing_then_ok(2, || Reply::status(500, "oops"));
    let dir = tempfile::tempdir().unwrap();
    ok(&run_fetch(dir.path(), &api, &["--openalex", "q", "--backoff-ms", "100"]));
    let hits = api.hits();
    assert_eq!(hits.len(), 3);
    let g = gaps(&hits);
    assert!(g[0] >= Duration::from_millis(100) && g[1] >= Duration::from_millis(200), "100 ms · 2^n + jitter: {g:?}");
    assert_eq!(stats(dir.path())["papers"], 1);
}

#[test]
fn retries_run_out_with_a_clear_error() {
    let api = failing_then_ok(10, || Reply::status(503, "down"));
    let dir = tempfile::tempdir().unwrap();
    let o = run_fetch(dir.path(), &api, &["--openalex", "q", "--retries", "2"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("OpenAlex gave no usable answer") && err.contains("after 3 attempt(s): HTTP 503"), "{err}");
    assert_eq!(api.hits().len(), 3);
}

#[test]
fn a_client_error_is_not_retried() {
    let api = failing_then_ok(10, || Reply::status(400, "{\"error\": \"Invalid query parameters error.\"}"));
    let dir = tempfile::tempdir().unwrap();
    let o = run_fetch(dir.path(), &api, &["--openalex", "q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("OpenAlex answered HTTP 400") && stderr(&o).contains("Invalid query"),
        "{}",
        stderr(&o)
    );
    assert_eq!(api.hits().len(), 1);
}

#[test]
fn a_timeout_is_retried_and_reported_when_retries_run_out() {
    let api = failing_then_ok(1, || Reply::ok("{}").after(Duration::from_secs(3)));
    let dir = tempfile::tempdir().unwrap();
    let o = run_fetch(dir.path(), &api, &["--openalex", "q", "--timeout", "1", "--retries", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("timed out"), "{}", stderr(&o));
    // The next request is answered at once: one retry is enough.
    let api = failing_then_ok(1, || Reply::ok("{}").after(Duration::from_secs(3)));
    let out = ok(&run_fetch(dir.path(), &api, &["--openalex", "q", "--timeout", "1"]));
    assert_eq!(api.hits().len(), 2);
    assert!(out.contains("(1 retries"), "{out}");
    assert_eq!(stats(dir.path())["papers"], 1);
}

#[test]
fn malformed_json_stops_with_a_clear_error_and_keeps_the_pages_before_it() {
    let broken = Arc::new(AtomicBool::new(true));
    let b = broken.clone();
    let api = MockApi::start(move |hit| match hit.param("cursor").as_deref() {
        Some("c2") if b.load(Ordering::SeqCst) => {
            Reply::ok("{\"meta\": {\"next_cursor\": null}, \"results\": [{\"id\"")
        }
        _ => three_pages(hit),
    });
    let dir = tempfile::tempdir().unwrap();
    let o = run_fetch(dir.path(), &api, &["--openalex", "q"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("malformed JSON") && err.contains("cursor=c2"), "names the request: {err}");
    assert!(err.contains("the 1 page(s) before it are in"), "{err}");
    assert_eq!(stats(dir.path())["papers"], 2, "the first page is kept");
    broken.store(false, Ordering::SeqCst);
    ok(&run_fetch(dir.path(), &api, &["--openalex", "q"]));
    let cursors: Vec<String> = api.hits().iter().map(|h| h.param("cursor").unwrap()).collect();
    assert_eq!(cursors, ["*", "c2", "c2", "c3"], "the rerun starts at the page that failed");
    assert_eq!(stats(dir.path())["papers"], 5);
}

#[test]
fn a_killed_fetch_resumes_asking_only_for_what_is_missing() {
    let hang = Arc::new(AtomicBool::new(true));
    let h = hang.clone();
    let api = MockApi::start(move |hit| {
        let reply = three_pages(hit);
        if hit.param("cursor").as_deref() == Some("c3") && h.load(Ordering::SeqCst) {
            reply.after(Duration::from_secs(30))
        } else {
            reply
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let mut child = fetch_cmd(dir.path(), &api, &["--openalex", "q"]).spawn().unwrap();
    // The request for page 3 is sent only after page 2 was committed.
    api.wait_for(|hits| hits.iter().any(|h| h.param("cursor").as_deref() == Some("c3")));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(stats(dir.path())["papers"], 4, "pages 1 and 2 survived the kill");
    hang.store(false, Ordering::SeqCst);
    let before = api.hits().len();
    let out = ok(&run_fetch(dir.path(), &api, &["--openalex", "q"]));
    let rerun: Vec<String> = api.hits()[before..].iter().map(|h| h.param("cursor").unwrap()).collect();
    assert_eq!(rerun, ["c3"], "only the missing page is asked for");
    assert!(out.contains("3 pages (2 from the cache), 1 requests"), "{out}");
    assert_eq!(stats(dir.path())["papers"], 5);
    let check = litindex().arg("--db").arg(db(dir.path())).arg("check").output().unwrap();
    assert!(check.status.success(), "{}", stdout(&check));
}

#[test]
fn a_malformed_record_stops_the_fetch_unless_skip_invalid() {
    let api = MockApi::start(|_| {
        let mut bad = openalex_work("W2", "Sparse routing two", None, &[]);
        bad["publication_year"] = serde_json::json!("soon");
        Reply::ok(openalex_page(vec![openalex_work("W1", "Sparse routing one", None, &[]), bad], None))
    });
    let dir = tempfile::tempdir().unwrap();
    let o = run_fetch(dir.path(), &api, &["--openalex", "q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("results[1]") && stderr(&o).contains("publication_year"), "{}", stderr(&o));
    assert!(!db(dir.path()).exists(), "nothing of the page was kept");
    let o = run_fetch(dir.path(), &api, &["--openalex", "q", "--skip-invalid"]);
    assert!(ok(&o).contains("1 skipped"), "{}", stdout(&o));
    assert!(stderr(&o).contains("skipped") && stderr(&o).contains("results[1]"), "{}", stderr(&o));
    assert_eq!(stats(dir.path())["papers"], 1);
}
