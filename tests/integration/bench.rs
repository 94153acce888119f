//! `litindex gen` and `litindex bench` on a tiny corpus: the generator is
//! deterministic and has the promised shape, and the benchmark runs and
//! prints every figure (no timing is asserted).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{run_in, stderr, stdout};

/// Runs `gen` in `dir`, returning the corpus bytes and the query file's text.
fn generate(dir: &Path, seed: &str, corpus: &str, queries: &str) -> (Vec<u8>, String) {
    let out = run_in(dir, &["gen", "--papers", "300", "--seed", seed, "--queries", queries, "--num-queries", "30"]);
    assert!(out.status.success(), "gen failed: {}", stderr(&out));
    fs::write(dir.join(corpus), &out.stdout).unwrap();
    (out.stdout, fs::read_to_string(dir.join(queries)).unwrap())
}

#[test]
fn gen_is_deterministic_and_realistic_and_bench_reports_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    let (a, qa) = generate(dir.path(), "7", "c.jsonl", "q.txt");
    let (b, qb) = generate(dir.path(), "7", "c2.jsonl", "q2.txt");
    assert_eq!(a, b, "same seed, same corpus");
    assert_eq!(qa, qb, "same seed, same queries");
    let (c, qc) = generate(dir.path(), "8", "c3.jsonl", "q3.txt");
    assert_ne!(a, c, "another seed, another corpus");
    assert_ne!(qa, qc, "another seed, other queries");

    // The corpus: 300 papers, ids in order, citations only to earlier papers.
    let text = String::from_utf8(a).unwrap();
    let papers: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(papers.len(), 300);
    let index: HashMap<&str, usize> = papers.iter().enumerate().map(|(i, p)| (p["id"].as_str().unwrap(), i)).collect();
    assert_eq!(papers[0]["id"], "g0000001");
    let mut refs = 0usize;
    let mut tokens = 0usize;
    let mut last_year = 0;
    for (i, p) in papers.iter().enumerate() {
        let title_words = p["title"].as_str().unwrap().split_whitespace().count();
        assert!((6..=15).contains(&title_words), "title of {} words: {}", title_words, p["title"]);
        tokens += p["abstract"].as_str().unwrap().split_whitespace().count();
        let year = p["year"].as_i64().unwrap();
        assert!((1995..=2024).contains(&year) && year >= last_year, "years grow with ids");
        last_year = year;
        for r in p["references"].as_array().unwrap() {
            let j = index[r.as_str().unwrap()];
            assert!(j < i, "{} cites the later {}", p["id"], r);
            refs += 1;
        }
    }
    let mean_refs = refs as f64 / papers.len() as f64;
    assert!((10.0..=30.0).contains(&mean_refs), "mean references per paper {mean_refs}");
    let mean_tokens = tokens as f64 / papers.len() as f64;
    assert!((120.0..=230.0).contains(&mean_tokens), "mean abstract length {mean_tokens}");

    // The queries: 1–6 terms each.
    assert_eq!(qa.lines().count(), 30);
    for q in qa.lines() {
        let n = q.split_whitespace().count();
        assert!((1..=6).contains(&n), "query of {n} terms: {q}");
    }

    // The benchmark, against FTS5.
    let out = run_in(
        dir.path(),
        &["bench", "--corpus", "c.jsonl", "--queries", "q.txt", "--peer", "fts5", "--format", "json"],
    );
    assert!(out.status.success(), "bench failed: {}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["papers"], 300);
    assert_eq!(report["queries"], 30);
    let figures: HashMap<&str, &Value> =
        report["figures"].as_array().unwrap().iter().map(|f| (f["name"].as_str().unwrap(), f)).collect();
    let number = |f: &Value, key: &str| -> Option<f64> {
        let v = &f[key];
        if v.is_null() {
            return None;
        }
        let x = v.as_f64().unwrap_or_else(|| panic!("{key} of {} is not a number: {v}", f["name"]));
        assert!(x >= 0.0, "{key} of {} is negative: {x}", f["name"]);
        Some(x)
    };
    for name in [
        "build_s",
        "db_bytes",
        "peak_rss_bytes",
        "bm25_top10_p50",
        "bm25_top10_p95",
        "bm25_top10_p99",
        "bm25_top10_qps",
        "search_p50",
        "search_p99",
        "expand2_cte_p50",
        "expand2_bfs_p50",
        "search_process_p50",
    ] {
        let f = figures.get(name).unwrap_or_else(|| panic!("figure {name} missing"));
        assert!(f["unit"].is_string(), "{name} has no unit");
        assert!(number(f, "litindex").is_some(), "{name} has no litindex value");
        // The ratio is litindex / FTS5 when both are there (and FTS5's is not zero), else absent.
        let ratio = number(f, "ratio");
        match (number(f, "litindex"), number(f, "fts5")) {
            (Some(a), Some(b)) if b != 0.0 => {
                let r = ratio.unwrap_or_else(|| panic!("{name} has both figures but no ratio"));
                assert!((r - a / b).abs() <= 1e-9 * (a / b).max(1.0), "{name}: ratio {r}, but {a} / {b}");
            }
            _ => assert!(ratio.is_none(), "{name}: a ratio {ratio:?} without both figures"),
        }
    }
    for name in ["build_s", "db_bytes", "bm25_top10_p50"] {
        assert!(number(figures[name], "fts5").is_some(), "{name} has no FTS5 counterpart");
        assert!(number(figures[name], "ratio").is_some(), "{name} has no ratio");
    }
    for name in ["expand2_cte_p50", "expand2_bfs_p50", "search_p50"] {
        assert!(figures[name]["fts5"].is_null(), "{name} cannot have an FTS5 counterpart");
        assert!(figures[name]["ratio"].is_null(), "{name} cannot have a ratio");
    }
    for (name, unit) in [("build_s", "s"), ("db_bytes", "bytes"), ("bm25_top10_p50", "ms"), ("expand2_cte_p50", "ms")] {
        assert_eq!(figures[name]["unit"], unit, "{name}");
    }

    // The table form names every figure too (a few queries are enough); an
    // existing index in --dir is refused.
    let few: Vec<&str> = qa.lines().take(3).collect();
    fs::write(dir.path().join("few.txt"), few.join("\n")).unwrap();
    let out = run_in(
        dir.path(),
        &["bench", "--corpus", "c.jsonl", "--queries", "few.txt", "--dir", "keep", "--format", "table"],
    );
    assert!(out.status.success(), "bench failed: {}", stderr(&out));
    let table = stdout(&out);
    for name in figures.keys() {
        assert!(table.contains(name), "table lacks {name}:\n{table}");
    }
    assert!(dir.path().join("keep/litindex.db").is_file());
    let again = run_in(dir.path(), &["bench", "--corpus", "c.jsonl", "--queries", "few.txt", "--dir", "keep"]);
    assert_eq!(again.status.code(), Some(1), "an existing index in --dir is an error");
    assert!(stderr(&again).contains("already exists"), "{}", stderr(&again));
    // --reuse times the queries over it (plain and filtered), without building.
    let reused = run_in(
        dir.path(),
        &["bench", "--corpus", "c.jsonl", "--queries", "few.txt", "--dir", "keep", "--reuse", "--format", "json"],
    );
    assert!(reused.status.success(), "bench --reuse failed: {}", stderr(&reused));
    let r: Value = serde_json::from_str(&stdout(&reused)).unwrap();
    let fig =
        |name: &str| r["figures"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap()["litindex"].clone();
    assert_eq!(r["papers"], 300);
    assert!(fig("build_s").is_null(), "nothing was built");
    assert!(fig("search_filtered_p50").as_f64().is_some() && fig("filtered_over_plain_p50").as_f64().is_some());
    // --top K names the BM25 figures by K, with --reuse as without.
    let top = run_in(
        dir.path(),
        &[
            "bench",
            "--corpus",
            "c.jsonl",
            "--queries",
            "few.txt",
            "--dir",
            "keep",
            "--reuse",
            "--top",
            "25",
            "--format",
            "json",
        ],
    );
    assert!(top.status.success(), "bench --reuse --top failed: {}", stderr(&top));
    let t: Value = serde_json::from_str(&stdout(&top)).unwrap();
    let names: Vec<&str> = t["figures"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"bm25_top25_p50") && !names.contains(&"bm25_top10_p50"), "{names:?}");
    let fresh =
        run_in(dir.path(), &["bench", "--corpus", "c.jsonl", "--queries", "few.txt", "--dir", "new", "--reuse"]);
    assert_eq!(fresh.status.code(), Some(1), "--reuse of a directory without an index");
    assert!(stderr(&fresh).contains("does not exist"), "{}", stderr(&fresh));
}
