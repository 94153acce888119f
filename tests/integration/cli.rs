//! End-to-end tests of the real `litindex` binary against temporary databases.
//!
//! Every test works in its own `tempfile::tempdir()`, passes `current_dir`
//! and (except for the embedded-default tests) `--db`, and never depends on
//! the working directory of the test process.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::SystemTime;

use serde_json::Value;

use crate::common::{litindex, run_in, stderr, stdout};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Runs the binary with `--db db` and `args`, in the database's directory.
fn run_db(db: &Path, args: &[&str]) -> Output {
    litindex()
        .current_dir(db.parent().expect("db has a parent directory"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run litindex")
}

/// Builds the mock-corpus index at `dir/mock.db` with the binary and returns its path.
fn build_mock(dir: &Path) -> PathBuf {
    let db = dir.join("mock.db");
    let out = run_db(&db, &["build"]);
    assert_success(&out);
    assert!(db.is_file(), "build did not create {}", db.display());
    db
}

/// Asserts no panic text anywhere in the output.
fn assert_no_panic(o: &Output) {
    for text in [stdout(o), stderr(o)] {
        assert!(!text.contains("panicked"), "panic in output:\n{text}");
        assert!(!text.contains("RUST_BACKTRACE"), "panic hint in output:\n{text}");
    }
}

/// Asserts exit 0 and no panic.
fn assert_success(o: &Output) {
    assert!(o.status.success(), "expected success, got {:?}\nstdout:\n{}\nstderr:\n{}", o.status, stdout(o), stderr(o));
    assert_no_panic(o);
}

/// Parses stdout of a successful run as JSON.
fn json(o: &Output) -> Value {
    assert_success(o);
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(o)))
}

/// Asserts exit `code`, nothing on stdout, exactly one line on stderr of the
/// form `litindex: error: ...` containing every needle, and no panic.
fn assert_one_line_error(o: &Output, code: i32, needles: &[&str]) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "exit status; stderr:\n{err}");
    assert_no_panic(o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected exactly one line on stderr, got:\n{err}");
    assert!(lines[0].starts_with("litindex: error: "), "unexpected error line: {err}");
    for needle in needles {
        assert!(lines[0].contains(needle), "error line does not mention `{needle}`: {err}");
    }
    assert!(stdout(o).is_empty(), "unexpected stdout on error:\n{}", stdout(o));
    lines[0].to_string()
}

/// The names in `dir`.
fn listing(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// A file's full content and modification time.
fn snapshot(path: &Path) -> (Vec<u8>, SystemTime) {
    (fs::read(path).unwrap(), fs::metadata(path).unwrap().modified().unwrap())
}

fn write_file(dir: &Path, name: &str, content: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, content).unwrap();
    path
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

fn f64_of(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("`{key}` is not an unsigned integer in {v}"))
}

fn stats(db: &Path) -> Value {
    json(&run_db(db, &["stats", "--format", "json"]))
}

fn paper(db: &Path, id: &str) -> Value {
    json(&run_db(db, &["paper", id, "--format", "json"]))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap_or_else(|| panic!("not a string: {s}")).to_string())
        .collect()
}

/// An edge end in the mock index that is not a paper.
fn dangling_id(db: &Path) -> Option<String> {
    let store = litindex::store::Store::open(db).unwrap();
    store
        .conn()
        .query_row("SELECT cited FROM edges WHERE cited NOT IN (SELECT id FROM papers) LIMIT 1", [], |r| r.get(0))
        .ok()
}

/// A small JSONL corpus: j1 appears twice (second line fills the empty
/// abstract, adds a reference and has a conflicting title); j2 cites an
/// unknown id.
const SMALL_JSONL: &str = r#"{"id": "j1", "title": "Alpha sparse graphs", "abstract": "", "year": 2020, "authors": ["Ann"], "references": ["j2"]}
{"id": "j2", "title": "Beta dense graphs", "abstract": "Beta studies dense graphs. It is short.", "year": 2021, "references": ["j3", "zz-unknown"]}

{"id": "j3", "title": "Gamma trees", "abstract": "Gamma text.", "year": "2019"}
{"id": "j1", "title": "Alpha conflicting title", "abstract": "Filled abstract. Second sentence.", "references": ["j3", "j2"]}
"#;

// ---------------------------------------------------------------------------
// 1. Build, then read in separate processes without touching the file
// ---------------------------------------------------------------------------

