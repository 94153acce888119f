//! `eval` and `run` end to end on a tiny judged collection written for the
//! test, with figures computed by hand; and SciFact when `../shared` exists.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{litindex, scifact_english, stderr, stdout};

const CORPUS: &str = r#"{"id": "d1", "title": "alpha alpha alpha", "abstract": "gamma"}
{"id": "d2", "title": "alpha gamma", "abstract": "gamma delta"}
{"id": "d3", "title": "beta", "abstract": "delta"}
{"id": "d4", "title": "epsilon zeta", "abstract": ""}
{"id": "d5", "title": "epsilon zeta", "abstract": ""}
{"id": "x y", "title": "omega", "abstract": ""}
"#;
const QUERIES: &str = r#"{"_id": "q1", "text": "alpha"}
{"_id": "q2", "text": "beta"}
{"_id": "q4", "text": "unjudged query"}
{"_id": "q5", "text": "epsilon"}
{"_id": "q6", "text": "omega"}
"#;
const QRELS: &str = "query-id\tcorpus-id\tscore\nq1\td2\t1\nq1\td3\t1\nq2\td3\t2\nq3\td1\t1\n";

fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    fs::write(&corpus, CORPUS).unwrap();
    let db = dir.path().join("e.db");
    let o = litindex().arg("--db").arg(&db).args(["build", "--jsonl"]).arg(&corpus).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let queries = dir.path().join("queries.jsonl");
    fs::write(&queries, QUERIES).unwrap();
    let qrels = dir.path().join("qrels.tsv");
    fs::write(&qrels, QRELS).unwrap();
    (dir, db, queries, qrels)
}

