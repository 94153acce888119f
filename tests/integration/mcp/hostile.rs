//! Every MCP tool called with hostile values in every string argument:
//! flags (`--output=x.bib`, `--db=/etc/passwd`, `--db=` another index,
//! `--query=…`), `-x`, `--`, a NUL byte and a 1 MB string. Nothing may be
//! written in the server's working directory (or beside the index), nothing
//! of another index may be read, and each call is answered, by a result or
//! a one-line tool error, never a protocol error, a hang or a crash. And the
//! ordinary values that start with `-` work: `context` for `-fortran
//! compiler`, `search_papers` with `must: ["-x"]`.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use super::{Server, build_mock, ids};
use crate::common::{litindex, stderr};

/// An index whose one paper no answer from the served index may mention.
fn secret_index(dir: &Path) -> std::path::PathBuf {
    let jsonl = dir.join("secret.jsonl");
    let paper = json!({"id": "secret001", "title": "Zanzibar sparse attention secret", "abstract": "Sparse attention fortran compiler.", "year": 2020});
    std::fs::write(&jsonl, format!("{paper}\n")).unwrap();
    let db = dir.join("secret.db");
    let o = litindex().arg("--db").arg(&db).args(["build", "--quiet", "--jsonl"]).arg(&jsonl).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    db
}

/// The names in `dir` but the served index's own files (its WAL and shared memory come and go).
fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("mock.db"))
        .collect()
}

/// The hostile values, the other index's path among them.
fn hostile(secret: &Path) -> Vec<String> {
    vec![
        "--output=x.bib".into(),
        "--output".into(),
        "x.bib".into(),
        "-o=x.bib".into(),
        format!("--db={}", secret.display()),
        "--db=/etc/passwd".into(),
        "--query=secret".into(),
        "--allow-writes".into(),
        "-x".into(),
        "--".into(),
        "a\0b".into(),
        "\0".into(),
        "x".repeat(1 << 20),
    ]
}

/// The tool calls, each with one string argument set to `v`.
fn calls(v: &str) -> Vec<(&'static str, Value)> {
    let pack = json!({"sources": [{"number": 1, "id": v}]});
    vec![
        ("search_papers", json!({"query": v})),
        ("search_papers", json!({"query": "sparse attention", "author": [v]})),
        ("search_papers", json!({"query": "sparse attention", "year": v})),
        ("search_papers", json!({"query": "sparse attention", "venue": [v]})),
        ("search_papers", json!({"query": "sparse attention", "must": [v]})),
        ("search_papers", json!({"query": "sparse attention", "not": [v]})),
        ("search_papers", json!({"query": "sparse attention", "cursor": v})),
        ("get_paper", json!({"id": v})),
        ("neighbors", json!({"id": v})),
        ("neighbors", json!({"id": "p001", "cursor": v})),
        ("related", json!({"ids": [v]})),
        ("related", json!({"ids": ["p001", v]})),
        ("gaps", json!({"from": [v]})),
        ("gaps", json!({"cursor": v})),
        ("export", json!({"ids": [v]})),
        ("export", json!({"ids": [v, "p001"]})),
        ("context", json!({"question": v})),
        ("verify_citations", json!({"answer": format!("{v} [1]"), "pack": {"sources": [{"number": 1, "id": "p001"}]}})),
        ("verify_citations", json!({"answer": "Sparse attention [1].", "pack": pack})),
        ("mark", json!({"ids": [v], "label": "read"})),
        ("mark", json!({"ids": ["p001"], "label": "read", "note": v})),
        ("mark", json!({"ids": ["p001"], "tags": [v]})),
        ("unmark", json!({"ids": [v]})),
        ("unmark", json!({"ids": ["p001"], "tags": [v]})),
        ("get_papers", json!({"ids": [v, "p001"]})),
        ("get_papers", json!({"ids": ["p001"], "cursor": v})),
        ("list_marks", json!({"tag": v})),
        ("neighbors", json!({"id": "p001", "limit": v})),
    ]
}

#[test]
fn mcp_hostile_values_in_every_string_argument_write_nothing_and_read_no_other_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let secret = secret_index(dir.path());
    let mut s = Server::start(&db, &["--allow-writes"]);
    // The first call has opened the index: the listing from here on is the index's neighbours.
    s.ok("search_papers", json!({"query": "attention"}));
    let before = listing(dir.path());
    let mut answered = 0;
    for v in hostile(&secret) {
        for (tool, args) in calls(&v) {
            let r = s.call(tool, args.clone());
            let shown = |a: &Value| a.to_string().chars().take(200).collect::<String>();
            let text = r["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{tool} {}: {r}", shown(&args)));
            if r["isError"] == json!(true) {
                assert_eq!(text.lines().count(), 1, "{tool} {}: one line: {text}", shown(&args));
                assert!(!text.contains("panicked"), "{text}");
            } else {
                assert!(r["structuredContent"].is_object(), "{tool} {}: {r}", shown(&args));
            }
            // A flag-like tag is a tag: put on p001, then removed by name.
            if tool == "unmark" && args["tags"].is_array() && v.len() < 100 {
                assert_eq!(r["structuredContent"]["removed"], 1, "tag {:?}: {r}", v);
            }
            for needle in ["secret001", "Zanzibar", "root:"] {
                assert!(!text.contains(needle), "{tool} {} read outside the index: {text}", shown(&args));
            }
            answered += 1;
        }
        assert_eq!(listing(dir.path()), before, "a call with `{}` wrote beside the index", v.escape_debug());
    }
    assert_eq!(answered, hostile(&secret).len() * calls("").len());
    assert!(!dir.path().join("x.bib").exists());
    // No unknown id was marked: every mark is p001's (its note was a hostile value).
    let marks = super::cli_json(&db, &["marks", "--format", "json"]);
    assert!(marks.as_array().unwrap().iter().all(|p| p["stored_id"] == "p001"), "{marks}");
    s.finish();
}

#[test]
fn mcp_the_reported_export_writes_no_file_and_values_starting_with_a_dash_are_values() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    // The call of the report: an unknown id, no file.
    let e = s.tool_error("export", json!({"ids": ["--output=x.bib", "p001"]}));
    assert!(e.contains("unknown paper id `--output=x.bib`"), "{e}");
    assert!(!dir.path().join("x.bib").exists(), "export wrote x.bib");
    // A question that starts with `-`: free text after a must-not term, as in the CLI.
    let cli = super::cli_json(
        &db,
        &["context", "--format", "json", "--k", "3", "--budget-tokens", "4000", "--", "-fortran compiler"],
    );
    let pack = s.ok("context", json!({"question": "-fortran compiler", "k": 3}));
    assert_eq!(pack, cli);
    // `must: ["-x"]`: a filter on the text `-x` (the analyzer reads the word x), not a flag.
    let hits = s.ok("search_papers", json!({"query": "sparse attention", "must": ["-x"]}));
    assert!(hits["ranked"].is_array(), "{hits}");
    let cli = super::cli_json(&db, &["search", "sparse attention", "--must=-x", "--format", "json", "--limit", "10"]);
    assert_eq!(ids(&hits["ranked"]), ids(&cli["ranked"]));
    let hits =
        s.ok("search_papers", json!({"query": "sparse attention", "not": ["--db=/etc/passwd"], "author": ["-k"]}));
    assert_eq!(hits["ranked"], json!([]), "no mock author is `-k`: {hits}");
    s.finish();
}
