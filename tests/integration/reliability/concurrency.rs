//! WAL concurrency: readers during a write see the last committed state, a
//! second writer waits for the busy timeout then fails clearly, and two
//! creators of one index do not overwrite each other.

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

use super::crash::QUERIES;
use super::{
    assert_check_passes, base_index, cmd, dump, generated_corpus, json, one_line_error, ranking, run, spawn_paused,
    tempdir,
};
use crate::common::stderr;

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
    // B gives up after its busy timeout, and says which timeout it waited.
    // (No wall-clock bound on how long that took: a loaded machine may take
    // any time; the message names the timeout the process applied.)
    let o =
        cmd(&db, &["ingest", "--quiet", b.to_str().unwrap()]).env("LITINDEX_BUSY_TIMEOUT_MS", "300").output().unwrap();
    one_line_error(&o, &["being written by another process", "0.3 s"]);
    // Readers are not blocked by the writer.
    assert_eq!(ranking(&db, "sparse attention"), expected);
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(dump(&db) == before);
    assert_check_passes(&db);

    // Within the timeout, the second writer simply waits its turn: A holds
    // the lock (paused), B is started with a timeout no run reaches, and A is
    // killed only once B is seen sleeping in SQLite's busy handler, so B
    // provably waited for the lock, then wrote once it was free.
    let mut first = spawn_paused(&db, &["ingest", "--quiet", a.to_str().unwrap()], "before-commit", None);
    let mut second = cmd(&db, &["ingest", "--quiet", b.to_str().unwrap()])
        .env("LITINDEX_BUSY_TIMEOUT_MS", "3600000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until_sleeping(&mut second);
    first.kill().unwrap();
    first.wait().unwrap();
    let second = second.wait_with_output().unwrap();
    assert!(second.status.success(), "{}", stderr(&second));
    assert_eq!(json(&run(&db, &["stats", "--format", "json"]))["papers"], 130);
    assert_check_passes(&db);
}

/// The `nanosleep` and `clock_nanosleep` system call numbers: SQLite's busy
/// handler sleeps with one of them between its tries, and an ingest sleeps
/// nowhere else.
#[cfg(target_arch = "x86_64")]
const SLEEP_SYSCALLS: [&str; 2] = ["35", "230"];
#[cfg(target_arch = "aarch64")]
const SLEEP_SYSCALLS: [&str; 2] = ["101", "115"];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("reliability::concurrency: add this architecture's nanosleep and clock_nanosleep numbers");

/// Returns once a thread of `child` is inside a sleep system call (read from
/// `/proc/PID/task/*/syscall`), an event, not a deadline; fails if `child`
/// ends first.
fn wait_until_sleeping(child: &mut std::process::Child) {
    let tasks = std::path::PathBuf::from(format!("/proc/{}/task", child.id()));
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the second writer ended ({status:?}) before it waited for the lock");
        }
        let sleeping = fs::read_dir(&tasks).into_iter().flatten().flatten().any(|task| {
            let call = fs::read_to_string(task.path().join("syscall")).unwrap_or_default();
            call.split_whitespace().next().is_some_and(|n| SLEEP_SYSCALLS.contains(&n))
        });
        if sleeping {
            return;
        }
        std::thread::yield_now();
    }
}

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
