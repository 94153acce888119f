//! Reliability end to end, with the real binary: `check`, atomic ingest and
//! build under crashes (failpoints and SIGKILL), WAL concurrency (readers
//! during a write, a second writer, concurrent creators), read-only files and
//! directories (as a non-root user), and a full disk.
//!
//! The crash and concurrency tests drive the binary with failpoints, so they
//! exist only with `cargo test --features failpoints` (CI enables it): each
//! kill and each read "during" a write happens while the writer is provably
//! inside its transaction, at a named place.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
#[cfg(feature = "failpoints")]
use std::process::Child;
use std::process::{Command, Output, Stdio};
#[cfg(feature = "failpoints")]
use std::time::{Duration, Instant};

use litindex::store::Store;
use serde_json::Value;

use crate::common::{litindex, stderr, stdout};

// ---------------------------------------------------------------------------
// Helpers (also used by `hostile`)
// ---------------------------------------------------------------------------

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
fn base_index(dir: &Path, name: &str) -> PathBuf {
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
fn spawn_paused(db: &Path, args: &[&str], name: &str, after: Option<u64>) -> Child {
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
fn run_aborting(db: &Path, args: &[&str], name: &str, after: Option<u64>) -> Output {
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

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

// ---------------------------------------------------------------------------
// check
// ---------------------------------------------------------------------------

#[test]
fn check_passes_on_fresh_indexes_and_names_damage_done_behind_our_back() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let table = ok(&run(&db, &["check"]));
    assert!(table.contains("check passed") && table.contains("journal mode wal"), "{table}");
    let report = json(&run(&db, &["check", "--format", "json"]));
    assert_eq!(report["ok"], true);
    assert_eq!(report["papers"], 120);
    assert!(report["dangling_ids"].as_u64().unwrap() > 0, "dangling ids are counted: {report}");
    assert!(report["invariants"].as_array().unwrap().len() >= 15);

    // Every fixture, through every format, merges and all.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest");
    let mut files: Vec<String> = fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            !n.contains("error") && !n.contains("references") && !n.contains("citations.json")
        })
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    files.sort();
    let all = dir.path().join("all.db");
    let mut args = vec!["ingest", "--quiet"];
    args.extend(files.iter().map(String::as_str));
    ok(&run(&all, &args));
    assert_check_passes(&all);

    // The postings block of one term deleted with sqlite3 (or, without it, the same SQL through rusqlite).
    let sql = "DELETE FROM posting_blocks WHERE term_id = (SELECT term_id FROM terms WHERE term = 'sparse')";
    let by_cli = Command::new("sqlite3").arg(&db).arg(sql).status().map(|s| s.success()).unwrap_or(false);
    if !by_cli {
        rusqlite::Connection::open(&db).unwrap().execute(sql, []).unwrap();
    }
    let o = run(&db, &["check"]);
    let line =
        one_line_error(&o, &["check failed", "df: term \"sparse\": df 14, 0 postings", "doc-len: paper \"p001\""]);
    assert!(line.contains("2 of"), "{line}");
    assert!(stdout(&o).contains("FAIL  df") && stdout(&o).contains("check FAILED"), "{}", stdout(&o));
    let o = run(&db, &["check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["ok"], false);
    let failed: Vec<&str> = report["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["ok"] == false)
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["df", "doc-len"]);
}

// ---------------------------------------------------------------------------
// Atomic ingest and build
// ---------------------------------------------------------------------------

#[cfg(feature = "failpoints")]
const QUERIES: [&str; 2] = ["sparse attention", "w7 w11 w13"];

#[cfg(feature = "failpoints")]
#[test]
fn a_killed_ingest_leaves_the_index_exactly_as_it_was() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let corpus = dir.path().join("big.jsonl");
    fs::write(&corpus, generated_corpus(5000, 1)).unwrap();
    let before = dump(&db);
    let results: Vec<Value> = QUERIES.iter().map(|q| ranking(&db, q)).collect();
    let args = ["ingest", "--quiet", corpus.to_str().unwrap()];
    let same_as_before = |when: &str| {
        assert_check_passes(&db);
        assert!(dump(&db) == before, "{when}: the index changed");
        for (q, r) in QUERIES.iter().zip(&results) {
            assert_eq!(&ranking(&db, q), r, "{when}: search {q:?} differs");
        }
    };

    // Crashes (abort: no destructor, no rollback by the process) at each stage.
    for (name, after) in [("after-records", Some(1)), ("mid-postings", Some(250)), ("before-stats", None)] {
        run_aborting(&db, &args, name, after);
        same_as_before(name);
    }
    // SIGKILL while the ingest is inside its transaction: at its first record,
    // halfway through the records, halfway through the postings, during the
    // statistics update and just before the commit. Each one is paused there
    // first, so it is always killed mid-write, never after it finished.
    for (name, after) in [
        ("after-records", Some(1)),
        ("after-records", Some(2500)),
        ("mid-postings", Some(2500)),
        ("before-stats", None),
        ("before-commit", None),
    ] {
        let mut child = spawn_paused(&db, &args, name, after);
        child.kill().unwrap();
        child.wait().unwrap();
        same_as_before(&format!("SIGKILL at {name} {after:?}"));
    }

    // And then it goes through whole.
    ok(&run(&db, &args));
    assert_check_passes(&db);
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 5120);
    assert_ne!(ranking(&db, QUERIES[1]), results[1]);
}