#[test]
fn build_then_reads_in_new_processes_leave_the_db_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let out = run_db(&db, &["build"]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("100 papers"), "build output: {text}");
    assert!(text.contains(path_str(&db)), "build output names the db: {text}");

    let before = snapshot(&db);
    let files_before = listing(dir.path());
    assert_eq!(files_before, BTreeSet::from(["index.db".to_string()]), "build left stray files");
    let reads: [&[&str]; 8] = [
        &["search", "sparse attention", "--format", "json"],
        &["search", "sparse attention"],
        &["neighbors", "p001", "--format", "json"],
        &["neighbors", "p001", "--hops", "3", "--engine", "memory"],
        &["stats", "--format", "json"],
        &["stats"],
        &["paper", "p001", "--format", "json"],
        &["paper", "p001"],
    ];
    for args in reads {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let out = run_db(&db, args);
        assert_success(&out);
        assert!(!stdout(&out).is_empty(), "{args:?} printed nothing");
        let after = snapshot(&db);
        assert!(before.0 == after.0, "{args:?} changed the bytes of the index");
        assert_eq!(before.1, after.1, "{args:?} changed the modification time of the index");
        assert_eq!(listing(dir.path()), files_before, "{args:?} left files beside the index");
    }
}

// ---------------------------------------------------------------------------
// 2-3. search output
// ---------------------------------------------------------------------------

#[test]
fn search_json_carries_every_field_and_consistent_scores() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let full = json(&run_db(&db, &["search", "sparse attention", "--format", "json", "--limit", "1000"]));

    for key in ["query", "hit_count", "average_score", "top_score", "wall_time_ms", "ranked"] {
        assert!(full.get(key).is_some(), "missing top-level `{key}` in {full}");
    }
    assert_eq!(full["query"], "sparse attention");
    let hit_count = u64_of(&full, "hit_count");
    let ranked = full["ranked"].as_array().unwrap();
    assert_eq!(ranked.len() as u64, hit_count, "with a large --limit every merged hit is printed");
    assert!(hit_count > 3, "expected more than 3 hits for `sparse attention`, got {hit_count}");
    let (top, avg) = (f64_of(&full, "top_score"), f64_of(&full, "average_score"));
    assert!(top >= avg && avg >= 0.0, "top {top} >= average {avg} >= 0");
    assert!(f64_of(&full, "wall_time_ms") >= 0.0);
    assert!((top - f64_of(&ranked[0], "final_score")).abs() < 1e-12, "top_score is the first hit's score");
    let mean = ranked.iter().map(|h| f64_of(h, "final_score")).sum::<f64>() / ranked.len() as f64;
    assert!((mean - avg).abs() < 1e-9, "average_score {avg} is the mean {mean}");

    let mut previous = f64::INFINITY;
    let mut ids = BTreeSet::new();
    for hit in ranked {
        for key in [
            "id",
            "title",
            "year",
            "authors",
            "bm25_score",
            "graph_distance",
            "recency_score",
            "final_score",
            "snippet",
            "references",
        ] {
            assert!(hit.get(key).is_some(), "missing hit field `{key}` in {hit}");
        }
        let id = hit["id"].as_str().unwrap();
        assert!(ids.insert(id.to_string()), "{id} ranked twice");
        let score = f64_of(hit, "final_score");
        assert!(score <= previous, "final scores must not increase: {score} after {previous}");
        previous = score;
        assert!(hit["graph_distance"].is_u64(), "graph_distance of {id} is {}", hit["graph_distance"]);
        assert!(f64_of(hit, "bm25_score") >= 0.0);
        let recency = f64_of(hit, "recency_score");
        assert!((0.0..=1.0).contains(&recency), "recency of {id}: {recency}");
        assert!(hit["authors"].is_array() && hit["references"].is_array());
        assert!(!hit["title"].as_str().unwrap().is_empty());
    }

    // Snippets are prefixes of the abstract and references match `paper`.
    for hit in ranked.iter().take(5) {
        let id = hit["id"].as_str().unwrap();
        let p = paper(&db, id);
        let abstract_ = p["abstract"].as_str().unwrap();
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(!snippet.is_empty(), "{id} has an empty snippet");
        assert!(
            abstract_.starts_with(snippet),
            "snippet of {id} is not a prefix of its abstract:\n{snippet}\n{abstract_}"
        );
        assert_eq!(hit["references"], p["references"], "references of {id}");
        assert_eq!(hit["title"], p["title"], "title of {id}");
    }

    // --limit cuts the printed list, not the counts.
    let limited = json(&run_db(&db, &["search", "sparse attention", "--format", "json", "--limit", "3"]));
    assert_eq!(limited["ranked"].as_array().unwrap().len(), 3);
    assert_eq!(u64_of(&limited, "hit_count"), hit_count);
    assert_eq!(limited["top_score"], full["top_score"]);
    assert_eq!(limited["average_score"], full["average_score"]);
    let first_three: Vec<&Value> = ranked.iter().take(3).map(|h| &h["id"]).collect();
    let limited_ids: Vec<&Value> = limited["ranked"].as_array().unwrap().iter().map(|h| &h["id"]).collect();
    assert_eq!(limited_ids, first_three);
}

