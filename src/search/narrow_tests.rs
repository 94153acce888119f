//! The narrow BM25 path ([`super::lexical`]: the store's top-k and
//! scores-of calls) against the exhaustive one (every matching paper scored
//! with `bm25_all`, as the search did before: the retriever
//! [`Local::exhaustive`]), both ranked by the one [`rank`], on real SQLite
//! indexes: the results must be equal in every field (f64s compared
//! exactly) but the wall time, for many queries and parameter sets.

use std::io::Write;
use std::time::Instant;

use super::rank::{parsed, rank, search_in};
use super::request::WEIGHTED_DEFAULTS;
use super::retriever::Local;
use super::{GraphScore, RetrievalResult, SearchParams, SearchRequest, Weights};
use crate::graph::Direction;
use crate::ingest::{IngestOptions, Input, InputFormat, build};
use crate::store::Store;
use crate::synth::Generator;

/// Papers sharing one text, so that queries on its words tie at the cut.
const TIED: usize = 40;

/// A `gen` corpus of `papers` papers plus [`TIED`] identical ones citing
/// some of them, indexed into `dir`; and the generator's queries.
fn gen_index(dir: &std::path::Path, papers: u64, queries: usize) -> (Store, Vec<String>) {
    let corpus = dir.join("corpus.jsonl");
    let generator = Generator::new(7);
    let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus).unwrap());
    generator.write_corpus(papers, &mut out).unwrap();
    for i in 0..TIED {
        let refs: Vec<String> = (0..3).map(|j| crate::synth::paper_id((i * 37 + j * 11) as u64 % papers)).collect();
        let line = serde_json::json!({
            "id": format!("tied-{i:02}"),
            "title": "xyzzy plugh",
            "abstract": "xyzzy plugh frobnitz",
            "year": 2000 + (i % 3) as i32,
            "references": refs,
        });
        writeln!(out, "{line}").unwrap();
    }
    drop(out);
    let db = dir.join("gen.db");
    // `plain`, the analyzer this test was written for (the default before issue 22): its terms are the words.
    let opts = IngestOptions { analyzer: crate::analyzer::Analyzer::Plain, ..IngestOptions::default() };
    build(&db, &[Input::File { path: corpus, format: Some(InputFormat::Paper) }], &opts).unwrap();
    let mut queries = generator.queries(queries);
    queries.extend(["xyzzy plugh", "xyzzy", "frobnitz plugh xyzzy xyzzy"].map(String::from));
    if let Some(first) = queries.first().cloned() {
        queries.push(format!("xyzzy {first}"));
    }
    (Store::open(&db).unwrap(), queries)
}

/// The parameter sets compared: the default two-pass search, BM25 alone
/// 100 deep, the weighted graph score with its defaults, and a few edges.
fn param_sets() -> Vec<SearchParams> {
    let d = SearchParams::default();
    let w = WEIGHTED_DEFAULTS;
    vec![
        d,
        SearchParams { hops: 0, weights: Weights { bm25: 1.0, graph: 0.0, recency: 0.0 }, pool: 100, ..d },
        SearchParams { pool: 100, ..d },
        SearchParams {
            top_k: w.top_k,
            hops: w.hops,
            weights: w.weights,
            pool: w.pool.unwrap(),
            graph_score: GraphScore::Weighted,
            ..d
        },
        SearchParams { top_k: 1, hops: 1, direction: Direction::References, pool: 1, ..d },
        SearchParams { top_k: 0, pool: 0, ..d },
        SearchParams { top_k: 3, pool: 50, direction: Direction::Citations, ..d },
    ]
}

/// Searches every query with every parameter set both ways and asserts the
/// results equal; returns how many searches were compared and how many
/// found something.
fn compare(store: &Store, queries: &[String], limit: usize) -> (usize, usize) {
    let (mut compared, mut nonempty) = (0, 0);
    for params in param_sets() {
        for q in queries {
            let request = SearchRequest { limit: Some(limit), ..SearchRequest::new(q.as_str(), params) };
            let exhaustive = || -> anyhow::Result<RetrievalResult> {
                let parsed = parsed(&request)?;
                rank(&mut Local::exhaustive(store, &parsed, None)?, &parsed, &request.query, Instant::now())
            };
            let untimed = |r: anyhow::Result<RetrievalResult>| RetrievalResult { wall_time_ms: 0.0, ..r.unwrap() };
            let narrow = untimed(store.snapshot(|| search_in(store, &request, None)));
            let exhaustive = untimed(store.snapshot(exhaustive));
            assert_eq!(narrow, exhaustive, "query {q:?} with {params:?}");
            compared += 1;
            nonempty += usize::from(narrow.hit_count > 0);
        }
    }
    (compared, nonempty)
}

#[test]
fn narrow_scoring_ranks_a_gen_corpus_as_exhaustive_scoring_does() {
    let dir = tempfile::tempdir().unwrap();
    let (store, queries) = gen_index(dir.path(), 800, 12);
    let (compared, nonempty) = compare(&store, &queries, 20);
    assert_eq!(compared, param_sets().len() * queries.len());
    // Most searches find something (all but the top-k 0 set): the comparison is not of empty lists.
    assert!(nonempty >= compared * 3 / 4, "{nonempty} of {compared}");
    // The tied papers are tied at the cut: more of them than the seeds.
    let tied = store.bm25_top_k(&[("xyzzy".to_string(), 1)], 10).unwrap();
    assert_eq!(tied.len(), TIED);
}

#[test]
fn narrow_scoring_ranks_the_mock_corpus_as_exhaustive_scoring_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mock.db");
    build(&db, &[Input::Mock], &IngestOptions::default()).unwrap();
    let store = Store::open(&db).unwrap();
    let queries: Vec<String> = [
        "sparse attention",
        "attention",
        "retrieval augmented generation",
        "pruning heads",
        "long context",
        "graph neural networks",
        "no such word here",
        "",
        "attention attention sparse",
    ]
    .map(String::from)
    .to_vec();
    let (_, nonempty) = compare(&store, &queries, 1_000);
    assert!(nonempty > 0);
}