#[cfg(feature = "failpoints")]
#[test]
fn a_killed_ingest_or_build_that_was_creating_the_index_leaves_no_file() {
    let dir = tempdir();
    let corpus = dir.path().join("c.jsonl");
    fs::write(&corpus, generated_corpus(300, 2)).unwrap();
    let db = dir.path().join("new.db");
    let ingest = ["ingest", "--quiet", corpus.to_str().unwrap()];
    for (name, after) in [("after-records", Some(10)), ("before-commit", None), ("before-rename", None)] {
        run_aborting(&db, &ingest, name, after);
        assert!(!db.exists(), "{name}: {} exists", db.display());
        let left: Vec<String> = listing(dir.path()).into_iter().filter(|n| n.starts_with("new.db")).collect();
        assert!(left.is_empty(), "{name}: left {left:?}");
    }
    // The next ingest creates it, and clears the temporary files the killed ones left.
    ok(&run(&db, &ingest));
    assert_check_passes(&db);
    let names = listing(dir.path());
    assert!(!names.iter().any(|n| n.starts_with(".litindex-build-")), "temporary files left: {names:?}");

    // A build killed just before its rename leaves the old index as it was.
    let before = dump(&db);
    run_aborting(&db, &["build"], "before-rename", None);
    assert!(dump(&db) == before, "a killed build changed the index");
    assert_check_passes(&db);
}

#[cfg(feature = "failpoints")]
#[test]
fn a_rebuild_never_inherits_the_wal_of_the_index_it_replaces() {
    let dir = tempdir();
    let db = dir.path().join("i.db");
    ok(&run(&db, &["build"]));
    let corpus = dir.path().join("c.jsonl");
    fs::write(&corpus, generated_corpus(150, 3)).unwrap();
    // Committed, then killed before closing: the changes sit in i.db-wal only.
    run_aborting(&db, &["ingest", "--quiet", corpus.to_str().unwrap()], "after-commit", None);
    let wal = dir.path().join("i.db-wal");
    assert!(fs::metadata(&wal).map(|m| m.len() > 100_000).unwrap_or(false), "expected a populated {wal:?}");
    let leftover = fs::read(&wal).unwrap();
    // Renaming a new file over it naively would make SQLite apply that WAL to
    // the new file. `build` retires the old file first.
    let small = dir.path().join("small.jsonl");
    fs::write(&small, generated_corpus(5, 4)).unwrap();
    ok(&run(&db, &["build", "--jsonl", small.to_str().unwrap()]));
    assert_check_passes(&db);
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 5);
    assert_eq!(listing(dir.path()), BTreeSet::from(["c.jsonl", "i.db", "small.jsonl"].map(String::from)));

    // The same stale WAL (and its -shm) beside an index, left by a deleted
    // database: a new index created there ignores it.
    fs::remove_file(&db).unwrap();
    fs::write(&wal, &leftover).unwrap();
    ok(&run(&db, &["ingest", "--quiet", small.to_str().unwrap()]));
    assert_check_passes(&db);
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 5);
}

