//! The OpenSearch backend against a real node (`node.rs`): `export --format
//! opensearch --upload`, then `run` and `eval` with `--backend` give what the
//! local index gives, on SciFact and CACM with both analyzers. One node
//! serves every scenario, in sequence, in one test.

mod node;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use litindex::eval::{Metrics, Query, read_qrels, read_queries};
use serde_json::Value;

use crate::common::{litindex, scifact_english, shared_data, stderr, stdout};
use node::Node;

/// The retrieval settings compared: BM25 alone (the first stage's top
/// 100), the two-pass defaults, and the weighted graph score.
const CONFIGS: [(&str, &[&str]); 3] = [
    ("bm25 top 100", &["--hops", "0", "--weights", "1,0,0", "--pool", "100"]),
    ("two-pass defaults", &[]),
    ("two-pass weighted", &["--graph-score", "weighted"]),
];

/// Rankings of a `run --format jsonl`: query id → (doc id, final score), best first.
type Runs = BTreeMap<String, Vec<(String, f64)>>;

fn run(db: &Path, backend: Option<&str>, queries: &Path, flags: &[&str]) -> Runs {
    let mut c = litindex();
    c.arg("--db").arg(db).args(["run", "--format", "jsonl", "--limit", "100", "--queries"]).arg(queries).args(flags);
    if let Some(b) = backend {
        c.args(["--backend", b]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "run {flags:?} (backend {backend:?}): {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let ranked = v["ranked"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap()))
                .collect();
            (v["qid"].as_str().unwrap().to_string(), ranked)
        })
        .collect()
}

/// How two runs compare.
#[derive(Debug)]
struct Agreement {
    queries: usize,
    /// Queries whose ranked ids are the same, in the same order.
    same_ids: usize,
    /// The largest |a − b| / max(|a|, |b|) over the scores of the same rank.
    max_rel: f64,
}

fn compare(local: &Runs, remote: &Runs) -> Agreement {
    assert_eq!(local.keys().collect::<Vec<_>>(), remote.keys().collect::<Vec<_>>(), "the same queries");
    let mut a = Agreement { queries: local.len(), same_ids: 0, max_rel: 0.0 };
    for (qid, l) in local {
        let r = &remote[qid];
        if l.iter().map(|(id, _)| id).eq(r.iter().map(|(id, _)| id)) {
            a.same_ids += 1;
        }
        for ((_, x), (_, y)) in l.iter().zip(r) {
            let scale = x.abs().max(y.abs());
            if scale > 0.0 {
                a.max_rel = a.max_rel.max((x - y).abs() / scale);
            }
        }
    }
    a
}

/// Mean nDCG@10 and Recall@100 of `runs` over its judged queries.
fn metrics(runs: &Runs, qrels: &Path) -> (f64, f64) {
    let qrels = read_qrels(qrels).unwrap();
    let all: Vec<Metrics> = qrels
        .iter()
        .filter(|(qid, _)| runs.contains_key(*qid))
        .map(|(qid, judged)| {
            let ranked: Vec<String> =
                runs.get(qid).map(|r| r.iter().map(|(id, _)| id.clone()).collect()).unwrap_or_default();
            Metrics::of(&ranked, judged)
        })
        .collect();
    let m = Metrics::mean(&all);
    (m.ndcg10, m.recall100)
}

/// A collection: its index built by the real binary, its (judged) queries and qrels.
struct Collection {
    name: &'static str,
    db: PathBuf,
    queries: PathBuf,
    qrels: PathBuf,
}

