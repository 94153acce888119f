//! `watch`: saved searches and what is new in them, through the real binary.

use crate::common::stderr;
use crate::marks::{json, ok, paper, papers_file, run};

fn new_ids(check: &serde_json::Value) -> Vec<String> {
    check["new"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn watch_reports_exactly_the_new_papers_after_an_ingest() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let first = papers_file(
        dir.path(),
        "first.jsonl",
        &[
            paper("q1", "Quantum annealing schedules", 2019, &[]),
            paper("q2", "Quantum annealing hardware", 2020, &["q1"]),
            paper("o1", "Protein folding", 2020, &[]),
            paper("o2", "Soil chemistry", 2018, &[]),
        ],
    );
    ok(&db, &["build", "-q", "--jsonl", first.to_str().unwrap()]);
    ok(&db, &["watch", "add", "qa", "quantum annealing", "--hops", "0", "--limit", "50"]);
    let listed = json(&db, &["watch", "list"]);
    assert_eq!(listed[0]["name"], "qa");
    assert_eq!(listed[0]["flags"], serde_json::json!(["--hops", "0", "--limit", "50"]));
    assert!(listed[0]["last_checked"].is_null());

    // The first check is the baseline: it reports every hit, and says so.
    let base = json(&db, &["watch", "qa"]);
    assert_eq!(base[0]["baseline"], true);
    assert_eq!(new_ids(&base[0]), ["q2", "q1"]);
    let table = ok(&db, &["watch"]);
    assert!(table.contains("0 new of 2 hits"), "nothing new since the baseline: {table}");

    // An ingest with two new matching papers and one that does not match.
    let more = papers_file(
        dir.path(),
        "more.jsonl",
        &[
            paper("q3", "Quantum annealing for scheduling", 2024, &[]),
            paper("q4", "Reverse annealing on quantum devices", 2024, &[]),
            paper("o3", "Coral reefs", 2024, &[]),
        ],
    );
    ok(&db, &["ingest", "-q", more.to_str().unwrap()]);
    let after = json(&db, &["watch", "qa"]);
    assert_eq!(after[0]["baseline"], false);
    let mut new = new_ids(&after[0]);
    new.sort();
    assert_eq!(new, ["q3", "q4"], "exactly the new papers");
    assert_eq!(after[0]["hits"], 4);
    assert!(new_ids(&json(&db, &["watch", "qa"])[0]).is_empty(), "and they are not new twice");

    // Kept across a build; excluded papers are not reported.
    let again = papers_file(dir.path(), "again.jsonl", &[paper("q5", "Quantum annealing again", 2025, &[])]);
    ok(&db, &["ingest", "-q", again.to_str().unwrap()]);
    ok(&db, &["mark", "q5", "exclude"]);
    assert!(new_ids(&json(&db, &["watch", "qa"])[0]).is_empty(), "q5 is excluded");
    ok(&db, &["build", "-q", "--jsonl", first.to_str().unwrap(), "--jsonl", more.to_str().unwrap()]);
    let rebuilt = json(&db, &["watch", "list"]);
    assert_eq!((rebuilt[0]["name"].as_str(), rebuilt[0]["seen"].as_u64()), (Some("qa"), Some(4)));
    assert!(new_ids(&json(&db, &["watch", "qa"])[0]).is_empty());

    ok(&db, &["watch", "rm", "qa"]);
    assert!(json(&db, &["watch", "list"]).as_array().unwrap().is_empty());
    let check = run(&db, &["check"]);
    assert!(check.status.success());
}

#[test]
fn bad_watch_arguments_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    ok(&db, &["build", "-q"]);
    ok(&db, &["watch", "add", "g", "graph"]);
    for (args, code, what) in [
        (vec!["watch", "add", "g", "graph"], 1, "a saved search named `g` exists"),
        (vec!["watch", "add", "h", "graph", "--top-k", "many"], 2, "saved search `h`: invalid value 'many'"),
        (vec!["watch", "add", "h", "graph", "--frobnicate"], 2, "saved search `h`: unexpected argument '--frobnicate'"),
        (vec!["watch", "add", "h", " "], 2, "cannot be empty"),
        (vec!["watch", "nosuch"], 1, "no saved search named `nosuch`"),
        (vec!["watch", "rm", "nosuch"], 1, "no saved search named `nosuch`"),
    ] {
        let o = run(&db, &args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(json(&db, &["watch", "list"]).as_array().unwrap().len(), 1, "nothing else was saved");
}
