//! `related`: Salton's cosine of co-citation and coupling against a brute
//! force on random graphs, and the explained fields of the real binary.

use std::collections::{BTreeMap, BTreeSet};

use litindex::bm25::Bm25;
use litindex::explore::{Method, related};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::{Paper, build_papers, litindex, stderr, stdout};

const NODES: usize = 14;

fn node(i: usize) -> String {
    format!("n{i:02}")
}

#[derive(Debug, Clone)]
struct Graph {
    papers: usize,
    edges: Vec<(usize, usize)>,
    seeds: Vec<usize>,
}

fn graph() -> impl Strategy<Value = Graph> {
    (3usize..NODES, prop::collection::vec((0..NODES, 0..NODES), 0..70), prop::collection::vec(0..NODES, 1..4)).prop_map(
        |(papers, edges, seeds)| {
            let seeds = seeds.into_iter().map(|s| s % papers).collect();
            Graph { papers, edges, seeds }
        },
    )
}

impl Graph {
    /// The stored edges: an end must be a paper (edges come from paper
    /// records), no self-loops, no repeats.
    fn edges(&self) -> BTreeSet<(String, String)> {
        self.edges
            .iter()
            .filter(|(a, b)| a != b && (*a < self.papers || *b < self.papers))
            .map(|&(a, b)| (node(a), node(b)))
            .collect()
    }

    fn papers(&self) -> Vec<Paper> {
        let mut papers: Vec<Paper> =
            (0..self.papers).map(|i| Paper { id: node(i), title: format!("paper {i}"), ..Paper::default() }).collect();
        for &(a, b) in &self.edges {
            if a < self.papers {
                papers[a].references.push(node(b));
            } else if b < self.papers {
                papers[b].citations.push(node(a));
            }
        }
        papers
    }
}