fn build(dir: &Path, name: &'static str, analyzer: &str) -> Option<Collection> {
    let data = shared_data(name)?;
    // SciFact english is the binary's shared index (read only here).
    let shared = if (name, analyzer) == ("scifact", "english") { scifact_english() } else { None };
    let db = shared.map_or_else(|| dir.join(format!("{name}-{analyzer}.db")), |(db, _)| db.to_path_buf());
    let mut c = litindex();
    c.arg("--db").arg(&db).args(["ingest", "-q", "--analyzer", analyzer]);
    let (queries, qrels) = if name == "scifact" {
        c.arg(data.join("corpus.jsonl.gz"));
        // Every second of the 300 judged test queries (the file also holds
        // train's): 150 queries keep the scenario to minutes on a busy CI.
        let qrels = data.join("qrels/test.tsv");
        let judged: HashSet<String> = read_qrels(&qrels).unwrap().into_keys().step_by(2).collect();
        let lines: Vec<String> = read_queries(&data.join("queries.jsonl"))
            .unwrap()
            .into_iter()
            .filter(|q| judged.contains(&q.id))
            .map(|q| serde_json::json!({"_id": q.id, "text": q.text}).to_string())
            .collect();
        let path = dir.join("scifact-test-queries.jsonl");
        std::fs::write(&path, lines.join("\n")).unwrap();
        (path, qrels)
    } else {
        c.arg(data.join("papers.jsonl")).arg(data.join("citations_directed.tsv"));
        (data.join("queries.jsonl"), data.join("qrels.tsv"))
    };
    if shared.is_none() {
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    Some(Collection { name, db, queries, qrels })
}

/// `export --format opensearch --upload`: the line it prints about the load.
fn export_and_load(c: &Collection, index: &str, node: &Node, dir: &Path) -> String {
    let out = litindex()
        .arg("--db")
        .arg(&c.db)
        .args(["export", "--format", "opensearch", "--index", index, "--upload", &node.host(), "-o"])
        .arg(dir.join(index))
        .output()
        .unwrap();
    assert!(out.status.success(), "export {index}: {}", stderr(&out));
    let text = stdout(&out);
    text.lines().find(|l| l.starts_with("loaded ")).expect("a load line").to_string()
}

#[test]
fn opensearch_backend_agrees_with_the_local_index() {
    let Some(node) = Node::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, analyzer) in [("cacm", "plain"), ("cacm", "english"), ("scifact", "plain"), ("scifact", "english")] {
        let Some(c) = build(dir.path(), name, analyzer) else { return };
        let index = format!("{name}-{analyzer}");
        let loaded = export_and_load(&c, &index, &node, dir.path());
        eprintln!("{index}: {loaded}");
        let backend = format!("opensearch://{}/{index}", node.host());
        for (label, flags) in CONFIGS {
            if c.name == "scifact" && label == "two-pass weighted" {
                continue; // SciFact has no citations: the walk adds nothing to compare
            }
            let local = run(&c.db, None, &c.queries, flags);
            let remote = run(&c.db, Some(&backend), &c.queries, flags);
            let a = compare(&local, &remote);
            let (lm, rm) = (metrics(&local, &c.qrels), metrics(&remote, &c.qrels));
            eprintln!(
                "{index} {label}: {}/{} queries with the same ranked ids, max relative score difference {:.2e}; \
                 nDCG@10 {:.4} / {:.4}, Recall@100 {:.4} / {:.4} (local / opensearch)",
                a.same_ids, a.queries, a.max_rel, lm.0, rm.0, lm.1, rm.1
            );
            assert_eq!(a.same_ids, a.queries, "{index} {label}: every query ranks the same ids");
            assert!(a.max_rel <= 1e-4, "{index} {label}: scores within 1e-4 relative, got {:.3e}", a.max_rel);
            assert_eq!(format!("{:.4} {:.4}", lm.0, lm.1), format!("{:.4} {:.4}", rm.0, rm.1), "{index} {label}");
            if label == "bm25 top 100" {
                // Measured, not asserted: Lucene's own scores (norms rounded to one byte).
                let mut lucene_flags = flags.to_vec();
                lucene_flags.extend(["--backend-scores", "lucene"]);
                let lucene = run(&c.db, Some(&backend), &c.queries, &lucene_flags);
                let l = compare(&local, &lucene);
                let m = metrics(&lucene, &c.qrels);
                eprintln!(
                    "{index} {label} with --backend-scores lucene: {}/{} queries with the same ranked ids, \
                     max relative score difference {:.2e}; nDCG@10 {:.4}, Recall@100 {:.4}",
                    l.same_ids, l.queries, l.max_rel, m.0, m.1
                );
            }
        }
    }
    check_search_hits(&node, dir.path());
    check_eval_and_errors(&node, dir.path());
}

