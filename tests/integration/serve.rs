//! `litindex serve`: the real binary on a free port against a real index
//! (the mock corpus plus a paper whose fields are HTML), spoken to over raw
//! HTTP/1.1 so the tests control every header (Host above all). The browser
//! walk-through is in `serve/browser.rs`.

mod browser;
mod explore;
mod fulltext;
mod hostile;
mod limits;
mod web;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::litindex;
use litindex::store::{MarkFilter, Store};

/// The paper whose every field is markup: it must render as text.
const HOSTILE: &str = r#"{"id": "xss1", "title": "<script>alert(1)</script> sparse attention", "abstract": "Sparse attention <img src=x onerror=alert(2)> with sparse attention heads.", "year": 2024, "authors": ["<b>Mallory</b>"], "references": ["p001"]}"#;

/// A mock-corpus index with the hostile paper, in a new temporary directory.
pub(super) fn hostile_index() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("hostile.jsonl");
    std::fs::write(&jsonl, HOSTILE).unwrap();
    let db = dir.path().join("web.db");
    let out =
        litindex().args(["build", "--quiet", "--mock", "--jsonl"]).arg(&jsonl).arg("--db").arg(&db).output().unwrap();
    assert!(out.status.success(), "build: {}", String::from_utf8_lossy(&out.stderr));
    (dir, db)
}

/// A running `litindex serve`, killed when dropped.
pub(super) struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Server {
    /// Starts `serve --port 0` on `db` with `extra` flags and reads the URL it prints.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = litindex()
            // The index's folder: a test can see that nothing is written beside it.
            .current_dir(db.parent().unwrap())
            .args(["serve", "--port", "0", "--db"])
            .arg(db)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("serve printed no URL: {line:?}"))
            .to_string();
        Server { child, addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn get(&self, path: &str) -> Answer {
        self.request("GET", path, &self.addr, "")
    }

    pub fn post(&self, path: &str, form: &str) -> Answer {
        self.request("POST", path, &self.addr, form)
    }

    /// One request with the given Host header (and a form body for POST).
    pub fn request(&self, method: &str, path: &str, host: &str, form: &str) -> Answer {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        if method == "POST" {
            head.push_str(&format!(
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
                form.len()
            ));
        }
        s.write_all(format!("{head}\r\n{form}").as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8(raw).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|c| c.parse().ok()).unwrap_or(0);
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Answer { status, headers, body: body.to_string() }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) struct Answer {
    pub status: u16,
    headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// The write token the paper page embeds in its forms.
fn token_of(page: &str) -> String {
    let at = page.find("name=\"token\" value=\"").expect("the page has a token field") + 20;
    page[at..at + 64].to_string()
}

/// The labels stored on paper `id`.
fn labels(db: &Path, id: &str) -> Vec<String> {
    let store = Store::open(db).unwrap();
    let marked = store.marked(&MarkFilter::default()).unwrap();
    marked
        .into_iter()
        .filter(|m| m.id.as_deref() == Some(id))
        .flat_map(|m| m.labels.into_iter().map(|l| l.label.name().to_string()))
        .collect()
}

#[test]
fn serve_escapes_every_field_of_a_paper() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    for path in ["/?q=sparse+attention", "/paper?id=xss1"] {
        let page = server.get(path);
        assert_eq!(page.status, 200, "{path}: {}", page.body);
        assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; sparse attention"), "{path}: {}", page.body);
        assert!(!page.body.contains("<script"), "{path}: no script element at all");
        assert!(!page.body.contains("<b>Mallory"), "{path}: the author is text");
        assert!(page.body.contains("&lt;b&gt;Mallory&lt;/b&gt;"), "{path}: the author is shown");
        let csp = page.header("content-security-policy").expect("a Content-Security-Policy");
        assert!(csp.contains("default-src 'none'"), "{csp}");
    }
    let paper = server.get("/paper?id=xss1");
    assert!(!paper.body.contains("<img src=x"), "the abstract is text");
    assert!(paper.body.contains("&lt;img src=x onerror=alert(2)&gt;"), "{}", paper.body);
}

#[test]
fn serve_refuses_a_host_that_is_not_the_bound_address() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    for host in ["evil.example", &format!("evil.example:{port}"), "127.0.0.1:1", ""] {
        let a = server.request("GET", "/?q=sparse", host, "");
        assert_eq!(a.status, 421, "Host `{host}`: {}", a.body);
        assert!(!a.body.contains("sparse"), "nothing of the index is shown to Host `{host}`");
    }
    for host in [server.addr.clone(), format!("localhost:{port}")] {
        assert_eq!(server.request("GET", "/?q=sparse", &host, "").status, 200, "Host `{host}`");
    }
}

