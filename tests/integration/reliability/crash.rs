//! Atomic ingest and build under crashes: failpoint aborts and SIGKILLs at
//! named places inside the write leave the index exactly as it was, and a
//! rebuild never inherits the WAL or the hot journal of the file it replaces.

#[cfg(feature = "failpoints")]
use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[cfg(feature = "failpoints")]
use serde_json::Value;

use super::{assert_check_passes, generated_corpus, json, ok, run, tempdir};
#[cfg(feature = "failpoints")]
use super::{base_index, dump, listing, ranking, run_aborting, spawn_paused};
use crate::common::{Need, skip};

#[cfg(feature = "failpoints")]
pub(super) const QUERIES: [&str; 2] = ["sparse attention", "w7 w11 w13"];

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
        Command::new("sqlite3").arg(&db).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let Ok(mut sqlite3) = sqlite3 else {
        return skip(Need::Sqlite3, "no sqlite3 command line shell");
    };
    let mut stdin = sqlite3.stdin.take().unwrap();
    // The transaction changes the papers and the postings as the store holds
    // them today (`posting_blocks`; the `postings` table is gone since
    // migration 008), and `.bail on` ends the shell at the first failing
    // statement, so a table renamed away makes this test fail, not pass on a
    // journal of nothing.
    std::io::Write::write_all(
        &mut stdin,
        b".bail on
          PRAGMA journal_mode = DELETE; PRAGMA cache_size = 2; BEGIN;
          UPDATE papers SET abstract = abstract || ' changed';
          UPDATE posting_blocks SET max_tf = max_tf + 1, data = data || x'00';
          SELECT 'ready', changes();\n",
    )
    .unwrap();
    // Wait until the shell is inside its transaction, then kill it.
    let mut out = BufReader::new(sqlite3.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            let mut err = String::new();
            std::io::Read::read_to_string(sqlite3.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("the sqlite3 shell ended before its transaction was ready: {err}");
        }
    }
    let changed: u64 = line.trim().rsplit('|').next().unwrap().parse().unwrap();
    assert!(changed > 0, "the transaction rewrote {changed} posting blocks: {line}");
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