/// A `search` through the backend gives the local index's hits, every
/// field (titles, references, the evidence snippets and their spans) equal
/// and every score within 1e-4 relative, from the first hit and past an
/// offset, the summary numbers too: the two run one ranking.
fn check_search_hits(node: &Node, dir: &Path) {
    for name in ["cacm", "scifact"] {
        let index = format!("{name}-english");
        // SciFact english is the binary's shared index (see `build`).
        let db = match name {
            "scifact" => scifact_english().expect("built above").0.to_path_buf(),
            _ => dir.join(format!("{index}.db")),
        };
        let store = litindex::store::Store::open(&db).unwrap();
        let target = format!("opensearch://{}/{index}", node.host()).parse().unwrap();
        let backend = litindex::opensearch::Backend::open(&target, std::time::Duration::from_secs(60)).unwrap();
        let queries = read_queries(&shared_data(name).unwrap().join("queries.jsonl")).unwrap();
        let (snippets, cites) = compare_searches(&store, &backend, &queries[..12]);
        assert!(snippets > 20, "{index}: the hits compared have snippets: {snippets}");
        // CACM has its citation graph: the references compared are not all empty.
        assert!(name != "cacm" || cites > 20, "{index}: the hits compared cite papers: {cites}");
    }
}

/// Asserts the local and remote searches of `queries` agree (see
/// [`check_search_hits`]), every part of a hit asked for (its references
/// too); returns how many hits had a snippet and how many cited a paper.
fn compare_searches(
    store: &litindex::store::Store,
    backend: &litindex::opensearch::Backend,
    queries: &[Query],
) -> (usize, usize) {
    use litindex::search::{GraphScore, HitParts, SearchParams, SearchRequest};
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-4 * x.abs().max(y.abs());
    let (mut snippets, mut cites) = (0, 0);
    for q in queries {
        for graph_score in [GraphScore::ByHops, GraphScore::Weighted] {
            for offset in [0, 7] {
                let params = SearchParams { graph_score, ..SearchParams::default() };
                let request = SearchRequest {
                    limit: Some(10),
                    offset,
                    parts: HitParts::Full,
                    ..SearchRequest::new(q.text.as_str(), params)
                };
                let local = litindex::search::search(store, &request, None).unwrap();
                let remote = backend.search(&request).unwrap();
                let what = format!("{:?} {graph_score:?} offset {offset}", q.id);
                assert_eq!(local.hit_count, remote.hit_count, "{what}");
                assert!(close(local.top_score, remote.top_score), "{what}");
                assert!(close(local.average_score, remote.average_score), "{what}");
                assert_eq!(local.ranked.len(), remote.ranked.len(), "{what}");
                for (l, r) in local.ranked.iter().zip(&remote.ranked) {
                    assert_eq!(
                        (&l.id, &l.title, &l.authors, &l.venue, l.year, &l.references, l.graph_distance),
                        (&r.id, &r.title, &r.authors, &r.venue, r.year, &r.references, r.graph_distance),
                        "{what}"
                    );
                    assert_eq!((&l.snippet, &l.snippet_spans), (&r.snippet, &r.snippet_spans), "{what}: {}", l.id);
                    for (x, y) in
                        [(l.bm25_score, r.bm25_score), (l.graph_score, r.graph_score), (l.final_score, r.final_score)]
                    {
                        assert!(close(x, y), "{what}: {} {x} != {y}", l.id);
                    }
                    snippets += usize::from(!l.snippet.is_empty());
                    cites += usize::from(!l.references.is_empty());
                }
            }
        }
    }
    (snippets, cites)
}