#[test]
fn serve_shows_a_bad_query_on_the_page_with_status_400() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    for (path, needle) in [
        ("/?q=year%3A20x9", "20x9"),
        ("/?q=sparse&year=abc", "abc"),
        ("/?q=sparse&mode=fancy", "fancy"),
        ("/export?ids=xss1&format=docx", "docx"),
    ] {
        let a = server.get(path);
        assert_eq!(a.status, 400, "{path}: {}", a.body);
        assert!(a.body.contains("class=\"error\"") && a.body.contains(needle), "{path}: {}", a.body);
    }
    let a = server.get("/?q=year%3A20x9");
    assert!(a.body.contains("value=\"year:20x9\""), "the form keeps the query to fix: {}", a.body);
    assert_eq!(server.get("/paper?id=no-such-paper").status, 404);
}

#[test]
fn serve_without_allow_writes_has_no_write_routes_nor_buttons() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let page = server.get("/paper?id=xss1");
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("method=\"post\""), "no write form: {}", page.body);
    assert!(!page.body.contains("name=\"token\""), "no token either");
    for path in ["/mark", "/unmark"] {
        let a = server.post(path, "id=xss1&label=exclude&token=x");
        assert_eq!(a.status, 404, "{path}: {}", a.body);
    }
    assert!(labels(&db, "xss1").is_empty(), "nothing was marked");
}

#[test]
fn serve_writes_only_with_the_process_token() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &["--allow-writes"]);
    let page = server.get("/paper?id=xss1");
    assert!(page.body.contains("method=\"post\" action=\"/mark\""), "the buttons are shown");
    let token = token_of(&page.body);
    for form in [
        "id=xss1&label=exclude",
        &format!("id=xss1&label=exclude&token={}", "0".repeat(64)),
        "id=xss1&label=exclude&token=",
    ] {
        let a = server.post("/mark", form);
        assert_eq!(a.status, 403, "{form}: {}", a.body);
    }
    assert_eq!(server.get("/mark?id=xss1&label=exclude").status, 405, "no write through GET");
    assert!(labels(&db, "xss1").is_empty(), "nothing was marked by a refused request");
    assert_eq!(server.post("/mark", &format!("id=xss1&label=bogus&token={token}")).status, 400);

    let a = server.post("/mark", &format!("id=xss1&label=exclude&token={token}"));
    assert_eq!(a.status, 303, "{}", a.body);
    assert_eq!(a.header("location"), Some("/paper?id=xss1"));
    assert_eq!(labels(&db, "xss1"), ["exclude"]);
    let hits = server.get("/?q=sparse+attention");
    assert!(!hits.body.contains("/paper?id=xss1"), "an excluded paper is not listed");
    assert!(hits.body.contains("excluded papers not shown"));
    let shown = server.get("/?q=sparse+attention&show_excluded=on");
    assert!(shown.body.contains("/paper?id=xss1") && shown.body.contains("class=\"flag\""), "listed, flagged");

    let a = server.post("/unmark", &format!("id=xss1&token={token}"));
    assert_eq!(a.status, 303, "{}", a.body);
    assert!(labels(&db, "xss1").is_empty());
    let other = Server::start(&db, &["--allow-writes"]);
    assert_eq!(
        other.post("/mark", &format!("id=xss1&label=read&token={token}")).status,
        403,
        "the token is per process"
    );
}

#[test]
fn serve_search_page_shows_score_bars_and_highlighted_evidence() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let page = server.get("/?q=sparse+attention");
    let hits = page.body.matches("<li class=\"hit").count();
    assert_eq!(hits, 20, "a page of hits");
    assert!(page.body.matches("<svg class=\"bar\"").count() == hits, "one bar per hit");
    assert!(page.body.contains("<rect class=\"part b\""), "the BM25 part");
    assert!(page.body.contains("<rect class=\"part g\""), "a graph part (2 hops walked)");
    assert!(page.body.contains("<mark>"), "the query's terms highlighted in the evidence");
    assert!(page.body.contains("/export?ids="), "an export link for the hits");
    assert_eq!(server.get("/assets/style.css").header("content-type"), Some("text/css; charset=utf-8"));
}