#[test]
fn search_table_has_a_header_and_one_row_per_hit() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let out = run_db(&db, &["search", "sparse attention", "--limit", "4"]);
    assert_success(&out);
    let text = stdout(&out);
    let header = text.lines().next().unwrap();
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(columns, ["rank", "id", "final", "bm25", "hop", "recency", "year", "title"], "header: {header}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "header, 4 rows, summary:\n{text}");
    let rows = &lines[1..5];
    for (i, row) in rows.iter().enumerate() {
        assert!(row.split_whitespace().next() == Some(&(i + 1).to_string()), "rank column of row {i}: {row}");
    }
    assert!(lines[5].contains("hits (showing 4)"), "summary line:\n{text}");
}

// ---------------------------------------------------------------------------
// 4. neighbors
// ---------------------------------------------------------------------------

#[test]
fn neighbors_json_shape_and_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let v = json(&run_db(&db, &["neighbors", "p001", "--hops", "2", "--format", "json"]));
    assert_eq!(v["seed"], "p001");
    assert_eq!(v["hops"], 2);
    assert_eq!(v["direction"], "both");
    let nodes = v["nodes"].as_array().unwrap();
    assert!(nodes.len() > 1, "p001 has neighbours: {v}");
    assert_eq!(nodes[0]["id"], "p001");
    assert_eq!(nodes[0]["distance"], 0);
    assert_eq!(nodes[0]["indexed"], true);
    let keys: Vec<(u64, String)> =
        nodes.iter().map(|n| (u64_of(n, "distance"), n["id"].as_str().unwrap().to_string())).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "nodes sorted by distance then id, no repeats");
    assert!(keys.iter().all(|(d, _)| *d <= 2));
    assert_eq!(keys.iter().filter(|(d, _)| *d == 0).count(), 1, "only the seed at distance 0");
    for n in nodes {
        let obj = n.as_object().unwrap();
        assert_eq!(
            obj.keys().collect::<BTreeSet<_>>(),
            BTreeSet::from([&"id".to_string(), &"distance".to_string(), &"indexed".to_string()])
        );
        assert!(n["indexed"].is_boolean());
    }

    // Distance-1 nodes are exactly the references and citations of p001.
    let p = paper(&db, "p001");
    let mut linked: BTreeSet<String> = strings(&p["references"]).into_iter().collect();
    linked.extend(strings(&p["citations"]));
    let one_hop: BTreeSet<String> = keys.iter().filter(|(d, _)| *d == 1).map(|(_, id)| id.clone()).collect();
    assert_eq!(one_hop, linked);

    // hops 0: only the seed.
    let v0 = json(&run_db(&db, &["neighbors", "p001", "--hops", "0", "--format", "json"]));
    assert_eq!(v0["nodes"], serde_json::json!([{"id": "p001", "distance": 0, "indexed": true}]));
}

#[test]
fn neighbors_sql_and_memory_engines_agree() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut seeds = vec!["p001".to_string(), "p037".to_string(), "p100".to_string()];
    seeds.extend(dangling_id(&db));
    for seed in &seeds {
        for hops in ["0", "1", "2", "3"] {
            for direction in ["both", "references", "citations"] {
                let args = |engine| {
                    run_db(
                        &db,
                        &[
                            "neighbors",
                            seed,
                            "--hops",
                            hops,
                            "--direction",
                            direction,
                            "--engine",
                            engine,
                            "--format",
                            "json",
                        ],
                    )
                };
                let (sql, memory) = (json(&args("sql")), json(&args("memory")));
                assert_eq!(sql, memory, "engines disagree for {seed} --hops {hops} --direction {direction}");
                assert_eq!(sql["direction"], direction);
            }
        }
    }
}

