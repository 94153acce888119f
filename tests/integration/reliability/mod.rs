//! Reliability end to end, with the real binary, one file per concern:
//! `check` (check.rs), atomic ingest and build under crashes, failpoints and
//! SIGKILL (crash.rs), WAL concurrency: readers during a write, a second
//! writer, concurrent creators (concurrency.rs), read-only files and
//! directories as a non-root user (readonly.rs), and a full disk (disk.rs).
//! This file holds the helpers they share (`hostile`, `bm25` and
//! `failpoints` use them too).
//!
//! The crash and concurrency tests drive the binary with failpoints, so they
//! exist only with `cargo test --features failpoints` (CI enables it): each
//! kill and each read "during" a write happens while the writer is provably
//! inside its transaction, at a named place.

mod check;
// Every concurrency test holds a writer at a failpoint.
#[cfg(feature = "failpoints")]
mod concurrency;
mod crash;
mod disk;
mod readonly;

use std::collections::BTreeSet;
use std::fs;
#[cfg(feature = "failpoints")]
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
#[cfg(feature = "failpoints")]
use std::process::{Child, Stdio};
use std::process::{Command, Output};

use litindex::store::Store;
use serde_json::Value;

use crate::common::{litindex, stderr, stdout};

/// `litindex --db DB ARGS…`, run in the database's directory.
pub fn cmd(db: &Path, args: &[&str]) -> Command {
    let mut c = litindex();
    c.current_dir(db.parent().unwrap()).arg("--db").arg(db).args(args);
    for var in
        ["LITINDEX_FAILPOINT", "LITINDEX_FAILPOINT_AFTER", "LITINDEX_FAILPOINT_ACTION", "LITINDEX_MAX_PAGE_COUNT"]
    {
        c.env_remove(var);
    }
    c
}

pub fn run(db: &Path, args: &[&str]) -> Output {
    cmd(db, args).output().expect("run litindex")
}

pub fn assert_no_panic(o: &Output) {
    let err = stderr(o);
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "panic:\n{err}");
    assert!(matches!(o.status.code(), Some(0..=2)), "killed or crashed: {:?}\n{err}", o.status);
}

pub fn ok(o: &Output) -> String {
    assert_no_panic(o);
    assert!(o.status.success(), "expected success, got {:?}\nstdout:\n{}\nstderr:\n{}", o.status, stdout(o), stderr(o));
    stdout(o)
}

/// Exit 1 and one `litindex: error:` line on stderr containing every needle; returns it.
pub fn one_line_error(o: &Output, needles: &[&str]) -> String {
    assert_no_panic(o);
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "expected exit 1; stdout:\n{}\nstderr:\n{err}", stdout(o));
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("litindex: note:")).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got:\n{err}");
    assert!(lines[0].starts_with("litindex: error: "), "{err}");
    for n in needles {
        assert!(lines[0].contains(n), "error line does not mention `{n}`: {err}");
    }
    lines[0].to_string()
}

pub fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// The ranked ids and scores of a search, without the timing.
pub fn ranking(db: &Path, query: &str) -> Value {
    // The search defaults before issue 22 (by-hops, the pool of --top-k), which these tests' counts assume.
    let flags = ["--format", "json", "--limit", "50", "--graph-score", "by-hops", "--pool", "10"];
    json(&run(db, &[&["search", query][..], &flags].concat()))["ranked"].clone()
}

/// `check` passes: exit 0, `ok` in its JSON report.
pub fn assert_check_passes(db: &Path) {
    let o = run(db, &["check", "--format", "json"]);
    assert!(o.status.success(), "check failed on {}:\n{}\n{}", db.display(), stdout(&o), stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["ok"], true, "{report}");
}

/// The whole logical content of an index: every table, every row, sorted,
/// plus the identity pragmas.
pub fn dump(db: &Path) -> String {
    let store = Store::open(db).unwrap();
    let conn = store.conn();
    let mut out = String::new();
    for pragma in ["application_id", "user_version"] {
        let v: i64 = conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0)).unwrap();
        out.push_str(&format!("{pragma} {v}\n"));
    }
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(tables.len() >= 10, "{tables:?}");
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let cells: Vec<String> =
                    (0..n).map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap())).collect();
                Ok(cells.join("|"))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort();
        out.push_str(&format!("== {t} ({} rows)\n", rows.len()));
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    out
}

/// The names in `dir`.
pub fn listing(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// A deterministic synthetic corpus of `n` Paper JSON Lines: words `w0`…`w499`
/// (absent from the mock corpus), references among themselves and to mock papers.
pub fn generated_corpus(n: usize, seed: u64) -> String {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move |m: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let mut out = String::new();
    for i in 0..n {
        let mut words = |k: usize| (0..k).map(|_| format!("w{}", next(500))).collect::<Vec<_>>().join(" ");
        let title = words(8);
        let abstract_ = words(40);
        let refs = [format!("gen{}", next(n as u64)), format!("gen{}", next(n as u64)), format!("p{:03}", 1 + i % 100)];
        out.push_str(
            &serde_json::json!({
                "id": format!("gen{i}"), "title": title, "abstract": abstract_,
                "year": 1995 + (i % 30), "authors": [format!("Author {}", i % 97)], "references": refs,
            })
            .to_string(),
        );
        out.push('\n');
    }
    out
}

/// A temporary directory readable by every user (for the non-root tests).
pub fn tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755);
    dir
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// The mock index, plus one small ingest, at `dir/NAME`.
pub(super) fn base_index(dir: &Path, name: &str) -> PathBuf {
    let db = dir.join(name);
    // `plain`, the analyzer these tests were written for (the default before issue 22).
    ok(&run(&db, &["build", "--analyzer", "plain"]));
    let extra = dir.join("extra.jsonl");
    fs::write(&extra, generated_corpus(20, 99).replace("\"gen", "\"extra")).unwrap();
    ok(&run(&db, &["ingest", "--quiet", extra.to_str().unwrap()]));
    db
}

/// Spawns `args` with failpoint `name` set to pause, and waits until it is
/// reached: the process then waits there, inside its write, until killed.
#[cfg(feature = "failpoints")]
pub(super) fn spawn_paused(db: &Path, args: &[&str], name: &str, after: Option<u64>) -> Child {
    let mut c = cmd(db, args);
    c.env("LITINDEX_FAILPOINT", name).env("LITINDEX_FAILPOINT_ACTION", "pause");
    if let Some(n) = after {
        c.env("LITINDEX_FAILPOINT_AFTER", n.to_string());
    }
    let mut child = c.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let wanted = format!("failpoint {name} reached");
    let mut line = String::new();
    while !line.contains(&wanted) {
        line.clear();
        let n = err.read_line(&mut line).unwrap();
        assert!(n > 0, "{args:?} ended before failpoint {name}");
    }
    child
}

/// Runs `args` with failpoint `name` aborting the process there.
#[cfg(feature = "failpoints")]
pub(super) fn run_aborting(db: &Path, args: &[&str], name: &str, after: Option<u64>) -> Output {
    let mut c = cmd(db, args);
    c.env("LITINDEX_FAILPOINT", name);
    if let Some(n) = after {
        c.env("LITINDEX_FAILPOINT_AFTER", n.to_string());
    }
    let o = c.output().unwrap();
    assert!(stderr(&o).contains(&format!("failpoint {name} reached")), "{name} not reached: {}", stderr(&o));
    assert!(o.status.code().is_none(), "{name}: expected death by signal, got {:?}", o.status);
    o
}

pub(super) fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}
