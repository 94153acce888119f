//! `why A B` and `paper ID`'s "cited in context" through the real binary:
//! what it says for a paper without full text, a pair that is not cited, an
//! unknown id; and, on the dev PDFs, the sentences a real PDF cites with.

use litindex::bm25::Bm25;
use serde_json::Value;

use crate::common::{Paper, build_papers, litindex, stderr, stdout};

fn paper(id: &str, title: &str, references: &[&str]) -> Paper {
    Paper {
        id: id.into(),
        title: title.into(),
        year: Some(2020),
        references: references.iter().map(|r| r.to_string()).collect(),
        ..Paper::default()
    }
}

fn run(db: &std::path::Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).args(args).output().unwrap()
}

#[test]
fn why_says_when_the_citing_paper_has_no_full_text_or_an_id_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    build_papers(
        &db,
        &[paper("a", "Sparse attention over long documents", &["b"]), paper("b", "Dense retrieval at scale", &[])],
        Bm25::default(),
    );
    let o = run(&db, &["why", "a", "b"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "a has no full text in the index (ingest its PDF to see why it cites b); the citation graph says it cites it\n"
    );
    let o = run(&db, &["why", "b", "a", "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v["verdict"].as_str(), v["graph_edge"].as_bool()), (Some("no-full-text"), Some(false)));
    assert_eq!(v["entries"].as_array().map(Vec::len), Some(0));

    let o = run(&db, &["why", "a", "nowhere"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nowhere"), "{}", stderr(&o));

    // `paper` shows no "cited in context" block (and no JSON field) without citers with full text.
    let o = run(&db, &["paper", "b"]);
    assert!(!stdout(&o).contains("cited in context"), "{}", stdout(&o));
    let o = run(&db, &["paper", "b", "--format", "json"]);
    assert!(!stdout(&o).contains("cited_in_context"), "{}", stdout(&o));
}