#[test]
fn neighbors_accepts_a_dangling_id_as_seed() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let dangling = dangling_id(&db).expect("the mock corpus cites at least one id that is not a paper");
    let out = run_db(&db, &["paper", &dangling]);
    assert_one_line_error(&out, 1, &[&dangling]);

    let v = json(&run_db(&db, &["neighbors", &dangling, "--hops", "1", "--format", "json"]));
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes[0], serde_json::json!({"id": dangling, "distance": 0, "indexed": false}));
    assert!(nodes.len() > 1, "a dangling id is cited by someone: {v}");
    for n in &nodes[1..] {
        // Citers of a cited-only id are papers of the corpus.
        let id = n["id"].as_str().unwrap();
        assert_eq!(n["indexed"], true, "{id}");
        assert!(strings(&paper(&db, id)["references"]).contains(&dangling), "{id} cites {dangling}");
    }
    // The table marks it too.
    let out = run_db(&db, &["neighbors", &dangling, "--hops", "0"]);
    assert_success(&out);
    assert!(stdout(&out).contains("(not indexed)"), "{}", stdout(&out));
}

#[test]
fn neighbors_hops_range_and_unknown_ids() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let v = json(&run_db(&db, &["neighbors", "p001", "--hops", "10", "--format", "json"]));
    assert_eq!(v["hops"], 10);
    assert_one_line_error(&run_db(&db, &["neighbors", "p001", "--hops", "11"]), 2, &["--hops", "11"]);
    assert_one_line_error(&run_db(&db, &["neighbors", "nope", "--hops", "1"]), 1, &["nope"]);
    assert_one_line_error(&run_db(&db, &["neighbors", "p001", "--direction", "sideways"]), 2, &["sideways"]);
}

// ---------------------------------------------------------------------------
// 5. stats
// ---------------------------------------------------------------------------

#[test]
fn stats_json_describes_the_mock_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let s = stats(&db);
    assert_eq!(u64_of(&s, "papers"), 100);
    assert!(u64_of(&s, "terms") > 0);
    assert!(u64_of(&s, "postings") >= u64_of(&s, "terms"), "every term has a posting");
    assert!(u64_of(&s, "edges") > 0);
    assert!(u64_of(&s, "dangling_edges") <= u64_of(&s, "edges"));
    assert!(f64_of(&s, "avgdl") > 0.0);
    assert_eq!(f64_of(&s, "k1"), 1.5);
    assert_eq!(f64_of(&s, "b"), 0.75);
    assert_eq!(s["analyzer"], "plain");
    assert_eq!(s["schema_version"], litindex::store::SCHEMA_VERSION);
    assert_eq!(s["db"], path_str(&db));
    let (lo, hi) = (s["year_min"].as_i64().unwrap(), s["year_max"].as_i64().unwrap());
    assert!(lo <= hi, "year_min {lo} <= year_max {hi}");
    let disagreements = s["disagreements"].as_object().expect("disagreements is an object");
    for field in ["title", "year"] {
        let n = disagreements.get(field).and_then(Value::as_u64).unwrap_or(0);
        assert!(n > 0, "expected `{field}` disagreements between the mock sources: {s}");
    }
    assert!(s["built_at"].as_str().is_some_and(|t| t.ends_with('Z')), "built_at: {}", s["built_at"]);

    // The dangling count matches the edges table.
    let store = litindex::store::Store::open(&db).unwrap();
    let dangling: u64 = store
        .conn()
        .query_row(
            "SELECT count(*) FROM edges WHERE citing NOT IN (SELECT id FROM papers) OR cited NOT IN (SELECT id FROM papers)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(u64_of(&s, "dangling_edges"), dangling);
}

#[test]
fn build_bm25_parameters_are_stored_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tuned.db");
    assert_success(&run_db(&db, &["build", "--k1", "1.2", "--b", "0.5"]));
    let s = stats(&db);
    assert_eq!(f64_of(&s, "k1"), 1.2);
    assert_eq!(f64_of(&s, "b"), 0.5);
    let out = run_db(&db, &["stats"]);
    assert_success(&out);
    assert!(stdout(&out).contains("k1 = 1.2, b = 0.5"), "{}", stdout(&out));

    // Rebuilding in place with defaults replaces the settings.
    assert_success(&run_db(&db, &["build"]));
    let s = stats(&db);
    assert_eq!((f64_of(&s, "k1"), f64_of(&s, "b")), (1.5, 0.75));
}

// ---------------------------------------------------------------------------
// 6. JSONL builds
// ---------------------------------------------------------------------------

