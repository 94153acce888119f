//! `build` and `ingest` are one path: the same file gives the same papers
//! through either, whatever it holds (repeated ids, conflicting fields,
//! gzip, a byte-order mark).

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{litindex, stdout};

fn run(db: &Path, args: &[&str]) -> String {
    let out = litindex().arg("--db").arg(db).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    stdout(&out)
}

/// Every paper of the index at `db`, as `paper --format json` prints it.
fn every_paper(db: &Path) -> Vec<Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM papers ORDER BY id").unwrap();
    let ids: Vec<String> = stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert!(!ids.is_empty());
    ids.iter().map(|id| serde_json::from_str(&run(db, &["paper", id, "--format", "json"])).unwrap()).collect()
}

fn lines(records: &[Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn build_jsonl_and_ingest_give_identical_papers() {
    let dir = tempfile::tempdir().unwrap();
    let records = [
        json!({"id": "a1", "title": "Sparse graphs in the wild", "year": 2020, "references": ["b1", "ghost"]}),
        json!({"id": "b1", "title": "Dense retrieval", "abstract": "We retrieve. Densely.", "authors": ["Ann Lee"]}),
        // a1 again: a different title (a conflict), an abstract to fill in, more references.
        json!({"id": "a1", "title": "Another title for a1", "abstract": "Filled by the repeat.", "references": ["c1"]}),
        json!({"id": "arXiv:2101.00001v2", "title": "An arXiv paper", "citations": ["a1"]}),
        // The same arXiv paper in another spelling: one record, its year filled in.
        json!({"id": "2101.00001", "title": "An arXiv paper", "year": 2021}),
        json!({"id": "c1", "title": "", "abstract": "No title, only an abstract."}),
    ];
    let text = lines(&records);
    let plain = dir.path().join("plain.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let bom = dir.path().join("bom.jsonl");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let gz = dir.path().join("papers.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();

    let mut reference: Option<Vec<Value>> = None;
    for (name, file) in [("plain", &plain), ("bom", &bom), ("gz", &gz)] {
        let file = file.to_str().unwrap();
        let built = dir.path().join(format!("{name}-built.db"));
        let ingested = dir.path().join(format!("{name}-ingested.db"));
        let out = run(&built, &["build", "--quiet", "--jsonl", file]);
        assert!(out.contains("6 records: 4 added, 0 updated, 0 merged, 2 repeated"), "{out}");
        run(&ingested, &["ingest", "--quiet", file]);
        let (b, i) = (every_paper(&built), every_paper(&ingested));
        assert_eq!(b, i, "{name}: build --jsonl and ingest differ");
        match &reference {
            None => reference = Some(b),
            Some(r) => assert_eq!(&b, r, "{name} differs from the plain file"),
        }
    }
    let papers = reference.unwrap();
    let a1 = papers.iter().find(|p| p["id"] == "a1").unwrap();
    assert_eq!(a1["title"], "Sparse graphs in the wild", "the first non-empty value wins");
    assert_eq!(a1["abstract"], "Filled by the repeat.");
    // Its own lists unioned, plus the arXiv paper's claim to be cited by it.
    assert_eq!(a1["references"], json!(["2101.00001", "b1", "c1", "ghost"]), "lists are unioned");
    let arxiv = papers.iter().find(|p| p["id"] == "2101.00001").unwrap();
    assert_eq!(arxiv["year"], 2021);
}
