//! `bench --peer tantivy`: with the cargo feature `tantivy`, the peer is
//! built and timed beside litindex and FTS5 and its top-10 agrees with
//! litindex's BM25; without it, asking for it is a usage error (exit 2).

use std::path::Path;

use crate::common::{run_in, stderr};

/// Runs `bench --corpus c.jsonl --queries q.txt` and `extra` in `dir`.
fn bench(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["bench", "--corpus", "c.jsonl", "--queries", "q.txt"];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

/// Writes a generated corpus `c.jsonl` and `n` queries `q.txt` into `dir`.
fn corpus(dir: &Path, papers: &str, n: &str) {
    let out = run_in(dir, &["gen", "--papers", papers, "--seed", "5", "--queries", "q.txt", "--num-queries", n]);
    assert!(out.status.success(), "gen failed: {}", stderr(&out));
    std::fs::write(dir.join("c.jsonl"), &out.stdout).unwrap();
}

#[cfg(not(feature = "tantivy"))]
#[test]
fn bench_peer_tantivy_without_the_feature_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), "20", "3");
    let out = bench(dir.path(), &["--peer", "fts5,tantivy"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--features tantivy") && err.lines().count() == 1, "{err}");
    assert!(!dir.path().join("litindex.db").exists());
}

/// The tests of the peer itself: compiled always (so a default build checks
/// them), run only in a build with the feature.
mod with_feature {
    use std::collections::HashMap;
    use std::fs;

    use serde_json::Value;

    use super::{bench, corpus};
    use crate::common::{stderr, stdout};

    fn figures(report: &Value) -> HashMap<String, Value> {
        report["figures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["name"].as_str().unwrap().to_string(), f.clone()))
            .collect()
    }

    fn num(f: &Value, key: &str) -> f64 {
        f[key].as_f64().unwrap_or_else(|| panic!("{key} of {} is not a number", f["name"]))
    }

    #[test]
    #[cfg_attr(not(feature = "tantivy"), ignore = "needs --features tantivy")]
    fn bench_peer_fts5_tantivy_top1_agreement_at_least_0_85_top10_overlap_at_least_0_95() {
        let dir = tempfile::tempdir().unwrap();
        corpus(dir.path(), "600", "120");
        let out =
            bench(dir.path(), &["--peer", "fts5,tantivy", "--tantivy-threads", "2", "--dir", "d", "--format", "json"]);
        assert!(out.status.success(), "bench failed: {}", stderr(&out));
        let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let f = figures(&report);
        assert_eq!(report["papers"], 600);
        for name in ["build_s", "build_papers_per_s", "db_bytes", "bytes_per_paper", "peak_rss_bytes"] {
            let t = num(&f[name], "tantivy");
            assert!(t > 0.0, "{name}: tantivy {t}");
            let (a, r) = (num(&f[name], "litindex"), num(&f[name], "tantivy_ratio"));
            assert!((r - a / t).abs() <= 1e-9 * (a / t).max(1.0), "{name}: ratio {r}, but {a} / {t}");
            assert!(num(&f[name], "fts5") > 0.0, "{name}: FTS5 still measured beside tantivy");
        }
        for name in ["bm25_top10_p50", "bm25_top10_p95", "bm25_top10_p99", "bm25_top10_qps"] {
            assert!(num(&f[name], "tantivy") > 0.0, "{name}");
            assert!(f[name]["tantivy_ratio"].is_number() && f[name]["ratio"].is_number(), "{name}");
        }
        for name in ["search_p50", "expand2_cte_p50"] {
            assert!(f[name]["tantivy"].is_null() && f[name]["tantivy_ratio"].is_null(), "{name} has no tantivy side");
        }
        // The index directory's bytes are what the report says.
        let on_disk: u64 =
            fs::read_dir(dir.path().join("d/tantivy")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert_eq!(num(&f["db_bytes"], "tantivy"), on_disk as f64);
        assert_eq!(num(&f["tantivy_threads"], "tantivy"), 2.0);
        assert!(num(&f["tantivy_segments"], "tantivy") >= 1.0);
        // Rankings: the same text, the same split (`plain` = `default` here,
        // the generated words are short ASCII), BM25 on both sides; they
        // differ by k1 (1.5 against tantivy's 1.2), tantivy's one-byte
        // document lengths and f32.
        let queries = num(&f["agreement_queries"], "tantivy");
        assert!(queries >= 100.0, "{queries} queries with hits");
        let top1 = num(&f["top1_agreement"], "tantivy");
        let overlap = num(&f["topk_overlap"], "tantivy");
        assert!(top1 >= TOP1_AT_LEAST, "top-1 agreement {top1}");
        assert!(overlap >= OVERLAP_AT_LEAST, "top-10 overlap {overlap}");

        // The table has tantivy's columns.
        let out = bench(dir.path(), &["--peer", "tantivy", "--dir", "t"]);
        assert!(out.status.success(), "bench failed: {}", stderr(&out));
        let table = stdout(&out);
        let header = table.lines().nth(1).unwrap();
        assert!(header.contains("tantivy") && header.contains("ratio_t"), "{table}");
        assert!(table.lines().any(|l| l.starts_with("top1_agreement")), "{table}");
        // An existing tantivy index in --dir is refused before anything is built.
        let again = bench(dir.path(), &["--peer", "tantivy", "--dir", "t"]);
        assert_eq!(again.status.code(), Some(1));
        assert!(stderr(&again).contains("already exists"), "{}", stderr(&again));
    }

    /// Measured on this corpus (seed 5, 600 papers, 120 queries): top-1 0.902, top-10
    /// overlap 0.979; a little below, as tantivy with 2 threads may order tied scores
    /// differently from run to run.
    const TOP1_AT_LEAST: f64 = 0.85;
    const OVERLAP_AT_LEAST: f64 = 0.95;

    #[test]
    #[cfg_attr(not(feature = "tantivy"), ignore = "needs --features tantivy")]
    fn bench_top_k_renames_the_figures_and_refuses_fts5() {
        let dir = tempfile::tempdir().unwrap();
        corpus(dir.path(), "100", "10");
        let out = bench(dir.path(), &["--peer", "tantivy", "--top", "50", "--format", "json"]);
        assert!(out.status.success(), "bench failed: {}", stderr(&out));
        let f = figures(&serde_json::from_str(&stdout(&out)).unwrap());
        assert!(num(&f["bm25_top50_p50"], "tantivy") > 0.0 && num(&f["bm25_top50_p50"], "litindex") > 0.0);
        assert!(!f.contains_key("bm25_top10_p50"));
        let out = bench(dir.path(), &["--peer", "fts5", "--top", "50"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    }
}