#[test]
fn jsonl_build_unions_duplicate_records() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path(), "small.jsonl", SMALL_JSONL);
    let db = dir.path().join("small.db");
    let out = run_db(&db, &["build", "--jsonl", path_str(&file)]);
    assert_success(&out);
    assert!(stdout(&out).contains("3 papers"), "{}", stdout(&out));

    let j1 = paper(&db, "j1");
    assert_eq!(j1["title"], "Alpha sparse graphs", "the first title is kept");
    assert_eq!(j1["abstract"], "Filled abstract. Second sentence.", "a later record fills the empty abstract");
    assert_eq!(j1["year"], 2020);
    assert_eq!(j1["authors"], serde_json::json!(["Ann"]));
    assert_eq!(strings(&j1["references"]), ["j2", "j3"], "references are unioned");
    assert_eq!(j1["source"], "paper", "the `paper` format, as `ingest` names it");
    let j3 = paper(&db, "j3");
    assert_eq!(j3["year"], 2019, "a year given as a string of digits");
    assert_eq!(strings(&j3["citations"]), ["j1", "j2"]);
    assert_eq!(strings(&paper(&db, "j2")["references"]), ["j3", "zz-unknown"]);

    let s = stats(&db);
    assert_eq!(u64_of(&s, "papers"), 3);
    assert_eq!(u64_of(&s, "edges"), 4);
    assert_eq!(u64_of(&s, "dangling_edges"), 1);
    assert_eq!(s["disagreements"], serde_json::json!({"title": 1}));
    assert_eq!((s["year_min"].as_i64(), s["year_max"].as_i64()), (Some(2019), Some(2021)));

    // The dangling id is a graph node, not a paper.
    assert_one_line_error(&run_db(&db, &["paper", "zz-unknown"]), 1, &["zz-unknown"]);
    let v = json(&run_db(&db, &["neighbors", "zz-unknown", "--format", "json"]));
    assert_eq!(
        v["nodes"],
        serde_json::json!([{"id": "zz-unknown", "distance": 0, "indexed": false}, {"id": "j2", "distance": 1, "indexed": true}])
    );

    // Search finds JSONL text.
    let hits = json(&run_db(&db, &["search", "dense", "--format", "json", "--hops", "0"]));
    assert_eq!(hits["ranked"][0]["id"], "j2");
    assert_eq!(hits["ranked"][0]["snippet"], "Beta studies dense graphs. It is short.");
}

#[test]
fn jsonl_build_with_two_files_and_with_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_file(dir.path(), "a.jsonl", SMALL_JSONL);
    let b = write_file(
        dir.path(),
        "b.jsonl",
        "{\"id\": \"k1\", \"title\": \"Kappa\", \"references\": [\"j1\"]}\n{\"id\": \"j2\", \"title\": \"Beta dense graphs\", \"references\": [\"k1\"]}\n",
    );
    let db = dir.path().join("two.db");
    let out = run_db(&db, &["build", "--jsonl", path_str(&a), "--jsonl", path_str(&b)]);
    assert_success(&out);
    let s = stats(&db);
    assert_eq!(u64_of(&s, "papers"), 4);
    assert_eq!(
        strings(&paper(&db, "j2")["references"]),
        ["j3", "k1", "zz-unknown"],
        "references across files are unioned"
    );
    assert_eq!(strings(&paper(&db, "j1")["citations"]), ["k1"]);
    assert_eq!(paper(&db, "k1")["abstract"], "");

    let db = dir.path().join("mixed.db");
    let out = run_db(&db, &["build", "--mock", "--jsonl", path_str(&a)]);
    assert_success(&out);
    assert!(stdout(&out).contains("103 papers"), "{}", stdout(&out));
    assert_eq!(u64_of(&stats(&db), "papers"), 103);
    assert_eq!(paper(&db, "p001")["source"], "arxiv+s2");
    assert_eq!(paper(&db, "j1")["source"], "paper");
}

// ---------------------------------------------------------------------------
// 7. Errors: exit code, one line, the problem named, no panic
// ---------------------------------------------------------------------------

#[test]
fn unknown_paper_id_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    assert_one_line_error(&run_db(&db, &["paper", "nope"]), 1, &["`nope`", "unknown paper id"]);
    assert_one_line_error(&run_db(&db, &["paper", "nope", "--format", "json"]), 1, &["nope"]);
}

#[test]
fn missing_named_db_is_an_error_and_is_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["--db", "missing.db", "search", "x"]);
    assert_one_line_error(&out, 1, &["missing.db", "build"]);
    let abs = dir.path().join("other.db");
    for args in [&["search", "x"][..], &["stats"], &["paper", "p001"], &["neighbors", "p001"]] {
        assert_one_line_error(&run_db(&abs, args), 1, &[path_str(&abs), "litindex build"]);
    }
    assert!(listing(dir.path()).is_empty(), "files were created: {:?}", listing(dir.path()));
}