/// `eval --backend` prints the local figures; bad backends fail with a clear line.
fn check_eval_and_errors(node: &Node, dir: &Path) {
    let db = dir.join("cacm-plain.db");
    let data = shared_data("cacm").unwrap();
    let eval = |backend: Option<&str>| {
        let mut c = litindex();
        c.arg("--db").arg(&db).args(["eval", "--format", "json", "--queries"]).arg(data.join("queries.jsonl"));
        c.arg("--qrels").arg(data.join("qrels.tsv"));
        if let Some(b) = backend {
            c.args(["--backend", b]);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        ["ndcg@10", "recall@100", "mrr@10", "map@100"].map(|k| v[k].as_f64().unwrap())
    };
    assert_eq!(eval(None), eval(Some(&format!("opensearch://{}/cacm-plain", node.host()))));

    let search = |backend: &str| litindex().args(["search", "anything", "--backend", backend]).output().unwrap();
    let out = search(&format!("opensearch://{}/no-such-index", node.host()));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("HTTP 404") && err.contains("no such index [no-such-index]"), "{err}");

    let out = search(&format!("opensearch://127.0.0.1:{}/cacm-plain", node::free_port()));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("connection refused"), "{}", stderr(&out));

    let out = search("http://localhost:9200/x");
    assert_eq!(out.status.code(), Some(2), "a bad --backend is a usage error: {}", stderr(&out));

    // An index whose similarity does not match its _meta: refused, naming the setting.
    let mut definition: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cacm-plain/index.json")).unwrap()).unwrap();
    definition["settings"]["index"]["similarity"]["litindex_bm25"]["k1"] = serde_json::json!(0.9);
    let client = litindex::opensearch::Client::new(&node.host(), std::time::Duration::from_secs(30));
    client.json("PUT", "/mismatched", &definition).unwrap();
    let out = search(&format!("opensearch://{}/mismatched", node.host()));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("does not match litindex's scoring") && err.contains("similarity k1 is Some(0.9)"), "{err}");
    // Refused before any request: a filter the backend does not do.
    let out = search_with(&format!("opensearch://{}/cacm-plain", node.host()), "program year:1970..");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is not supported with --backend"), "{}", stderr(&out));
}

fn search_with(backend: &str, query: &str) -> std::process::Output {
    litindex().args(["search", query, "--backend", backend]).output().unwrap()
}

#[test]
fn opensearch_export_writes_a_definition_and_bulk_files_split_by_size() {
    let Some(data) = shared_data("cacm") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cacm.db");
    let out = litindex()
        .arg("--db")
        .arg(&db)
        .args(["ingest", "-q"])
        .arg(data.join("papers.jsonl"))
        .arg(data.join("citations_directed.tsv"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let export = |args: &[&str]| {
        litindex().arg("--db").arg(&db).args(["export", "--format", "opensearch"]).args(args).output().unwrap()
    };
    let target = dir.path().join("os");
    let out = export(&["--index", "cacm", "--bulk-mib", "1", "-o", target.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(target.join("manifest.json")).unwrap()).unwrap();
    let files: Vec<&str> = manifest["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(files.len() >= 2, "CACM (~3 MB) in 1 MiB files: {files:?}");
    let (mut docs, mut cites) = (0, 0);
    let mut refs_total = 0;
    for f in &files {
        let text = std::fs::read_to_string(target.join(f)).unwrap();
        assert!(text.len() <= 1024 * 1024, "{f} is {} bytes", text.len());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len() % 2, 0);
        for pair in lines.chunks(2) {
            let action: Value = serde_json::from_str(pair[0]).unwrap();
            let doc: Value = serde_json::from_str(pair[1]).unwrap();
            assert_eq!(action["index"]["_index"], "cacm");
            assert_eq!(action["index"]["_id"], doc["id"]);
            assert_eq!(
                doc["text"].as_str().unwrap(),
                format!("{} {}", doc["title"].as_str().unwrap(), doc["abstract"].as_str().unwrap())
            );
            refs_total += doc["references"].as_array().unwrap().len();
            cites += doc["cited_by"].as_array().unwrap().len();
            docs += 1;
        }
    }
    let stats: Value = serde_json::from_str(&stdout(
        &litindex().arg("--db").arg(&db).args(["stats", "--format", "json"]).output().unwrap(),
    ))
    .unwrap();
    assert_eq!(docs, manifest["papers"].as_u64().unwrap());
    assert_eq!(Some(docs), stats["papers"].as_u64(), "{stats}");
    assert!(refs_total > 0 && cites > 0, "the citation graph is exported");
    let definition: Value = serde_json::from_str(&std::fs::read_to_string(target.join("index.json")).unwrap()).unwrap();
    assert_eq!(definition["mappings"]["_meta"]["litindex"]["num_docs"].as_u64(), Some(docs));
    // A second export into the same directory is refused; no -o is a usage error.
    let out = export(&["-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is not empty"), "{}", stderr(&out));
    let out = export(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
