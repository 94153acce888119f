//! Every route of `litindex serve` called with hostile values in every
//! field: flags (`--output=x.bib`, `--db=/etc/passwd`, `--db=` another
//! index), `-x`, `--`, a NUL byte and a 1 MB string. Each gets an answer
//! below 500 (the page, or a 400 / 404 page in plain words with no file
//! path), nothing is written beside the index, and nothing of another index
//! is shown. A value that starts with `-` is a value (`author=-k`), and the
//! result page links the next page by its offset.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use super::{Server, hostile_index, token_of};
use crate::common::{litindex, stderr, stdout};
use litindex::fetch::encode;

/// The names in `dir` but the served index's own files.
fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("web.db"))
        .collect()
}

/// One request that may be refused before it is read whole (a 1 MB line):
/// the status (0: the connection closed unanswered) and the body.
fn send(addr: &str, method: &str, path: &str, form: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if method == "POST" {
        head.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            form.len()
        ));
    }
    // A server that answers early and closes may cut the write short: its answer is still read.
    let _ = s.write_all(format!("{head}\r\n{form}").as_bytes());
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string()))
}

fn secret_index(dir: &Path) -> std::path::PathBuf {
    let jsonl = dir.join("secret.jsonl");
    let paper = r#"{"id": "secret001", "title": "Zanzibar sparse attention secret", "abstract": "Sparse attention.", "year": 2020}"#;
    std::fs::write(&jsonl, format!("{paper}\n")).unwrap();
    let db = dir.join("secret.db");
    let o = litindex().arg("--db").arg(&db).args(["build", "--quiet", "--jsonl"]).arg(&jsonl).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    db
}

#[test]
fn serve_hostile_values_in_every_field_get_a_plain_answer_and_write_nothing() {
    let (dir, db) = hostile_index();
    let secret = secret_index(dir.path());
    let server = Server::start(&db, &["--allow-writes"]);
    let token = token_of(&server.get("/paper?id=p001").body);
    let before = listing(dir.path());
    let values = [
        "--output=x.bib".to_string(),
        "--output".into(),
        format!("--db={}", secret.display()),
        "--db=/etc/passwd".into(),
        "--query=secret".into(),
        "-x".into(),
        "--".into(),
        "a\0b".into(),
        "x".repeat(1 << 20),
    ];
    for v in &values {
        let e = encode(v);
        let gets = [
            format!("/?q={e}"),
            format!("/?q=sparse&author={e}"),
            format!("/?q=sparse&year={e}"),
            format!("/?q=sparse&venue={e}"),
            format!("/?q=sparse&mode={e}"),
            format!("/?q=sparse&offset={e}"),
            format!("/?q=sparse&show_excluded={e}"),
            format!("/paper?id={e}"),
            format!("/graph.svg?id={e}"),
            format!("/export?ids={e}&format=bibtex"),
            format!("/export?ids=p001,{e}&format=bibtex"),
            format!("/export?ids=p001&format={e}"),
        ];
        let posts = [
            ("/mark", format!("token={token}&id={e}&label=read")),
            ("/mark", format!("token={token}&id=p001&label={e}")),
            ("/mark", format!("token={e}&id=p001&label=read")),
            ("/unmark", format!("token={token}&id={e}")),
            ("/unmark", format!("token={token}&id=p001&label={e}")),
        ];
        let answers = gets
            .iter()
            .map(|path| (path.clone(), send(&server.addr, "GET", path, "")))
            .chain(posts.iter().map(|(path, form)| (format!("{path} {form}"), send(&server.addr, "POST", path, form))));
        for (what, (status, body)) in answers {
            let what: String = what.chars().take(120).collect();
            assert!((200..500).contains(&status), "{what}: status {status}: {}", &body[..body.len().min(300)]);
            // (The form shows the values it was given, the other index's path among them: not the served one's.)
            for needle in ["secret001", "Zanzibar", "root:", db.to_str().unwrap()] {
                assert!(!body.contains(needle), "{what}: `{needle}` in the answer");
            }
        }
        assert_eq!(listing(dir.path()), before, "a request with `{}` wrote beside the index", v.escape_debug());
    }
    assert!(!dir.path().join("x.bib").exists());
    assert!(server.get("/?q=sparse").status == 200, "the server still serves");
}

#[test]
fn serve_values_starting_with_a_dash_are_values_and_pages_go_on_by_offset() {
    let (dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    // `author=-k`: an author filter no paper passes, not a flag.
    let a = server.get("/?q=sparse&author=-k");
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(!a.body.contains("class=\"error\""), "{}", a.body);
    assert_eq!(a.body.matches("<li class=\"hit").count(), 0);
    let a = server.get("/?q=-x+sparse&venue=--db%3D%2Fetc%2Fpasswd");
    assert_eq!(a.status, 200, "{}", a.body);
    // A dense search of an index without vectors is the caller's mistake, said plainly.
    let a = server.get("/?q=sparse&mode=dense");
    assert_eq!(a.status, 400, "{}", a.body);
    assert!(a.body.contains("litindex embed") && !a.body.contains(db.to_str().unwrap()), "{}", a.body);

    // The next page: a stable link with the offset, the CLI's hits 21 to 40.
    let o = litindex()
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args(["search", "sparse attention", "--limit", "40", "--format", "json"])
        .output()
        .unwrap();
    let cli: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let want: Vec<String> =
        cli["ranked"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect();
    assert!(want.len() > 20, "the query has a second page: {}", want.len());
    let first = server.get("/?q=sparse+attention");
    assert!(!first.body.contains("rel=\"prev\""));
    let next = first.body.split("rel=\"next\" href=\"").nth(1).expect("a next link").split('"').next().unwrap();
    assert_eq!(next.replace("&amp;", "&"), "/?q=sparse%20attention&offset=20");
    let second = server.get(&next.replace("&amp;", "&"));
    assert_eq!(second.status, 200);
    assert_eq!(page_ids(&second.body), want[20..], "page 2 is the ranking's hits 21 to 40");
    assert_eq!(page_ids(&first.body), want[..20]);
    // Each page's hits have the CLI's snippets, whichever part of the one
    // search of 100 they were cut from (and only they were built).
    for (page, hits) in [
        (&first.body, &cli["ranked"].as_array().unwrap()[..20]),
        (&second.body, &cli["ranked"].as_array().unwrap()[20..]),
    ] {
        let with_snippet = hits.iter().filter(|h| !h["snippet"].as_str().unwrap().is_empty()).count();
        assert!(with_snippet > 10, "the CLI's hits have snippets: {with_snippet}");
        assert_eq!(page.matches("<p class=\"snippet\"").count(), with_snippet, "a snippet for each hit that has one");
    }
    assert!(second.body.contains("<ol class=\"hits\" start=\"21\""), "numbered on from 21");
    assert!(second.body.contains("rel=\"prev\""));
    // An offset that is no number is the caller's mistake.
    let bad = server.get("/?q=sparse&offset=-3");
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.body.contains("offset `-3` is not a number of hits"), "{}", bad.body);
}

/// The ids of a result page's hits, in order.
fn page_ids(page: &str) -> Vec<String> {
    page.split("<span class=\"id\">").skip(1).map(|rest| rest.split('<').next().unwrap().to_string()).collect()
}