#[test]
fn files_that_are_not_litindex_databases_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = write_file(dir.path(), "garbage.db", "this is not a database, just some text\n".repeat(200).as_str());
    let empty = write_file(dir.path(), "empty.db", "");
    let foreign = dir.path().join("foreign.db");
    {
        let conn = rusqlite::Connection::open(&foreign).unwrap();
        conn.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);").unwrap();
    }
    let subdir = dir.path().join("a-directory.db");
    fs::create_dir(&subdir).unwrap();
    for path in [&garbage, &empty, &foreign, &subdir] {
        let before = if path.is_file() { Some(snapshot(path)) } else { None };
        for args in [&["search", "x"][..], &["stats"]] {
            let out = run_db(path, args);
            assert_one_line_error(&out, 1, &[path_str(path), "not a litindex database"]);
        }
        if let Some(before) = before {
            assert!(before == snapshot(path), "{} was modified", path.display());
        }
    }
}

#[test]
fn database_from_a_newer_version_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let before = snapshot(&db);
    for args in [&["search", "x"][..], &["stats"], &["paper", "p001"], &["neighbors", "p001"]] {
        assert_one_line_error(&run_db(&db, args), 1, &["newer", "99"]);
    }
    assert!(before == snapshot(&db), "a newer database must not be touched");
}

#[test]
fn malformed_jsonl_fails_and_leaves_the_existing_index_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let good = r#"{"id": "ok1", "title": "A good record"}"#;
    let cases: [(&str, String, &[&str]); 4] = [
        (
            "title-number.jsonl",
            format!("{good}\n{{\"id\": \"x\", \"title\": 5}}\n"),
            &[":2", "`title`", "expected a string"],
        ),
        ("broken.jsonl", format!("{good}\n{{\"id\": \"x\", \"title\"\n"), &[":2", "malformed JSON"]),
        (
            "year.jsonl",
            format!("{good}\n{{\"id\": \"x\", \"title\": \"T\", \"year\": \"2019a\"}}\n"),
            &[":2", "`year`", "2019a"],
        ),
        ("no-id.jsonl", format!("{good}\n\n{{\"title\": \"T\"}}\n"), &[":3", "`id`", "is required"]),
    ];
    std::thread::sleep(std::time::Duration::from_millis(20));
    let before = snapshot(&db);
    for (name, content, needles) in &cases {
        let file = write_file(dir.path(), name, content);
        let files_before = listing(dir.path());
        let out = run_db(&db, &["build", "--jsonl", path_str(&file)]);
        let line = assert_one_line_error(&out, 1, needles);
        assert!(line.contains(&format!("{}:", file.display())), "error names the file: {line}");
        assert!(before == snapshot(&db), "a failed build ({name}) changed the existing index");
        assert_eq!(listing(dir.path()), files_before, "a failed build ({name}) left files behind");
    }
    // The index still answers as before.
    assert_eq!(u64_of(&stats(&db), "papers"), 100);

    // A missing input file is named.
    let missing = dir.path().join("no-such-file.jsonl");
    let out = run_db(&db, &["build", "--jsonl", path_str(&missing)]);
    assert_one_line_error(&out, 1, &[path_str(&missing)]);
    assert!(before == snapshot(&db));
    // So is a directory given as input.
    let out = run_db(&db, &["build", "--jsonl", path_str(dir.path())]);
    assert_one_line_error(&out, 1, &[path_str(dir.path()), "directory"]);
    assert!(before == snapshot(&db));
}

#[test]
fn failed_build_of_a_new_index_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad =
        write_file(dir.path(), "bad.jsonl", "{\"id\": \"a\", \"title\": \"ok\"}\n{\"id\": \"x\", \"title\": 5}\n");
    let missing = dir.path().join("missing.jsonl");
    let db = dir.path().join("new.db");
    let files_before = listing(dir.path());
    let out = run_db(&db, &["build", "--jsonl", path_str(&bad)]);
    assert_one_line_error(&out, 1, &["bad.jsonl:2", "title"]);
    let out = run_db(&db, &["build", "--mock", "--jsonl", path_str(&missing)]);
    assert_one_line_error(&out, 1, &[path_str(&missing)]);
    assert!(!db.exists(), "a failed build created {}", db.display());
    assert_eq!(listing(dir.path()), files_before, "stray files after failed builds");

    // A target that is a directory: refused, the directory untouched, no stray temporary file.
    let target_dir = dir.path().join("a-directory.db");
    fs::create_dir(&target_dir).unwrap();
    let files_before = listing(dir.path());
    let out = run_db(&target_dir, &["build"]);
    assert_one_line_error(&out, 1, &[path_str(&target_dir)]);
    assert!(target_dir.is_dir() && listing(&target_dir).is_empty());
    assert_eq!(listing(dir.path()), files_before, "stray files after building onto a directory");

    // A target in a directory that does not exist.
    let nowhere = dir.path().join("no-such-dir").join("x.db");
    let out = litindex().current_dir(dir.path()).arg("--db").arg(&nowhere).arg("build").output().unwrap();
    assert_one_line_error(&out, 1, &["no-such-dir", "does not exist"]);
    assert_eq!(listing(dir.path()), files_before);
}