/// Salton's cosine written out over the edge list: for every paper `c` not
/// a seed, `|N(S) ∩ N(c)| / sqrt(|N(S)|·|N(c)|)` with `N` the citers
/// (co-citation) or the references (coupling); only positive scores, with
/// the shared ids.
fn brute_force(g: &Graph, method: Method) -> BTreeMap<String, (f64, Vec<String>)> {
    let edges = g.edges();
    let neighbours = |x: &str| -> BTreeSet<String> {
        edges
            .iter()
            .filter_map(|(a, b)| match method {
                Method::Cocitation => (b == x).then(|| a.clone()),
                _ => (a == x).then(|| b.clone()),
            })
            .collect()
    };
    let seeds: BTreeSet<String> = g.seeds.iter().map(|&s| node(s)).collect();
    let of_seeds: BTreeSet<String> = seeds.iter().flat_map(|s| neighbours(s)).collect();
    let mut out = BTreeMap::new();
    for c in (0..g.papers).map(node).filter(|c| !seeds.contains(c)) {
        let own = neighbours(&c);
        let shared: Vec<String> = of_seeds.intersection(&own).cloned().collect();
        if !shared.is_empty() {
            let score = shared.len() as f64 / ((of_seeds.len() * own.len()) as f64).sqrt();
            out.insert(c, (score, shared));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The stored computation (two hops out of the seeds through the edge
    /// indexes) gives the brute force's scores and shared ids, best first.
    #[test]
    fn cocitation_and_coupling_equal_brute_force(g in graph()) {
        let dir = tempfile::tempdir().unwrap();
        let store = build_papers(&dir.path().join("g.db"), &g.papers(), Bm25::default());
        let mut seeds: Vec<String> = g.seeds.iter().map(|&s| node(s)).collect();
        seeds.dedup();
        for method in [Method::Cocitation, Method::Coupling] {
            let expected = brute_force(&g, method);
            let got = related(&store, &seeds, method, 1000).unwrap();
            prop_assert_eq!(got.related.len(), expected.len(), "{:?}", method);
            let mut previous = f64::INFINITY;
            for r in &got.related {
                let (score, shared) = &expected[&r.id];
                prop_assert!((r.score - score).abs() < 1e-12, "{:?} {}: {} vs {}", method, r.id, r.score, score);
                prop_assert!(r.score <= previous);
                previous = r.score;
                let (count, sample) = match method {
                    Method::Cocitation => (r.shared_citers, &r.shared_citers_sample),
                    _ => (r.shared_references, &r.shared_references_sample),
                };
                prop_assert_eq!(count, shared.len());
                prop_assert_eq!(sample, &shared.iter().take(5).cloned().collect::<Vec<_>>());
            }
        }
    }
}

fn paper(id: &str, title: &str, abstract_: &str, references: &[&str]) -> Paper {
    Paper {
        id: id.into(),
        title: title.into(),
        abstract_: abstract_.into(),
        references: references.iter().map(|r| r.to_string()).collect(),
        ..Paper::default()
    }
}

/// A seed with an arXiv id, two papers cited with it, one citing what it cites.
fn small_index(dir: &std::path::Path) -> std::path::PathBuf {
    let papers = [
        paper("2101.00001", "Sparse attention for long documents", "Sparse attention scales.", &["r1", "r2"]),
        paper("t", "Attention with sparse patterns", "Sparse attention patterns.", &[]),
        paper("u", "Unrelated graph theory", "Graphs and colourings.", &["r2"]),
        paper("v", "Another survey", "A survey of surveys.", &["r1", "r2"]),
        paper("c1", "Citer one", "", &["2101.00001", "t", "u"]),
        paper("c2", "Citer two", "", &["2101.00001", "t"]),
    ];
    let path = dir.join("small.db");
    build_papers(&path, &papers, Bm25::default());
    path
}

/// Runs `litindex --db DB COMMAND ARGS --format json` and parses its output.
pub(crate) fn json_of(db: &std::path::Path, command: &str, args: &[&str]) -> Value {
    let out = litindex().arg("--db").arg(db).arg(command).args(args).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn related_json(db: &std::path::Path, args: &[&str]) -> Value {
    json_of(db, "related", args)
}

fn by_id(v: &Value) -> BTreeMap<String, Value> {
    v["related"].as_array().unwrap().iter().map(|r| (r["id"].as_str().unwrap().to_string(), r.clone())).collect()
}

#[test]
fn related_explains_shared_citers_references_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_index(dir.path());
    // The seed named by another spelling of its arXiv id.
    let v = related_json(&db, &["arXiv:2101.00001v2", "--method", "cocitation"]);
    assert_eq!(v["seeds"], serde_json::json!(["2101.00001"]));
    let r = by_id(&v);
    assert_eq!(r.keys().collect::<Vec<_>>(), ["t", "u"]);
    assert_eq!(v["related"][0]["id"], "t", "t is cited with the seed by both citers");
    assert!((r["t"]["cocitation"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((r["u"]["cocitation"].as_f64().unwrap() - 0.5f64.sqrt()).abs() < 1e-12);
    assert_eq!(r["t"]["shared_citers"], 2);
    assert_eq!(r["t"]["shared_citers_sample"], serde_json::json!(["c1", "c2"]));

    let v = related_json(&db, &["2101.00001", "--method", "coupling"]);
    let r = by_id(&v);
    assert_eq!(v["related"][0]["id"], "v");
    assert!((r["v"]["coupling"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((r["u"]["coupling"].as_f64().unwrap() - 0.5f64.sqrt()).abs() < 1e-12);
    assert_eq!(r["u"]["shared_references_sample"], serde_json::json!(["r2"]));

    // Text: t shares "sparse attention"; its score is its BM25 over the max.
    let v = related_json(&db, &["2101.00001", "--method", "text"]);
    assert_eq!(v["related"][0]["id"], "t");
    assert_eq!(v["related"][0]["text_norm"], 1.0);
    assert!(v["terms"].as_array().unwrap().iter().any(|t| t == "sparse"));

    // Both: the sum of the three parts, and t first.
    let v = related_json(&db, &["2101.00001"]);
    assert_eq!(v["method"], "both");
    for r in v["related"].as_array().unwrap() {
        let parts = ["cocitation", "coupling", "text_norm"].map(|k| r[k].as_f64().unwrap()).iter().sum::<f64>();
        assert!((r["score"].as_f64().unwrap() - parts).abs() < 1e-12, "{r}");
    }
    assert_eq!(v["related"][0]["id"], "t");
    assert_eq!(related_json(&db, &["2101.00001", "--limit", "1"])["related"].as_array().unwrap().len(), 1);

    // The table explains the same.
    let out = litindex().arg("--db").arg(&db).args(["related", "2101.00001"]).output().unwrap();
    let table = stdout(&out);
    assert!(table.contains("cited with it by 2: c1, c2"), "{table}");
    assert!(table.contains("both cite 2: r1, r2"), "{table}");
}

#[test]
fn related_rejects_unknown_ids_and_bad_limits() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_index(dir.path());
    let out = litindex().arg("--db").arg(&db).args(["related", "t", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("unknown paper id `nosuch`"), "{}", stderr(&out));
    for bad in [["--limit", "0"], ["--method", "magic"]] {
        let out = litindex().arg("--db").arg(&db).args(["related", "t"]).args(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
    }
}

/// With stored vectors, `text` adds their cosine with the seed's vector
/// (no model needed at query time): checked against the model's own vectors.
#[test]
fn related_text_uses_stored_vectors_when_there_are_any() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_index(dir.path());
    let model = dir.path().join("tiny-model");
    litindex::embed::tiny::write_tiny_model(&model, 16, 7).unwrap();
    let out = litindex().arg("--db").arg(&db).args(["embed", "-q", "--model-dir"]).arg(&model).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let v = related_json(&db, &["2101.00001", "--method", "text", "--limit", "100"]);
    assert!(v["vectors"].is_string(), "{v}");
    let embedder = litindex::embed::Embedder::load(&model).unwrap();
    let store = litindex::store::Store::open(&db).unwrap();
    let vector_of = |id: &str| {
        let p = store.paper(id).unwrap().unwrap();
        embedder.embed_one(&litindex::embed::vectors::doc_text(&p.title, &p.abstract_)).unwrap()
    };
    let seed = vector_of("2101.00001");
    let rows = v["related"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 5, "{v}");
    let max_text = rows.iter().map(|r| r["text_score"].as_f64().unwrap()).fold(0.0, f64::max);
    for r in rows {
        let id = r["id"].as_str().unwrap();
        let expected = litindex::embed::model::cosine(&seed, &vector_of(id));
        let cosine = r["cosine"].as_f64().unwrap();
        assert!((cosine - expected).abs() < 1e-4, "{id}: cosine {cosine} vs {expected}");
        let text_norm = (r["text_score"].as_f64().unwrap() / max_text + cosine.max(0.0)) / 2.0;
        assert!((r["text_norm"].as_f64().unwrap() - text_norm).abs() < 1e-9, "{r}");
        assert_eq!(r["score"], r["text_norm"]);
    }
}

/// `related --method text|both` scores by BM25 only the papers that can
/// make its first `limit` (the best `limit + seeds` and the graph
/// candidates): its first `limit` rows equal the first `limit` of an
/// unlimited call, which scores every matching paper, field for field.
#[test]
fn related_text_top_rows_equal_those_of_an_unlimited_call() {
    use litindex::ingest::{IngestOptions, Input, InputFormat, build};
    use litindex::store::Store;
    use litindex::synth::{Generator, paper_id};
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("gen.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus).unwrap());
    Generator::new(3).write_corpus(1_500, &mut out).unwrap();
    out.flush().unwrap();
    drop(out);
    let db = dir.path().join("gen.db");
    let input = Input::File { path: corpus, format: Some(InputFormat::Paper) };
    build(&db, &[input], &IngestOptions::default()).unwrap();
    let compare = |db: &std::path::Path| {
        let store = Store::open(db).unwrap();
        let mut compared = 0;
        for seeds in [vec![7], vec![900], vec![1_000], vec![20, 21], vec![300, 301, 1_200]] {
            let seeds: Vec<String> = seeds.into_iter().map(paper_id).collect();
            for method in [Method::Text, Method::Both] {
                let all = related(&store, &seeds, method, usize::MAX).unwrap();
                assert!(all.related.len() > 50, "{seeds:?} {method:?}: {} rows", all.related.len());
                for limit in [1, 3, 10, 50] {
                    let top = related(&store, &seeds, method, limit).unwrap();
                    assert_eq!(top.related, all.related[..limit], "{seeds:?} {method:?} limit {limit}");
                    assert_eq!((&top.terms, &top.seeds, &top.vectors), (&all.terms, &all.seeds, &all.vectors));
                    compared += 1;
                }
            }
        }
        compared
    };
    assert_eq!(compare(&db), 40);
    // With vectors: an unlimited call scores every paper with its f32
    // vector; a limited one estimates most from their int8 codes and
    // rescores only those that could make its first `limit`. The rows are
    // the same, cosines and scores to the bit.
    let model = dir.path().join("tiny-model");
    litindex::embed::tiny::write_tiny_model(&model, 16, 7).unwrap();
    let out = litindex().arg("--db").arg(&db).args(["embed", "-q", "--model-dir"]).arg(&model).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(compare(&db), 40);
}
