//! `gaps`: the most cited ids the index lacks, on a graph whose dangling ids are known.

use litindex::bm25::Bm25;
use serde_json::{Value, json};

use crate::common::{Paper, build_papers, litindex, stderr, stdout};

fn paper(id: &str, references: &[&str]) -> Paper {
    Paper {
        id: id.into(),
        title: format!("Paper {id}"),
        references: references.iter().map(|r| r.to_string()).collect(),
        ..Paper::default()
    }
}

/// a, b, c are indexed; m1 (cited by all three), m2 (a, c) and a DOI (c) are not.
fn index(dir: &std::path::Path) -> std::path::PathBuf {
    let papers = [paper("a", &["m1", "m2", "b"]), paper("b", &["m1"]), paper("c", &["m1", "m2", "10.1000/XYZ.1", "a"])];
    let path = dir.join("gaps.db");
    build_papers(&path, &papers, Bm25::default());
    path
}

fn gaps(db: &std::path::Path, args: &[&str]) -> Value {
    crate::related::json_of(db, "gaps", args)
}

#[test]
fn gaps_lists_the_dangling_ids_most_cited_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    let all = gaps(&db, &["--all"]);
    let rows: Vec<(String, u64, String)> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (g["id"].as_str().unwrap().into(), g["cited_by"].as_u64().unwrap(), g["kind"].as_str().unwrap().into())
        })
        .collect();
    let expect = |id: &str, n: u64, kind: &str| (id.to_string(), n, kind.to_string());
    assert_eq!(rows, [expect("m1", 3, "own"), expect("m2", 2, "own"), expect("10.1000/xyz.1", 1, "doi")]);
    assert_eq!(all[0]["cited_by_sample"], json!(["a", "b", "c"]));
    assert_eq!(all[2]["cited_by_sample"], json!(["c"]));

    // From one paper: only what it cites, counted among the given papers.
    let from_a = gaps(&db, &["--from", "a"]);
    assert_eq!(
        from_a,
        json!([
            {"id": "m1", "kind": "own", "cited_by": 1, "cited_by_sample": ["a"], "aliases": []},
            {"id": "m2", "kind": "own", "cited_by": 1, "cited_by_sample": ["a"], "aliases": []},
        ])
    );
    let from_two = gaps(&db, &["--from", "b", "c", "--limit", "1"]);
    assert_eq!(from_two[0]["id"], "m1");
    assert_eq!(from_two[0]["cited_by"], 2);
    assert_eq!(from_two.as_array().unwrap().len(), 1);

    let out = litindex().arg("--db").arg(&db).args(["gaps", "--all"]).output().unwrap();
    let table = stdout(&out);
    assert!(table.contains("10.1000/xyz.1") && table.contains("doi"), "{table}");
    assert!(table.contains("3 missing id(s) cited by the whole index"), "{table}");
}

#[test]
fn gaps_needs_a_scope_and_known_ids() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    for args in [&["gaps"][..], &["gaps", "--all", "--from", "a"], &["gaps", "--all", "--limit", "0"]] {
        let out = litindex().arg("--db").arg(&db).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let out = litindex().arg("--db").arg(&db).args(["gaps", "--from", "m1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("unknown paper id `m1`"), "{}", stderr(&out));
}