#[test]
fn bad_build_parameters_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.db");
    assert_one_line_error(&run_db(&db, &["build", "--b", "1.5"]), 2, &["--b", "1.5"]);
    assert_one_line_error(&run_db(&db, &["build", "--k1=-1"]), 2, &["--k1"]);
    assert_one_line_error(&run_db(&db, &["build", "--k1", "abc"]), 2, &["--k1", "abc"]);
    assert_one_line_error(&run_db(&db, &["build", "--analyzer", "porter"]), 2, &["porter"]);
    assert!(listing(dir.path()).is_empty(), "rejected builds created files");
}

#[test]
fn search_hops_out_of_range_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    assert_one_line_error(&run_db(&db, &["search", "x", "--hops", "3"]), 2, &["--hops", "3"]);
    assert_success(&run_db(&db, &["search", "x", "--hops", "2"]));
}

#[test]
fn bad_weights_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    for bad in ["1,2", "a,b,c", "-1,0,0", "0,0,0", "1,2,3,4", "inf,0,0"] {
        let out = run_db(&db, &["search", "sparse attention", "--weights", bad]);
        assert_one_line_error(&out, 2, &["--weights"]);
    }
    let v = json(&run_db(&db, &["search", "sparse attention", "--weights", "1,0,0", "--format", "json"]));
    assert!(
        (f64_of(&v, "top_score") - 1.0).abs() < 1e-12,
        "bm25 only: the best hit has bm25_norm 1: {}",
        v["top_score"]
    );
}

#[test]
fn empty_and_punctuation_queries_give_no_hits() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    for query in ["", "   ", "?!", "zzzqqqxxx"] {
        let v = json(&run_db(&db, &["search", query, "--format", "json"]));
        assert_eq!(v["query"], query);
        assert_eq!(v["hit_count"], 0, "query {query:?}");
        assert_eq!(v["ranked"], serde_json::json!([]), "query {query:?}");
        assert_eq!((f64_of(&v, "top_score"), f64_of(&v, "average_score")), (0.0, 0.0));
        let out = run_db(&db, &["search", query]);
        assert_success(&out);
        assert!(stdout(&out).contains("0 hits"), "{}", stdout(&out));
    }
}

// ---------------------------------------------------------------------------
// 8. The embedded default database and LITINDEX_DB
// ---------------------------------------------------------------------------

#[test]
fn default_db_is_built_from_the_mock_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["search", "sparse attention", "--format", "json"]);
    let first = json(&out);
    assert!(u64_of(&first, "hit_count") > 0);
    let err = stderr(&out);
    assert!(err.contains("mock corpus") && err.contains("building"), "stderr: {err}");
    assert_eq!(listing(dir.path()), BTreeSet::from(["litindex.db".to_string()]));

    let before = snapshot(&dir.path().join("litindex.db"));
    let out = run_in(dir.path(), &["search", "sparse attention", "--format", "json"]);
    let second = json(&out);
    assert!(!stderr(&out).contains("building"), "second run rebuilt: {}", stderr(&out));
    assert!(stderr(&out).is_empty(), "second run stderr: {}", stderr(&out));
    assert_eq!(first["ranked"], second["ranked"]);
    assert!(before == snapshot(&dir.path().join("litindex.db")), "second run modified the default db");
    assert_eq!(u64_of(&json(&run_in(dir.path(), &["stats", "--format", "json"])), "papers"), 100);
}

