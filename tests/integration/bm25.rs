//! BM25 pinned against numbers worked out here, not by the crate's own
//! `idf`/`tf_norm`/tokenizer: a small index built by the real binary with
//! k1 = 1.2 and b = 0.6, documents of different lengths (none of the average
//! length), N = 5, and a query that repeats a term.

use std::collections::BTreeMap;
use std::fs;

use crate::reliability::{cmd, json, ok};

/// id, title, abstract. Indexed text is `title + " " + abstract`, analyzer
/// `plain`; the tokens, by hand:
/// d1 `sparse attention sparse sparse routing of attention heads` (dl 8),
/// d2 `dense attention` (2), d3 `routing tables graph routing for citation
/// networks and sparse graphs` (10), d4 `unrelated paper nothing to see here`
/// (6), d5 `sparse sparse sparse` (3). avgdl = 29 / 5 = 5.8.
const DOCS: [(&str, &str, &str); 5] = [
    ("d1", "Sparse attention", "sparse sparse routing of attention heads"),
    ("d2", "Dense attention", ""),
    ("d3", "Routing tables", "Graph routing for citation networks and sparse graphs."),
    ("d4", "Unrelated paper", "Nothing to see here."),
    ("d5", "Sparse", "Sparse-sparse."),
];
const K1: f64 = 1.2;
const B: f64 = 0.6;
const N: f64 = 5.0;
const AVGDL: f64 = 5.8;

/// Okapi BM25 of one term in one document, written out: idf(df) · tf_norm(f, dl).
fn term_score(df: f64, f: f64, dl: f64) -> f64 {
    let idf = ((N - df + 0.5) / (df + 0.5) + 1.0).ln();
    idf * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * dl / AVGDL))
}

/// A hit: id, its score by the formula above, and the same to 16 digits from
/// an independent Python computation.
type Expected = (&'static str, f64, f64);

/// (query, its hits, best first); d4 and the other zero scores are no hits.
fn expected() -> Vec<(&'static str, Vec<Expected>)> {
    // df: sparse 3 (d1, d3, d5), attention 2 (d1, d2), routing 2 (d1, d3).
    // "sparse attention sparse": sparse counts twice.
    let sa = |f_sparse: f64, f_attention: f64, dl: f64| {
        let sparse = if f_sparse > 0.0 { 2.0 * term_score(3.0, f_sparse, dl) } else { 0.0 };
        let attention = if f_attention > 0.0 { term_score(2.0, f_attention, dl) } else { 0.0 };
        sparse + attention
    };
    vec![
        (
            "sparse attention sparse",
            vec![
                ("d1", sa(3.0, 2.0, 8.0), 2.699675715649935),
                ("d5", sa(3.0, 0.0, 3.0), 1.8468301152924513),
                ("d2", sa(0.0, 1.0, 2.0), 1.1144234924816203),
                ("d3", sa(1.0, 0.0, 10.0), 0.8714641851684095),
            ],
        ),
        (
            "routing",
            vec![
                ("d3", term_score(2.0, 2.0, 10.0), 1.0351168540248112),
                ("d1", term_score(2.0, 1.0, 8.0), 0.7787912080755552),
            ],
        ),
    ]
}

#[test]
fn bm25_scores_match_numbers_computed_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.jsonl");
    let lines: Vec<String> = DOCS
        .iter()
        .map(|(id, title, abstract_)| serde_json::json!({"id": id, "title": title, "abstract": abstract_}).to_string())
        .collect();
    fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let db = dir.path().join("bm25.db");
    // `plain` (the default before issue 22): the hand-computed figures are over plain words.
    let build = ["build", "--analyzer", "plain", "--jsonl", corpus.to_str().unwrap(), "--k1", "1.2", "--b", "0.6"];
    ok(&cmd(&db, &build).output().unwrap());
    let stats = json(&cmd(&db, &["stats", "--format", "json"]).output().unwrap());
    assert_eq!((stats["papers"].as_u64(), stats["k1"].as_f64(), stats["b"].as_f64()), (Some(5), Some(K1), Some(B)));
    assert!((stats["avgdl"].as_f64().unwrap() - AVGDL).abs() < 1e-12, "{stats}");

    for (query, want) in expected() {
        let v = json(
            &cmd(&db, &["search", query, "--format", "json", "--hops", "0", "--weights", "1,0,0"]).output().unwrap(),
        );
        let got: Vec<(String, f64)> = v["ranked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["id"].as_str().unwrap().to_string(), h["bm25_score"].as_f64().unwrap()))
            .collect();
        let ids: Vec<&str> = got.iter().map(|(id, _)| id.as_str()).collect();
        let want_ids: Vec<&str> = want.iter().map(|(id, _, _)| *id).collect();
        assert_eq!(ids, want_ids, "{query:?}: the hits, best first");
        let got: BTreeMap<String, f64> = got.into_iter().collect();
        for (id, formula, constant) in want {
            assert!((formula - constant).abs() < 1e-12, "{query:?} {id}: formula {formula} vs constant {constant}");
            let score = got[id];
            assert!((score - constant).abs() < 1e-9, "{query:?} {id}: litindex {score}, by hand {constant}");
        }
    }
}
