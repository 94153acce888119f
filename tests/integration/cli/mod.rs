//! End-to-end tests of the real `litindex` binary against temporary databases.
//!
//! Every test works in its own `tempfile::tempdir()`, passes `current_dir`
//! and (except for the embedded-default tests) `--db`, and never depends on
//! the working directory of the test process. One module per command (or
//! concern); the helpers they share are here.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::common::{litindex, run_in, stderr, stdout};

mod build;
mod completions;
mod databases;
mod paper_neighbors;
mod postings;
mod search;
mod stats;
mod stdout;

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
    // `plain`, the analyzer these tests were written for (the default before issue 22;
    // `analyzers.rs` tests the new default).
    let out = run_db(&db, &["build", "--analyzer", "plain"]);
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

/// Sets `path`'s modification time to a fixed moment long past (2001-09-09),
/// so that any later write, which sets it to the present, changes it: no
/// waiting for the coarse clock of file times to tick past the last write.
fn age(path: &Path) {
    let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    fs::File::options().write(true).open(path).unwrap().set_modified(past).unwrap();
    assert_eq!(fs::metadata(path).unwrap().modified().unwrap(), past, "{} keeps its old time", path.display());
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
