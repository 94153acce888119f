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