#[test]
fn litindex_db_env_names_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();

    // A missing path: an error, nothing created anywhere.
    let missing = dir.path().join("missing.db");
    let out = litindex().current_dir(&work).env("LITINDEX_DB", &missing).args(["search", "x"]).output().unwrap();
    assert_one_line_error(&out, 1, &[path_str(&missing), "build"]);
    assert!(!missing.exists());
    assert!(listing(&work).is_empty(), "created {:?}", listing(&work));

    // A built database: the same answers as --db.
    let db = build_mock(dir.path());
    let via_env = litindex()
        .current_dir(&work)
        .env("LITINDEX_DB", &db)
        .args(["search", "sparse attention", "--format", "json"])
        .output()
        .unwrap();
    let via_flag = run_db(&db, &["search", "sparse attention", "--format", "json"]);
    let (mut a, mut b) = (json(&via_env), json(&via_flag));
    a["wall_time_ms"] = Value::Null;
    b["wall_time_ms"] = Value::Null;
    assert_eq!(a, b);
    assert!(stderr(&via_env).is_empty(), "{}", stderr(&via_env));
    let s = json(
        &litindex().current_dir(&work).env("LITINDEX_DB", &db).args(["stats", "--format", "json"]).output().unwrap(),
    );
    assert_eq!(s["db"], path_str(&db));
    assert!(listing(&work).is_empty(), "LITINDEX_DB must not fall back to ./litindex.db: {:?}", listing(&work));

    // --db wins over LITINDEX_DB.
    let out = litindex()
        .current_dir(&work)
        .env("LITINDEX_DB", &missing)
        .arg("--db")
        .arg(&db)
        .args(["stats", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["db"], path_str(&db));

    // build honours LITINDEX_DB too.
    let built = dir.path().join("env-built.db");
    let out = litindex().current_dir(&work).env("LITINDEX_DB", &built).arg("build").output().unwrap();
    assert_success(&out);
    assert!(built.is_file());
    assert!(listing(&work).is_empty());
}

#[test]
fn usage_errors_in_default_mode_have_no_side_effects() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["search", "x", "--hops", "3"]);
    assert_one_line_error(&out, 2, &["--hops", "3"]);
    let out = run_in(dir.path(), &["neighbors", "p001", "--hops", "11"]);
    assert_one_line_error(&out, 2, &["--hops", "11"]);
    assert!(listing(dir.path()).is_empty(), "a rejected command created {:?}", listing(dir.path()));
}

#[cfg(unix)]
#[test]
fn built_index_gets_the_same_permissions_as_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // What the process umask gives a newly created regular file (the test
    // process and the child share the umask).
    let plain = write_file(dir.path(), "plain.txt", "x");
    let expected = fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
    let db = build_mock(dir.path());
    let mode = fs::metadata(&db).unwrap().permissions().mode() & 0o777;
    assert_eq!(format!("{mode:o}"), format!("{expected:o}"), "mode of the built index");
    // The default database too.
    assert_success(&run_in(dir.path(), &["stats"]));
    let mode = fs::metadata(dir.path().join("litindex.db")).unwrap().permissions().mode() & 0o777;
    assert_eq!(format!("{mode:o}"), format!("{expected:o}"), "mode of ./litindex.db");
}

// ---------------------------------------------------------------------------
// 9. A closed stdout is not an error
// ---------------------------------------------------------------------------

/// Runs `args` against `db` with stdout a pipe whose read end is closed at
/// once, and returns the exit status and stderr.
fn run_with_closed_stdout(db: &Path, args: &[&str]) -> Output {
    let mut child = litindex()
        .current_dir(db.parent().unwrap())
        .arg("--db")
        .arg(db)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn litindex");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait for litindex")
}

/// Checks that the command's normal output is larger than the 8 KiB stdout
/// buffer, so the write fails mid-output, not only at the final flush.
fn assert_large_output(db: &Path, args: &[&str]) {
    let out = run_db(db, args);
    assert_success(&out);
    assert!(out.stdout.len() > 8 * 1024, "{args:?} prints only {} bytes", out.stdout.len());
}

#[test]
fn broken_pipe_on_table_output_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let cases: [&[&str]; 3] =
        [&["neighbors", "p001", "--hops", "10"], &["search", "sparse attention", "--limit", "1000"], &["stats"]];
    for args in cases {
        let out = run_with_closed_stdout(&db, args);
        assert_success(&out);
        assert!(stderr(&out).is_empty(), "{args:?} stderr: {}", stderr(&out));
    }
}

#[test]
fn broken_pipe_on_json_output_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let cases: [&[&str]; 2] = [
        &["search", "sparse attention", "--limit", "1000", "--top-k", "100", "--format", "json"],
        &["neighbors", "p001", "--hops", "10", "--format", "json"],
    ];
    for args in cases {
        assert_large_output(&db, args);
        let out = run_with_closed_stdout(&db, args);
        assert_success(&out);
        assert!(stderr(&out).is_empty(), "{args:?} stderr: {}", stderr(&out));
    }
}

#[test]
fn writes_to_stdout_flush_cleanly_when_read_to_the_end() {
    // The control for the broken-pipe tests: with a reader, output is complete.
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut child = litindex()
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args(["neighbors", "p001", "--hops", "10"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut text = String::new();
    child.stdout.as_mut().unwrap().read_to_string(&mut text).unwrap();
    assert!(child.wait().unwrap().success());
    let last = text.lines().last().unwrap();
    assert!(last.contains("within 10 hops of p001"), "{last}");
}