#[test]
fn a_rebuild_never_inherits_the_hot_journal_of_an_older_index() {
    // An index in rollback-journal mode (as litindex made them before WAL)
    // whose writer was killed mid-transaction: a hot -journal lies beside it.
    let dir = tempdir();
    let db = dir.path().join("old.db");
    ok(&run(&db, &["build"]));
    let sqlite3 =
        Command::new("sqlite3").arg(&db).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn();
    let Ok(mut sqlite3) = sqlite3 else {
        eprintln!("skipping: no sqlite3 command line shell");
        return;
    };
    let mut stdin = sqlite3.stdin.take().unwrap();
    std::io::Write::write_all(
        &mut stdin,
        b"PRAGMA journal_mode = DELETE; PRAGMA cache_size = 2; BEGIN;
          UPDATE papers SET abstract = abstract || ' changed'; UPDATE postings SET tf = tf + 1;
          SELECT 'ready';\n",
    )
    .unwrap();
    // Wait until the shell is inside its transaction, then kill it.
    let mut out = BufReader::new(sqlite3.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
    }
    sqlite3.kill().unwrap();
    sqlite3.wait().unwrap();
    drop(stdin);
    let journal = dir.path().join("old.db-journal");
    assert!(journal.exists(), "expected a hot journal");
    // Before this was handled, the rename put the new file beside the old
    // journal, SQLite rolled it "back" into the new file: malformed.
    let small = dir.path().join("small.jsonl");
    fs::write(&small, generated_corpus(5, 13)).unwrap();
    ok(&run(&db, &["build", "--jsonl", small.to_str().unwrap()]));
    assert!(!journal.exists());
    assert_check_passes(&db);
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 5);
}

// ---------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------

#[cfg(feature = "failpoints")]
#[test]
fn readers_see_the_last_committed_state_while_an_ingest_writes() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let corpus = dir.path().join("big.jsonl");
    fs::write(&corpus, generated_corpus(600, 5)).unwrap();
    let args = ["ingest", "--quiet", corpus.to_str().unwrap()];
    let query = QUERIES[1];
    // What a reader sees: the ranking of a search and the paper count.
    let read = || (ranking(&db, query), json(&run(&db, &["stats", "--format", "json"]))["papers"].clone());
    let before = read();
    assert_eq!(before.1, 120);

    // The writer is held inside its transaction at each stage (paused there,
    // the write lock taken): the readers run meanwhile and see the last
    // committed state. Then the writer is killed.
    for (name, after) in
        [("after-records", Some(300)), ("mid-postings", Some(300)), ("before-stats", None), ("before-commit", None)]
    {
        let mut writer = spawn_paused(&db, &args, name, after);
        for _ in 0..2 {
            assert!(read() == before, "a reader during the write (at {name}) saw a state that was never committed");
        }
        assert!(writer.try_wait().unwrap().is_none(), "the writer left {name} before the reads ended");
        writer.kill().unwrap();
        writer.wait().unwrap();
    }
    assert!(read() == before);

    // Committed, the writer still running (its WAL not checkpointed): the
    // readers see the new state, and still do once the writer is gone.
    let mut writer = spawn_paused(&db, &args, "after-commit", None);
    let after = read();
    assert_eq!(after.1, 720);
    assert_ne!(after.0, before.0);
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert!(read() == after);
    assert_check_passes(&db);
}

#[cfg(feature = "failpoints")]
#[test]
fn a_second_writer_waits_for_the_busy_timeout_then_fails_clearly() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let before = dump(&db);
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    fs::write(&a, generated_corpus(30, 6)).unwrap();
    fs::write(&b, generated_corpus(10, 7).replace("\"gen", "\"second")).unwrap();

    // Writer A holds the write lock (paused just before its commit).
    let expected = ranking(&db, "sparse attention");
    let mut first = spawn_paused(&db, &["ingest", "--quiet", a.to_str().unwrap()], "before-commit", None);
    let started = Instant::now();
    let o =
        cmd(&db, &["ingest", "--quiet", b.to_str().unwrap()]).env("LITINDEX_BUSY_TIMEOUT_MS", "300").output().unwrap();
    let waited = started.elapsed();
    one_line_error(&o, &["being written by another process", "0.3 s"]);
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(4), "{waited:?}");
    // Readers are not blocked by the writer.
    assert_eq!(ranking(&db, "sparse attention"), expected);
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(dump(&db) == before);
    assert_check_passes(&db);

    // Within the timeout, the second writer simply waits its turn.
    let mut first = cmd(&db, &["ingest", "--quiet", a.to_str().unwrap()])
        .env("LITINDEX_FAILPOINT", "before-commit")
        .env("LITINDEX_FAILPOINT_ACTION", "sleep:700")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(first.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("failpoint before-commit reached"), "{line}");
    ok(&run(&db, &["ingest", "--quiet", b.to_str().unwrap()]));
    assert!(first.wait().unwrap().success());
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 160);
    assert_check_passes(&db);
}

