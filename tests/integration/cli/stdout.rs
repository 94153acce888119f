//! A closed stdout is not an error; a read one gets the whole output.

use super::*;

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