fn eval_json(db: &Path, queries: &Path, qrels: &Path, extra: &[&str]) -> Value {
    let o = litindex()
        .arg("--db")
        .arg(db)
        .arg("eval")
        .arg("--queries")
        .arg(queries)
        .arg("--qrels")
        .arg(qrels)
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn eval_matches_hand_computed_figures() {
    let (_dir, db, queries, qrels) = setup();
    let v = eval_json(&db, &queries, &qrels, &["--hops", "0", "--weights", "1,0,0", "--per-query"]);
    // q1: ranking d1, d2 (BM25); relevant d2, d3 → nDCG = (1/log2 3) / (1 + 1/log2 3).
    let q1_ndcg = (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2());
    // q2: d3 first, perfect. q3: judged but missing from the queries: 0.
    let close = |key: &str, want: f64| {
        let got = v[key].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{key}: {got} vs {want}");
    };
    assert_eq!(v["queries"], 3);
    assert_eq!(v["unjudged"], 3, "q4, q5 and q6 have no judgments");
    assert_eq!(v["missing"], 1);
    close("ndcg@10", (q1_ndcg + 1.0) / 3.0);
    close("recall@100", (0.5 + 1.0) / 3.0);
    close("mrr@10", (0.5 + 1.0) / 3.0);
    close("map@100", (0.25 + 1.0) / 3.0);
    let per: Vec<&Value> = v["per_query"].as_array().unwrap().iter().collect();
    assert_eq!(per.len(), 3);
    let q1 = per.iter().find(|q| q["qid"] == "q1").unwrap();
    assert!((q1["ndcg@10"].as_f64().unwrap() - q1_ndcg).abs() < 1e-9);
    assert_eq!(q1["retrieved"], 2);

    // --metrics selects; the table prints the same figures.
    let only = eval_json(&db, &queries, &qrels, &["--hops", "0", "--metrics", "ndcg@10"]);
    assert!(only.get("recall@100").is_none() && only.get("ndcg@10").is_some(), "{only}");
    let bad = litindex()
        .arg("--db")
        .arg(&db)
        .args(["eval", "--queries"])
        .arg(&queries)
        .arg("--qrels")
        .arg(&qrels)
        .args(["--metrics", "p@5"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("unknown metric"), "{}", stderr(&bad));
}

#[test]
fn trec_run_scores_like_eval_and_breaks_ties_in_ranking_order() {
    let (dir, db, queries, qrels) = setup();
    let only_clean = dir.path().join("clean.jsonl");
    fs::write(&only_clean, QUERIES.lines().filter(|l| !l.contains("omega")).collect::<Vec<_>>().join("\n")).unwrap();
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["run", "--queries"])
        .arg(&only_clean)
        .args(["--run-tag", "t1", "--hops", "0", "--weights", "1,0,0"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut by_query: std::collections::BTreeMap<String, Vec<(String, usize, f64)>> = Default::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 6, "{line}");
        assert_eq!((f[1], f[5]), ("Q0", "t1"));
        by_query.entry(f[0].into()).or_default().push((f[2].into(), f[3].parse().unwrap(), f[4].parse().unwrap()));
    }
    for (q, rows) in &by_query {
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r.1, i + 1, "{q}: ranks are 1-based and consecutive");
        }
        assert!(rows.windows(2).all(|w| w[0].2 > w[1].2), "{q}: scores must strictly decrease: {rows:?}");
    }
    // d4 and d5 tie exactly on "epsilon": the run keeps the ranking order (by id).
    let q5: Vec<&str> = by_query["q5"].iter().map(|r| r.0.as_str()).collect();
    assert_eq!(q5, ["d4", "d5"]);
    // Scoring the run's q1 by hand gives eval's figure.
    let q1: Vec<String> = by_query["q1"].iter().map(|r| r.0.clone()).collect();
    let judged = [("d2".to_string(), 1), ("d3".to_string(), 1)].into_iter().collect();
    let expected = (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2());
    assert!((litindex::eval::ndcg(&q1, &judged, 10) - expected).abs() < 1e-12);
    let v = eval_json(&db, &queries, &qrels, &["--hops", "0", "--weights", "1,0,0", "--per-query"]);
    let eval_q1 = v["per_query"].as_array().unwrap().iter().find(|q| q["qid"] == "q1").unwrap()["ndcg@10"].clone();
    assert!((eval_q1.as_f64().unwrap() - expected).abs() < 1e-12);

    // JSON Lines form carries the same ranking.
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["run", "--format", "jsonl", "--queries"])
        .arg(&only_clean)
        .args(["--hops", "0"])
        .output()
        .unwrap();
    let first: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["qid"], "q1");
    assert_eq!(first["ranked"][0]["id"], "d1");
}

