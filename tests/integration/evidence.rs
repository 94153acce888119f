//! Evidence sentences measured on SciFact's rationales through the real
//! binary, and `eval-evidence`'s errors.

use std::path::Path;

use serde_json::Value;

use crate::common::{litindex, scifact_english, stderr, stdout};

fn run(db: &Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).args(args).output().expect("run litindex")
}

/// The thresholds measured on the 209 dev triples with the default
/// parameters (chosen on the train claims; docs/EVALUATION.md): Hit@1 0.617,
/// Hit@3 0.847. The targets: Hit@1 ≥ 0.60 (met, so the floor is
/// above it) and Hit@3 ≥ 0.85 (missed by one triple: the floor is the level
/// reached).
#[test]
fn evidence_scifact_dev_hit1_at_least_0_61_hit3_at_least_0_845_targets_0_60_and_0_85() {
    let Some((db, data)) = scifact_english() else { return };
    let claims = data.join("original_format/claims_dev.jsonl");
    let sentences = data.join("original_format/corpus_sentences.jsonl.gz");
    let out = litindex()
        .arg("--db")
        .arg(db)
        .arg("eval-evidence")
        .arg("--claims")
        .arg(&claims)
        .arg("--sentences")
        .arg(&sentences)
        .args(["--format", "json"])
        .env_remove("LITINDEX_MODEL_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["n"], 209, "{v}");
    assert_eq!(v["skipped"], 0, "{v}");
    let (hit1, hit3) = (v["hit@1"].as_f64().unwrap(), v["hit@3"].as_f64().unwrap());
    assert!(hit1 >= 0.61, "Hit@1 {hit1} < 0.61");
    assert!(hit3 >= 0.845, "Hit@3 {hit3} < 0.845");
}

#[test]
fn eval_evidence_names_the_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mock.db");
    assert!(run(&db, &["build"]).status.success());
    let sentences = dir.path().join("s.jsonl");
    std::fs::write(&sentences, "{\"doc_id\": 1, \"sentences\": [\"A.\"]}\n").unwrap();
    let claims = dir.path().join("c.jsonl");
    std::fs::write(&claims, "{\"id\": 1, \"claim\": \"x\", \"evidence\": {}}\nnot json\n").unwrap();
    let out =
        run(&db, &["eval-evidence", "--claims", claims.to_str().unwrap(), "--sentences", sentences.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("c.jsonl:2") && err.contains("not a claim"), "{err}");
    let missing = dir.path().join("missing.jsonl");
    let out =
        run(&db, &["eval-evidence", "--claims", missing.to_str().unwrap(), "--sentences", sentences.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));
}
