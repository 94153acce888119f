//! The MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`, pinned
//! by tests/inspector/package-lock.json, installed by `.ci/run` into
//! target/inspector) as a second independent client: it launches the real
//! binary, lists the tools and calls them with `--tool-arg NAME=VALUE`,
//! which sends every value as a string (`limit=2`), as a user would type it.
//! Skips when the Inspector is not installed, unless
//! LITINDEX_REQUIRE_MCP_CLIENT=1 or LITINDEX_REQUIRE_DATA=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::build_mock;
use crate::common::{data_required, stderr, stdout};

/// The Inspector's launcher, if installed.
fn inspector() -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/inspector/node_modules/.bin/mcp-inspector");
    if bin.exists() && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(bin);
    }
    let must = data_required() || std::env::var("LITINDEX_REQUIRE_MCP_CLIENT").is_ok_and(|v| v == "1");
    let what = "the MCP Inspector CLI is not installed (mkdir -p target/inspector && cp tests/inspector/package*.json target/inspector && (cd target/inspector && npm ci))";
    assert!(!must, "LITINDEX_REQUIRE_DATA=1 or LITINDEX_REQUIRE_MCP_CLIENT=1, but {what}");
    eprintln!("skipping: {what}");
    None
}

/// One Inspector run against `litindex --db DB mcp`: its JSON output.
fn run(bin: &Path, db: &Path, args: &[&str]) -> Value {
    let o = Command::new(bin)
        .arg("--cli")
        .arg(env!("CARGO_BIN_EXE_litindex"))
        .arg("--db")
        .arg(db)
        .arg("mcp")
        .args(args)
        .env_remove("LITINDEX_DB")
        .output()
        .unwrap();
    assert!(o.status.success(), "inspector {args:?}: {}\n{}", stdout(&o), stderr(&o));
    serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("inspector {args:?} printed no JSON ({e}): {}", stdout(&o)))
}

/// A tool call's structured result, checked against its text.
fn call(bin: &Path, db: &Path, tool: &str, args: &[&str]) -> Value {
    let mut all = vec!["--method", "tools/call", "--tool-name", tool];
    for a in args {
        all.push("--tool-arg");
        all.push(a);
    }
    let r = run(bin, db, &all);
    assert_eq!(r["isError"], false, "{tool} {args:?}: {r}");
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    // (node prints 1.0 as 1: numbers are compared as numbers)
    assert_eq!(numbers(&text), numbers(&r["structuredContent"]), "{tool}: the text is the structured result");
    r["structuredContent"].clone()
}

/// `v` with every number as an f64.
fn numbers(v: &Value) -> Value {
    match v {
        Value::Number(n) => serde_json::json!(n.as_f64()),
        Value::Array(a) => Value::Array(a.iter().map(numbers).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), numbers(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn mcp_inspector_cli_client() {
    let Some(bin) = inspector() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());

    let tools = run(&bin, &db, &["--method", "tools/list"]);
    let tools = tools["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, super::READ_TOOLS, "read-only by default");
    assert!(tools.iter().all(|t| t["outputSchema"]["type"] == "object"), "every tool declares its output");

    // `limit=2` arrives as the string "2" and is the number 2.
    let hits = call(&bin, &db, "search_papers", &["query=sparse attention", "limit=2"]);
    assert_eq!(hits["returned"], 2, "{hits}");
    let first = hits["ranked"][0]["id"].as_str().unwrap().to_string();
    let paper = call(&bin, &db, "get_paper", &[&format!("id={first}")]);
    assert_eq!(paper["title"], hits["ranked"][0]["title"]);
    let hood = call(&bin, &db, "neighbors", &["id=p001", "hops=1", "limit=3"]);
    assert_eq!(hood["returned"], 3);
    assert!(hood["nodes"].as_array().unwrap().iter().all(|n| n.get("title").is_some()), "{hood}");
    let batch = call(&bin, &db, "get_papers", &[r#"ids=["p001","p002"]"#]);
    assert_eq!(super::ids(&batch["papers"]), ["p001", "p002"]);
    let d = call(&bin, &db, "describe_index", &[]);
    assert_eq!(d["papers"], 100);
    let pack = call(&bin, &db, "context", &["question=sparse attention", "k=2", "max_tokens=500"]);
    assert!(serde_json::to_string(&pack).unwrap().len() <= 2000, "the pack fits 500 tokens: {pack}");
}