#[cfg(feature = "failpoints")]
#[test]
fn two_ingests_creating_the_same_index_do_not_overwrite_each_other() {
    let dir = tempdir();
    let db = dir.path().join("new.db");
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    fs::write(&a, generated_corpus(20, 8)).unwrap();
    fs::write(&b, generated_corpus(5, 9).replace("\"gen", "\"other")).unwrap();
    // A is slowed down just before its rename, so B (usually) gets there first.
    let mut first = cmd(&db, &["ingest", "--quiet", a.to_str().unwrap()])
        .env("LITINDEX_FAILPOINT", "before-rename")
        .env("LITINDEX_FAILPOINT_ACTION", "sleep:600")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(first.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("before-rename"), "{line}");
    let second = run(&db, &["ingest", "--quiet", b.to_str().unwrap()]);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let first = first.wait().unwrap();
    // Exactly one creates the index; the other says so and writes nothing.
    let (papers, loser) = match (first.success(), second.status.success()) {
        (false, true) => (5, rest),
        (true, false) => (20, stderr(&second)),
        other => panic!("expected exactly one creator to succeed: {other:?}\n{rest}\n{}", stderr(&second)),
    };
    assert!(loser.contains("another process created") && loser.lines().count() == 1, "{loser}");
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], papers);
    assert_check_passes(&db);
}

// ---------------------------------------------------------------------------
// Read-only files and directories, as a non-root user
// ---------------------------------------------------------------------------

const NOBODY: u32 = 65534;

/// The binary run as user `nobody` through `setpriv`, or `None` (with a note)
/// when that is impossible: not root, or no `setpriv`.
fn as_nobody(db: &Path, args: &[&str]) -> Option<Command> {
    if !is_root() {
        eprintln!("skipping: not root, so cannot run as another user (root ignores file permissions)");
        return None;
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipping: `setpriv` is not installed");
        return None;
    }
    // Every directory above the index and the binary must let others through.
    for path in [db, Path::new(env!("CARGO_BIN_EXE_litindex"))] {
        for dir in path.ancestors().skip(1) {
            let mode = std::os::unix::fs::PermissionsExt::mode(&fs::metadata(dir).unwrap().permissions());
            if mode & 0o001 == 0 {
                eprintln!("skipping: user nobody cannot enter {}", dir.display());
                return None;
            }
        }
    }
    let mut c = Command::new("setpriv");
    c.args([format!("--reuid={NOBODY}"), format!("--regid={NOBODY}"), "--clear-groups".into()])
        .arg(env!("CARGO_BIN_EXE_litindex"))
        .current_dir(db.parent().unwrap())
        .env_remove("LITINDEX_DB")
        .arg("--db")
        .arg(db)
        .args(args);
    Some(c)
}

#[test]
fn read_only_files_and_directories_serve_reads_and_refuse_writes() {
    let dir = tempdir();
    let one = dir.path().join("one.jsonl");
    fs::write(&one, generated_corpus(3, 10)).unwrap();
    set_mode(&one, 0o644);
    let one = one.to_str().unwrap().to_string();
    let reads: [&[&str]; 5] = [
        &["search", "sparse attention", "--format", "json", "--limit", "50"],
        &["paper", "p001", "--format", "json"],
        &["neighbors", "p001", "--format", "json"],
        &["stats", "--format", "json"],
        &["check"],
    ];

    // 1. A file nobody may not write, in a directory nobody may not write.
    let sub = dir.path().join("ro-file");
    fs::create_dir(&sub).unwrap();
    set_mode(&sub, 0o755);
    let db = sub.join("i.db");
    ok(&run(&db, &["build"]));
    set_mode(&db, 0o444);
    let expected = ranking(&db, "sparse attention");
    let Some(_) = as_nobody(&db, &["stats"]) else { return };
    let files = listing(&sub);
    for args in reads {
        let o = as_nobody(&db, args).unwrap().output().unwrap();
        ok(&o);
        assert!(stderr(&o).contains("immutable"), "{args:?}: {}", stderr(&o));
        assert_eq!(listing(&sub), files, "{args:?} left files");
    }
    let o = as_nobody(&db, reads[0]).unwrap().output().unwrap();
    assert!(json(&o)["ranked"] == expected, "read-only search differs");
    let before = dump(&db);
    one_line_error(&as_nobody(&db, &["ingest", "--quiet", &one]).unwrap().output().unwrap(), &["read-only"]);
    one_line_error(&as_nobody(&db, &["build"]).unwrap().output().unwrap(), &["cannot"]);
    assert!(dump(&db) == before);

    // 2. A file nobody may not write, in a directory anyone may write: read it
    //    without creating side files it could not remove; refuse to replace it.
    set_mode(&sub, 0o777);
    for args in reads {
        ok(&as_nobody(&db, args).unwrap().output().unwrap());
        assert_eq!(listing(&sub), files, "{args:?} left files");
    }
    one_line_error(&as_nobody(&db, &["ingest", "--quiet", &one]).unwrap().output().unwrap(), &["read-only"]);
    one_line_error(&as_nobody(&db, &["build"]).unwrap().output().unwrap(), &["cannot rebuild", "read-only"]);
    assert!(dump(&db) == before);

    // 3. The same file while its owner has it open (its -wal and -shm exist):
    //    read through them, read-only.
    set_mode(&sub, 0o755);
    set_mode(&db, 0o644);
    let owner = Store::open(&db).unwrap();
    assert!(sub.join("i.db-shm").exists());
    for args in reads {
        let o = as_nobody(&db, args).unwrap().output().unwrap();
        ok(&o);
        assert!(!stderr(&o).contains("immutable"), "{}", stderr(&o));
    }
    drop(owner);

    // 4. A file nobody owns, in a directory nobody may not write: SQLite cannot
    //    create the -wal and -shm files there, so reads fall back to immutable.
    let sub = dir.path().join("ro-dir");
    fs::create_dir(&sub).unwrap();
    let db = sub.join("i.db");
    ok(&run(&db, &["build"]));
    std::os::unix::fs::chown(&db, Some(NOBODY), Some(NOBODY)).unwrap();
    set_mode(&sub, 0o555);
    let files = listing(&sub);
    for args in reads {
        let o = as_nobody(&db, args).unwrap().output().unwrap();
        ok(&o);
        assert!(stderr(&o).contains("immutable"), "{args:?}: {}", stderr(&o));
    }
    let o = as_nobody(&db, reads[0]).unwrap().output().unwrap();
    assert!(json(&o)["ranked"] == expected, "immutable search differs");
    one_line_error(
        &as_nobody(&db, &["ingest", "--quiet", &one]).unwrap().output().unwrap(),
        &["directory is read-only"],
    );
    assert_eq!(listing(&sub), files);
    set_mode(&sub, 0o755);
}

