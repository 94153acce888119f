//! Ranking behaviour on the built-in mock corpus, through the library; and
//! the defaults of a search through the binary (issue 22: the pool covers
//! what is shown, `--offset` pages on, `weighted` with citation links,
//! `hybrid` with vectors for the configured model).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use litindex::graph::Direction;
use litindex::search::{RetrievalResult, SearchParams, SearchRequest, Weights};
use litindex::store::Store;

use crate::common::{litindex, mock_store, run_in, stderr, stdout};

/// One of the five topics of `data/mock_corpus.json`.
#[derive(serde::Deserialize)]
struct MockTopic {
    query: String,
    /// The topic's usual content words.
    vocabulary: Vec<String>,
    /// The paper that shares none of that vocabulary but is linked to the
    /// topic by citations: only the graph pass can find it.
    gap_paper: String,
}

/// The mock corpus's topics, each with the ids of its papers.
fn mock_topics() -> Vec<(MockTopic, Vec<String>)> {
    #[derive(serde::Deserialize)]
    struct P {
        id: String,
        topic: usize,
    }
    #[derive(serde::Deserialize)]
    struct Corpus {
        topics: Vec<MockTopic>,
        papers: Vec<P>,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/mock_corpus.json");
    let c: Corpus = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    c.topics
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t, c.papers.iter().filter(|p| p.topic == i).map(|p| p.id.clone()).collect()))
        .collect()
}

/// A BM25-first search, every hit read.
fn search(store: &Store, query: &str, params: &SearchParams) -> anyhow::Result<RetrievalResult> {
    litindex::search::search(store, &SearchRequest::new(query, *params), None)
}

fn params(hops: u32) -> SearchParams {
    SearchParams { hops, ..SearchParams::default() }
}

#[test]
fn ranked_order_is_non_increasing_and_ids_are_unique() {
    let (_dir, store) = mock_store();
    for q in ["sparse attention", "retrieval augmented generation", "low-rank adapters", "benchmark", "model"] {
        let r = search(&store, q, &params(2)).unwrap();
        assert!(r.hit_count > 0, "{q}");
        assert_eq!(r.hit_count, r.ranked.len());
        for pair in r.ranked.windows(2) {
            assert!(pair[0].final_score >= pair[1].final_score, "{q}: not sorted");
            if pair[0].final_score == pair[1].final_score {
                assert!(pair[0].id < pair[1].id, "{q}: ties not by id");
            }
        }
        let ids: BTreeSet<&str> = r.ranked.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids.len(), r.ranked.len(), "{q}: duplicate ids");
    }
}

#[test]
fn top_hit_for_head_pruning_query_is_on_topic() {
    let (_dir, store) = mock_store();
    let (_, attention_ids) = &mock_topics()[0];
    let r = search(&store, "attention sparsity head pruning", &SearchParams::default()).unwrap();
    let top = &r.ranked[0];
    assert!(attention_ids.contains(&top.id), "top hit {} ({}) is off topic", top.id, top.title);
}

#[test]
fn more_hops_never_lose_hits() {
    let (_dir, store) = mock_store();
    for (topic, _) in mock_topics() {
        let h0: BTreeSet<String> =
            search(&store, &topic.query, &params(0)).unwrap().ranked.into_iter().map(|h| h.id).collect();
        let h1: BTreeSet<String> =
            search(&store, &topic.query, &params(1)).unwrap().ranked.into_iter().map(|h| h.id).collect();
        let h2: BTreeSet<String> =
            search(&store, &topic.query, &params(2)).unwrap().ranked.into_iter().map(|h| h.id).collect();
        assert!(h0.is_subset(&h1) && h1.is_subset(&h2), "{}", topic.query);
        assert!(h2.len() > h0.len(), "{}: the walk added nothing", topic.query);
    }
}

#[test]
fn empty_and_punctuation_queries_have_no_hits() {
    let (_dir, store) = mock_store();
    for q in ["", "   ", "?!.,", "zzzunknownterm"] {
        let r = search(&store, q, &SearchParams::default()).unwrap();
        assert_eq!(r.hit_count, 0, "{q:?}");
        assert!(r.ranked.is_empty());
        assert_eq!((r.top_score, r.average_score), (0.0, 0.0));
    }
}

