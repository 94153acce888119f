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

/// A real dev PDF: its unmatched references are gaps listed by title; once
/// papers of those titles are ingested, the entries link to them (at the end
/// of that ingest) and `why` prints the sentences that cite them, with pages.
#[test]
fn a_real_pdf_cites_the_papers_its_references_name_once_they_arrive() {
    let Some(pdf) = crate::common::shared_data("pdfs/latex_lights.pdf") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let o = run(&db, &["ingest", "--quiet", pdf.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let gaps: Value =
        serde_json::from_str(&stdout(&run(&db, &["gaps", "--all", "--limit", "500", "--format", "json"]))).unwrap();
    // Titles of four words or more: shorter ones have no title signature and never match by title.
    let words = |g: &Value| {
        g["title"].as_str().map_or(0, |t| t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).count())
    };
    let titled: Vec<&Value> = gaps.as_array().unwrap().iter().filter(|g| words(g) >= 4).collect();
    let short: Vec<&Value> = gaps.as_array().unwrap().iter().filter(|g| (1..4).contains(&words(g))).collect();
    assert!(titled.len() >= 10, "the reference list's titles: {gaps:#}");
    let citing = titled[0]["cited_by_sample"][0].as_str().unwrap().to_string();

    // Papers with exactly those titles (and years) arrive.
    let lines: Vec<String> = titled
        .iter()
        .enumerate()
        .map(|(i, g)| {
            serde_json::json!({"id": format!("found-{i}"), "title": g["title"], "year": g["year"]}).to_string()
        })
        .collect();
    let jsonl = dir.path().join("found.jsonl");
    std::fs::write(&jsonl, lines.join("\n")).unwrap();
    let o = run(&db, &["ingest", "--quiet", "--format", "paper", jsonl.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&db, &["check"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));

    let (mut cited, mut no_context, mut first_cited) = (0, 0, None);
    for i in 0..titled.len() {
        let id = format!("found-{i}");
        let v: Value = serde_json::from_str(&stdout(&run(&db, &["why", &citing, &id, "--format", "json"]))).unwrap();
        assert!(v["graph_edge"].as_bool().unwrap(), "{v:#}");
        assert_eq!(v["entries"][0]["entry"]["matched_by"], "title", "{v:#}");
        match v["verdict"].as_str().unwrap() {
            "cited" => {
                cited += 1;
                first_cited.get_or_insert(id.clone());
                let s = &v["entries"][0]["sentences"][0];
                assert!(s["page"].as_u64().unwrap() >= 1 && s["sentence"].as_str().unwrap().len() > 10, "{s:#}");
            }
            "no-context" => no_context += 1,
            other => panic!("{id}: {other}: {v:#}"),
        }
    }
    assert!(cited >= titled.len() / 2, "{cited} cited in a sentence, {no_context} without one");
    let left: Value =
        serde_json::from_str(&stdout(&run(&db, &["gaps", "--all", "--limit", "500", "--format", "json"]))).unwrap();
    let left = left.as_array().unwrap();
    assert!(left.iter().all(|g| !titled.iter().any(|t| t["id"] == g["id"])), "matched entries are no gaps");
    assert!(short.iter().all(|s| left.iter().any(|g| g["id"] == s["id"])), "short titles stay gaps");

    // The other direction: `paper ID` shows the sentence that cites it.
    let id = first_cited.unwrap();
    let text = stdout(&run(&db, &["paper", &id]));
    assert!(text.contains("cited in context (1 citer(s) with full text)") && text.contains("p. "), "{text}");
}
