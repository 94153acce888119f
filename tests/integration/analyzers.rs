//! The `english` analyzer end to end: build with the real binary, then query
//! through the analyzer stored in the index.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{litindex, stderr, stdout};

const PAPERS: &str = r#"{"id": "zh1", "title": "稀疏注意力机制研究", "abstract": "我们提出一种稀疏注意力机制，用于长序列建模。", "year": 2023}
{"id": "en1", "title": "A sparse model that runs on long sequences", "abstract": "The model runs fast on a single GPU.", "year": 2022}
{"id": "en2", "title": "Graph neural networks for citation data", "abstract": "We study citation graphs of scientific papers.", "year": 2021}
"#;

fn run(db: &Path, args: &[&str]) -> Output {
    litindex().current_dir(db.parent().unwrap()).arg("--db").arg(db).args(args).output().expect("run litindex")
}

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "failed: {:?}\nstdout:\n{}\nstderr:\n{}", o.status, stdout(o), stderr(o));
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(o)))
}

fn ranked_ids(v: &Value) -> Vec<String> {
    v["ranked"].as_array().expect("ranked is an array").iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn english_analyzer_is_stored_and_used_for_queries() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("papers.jsonl");
    std::fs::write(&jsonl, PAPERS).unwrap();
    let db = dir.path().join("en.db");

    let out = run(&db, &["build", "--analyzer", "english", "--jsonl", jsonl.to_str().unwrap()]);
    assert!(out.status.success(), "build failed:\nstdout:\n{}\nstderr:\n{}", stdout(&out), stderr(&out));

    let stats = json(&run(&db, &["stats", "--format", "json"]));
    assert_eq!(stats["analyzer"], "english", "{stats}");

    // CJK bigrams: 注意力 → 注意, 意力, both only in the Chinese paper.
    let zh = ranked_ids(&json(&run(&db, &["search", "注意力", "--format", "json"])));
    assert_eq!(zh.first().map(String::as_str), Some("zh1"), "{zh:?}");

    // Stemming through the stored analyzer: "running" and "runs" both stem to "run".
    let en = ranked_ids(&json(&run(&db, &["search", "running", "--format", "json"])));
    assert_eq!(en.first().map(String::as_str), Some("en1"), "{en:?}");
    assert!(!en.contains(&"en2".to_string()), "{en:?}");
}

fn analyzer_of(db: &Path) -> String {
    json(&run(db, &["stats", "--format", "json"]))["analyzer"].as_str().unwrap().to_string()
}

/// Issue 22: a new index is `english` (the better measured), whichever
/// command creates it; an existing one keeps the analyzer it was built with.
#[test]
fn a_new_index_is_english_and_an_old_one_keeps_its_analyzer() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("papers.jsonl");
    std::fs::write(&jsonl, PAPERS).unwrap();
    let j = jsonl.to_str().unwrap();
    let built = dir.path().join("built.db");
    assert!(run(&built, &["build", "-q", "--jsonl", j]).status.success());
    assert_eq!(analyzer_of(&built), "english");
    let ingested = dir.path().join("ingested.db");
    assert!(run(&ingested, &["ingest", "-q", j]).status.success());
    assert_eq!(analyzer_of(&ingested), "english");
    // The demo index a read command builds when none is named.
    let o = litindex().current_dir(dir.path()).args(["stats", "--format", "json"]).output().unwrap();
    assert_eq!(json(&o)["analyzer"], "english");

    // An index built with `plain` stays plain through later ingests, flag or not.
    let old = dir.path().join("old.db");
    assert!(run(&old, &["build", "-q", "--analyzer", "plain", "--jsonl", j]).status.success());
    let more = dir.path().join("more.jsonl");
    std::fs::write(&more, r#"{"id": "en3", "title": "Running sparse models", "abstract": "", "year": 2024}"#).unwrap();
    assert!(run(&old, &["ingest", "-q", more.to_str().unwrap()]).status.success());
    assert_eq!(analyzer_of(&old), "plain");
    assert!(run(&old, &["ingest", "-q", "--analyzer", "english", more.to_str().unwrap()]).status.success());
    assert_eq!(analyzer_of(&old), "plain");
    // ... and its queries go through it: no stemming, so `running` misses `runs`.
    let en = ranked_ids(&json(&run(&old, &["search", "running", "--format", "json"])));
    assert_eq!(en, ["en3"], "{en:?}");
}