#[test]
fn serve_draws_the_two_hop_neighbourhood_as_svg() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let id = "p001";
    let out = litindex().args(["neighbors", id, "--hops", "2", "--format", "json", "--db"]).arg(&db).output().unwrap();
    let hood: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = hood["nodes"].as_array().unwrap().len().min(60);
    let svg = server.get(&format!("/graph.svg?id={id}"));
    assert_eq!(svg.status, 200);
    assert_eq!(svg.header("content-type"), Some("image/svg+xml; charset=utf-8"));
    assert!(svg.body.starts_with("<svg"), "{}", &svg.body[..100.min(svg.body.len())]);
    assert_eq!(svg.body.matches("<circle").count(), expected, "one node per paper within 2 hops, at most 60");
    assert_eq!(svg.body.matches("class=\"node hop0").count(), 1);
    assert!(svg.body.contains("href=\"/paper?id=xss1\""), "xss1 cites it: a link to its page");
}

#[test]
fn serve_exports_bibtex_as_a_download() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let a = server.get("/export?ids=xss1&format=bibtex");
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.header("content-disposition"), Some("attachment; filename=\"xss1.bib\""));
    // `litindex export`'s writer: a `surnameYEARword` key, names as `Last, First`, LaTeX escaped.
    assert!(a.body.starts_with("@misc{"), "{}", a.body);
    assert!(a.body.contains("author = {"), "{}", a.body);
    assert!(a.body.contains("Mallory"), "{}", a.body);
    let two = server.get("/export?ids=xss1%2Cp001&format=bibtex");
    assert_eq!(two.body.matches("\n@").count() + usize::from(two.body.starts_with('@')), 2, "{}", two.body);
    assert!(two.body.contains("title = {{Fixed Strided Patterns"), "{}", two.body);
    assert_eq!(server.get("/export?ids=nope&format=bibtex").status, 404);
}

#[test]
fn serve_leaves_the_index_free_for_writers() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    assert_eq!(server.get("/?q=sparse").status, 200);
    // An idle server holds no transaction: a writer commits at once, and the page sees it.
    let out = litindex().args(["mark", "xss1", "favorite", "--db"]).arg(&db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(server.get("/paper?id=xss1").body.contains("class=\"label favorite\""));
}

#[test]
fn serve_warns_when_bound_beyond_loopback() {
    let (_dir, db) = hostile_index();
    let mut child = litindex()
        .args(["serve", "--port", "0", "--bind", "0.0.0.0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: listening on 0.0.0.0:"), "{err}");
    assert!(line.contains("http://127.0.0.1:"), "{line}");
}

/// The page answers while an `ingest` is paused inside its write transaction
/// (WAL: readers see the last commit), and sees the papers once it commits.
#[cfg(feature = "failpoints")]
#[test]
fn serve_answers_while_an_ingest_is_writing() {
    let (dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let extra = dir.path().join("extra.jsonl");
    std::fs::write(&extra, r#"{"id": "late1", "title": "Zygomorphic sparse attention arrives late"}"#).unwrap();
    let mut ingest = litindex()
        .args(["ingest", "--quiet", "--db"])
        .arg(&db)
        .arg(&extra)
        .env("LITINDEX_FAILPOINT", "before-commit")
        .env("LITINDEX_FAILPOINT_ACTION", "pause")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(ingest.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("failpoint before-commit reached") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "the ingest ended before its commit");
    }
    let during = server.get("/?q=zygomorphic");
    assert_eq!(during.status, 200, "{}", during.body);
    assert!(!during.body.contains("late1"), "the uncommitted paper is not seen");
    assert!(server.get("/paper?id=xss1").body.contains("xss1"), "the paper page answers too");
    ingest.kill().unwrap();
    ingest.wait().unwrap();
    let out = litindex().args(["ingest", "--quiet", "--db"]).arg(&db).arg(&extra).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(server.get("/?q=zygomorphic").body.contains("/paper?id=late1"), "committed: the running server sees it");
}
