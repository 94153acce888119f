//! Hostile input, end to end with the real binary. Every case ends in one
//! clear error line (nothing committed) or, with `--skip-invalid`, in counted
//! skips listed by line number; never a panic. Odd ids are stored and found
//! verbatim; odd queries are answered.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use litindex::store::Store;
use serde_json::{Value, json as j};

use crate::common::{stderr, stdout};
use crate::reliability::{assert_check_passes, assert_no_panic, dump, json, ok, one_line_error, run};

/// The mock index, built once per test and copied for each case.
struct Fixture {
    dir: tempfile::TempDir,
    base: PathBuf,
    base_dump: String,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base.db");
        ok(&run(&base, &["build"]));
        let base_dump = dump(&base);
        Fixture { dir, base, base_dump }
    }

    /// A fresh copy of the mock index.
    fn db(&self, name: &str) -> PathBuf {
        let db = self.dir.path().join(name);
        fs::copy(&self.base, &db).unwrap();
        db
    }

    fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let p = self.dir.path().join(name);
        fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    }

    /// Without `--skip-invalid`: one error line with every needle, and the index untouched.
    fn refused(&self, args: &[&str], needles: &[&str]) -> String {
        let db = self.db("refused.db");
        let mut full = vec!["ingest", "--quiet"];
        full.extend_from_slice(args);
        let line = one_line_error(&run(&db, &full), needles);
        assert!(dump(&db) == self.base_dump, "{args:?}: the index changed");
        line
    }

    /// With `--skip-invalid`: success, the skipped lines listed on stderr, the count in the summary.
    fn skipped(&self, args: &[&str], listed: &[&str], count: u64) -> PathBuf {
        let db = self.db("skipped.db");
        let mut full = vec!["ingest", "--quiet", "--skip-invalid"];
        full.extend_from_slice(args);
        let o = run(&db, &full);
        let out = ok(&o);
        assert!(out.contains(&format!("{count} skipped")), "{out}");
        let err = stderr(&o);
        for l in listed {
            assert!(err.lines().any(|e| e.starts_with("litindex: skipped") && e.contains(l)), "{l} not listed:\n{err}");
        }
        assert_check_passes(&db);
        db
    }
}

fn papers(db: &Path) -> u64 {
    json(&run(db, &["stats", "--format", "json"]))["papers"].as_u64().unwrap()
}

const GOOD: &str = r#"{"id": "good1", "title": "A perfectly good paper about graph search"}"#;

#[test]
fn truncated_json_binary_files_invalid_utf8_and_raw_nul_bytes_are_bad_records() {
    let f = Fixture::new();
    let truncated = f.file("truncated.jsonl", format!("{GOOD}\n{{\"id\": \"t2\", \"title\": \"Cut off in the mid"));
    f.refused(&[&truncated], &["truncated.jsonl:2", "malformed JSON", "nothing was ingested"]);
    let db = f.skipped(&[&truncated], &["truncated.jsonl:2"], 1);
    assert_eq!(papers(&db), 101);

    // Every byte value (NUL, 0xff, …) but the newline, which splits it into two lines.
    let mut binary: Vec<u8> = (0..=255u8).filter(|&b| b != b'\n').cycle().take(64 * 1024).collect();
    binary[100] = b'\n';
    let binary = f.file("binary.bin", binary);
    f.refused(&[&binary], &["binary.bin"]);
    f.refused(&["--format", "paper", &binary], &["binary.bin:1"]);
    let db = f.skipped(&["--format", "paper", &binary], &["binary.bin:1", "binary.bin:2"], 2);
    assert_eq!(papers(&db), 100);

    let mut utf8 = format!("{GOOD}\n").into_bytes();
    utf8.extend_from_slice(b"{\"id\": \"u1\", \"title\": \"bad \xff\xfe bytes\"}\n");
    let utf8 = f.file("utf8.jsonl", utf8);
    f.refused(&[&utf8], &["utf8.jsonl:2", "invalid UTF-8"]);
    f.skipped(&[&utf8], &["utf8.jsonl:2: invalid UTF-8"], 1);

    let mut nul = format!("{GOOD}\n").into_bytes();
    nul.extend_from_slice(b"{\"id\": \"n1\", \"title\": \"raw \x00 nul\"}\n");
    let nul = f.file("nul.jsonl", nul);
    f.refused(&[&nul], &["nul.jsonl:2", "control character"]);
    f.skipped(&[&nul], &["nul.jsonl:2"], 1);
}