#[test]
fn metrics_are_consistent_with_the_ranking() {
    let (_dir, store) = mock_store();
    let r = search(&store, "dataset distillation", &SearchParams::default()).unwrap();
    assert!(r.top_score >= r.average_score && r.average_score >= 0.0);
    assert_eq!(r.top_score, r.ranked[0].final_score);
    let mean = r.ranked.iter().map(|h| h.final_score).sum::<f64>() / r.ranked.len() as f64;
    assert!((mean - r.average_score).abs() < 1e-12);
    let w = Weights::default();
    let max_bm25 = r.ranked.iter().map(|h| h.bm25_score).fold(0.0, f64::max);
    for h in &r.ranked {
        assert!(h.graph_distance.is_some(), "core merge: every hit is a seed or reached");
        let expected = w.bm25 * h.bm25_score / max_bm25 + w.graph * h.graph_score + w.recency * h.recency_score;
        assert!((h.final_score - expected).abs() < 1e-12, "{}: final score is not the documented formula", h.id);
        assert!((0.0..=1.0).contains(&h.recency_score));
    }
}

#[test]
fn seeds_are_the_top_k_bm25_papers() {
    let (_dir, store) = mock_store();
    let k = 5;
    let r = search(&store, "sparse attention", &SearchParams { top_k: k, pool: k, hops: 0, ..SearchParams::default() })
        .unwrap();
    assert_eq!(r.hit_count, k);
    assert!(r.ranked.iter().all(|h| h.graph_distance == Some(0) && h.bm25_score > 0.0));
    // Every non-seed of the 2-hop result scores no higher in BM25 than the weakest seed.
    let weakest = r.ranked.iter().map(|h| h.bm25_score).fold(f64::INFINITY, f64::min);
    let wide =
        search(&store, "sparse attention", &SearchParams { top_k: k, pool: k, ..SearchParams::default() }).unwrap();
    for h in wide.ranked.iter().filter(|h| h.graph_distance != Some(0)) {
        assert!(h.bm25_score <= weakest, "{} outscores the seeds but is not one", h.id);
    }
}

#[test]
fn vocabulary_gap_paper_is_found_only_through_the_graph() {
    let (_dir, store) = mock_store();
    for (topic, _) in mock_topics() {
        let bm25_only = search(&store, &topic.query, &params(0)).unwrap();
        assert!(
            bm25_only.ranked.iter().all(|h| h.id != topic.gap_paper),
            "{}: BM25 alone finds the gap paper {}",
            topic.query,
            topic.gap_paper
        );
        let full = search(&store, &topic.query, &SearchParams::default()).unwrap();
        let hit = full.ranked.iter().find(|h| h.id == topic.gap_paper).unwrap_or_else(|| {
            panic!("{}: the graph pass does not find the gap paper {}", topic.query, topic.gap_paper)
        });
        assert_eq!(hit.bm25_score, 0.0, "{}: gap paper shares a query word", topic.query);
        assert!(matches!(hit.graph_distance, Some(1) | Some(2)));
    }
}

#[test]
fn direction_limits_the_walk() {
    let (_dir, store) = mock_store();
    let q = "sparse attention";
    let both = search(&store, q, &params(1)).unwrap();
    let refs =
        search(&store, q, &SearchParams { hops: 1, direction: Direction::References, ..SearchParams::default() })
            .unwrap();
    let cites =
        search(&store, q, &SearchParams { hops: 1, direction: Direction::Citations, ..SearchParams::default() })
            .unwrap();
    let ids = |r: &litindex::search::RetrievalResult| r.ranked.iter().map(|h| h.id.clone()).collect::<BTreeSet<_>>();
    let union: BTreeSet<String> = ids(&refs).union(&ids(&cites)).cloned().collect();
    assert_eq!(ids(&both), union);
}

#[test]
fn the_pool_adds_bm25_papers_the_walk_did_not_reach() {
    let (_dir, store) = mock_store();
    let q = "sparse attention";
    let narrow = search(&store, q, &SearchParams { hops: 0, ..SearchParams::default() }).unwrap();
    let wide = search(&store, q, &SearchParams { hops: 0, pool: 30, ..SearchParams::default() }).unwrap();
    assert_eq!(narrow.hit_count, 10);
    assert!(wide.hit_count > 10);
    let seeds: BTreeSet<&str> = narrow.ranked.iter().map(|h| h.id.as_str()).collect();
    for h in &wide.ranked {
        if seeds.contains(h.id.as_str()) {
            assert_eq!(h.graph_distance, Some(0));
        } else {
            assert_eq!(h.graph_distance, None, "{}: a pool paper is not reached at 0 hops", h.id);
            assert_eq!(h.graph_score, 0.0);
            assert!(h.bm25_score > 0.0);
        }
    }
}