#[test]
fn a_document_id_with_whitespace_cannot_be_written_as_trec() {
    let (_dir, db, queries, _) = setup();
    let o = litindex().arg("--db").arg(&db).args(["run", "--queries"]).arg(&queries).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("`x y` contains whitespace"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
}

/// BM25 alone (english analyzer, no walk, pool 100) on SciFact's 300 judged
/// test queries. Measured 0.6942 (docs/EVALUATION.md); the target is 0.69
/// (BEIR's BM25 is 0.665, bm25s with stemming 0.686), met, so the floor is
/// the target itself.
#[test]
fn scifact_english_bm25_ndcg10_at_least_0_69_the_target() {
    let Some((db, data)) = scifact_english() else { return };
    let v = eval_json(
        db,
        &data.join("queries.jsonl"),
        &data.join("qrels/test.tsv"),
        &["--hops", "0", "--weights", "1,0,0", "--pool", "100"],
    );
    assert_eq!(v["queries"], 300);
    let ndcg = v["ndcg@10"].as_f64().unwrap();
    assert!(ndcg >= 0.69, "SciFact nDCG@10 with the english analyzer fell to {ndcg}, below the 0.69 target");
}

/// `run --threads N` ranks N queries at once, each thread on its own
/// connection, and writes what one thread writes: the same lines in the same
/// order (SciFact's first 300 queries, the default search with its walk).
#[test]
fn a_run_on_several_threads_is_the_run_of_one() {
    let Some((db, data)) = scifact_english() else { return };
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("queries.jsonl");
    let text = fs::read_to_string(data.join("queries.jsonl")).unwrap();
    fs::write(&queries, text.lines().take(300).collect::<Vec<_>>().join("\n")).unwrap();
    let run = |threads: &[&str]| {
        let o = litindex().arg("--db").arg(db).args(["run", "--queries"]).arg(&queries).args(threads).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let one = run(&["--threads", "1"]);
    let qids: Vec<&str> = one.lines().map(|l| l.split(' ').next().unwrap()).collect();
    let mut distinct = qids.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 300, "one block of lines per query, in the file's order");
    assert_eq!(run(&["--threads", "3"]), one);
    assert_eq!(run(&[]), one, "the default (the machine's cores)");
}

/// A query that fails on a second thread stops the run where one thread
/// stops it: the queries before it written, its error, nothing after.
#[test]
fn a_failing_query_stops_a_threaded_run_where_one_thread_stops() {
    let (dir, db, _, _) = setup();
    // 40 queries; the 37th finds `x y`, which a TREC run cannot hold.
    let queries = dir.path().join("forty.jsonl");
    let lines: Vec<String> = (1..=40)
        .map(|i| {
            let text = if i == 37 { "omega" } else { ["alpha", "beta", "epsilon zeta"][i % 3] };
            format!(r#"{{"_id": "q{i}", "text": "{text}"}}"#)
        })
        .collect();
    fs::write(&queries, lines.join("\n")).unwrap();
    let run = |threads: &str| {
        litindex().arg("--db").arg(&db).args(["run", "--threads", threads, "--queries"]).arg(&queries).output().unwrap()
    };
    let (one, two) = (run("1"), run("2"));
    for o in [&one, &two] {
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(o).contains("`x y` contains whitespace"), "{}", stderr(o));
    }
    assert_eq!(stdout(&two), stdout(&one));
    let last = stdout(&one).lines().last().map(|l| l.split(' ').next().unwrap().to_string());
    assert_eq!(last.as_deref(), Some("q36"));
}

/// `eval --threads N` ranks N judged queries at once and reports what one
/// thread reports: every query's figures, in the same order, and with
/// simulated feedback the same marked queries (SciFact's 300 test queries).
#[test]
fn an_eval_on_several_threads_scores_what_one_does() {
    let Some((db, data)) = scifact_english() else { return };
    let eval = |extra: &[&str]| {
        let o = litindex()
            .arg("--db")
            .arg(db)
            .args(["eval", "--queries"])
            .arg(data.join("queries.jsonl"))
            .arg("--qrels")
            .arg(data.join("qrels/test.tsv"))
            .args(["--per-query", "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v.as_object_mut().unwrap().remove("wall_time_s").expect("a wall time");
        v
    };
    let one = eval(&["--threads", "1"]);
    assert_eq!(one["per_query"].as_array().unwrap().len(), 300);
    assert_eq!(eval(&["--threads", "3"]), one);
    let feedback = ["--feedback", "first-relevant", "--hops", "0"];
    let one = eval(&[&feedback[..], &["--threads", "1"]].concat());
    assert!(one["feedback"]["marked_queries"].as_u64().unwrap() > 100, "{}", one["feedback"]);
    assert_eq!(eval(&[&feedback[..], &["--threads", "2"]].concat()), one);
}

#[test]
fn threads_are_refused_with_a_backend() {
    let (_dir, _db, queries, qrels) = setup();
    for command in [&["run"][..], &["eval", "--qrels", qrels.to_str().unwrap()][..]] {
        let o = litindex()
            .args(command)
            .args(["--backend", "opensearch://127.0.0.1:9/papers", "--threads", "2", "--queries"])
            .arg(&queries)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{command:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--threads"), "{}", stderr(&o));
    }
}
