//! The features that meet: `related`/`gaps --from-marks`, `export --marks`
//! and `gaps --source`, through the real binary on a graph whose answers
//! are known.

use std::fs;
use std::path::{Path, PathBuf};

use litindex::bm25::Bm25;
use serde_json::Value;

use crate::common::{Paper, build_papers, litindex, stderr, stdout};

fn paper(id: &str, title: &str, references: &[&str]) -> Paper {
    Paper {
        id: id.into(),
        title: title.into(),
        references: references.iter().map(|r| r.to_string()).collect(),
        ..Paper::default()
    }
}

/// `10.5555/a` cites m1, m2 and b; b cites m1 and m3; c cites m4; d cites b and c.
fn index(dir: &Path) -> PathBuf {
    let papers = [
        paper("10.5555/a", "Sparse routing of graphs", &["m1", "m2", "b"]),
        paper("b", "Routing graphs sparsely", &["m1", "m3"]),
        paper("c", "Dense retrieval", &["m4"]),
        paper("d", "A survey", &["b", "c"]),
    ];
    let path = dir.join("wire.db");
    build_papers(&path, &papers, Bm25::default());
    path
}

fn run(db: &Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).args(args).output().unwrap()
}

fn ok(db: &Path, args: &[&str]) -> String {
    let o = run(db, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn json(db: &Path, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(&ok(db, &args)).unwrap()
}

fn gap_ids(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_reading_list_feeds_related_gaps_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    ok(&db, &["mark", "b", "c", "to-read"]);

    // gaps of the marked papers: what b and c cite that is missing.
    let g = json(&db, &["gaps", "--from-marks", "to-read"]);
    assert_eq!(gap_ids(&g), ["m1", "m3", "m4"]);
    assert_eq!(g, json(&db, &["gaps", "--from", "b", "c"]), "the same as naming them");

    // related from the marks equals related from the ids; ids add to the marks.
    assert_eq!(json(&db, &["related", "--from-marks", "to-read"]), json(&db, &["related", "b", "c"]));
    let both = json(&db, &["related", "10.5555/a", "--from-marks", "to-read"]);
    assert_eq!(both["seeds"], serde_json::json!(["10.5555/a", "b", "c"]));

    // export --marks: exactly the marked papers.
    let text = ok(&db, &["export", "--format", "jsonl", "--marks", "to-read"]);
    let ids: Vec<String> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["b", "c"]);

    // A label nobody carries is a clear error, not an empty answer.
    for args in [
        &["gaps", "--from-marks", "favorite"][..],
        &["related", "--from-marks", "favorite"],
        &["export", "--format", "bibtex", "--marks", "favorite"],
    ] {
        let o = run(&db, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains("no paper of") && stderr(&o).contains("marked `favorite`"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    }
    // An unknown label is a usage error naming it; so are two scopes at once.
    for args in [
        &["gaps", "--from-marks", "liked"][..],
        &["related", "--from-marks", "liked"],
        &["export", "--format", "bibtex", "--marks", "liked"],
        &["export", "--format", "bibtex", "--marks", "read", "b"],
        &["gaps", "--from-marks", "read", "--all"],
        &["gaps", "--source", "bibtex", "--from", "b"],
    ] {
        let o = run(&db, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    assert!(stderr(&run(&db, &["gaps", "--from-marks", "liked"])).contains("liked"));
}

#[test]
fn gaps_by_source_looks_at_the_papers_of_an_imported_library() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    // The library holds paper a (by its DOI) and one paper the index lacked.
    let bib = dir.path().join("mine.bib");
    fs::write(
        &bib,
        "@article{me2020, title = {Sparse routing of graphs}, doi = {10.5555/A}, journal = {J. Graphs}}\n\
         @misc{other, title = {Something else}, year = {2019}}\n",
    )
    .unwrap();
    ok(&db, &["ingest", "--format", "bibtex", bib.to_str().unwrap()]);

    // What the library's papers cite and the index lacks: a's references.
    let g = json(&db, &["gaps", "--source", "bibtex"]);
    assert_eq!(gap_ids(&g), ["m1", "m2"]);
    assert_eq!(g, json(&db, &["gaps", "--from", "10.5555/a", "me2020", "other"]));
    let table = ok(&db, &["gaps", "--source", "bibtex"]);
    assert!(table.contains("2 missing id(s) cited by 2 paper(s)"), "{table}");

    // A source with no record is a usage error that lists the index's sources.
    let o = run(&db, &["gaps", "--source", "zotero"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("no record from `zotero`") && err.contains("bibtex"), "{err}");
}