#[test]
fn a_truncated_gzip_is_an_error_even_with_skip_invalid() {
    let f = Fixture::new();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..2000 {
        writeln!(enc, r#"{{"id": "z{i}", "title": "Compressed paper number {i}"}}"#).unwrap();
    }
    let bytes = enc.finish().unwrap();
    let cut = f.file("cut.jsonl.gz", &bytes[..bytes.len() / 2]);
    f.refused(&[&cut], &["cut.jsonl.gz", "truncated"]);
    f.refused(&["--skip-invalid", &cut], &["cut.jsonl.gz", "truncated"]);
}

#[test]
fn a_50_mb_line_is_refused_without_holding_it() {
    let f = Fixture::new();
    let path = f.dir.path().join("huge.jsonl");
    {
        let mut w = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        writeln!(w, "{GOOD}").unwrap();
        write!(w, r#"{{"id": "huge", "title": "Huge", "abstract": ""#).unwrap();
        let chunk = "word ".repeat(1024 * 1024 / 5);
        for _ in 0..50 {
            w.write_all(chunk.as_bytes()).unwrap();
        }
        writeln!(w, "\"}}").unwrap();
        writeln!(w, r#"{{"id": "after", "title": "The line after the huge one"}}"#).unwrap();
    }
    let huge = path.to_str().unwrap();
    let started = Instant::now();
    f.refused(&["--format", "paper", huge], &["huge.jsonl:2", "16 MiB limit"]);
    let db = f.skipped(&["--format", "paper", huge], &["huge.jsonl:2"], 1);
    assert_eq!(papers(&db), 102, "the lines before and after it are ingested");
    let o = run(&f.db("built.db"), &["build", "--jsonl", huge]);
    one_line_error(&o, &["huge.jsonl:2", "16 MiB limit"]);
    eprintln!("50 MB line: refused, skipped and refused by build in {:.2?}", started.elapsed());
}

#[test]
fn deeply_nested_json_and_wrong_field_types_are_bad_records_naming_the_field() {
    let f = Fixture::new();
    let deep = f.file("deep.jsonl", format!("{GOOD}\n{}{}\n", "[".repeat(100_000), "]".repeat(100_000)));
    f.refused(&["--format", "paper", &deep], &["deep.jsonl:2", "recursion limit"]);
    f.skipped(&["--format", "paper", &deep], &["deep.jsonl:2"], 1);
    let inner = format!(r#"{{"id": "n1", "title": "Nested", "extra": {}{}}}"#, "[".repeat(5000), "]".repeat(5000));
    let deep_field = f.file("deepfield.jsonl", format!("{GOOD}\n{inner}\n"));
    f.refused(&["--format", "paper", &deep_field], &["deepfield.jsonl:2", "recursion limit"]);

    let cases = [
        (j!({"id": "y1", "title": "T", "year": "2019a"}), "year"),
        (j!({"id": "a1", "title": "T", "authors": 42}), "authors"),
        (j!({"id": "r1", "title": "T", "references": "not-a-list"}), "references"),
        (j!({"id": 17, "title": "T"}), "id"),
        (j!({"id": "t1", "title": ["a", "list"]}), "title"),
        (j!({"id": "", "title": "Empty id"}), "id"),
        (j!({"id": "   ", "title": "Blank id"}), "id"),
    ];
    let mut all = format!("{GOOD}\n");
    for (i, (record, field)) in cases.iter().enumerate() {
        let file = f.file(&format!("field{i}.jsonl"), format!("{GOOD}\n{record}\n"));
        f.refused(&[&file], &[&format!("field{i}.jsonl:2"), &format!("field `{field}`")]);
        all.push_str(&format!("{record}\n"));
    }
    let all = f.file("all.jsonl", all);
    let listed: Vec<String> = (2..=8).map(|n| format!("all.jsonl:{n}")).collect();
    let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
    let db = f.skipped(&[&all], &listed, 7);
    assert_eq!(papers(&db), 101);
}

#[test]
fn duplicate_ids_with_conflicting_fields_make_one_paper() {
    let f = Fixture::new();
    let dup = f.file(
        "dup.jsonl",
        format!(
            "{}\n{}\n",
            j!({"id": "d1", "title": "First title of the paper", "year": 2001, "references": ["p001"]}),
            j!({"id": "d1", "title": "Second and different title", "year": 2002, "abstract": "Only the second has one.", "references": ["p002"]})
        ),
    );
    // One rule for build and ingest: within one command, the first non-empty
    // value of each field wins, lists are unioned, each conflict is counted.
    let ingested = f.db("ingest.db");
    ok(&run(&ingested, &["ingest", "--quiet", &dup]));
    assert_eq!(papers(&ingested), 101);
    let built = f.dir.path().join("built.db");
    ok(&run(&built, &["build", "--quiet", "--mock", "--jsonl", &dup]));
    for db in [&ingested, &built] {
        let p = json(&run(db, &["paper", "d1", "--format", "json"]));
        assert_eq!(p["title"], "First title of the paper", "{}", db.display());
        assert_eq!(p["year"], 2001);
        assert_eq!(p["abstract"], "Only the second has one.");
        assert_eq!(p["references"], serde_json::json!(["p001", "p002"]));
        let stats = json(&run(db, &["stats", "--format", "json"]));
        assert_eq!(
            (stats["disagreements"]["title"].as_u64(), stats["disagreements"]["year"].as_u64()),
            (Some(5), Some(4)),
            "{stats}"
        );
        assert_check_passes(db);
    }
    // A later command re-ingesting the record replaces it: an update.
    let update = f.file("update.jsonl", format!("{}\n", j!({"id": "d1", "title": "Corrected title", "year": 2003})));
    let out = run(&ingested, &["ingest", "--quiet", &update]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 updated"), "{}", String::from_utf8_lossy(&out.stdout));
    let p = json(&run(&ingested, &["paper", "d1", "--format", "json"]));
    assert_eq!(
        (p["title"].as_str(), p["year"].as_u64(), p["abstract"].as_str()),
        (Some("Corrected title"), Some(2003), Some(""))
    );
    assert_eq!(p["references"], serde_json::json!([]), "the replaced record's links went with it");
    let stats = json(&run(&ingested, &["stats", "--format", "json"]));
    assert_eq!(stats["disagreements"]["title"].as_u64(), Some(4), "the repeat's conflicts went with it: {stats}");
    assert_check_passes(&ingested);
}

#[test]
fn self_citations_cycles_and_100000_references() {
    let f = Fixture::new();
    let db = f.db("graph.db");
    let self_cite = f.file(
        "self.jsonl",
        format!("{}\n", j!({"id": "s1", "title": "Self", "references": ["s1"], "citations": ["s1"]})),
    );
    let edges = f.file("self.tsv", "s1\ts1\n");
    let cycle: String = (0..3)
        .map(|i| format!("{}\n", j!({"id": format!("c{i}"), "title": format!("Cycle paper {i}"), "references": [format!("c{}", (i + 1) % 3)]})))
        .collect();
    let cycle = f.file("cycle.jsonl", cycle);
    let refs: Vec<String> = (0..100_000).map(|i| format!("ref{i}")).collect();
    let many = f.file("many.jsonl", format!("{}\n", j!({"id": "m1", "title": "Cites everything", "references": refs})));
    let started = Instant::now();
    ok(&run(&db, &["ingest", "--quiet", "--format", "paper", &self_cite, &cycle, &many]));
    ok(&run(&db, &["ingest", "--quiet", &edges]));
    eprintln!("100,000 references ingested in {:.2?}", started.elapsed());

    let s1 = json(&run(&db, &["neighbors", "s1", "--hops", "3", "--format", "json"]));
    assert_eq!(s1["nodes"].as_array().unwrap().len(), 1, "a self-citation is no edge: {s1}");
    let c = json(&run(&db, &["neighbors", "c0", "--hops", "10", "--format", "json"]));
    assert_eq!(c["nodes"].as_array().unwrap().len(), 3, "{c}");
    ok(&run(&db, &["search", "cycle paper", "--hops", "2"]));
    let m = json(&run(&db, &["neighbors", "m1", "--hops", "1", "--format", "json"]));
    assert_eq!(m["nodes"].as_array().unwrap().len(), 100_001);
    let report = json(&run(&db, &["check", "--format", "json"]));
    assert_eq!(report["ok"], true);
    assert!(report["dangling_ids"].as_u64().unwrap() >= 100_000);
}

#[test]
fn ids_with_quotes_percent_underscore_newlines_and_sql_are_kept_verbatim() {
    let f = Fixture::new();
    let db = f.db("ids.db");
    let ids = ["a'b\"c", "100%", "%", "under_score", "_", "line\nbreak", "tab\there", "'); DROP TABLE papers; --"];
    let lines: String = ids
        .iter()
        .map(|id| format!("{}\n", j!({"id": id, "title": format!("Odd identifier {id}"), "references": ["a'b\"c"]})))
        .collect();
    ok(&run(&db, &["ingest", "--quiet", &f.file("ids.jsonl", lines)]));
    for id in ids {
        let p = json(&run(&db, &["paper", id, "--format", "json"]));
        assert_eq!(p["id"], id, "{id:?}");
        assert_eq!(p["title"], format!("Odd identifier {id}"));
    }
    // No pattern matching: `%` and `_` are themselves, not wildcards.
    let o = run(&db, &["paper", "1%"]);
    one_line_error(&o, &["unknown paper id"]);
    let quoted = json(&run(&db, &["neighbors", "a'b\"c", "--format", "json"]));
    assert_eq!(quoted["nodes"].as_array().unwrap().len(), ids.len(), "{quoted}");
    // The SQL was data: every table is still there, and searching for it is harmless.
    ok(&run(&db, &["search", "'); DROP TABLE papers; --"]));
    ok(&run(&db, &["search", "%"]));
    ok(&run(&db, &["search", "_ %% '' \\"]));
    assert_eq!(papers(&db), 108);
    assert_check_passes(&db);
    let store = Store::open(&db).unwrap();
    let stored: Vec<String> = store
        .conn()
        .prepare("SELECT id FROM papers WHERE id NOT LIKE 'p___' ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut expected: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(stored, expected);
}

#[test]
fn nul_bytes_in_json_strings_are_stored_verbatim() {
    let f = Fixture::new();
    let db = f.db("nul.db");
    let file = f.file("nul.jsonl", format!("{}\n", j!({"id": "nul\u{0}id", "title": "nul \u{0} inside"})));
    ok(&run(&db, &["ingest", "--quiet", &file]));
    let store = Store::open(&db).unwrap();
    let (id, title): (String, String) = store
        .conn()
        .query_row("SELECT id, title FROM papers WHERE title LIKE 'nul%'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((id.as_str(), title.as_str()), ("nul\u{0}id", "nul \u{0} inside"));
    let hits = json(&run(&db, &["search", "inside", "--format", "json"]));
    assert_eq!(hits["ranked"][0]["id"], "nul\u{0}id");
    assert_check_passes(&db);
}

#[test]
fn queries_in_any_script_and_of_10000_terms_are_answered() {
    let f = Fixture::new();
    let db = f.db("q.db");
    let titles = ["深層学習による文献検索", "التعلم العميق للبحث", "emoji 🚀 rocket science", "Ελληνικά κείμενα"];
    let lines: String =
        titles.iter().enumerate().map(|(i, t)| format!("{}\n", j!({"id": format!("x{i}"), "title": t}))).collect();
    ok(&run(&db, &["ingest", "--quiet", &f.file("scripts.jsonl", lines)]));
    for (q, expect) in [
        ("深層学習による文献検索", Some("x0")),
        ("التعلم", Some("x1")),
        ("ελληνικά", Some("x3")),
        ("🚀", None),
        ("🚀🚀🚀 \u{200b}\u{202e}\u{301}", None),
        ("表", None),
    ] {
        let v = json(&run(&db, &["search", q, "--format", "json"]));
        assert_eq!(v["query"], q);
        match expect {
            Some(id) => assert_eq!(v["ranked"][0]["id"], id, "{q}"),
            None => assert_eq!(v["hit_count"], 0, "{q}"),
        }
        let table = run(&db, &["search", q]);
        ok(&table);
    }

    // 10,000 terms: words of the index and unknown ones, in one argument.
    let store = Store::open(&db).unwrap();
    let vocab: Vec<String> = store
        .conn()
        .prepare("SELECT term FROM terms WHERE length(term) <= 8 ORDER BY term")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    drop(store);
    let query: Vec<String> = (0..10_000)
        .map(|i| if i % 3 == 0 { format!("zz{i}") } else { vocab[(i * 7919) % vocab.len()].clone() })
        .collect();
    let query = query.join(" ");
    let started = Instant::now();
    let o = run(&db, &["search", &query, "--format", "json", "--limit", "5"]);
    let elapsed = started.elapsed();
    assert_no_panic(&o);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("answered");
    assert!(v["hit_count"].as_u64().unwrap() > 0);
    eprintln!("a 10,000-term query on the mock index: {elapsed:.2?} (debug build, process included)");
    assert!(elapsed.as_secs() < 10, "{elapsed:?}");
}