#[test]
fn weighted_graph_score_rewards_evidence_from_several_seeds() {
    use litindex::search::GraphScore;
    let (_dir, store) = mock_store();
    let params = SearchParams { graph_score: GraphScore::Weighted, hops: 1, ..SearchParams::default() };
    let r = search(&store, "sparse attention", &params).unwrap();
    let max = r.ranked.iter().map(|h| h.graph_score).fold(0.0, f64::max);
    assert!((max - 1.0).abs() < 1e-12, "graph scores are normalised to a maximum of 1");
    for h in &r.ranked {
        assert!((0.0..=1.0).contains(&h.graph_score));
        if h.graph_distance.is_none() {
            assert_eq!(h.graph_score, 0.0);
        }
    }
    // The gap paper is cited by several seeds: its evidence beats a paper one seed reaches.
    let gap = r.ranked.iter().find(|h| h.id == "p005").expect("gap paper reached");
    assert!(gap.graph_score > 0.3, "{}", gap.graph_score);
}

#[test]
fn gap_papers_share_no_word_with_their_topic() {
    let (_dir, store) = mock_store();
    for (topic, ids) in mock_topics() {
        assert!(ids.contains(&topic.gap_paper), "{} is not in its topic", topic.gap_paper);
        let gap = store.paper(&topic.gap_paper).unwrap().unwrap();
        let words: BTreeSet<String> = litindex::analyzer::Analyzer::Plain
            .tokenize(&format!("{} {}", gap.title, gap.abstract_))
            .into_iter()
            .collect();
        let query = litindex::analyzer::Analyzer::Plain.tokenize(&topic.query);
        for w in topic.vocabulary.iter().chain(&query) {
            assert!(!words.contains(w), "gap paper {} contains `{w}`", gap.id);
        }
    }
}

// ---------------------------------------------------------------------------
// The defaults, through the binary
// ---------------------------------------------------------------------------