// ---------------------------------------------------------------------------
// Full disk
// ---------------------------------------------------------------------------

#[test]
fn a_full_database_fails_cleanly_and_stays_consistent() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let corpus = dir.path().join("big.jsonl");
    fs::write(&corpus, generated_corpus(400, 11)).unwrap();
    let before = dump(&db);
    let pages: u64 = Store::open(&db).unwrap().conn().query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
    let cap = (pages + 8).to_string();
    let o = cmd(&db, &["ingest", "--quiet", corpus.to_str().unwrap()])
        .env("LITINDEX_MAX_PAGE_COUNT", &cap)
        .output()
        .unwrap();
    one_line_error(&o, &["disk is full", "nothing was changed"]);
    assert!(dump(&db) == before);
    assert_check_passes(&db);
    // Creating an index that does not fit leaves nothing.
    let new = dir.path().join("new.db");
    let o = cmd(&new, &["ingest", "--quiet", corpus.to_str().unwrap()])
        .env("LITINDEX_MAX_PAGE_COUNT", "40")
        .output()
        .unwrap();
    one_line_error(&o, &["disk is full"]);
    assert!(!listing(dir.path()).iter().any(|n| n.starts_with("new.db") || n.starts_with(".litindex-build")));
}

/// A small tmpfs mounted on a directory, unmounted on drop.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_file_system_fails_cleanly_and_stays_consistent() {
    if !is_root() {
        eprintln!("skipping: mounting a small tmpfs needs root");
        return;
    }
    let dir = tempdir();
    let mnt = dir.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1200k", "tmpfs"])
        .arg(&mnt)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !mounted {
        eprintln!("skipping: cannot mount a tmpfs here");
        return;
    }
    let _guard = Mounted(mnt.clone());
    let db = mnt.join("i.db");
    ok(&run(&db, &["build", "--analyzer", "plain"]));
    let corpus = dir.path().join("big.jsonl");
    fs::write(&corpus, generated_corpus(400, 12)).unwrap();
    let before = dump(&db);
    let o = run(&db, &["ingest", "--quiet", corpus.to_str().unwrap()]);
    one_line_error(&o, &["disk is full"]);
    assert!(dump(&db) == before);
    assert_check_passes(&db);
    assert_eq!(ranking(&db, "sparse attention").as_array().unwrap().len(), 26);
    // A new index that does not fit leaves no file behind.
    let new = mnt.join("new.db");
    one_line_error(&run(&new, &["ingest", "--quiet", corpus.to_str().unwrap()]), &["disk is full"]);
    assert_eq!(listing(&mnt), BTreeSet::from(["i.db".to_string()]));
}
