//! `/related` and `/gaps` on the web page over raw HTTP: the same papers, in
//! the same order, as `litindex related` / `gaps` print; from a paper, from a
//! mark label, from the whole index; paging; bad values a 400 page, an
//! unknown paper a 404 page; and the links the paper and marks pages give.

use serde_json::Value;

use super::{Server, hostile_index};
use crate::common::{litindex, stderr};

fn cli(db: &std::path::Path, args: &[&str]) -> Value {
    let o = litindex().arg("--db").arg(db).args(args).args(["--format", "json"]).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The paper ids a view lists, in order (each row's first paper link, or its gap id).
fn listed(body: &str, list: &str) -> Vec<String> {
    let Some(at) = body.find(&format!("<ol class=\"{list}\"")) else { return Vec::new() };
    let list = &body[at..at + body[at..].find("</ol>").unwrap()];
    list.split("<li>")
        .skip(1)
        .map(|row| row.split("<span class=\"id\">").nth(1).unwrap().split('<').next().unwrap().to_string())
        .collect()
}

#[test]
fn serve_related_and_gaps_list_what_the_cli_does_from_a_paper_a_label_and_the_index() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);

    // From a paper: what `related p001` lists, first page of 20.
    let want: Vec<String> = cli(&db, &["related", "p001", "--limit", "20"])["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!want.is_empty());
    let page = server.get("/related?id=p001");
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(listed(&page.body, "related"), want, "{}", page.body);
    for method in ["cocitation", "coupling", "text"] {
        let want: Vec<String> = cli(&db, &["related", "p001", "--method", method, "--limit", "20"])["related"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        let page = server.get(&format!("/related?id=p001&method={method}"));
        assert_eq!(listed(&page.body, "related"), want, "{method}");
    }

    // Gaps of the whole index, and of one paper.
    let gaps: Vec<String> = cli(&db, &["gaps", "--all", "--limit", "20"])
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().map(|g| g["id"].as_str().unwrap().to_string()).collect());
    assert!(!gaps.is_empty(), "the mock corpus cites ids it lacks");
    let page = server.get("/gaps");
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(listed(&page.body, "gaps"), gaps, "{}", page.body);
    assert!(page.body.contains("the whole index"));
    let want: Vec<String> = cli(&db, &["gaps", "--from", "p032", "--limit", "20"])
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed(&server.get("/gaps?id=p032").body, "gaps"), want);

    // From a label: none marked yet says so; marked, the label's papers are the seeds.
    let page = server.get("/related?label=favorite");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("Nothing related found") && page.body.contains("none is marked favorite yet"),
        "{}",
        page.body
    );
    let o = litindex().arg("--db").arg(&db).args(["mark", "p001", "favorite"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let page = server.get("/related?label=favorite");
    let want: Vec<String> = cli(&db, &["related", "--from-marks", "favorite", "--limit", "20"])["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed(&page.body, "related"), want, "{}", page.body);
    let marks = server.get("/marks?label=favorite");
    assert!(marks.body.contains("href=\"/related?label=favorite\""), "the marks page links to related");
    let paper = server.get("/paper?id=p001");
    assert!(paper.body.contains("href=\"/related?id=p001\"") && paper.body.contains("href=\"/gaps?id=p001\""));

    // Bad values.
    for (path, status, says) in [
        ("/related", 400, "related to what"),
        ("/related?id=p001&method=magic", 400, "method must be"),
        ("/related?label=lovely", 400, "lovely"),
        ("/related?id=no-such-paper", 404, "no-such-paper"),
        ("/gaps?id=no-such-paper", 404, "no-such-paper"),
    ] {
        let a = server.get(path);
        assert_eq!(a.status, status, "{path}: {}", a.body);
        assert!(a.body.contains(says) && a.body.contains("name=\"q\""), "{path}: {}", a.body);
    }
}
