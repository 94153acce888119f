//! Which database a command opens: `--db`, `LITINDEX_DB`, the default
//! `./litindex.db` built from the mock; files that are missing, foreign or
//! newer; and the permissions of a new index.

use super::*;

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