/// `litindex --db DB search ARGS… --format json` in `dir`, parsed, and its stderr.
fn cli_search(dir: &Path, db: &str, args: &[&str]) -> (Value, String) {
    let mut all = vec!["--db", db, "search"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let o = run_in(dir, &all);
    assert!(o.status.success(), "search {args:?} failed: {}", stderr(&o));
    (serde_json::from_str(&stdout(&o)).unwrap(), stderr(&o))
}

/// The ranking: ids with their final scores.
fn ranking(v: &Value) -> Vec<(String, f64)> {
    v["ranked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["id"].as_str().unwrap().to_string(), h["final_score"].as_f64().unwrap()))
        .collect()
}

fn cli_ids(v: &Value) -> Vec<String> {
    ranking(v).into_iter().map(|(id, _)| id).collect()
}

/// 45 papers without citation links, 30 of them about `alpha`, built by the binary.
fn unlinked(dir: &Path) {
    let lines: Vec<String> = (0..45)
        .map(|i| {
            let words = if i < 30 { format!("alpha {}", "beta ".repeat(i % 7)) } else { "gamma".to_string() };
            json!({"id": format!("u{i:02}"), "title": words, "abstract": "", "year": 1990 + i}).to_string()
        })
        .collect();
    std::fs::write(dir.join("u.jsonl"), lines.join("\n")).unwrap();
    let o = run_in(dir, &["--db", "u.db", "build", "-q", "--jsonl", "u.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The mock index, built by the binary (it holds citation links).
fn cli_mock(dir: &Path) {
    let o = run_in(dir, &["--db", "m.db", "build", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn the_pool_covers_the_limit_so_every_match_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    unlinked(dir.path());
    let (all, _) = cli_search(dir.path(), "u.db", &["alpha", "--limit", "100"]);
    assert_eq!(all["hit_count"], 30, "every paper that matches: {all}");
    assert_eq!(cli_ids(&all).len(), 30);
    // The old default (the pool of --top-k) listed only the ten seeds.
    let (old, _) = cli_search(dir.path(), "u.db", &["alpha", "--limit", "100", "--pool", "10"]);
    assert_eq!(old["hit_count"], 10);
    // A short page ranks the same pool (100): its hits are the long list's first.
    let (few, _) = cli_search(dir.path(), "u.db", &["alpha", "--limit", "3"]);
    assert_eq!(few["hit_count"], 30);
    assert_eq!(ranking(&few), ranking(&all)[..3]);
}

#[test]
fn offset_pages_on_through_one_long_page() {
    let dir = tempfile::tempdir().unwrap();
    unlinked(dir.path());
    cli_mock(dir.path());
    for (db, q) in [("u.db", "alpha beta"), ("m.db", "sparse attention"), ("m.db", "retrieval augmented generation")] {
        let (long, _) = cli_search(dir.path(), db, &[q, "--limit", "24"]);
        let long = ranking(&long);
        assert!(long.len() > 12, "{db} {q}: {}", long.len());
        let mut paged = Vec::new();
        for offset in ["0", "8", "16"] {
            let (page, _) = cli_search(dir.path(), db, &[q, "--limit", "8", "--offset", offset]);
            paged.extend(ranking(&page));
        }
        assert_eq!(paged, long, "{db} {q}: pages 1-3 of 8 are the long page of 24");
    }
    // Past the end: an empty page, the count still the whole merged set's.
    let (past, _) = cli_search(dir.path(), "u.db", &["alpha", "--limit", "10", "--offset", "100"]);
    assert!(cli_ids(&past).is_empty());
    assert_eq!(past["hit_count"], 30);
}

#[test]
fn weighted_is_the_default_with_citation_links_and_by_hops_without() {
    let dir = tempfile::tempdir().unwrap();
    unlinked(dir.path());
    cli_mock(dir.path());
    let mut differs = 0;
    for q in ["sparse attention", "retrieval augmented generation", "low-rank adapters"] {
        let (default, _) = cli_search(dir.path(), "m.db", &[q]);
        let (weighted, _) = cli_search(dir.path(), "m.db", &[q, "--graph-score", "weighted"]);
        let (by_hops, _) = cli_search(dir.path(), "m.db", &[q, "--graph-score", "by-hops"]);
        assert_eq!(ranking(&default), ranking(&weighted), "{q}");
        differs += usize::from(ranking(&default) != ranking(&by_hops));
    }
    assert!(differs > 0, "the two graph scores never differed on the mock corpus");
    let (default, _) = cli_search(dir.path(), "u.db", &["alpha beta"]);
    let (by_hops, _) = cli_search(dir.path(), "u.db", &["alpha beta", "--graph-score", "by-hops"]);
    let (weighted, _) = cli_search(dir.path(), "u.db", &["alpha beta", "--graph-score", "weighted"]);
    assert_eq!(ranking(&default), ranking(&by_hops));
    assert_ne!(ranking(&default), ranking(&weighted), "weighted's own weights differ");
}

#[test]
fn hybrid_is_the_default_with_vectors_for_the_configured_model_and_says_so() {
    use litindex::embed::MODEL_DIR_ENV;
    use litindex::embed::tiny::write_tiny_model;
    let dir = tempfile::tempdir().unwrap();
    unlinked(dir.path());
    let search = |args: &[&str], model: Option<&Path>| -> (Value, String) {
        let mut c = litindex();
        c.current_dir(dir.path()).args(["--db", "u.db", "search"]).args(args).args(["--format", "json"]);
        match model {
            Some(m) => c.env(MODEL_DIR_ENV, m),
            None => c.env_remove(MODEL_DIR_ENV),
        };
        let o = c.output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        (serde_json::from_str(&stdout(&o)).unwrap(), stderr(&o))
    };
    // No vectors: BM25, and nothing to say.
    let (v, err) = search(&["alpha"], None);
    assert_eq!((v["mode"].as_str(), err.as_str()), (Some("bm25"), ""));

    let model = dir.path().join("tiny");
    write_tiny_model(&model, 8, 1).unwrap();
    let o = litindex().current_dir(dir.path()).args(["--db", "u.db", "embed", "--model-dir"]).arg(&model).output();
    assert!(o.as_ref().unwrap().status.success(), "{}", stderr(o.as_ref().unwrap()));
    // Vectors for the recorded model: hybrid (minmax), with one note.
    let (v, err) = search(&["alpha"], None);
    assert_eq!(v["mode"], "hybrid", "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("first stage: hybrid (minmax)") && err.contains("--mode bm25"), "{err}");
    let (explicit, _) = search(&["alpha", "--mode", "hybrid", "--fusion", "minmax"], None);
    assert_eq!(ranking(&v), ranking(&explicit));
    // An explicit --mode bm25 says nothing.
    let (v, err) = search(&["alpha", "--mode", "bm25"], None);
    assert_eq!((v["mode"].as_str(), err.as_str()), (Some("bm25"), ""));
    // Another model configured: BM25, and the note says why.
    let other = dir.path().join("other");
    write_tiny_model(&other, 8, 2).unwrap();
    let (v, err) = search(&["alpha"], Some(&other));
    assert_eq!(v["mode"], "bm25", "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("first stage: bm25") && err.contains("fingerprint"), "{err}");
}
