//! `check`: it passes on fresh indexes and names damage done to the file
//! behind litindex's back.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::{assert_check_passes, base_index, json, ok, one_line_error, run, tempdir};
use crate::common::stdout;

#[test]
fn check_passes_on_fresh_indexes_and_names_damage_done_behind_our_back() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let table = ok(&run(&db, &["check"]));
    assert!(table.contains("check passed") && table.contains("journal mode wal"), "{table}");
    let report = json(&run(&db, &["check", "--format", "json"]));
    assert_eq!(report["ok"], true);
    assert_eq!(report["papers"], 120);
    assert!(report["dangling_ids"].as_u64().unwrap() > 0, "dangling ids are counted: {report}");
    assert!(report["invariants"].as_array().unwrap().len() >= 15);

    // Every fixture, through every format, merges and all.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest");
    let mut files: Vec<String> = fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            !n.contains("error") && !n.contains("references") && !n.contains("citations.json")
        })
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    files.sort();
    let all = dir.path().join("all.db");
    let mut args = vec!["ingest", "--quiet"];
    args.extend(files.iter().map(String::as_str));
    ok(&run(&all, &args));
    assert_check_passes(&all);

    // The postings block of one term deleted with sqlite3 (or, without it, the same SQL through rusqlite).
    let sql = "DELETE FROM posting_blocks WHERE term_id = (SELECT term_id FROM terms WHERE term = 'sparse')";
    let by_cli = Command::new("sqlite3").arg(&db).arg(sql).status().map(|s| s.success()).unwrap_or(false);
    if !by_cli {
        rusqlite::Connection::open(&db).unwrap().execute(sql, []).unwrap();
    }
    let o = run(&db, &["check"]);
    let line =
        one_line_error(&o, &["check failed", "df: term \"sparse\": df 14, 0 postings", "doc-len: paper \"p001\""]);
    assert!(line.contains("2 of"), "{line}");
    assert!(stdout(&o).contains("FAIL  df") && stdout(&o).contains("check FAILED"), "{}", stdout(&o));
    let o = run(&db, &["check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["ok"], false);
    let failed: Vec<&str> = report["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["ok"] == false)
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["df", "doc-len"]);
}
