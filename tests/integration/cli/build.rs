//! `build`: reads afterwards leave the file untouched, JSON Lines builds, and
//! failed builds that change nothing.

use super::*;

#[test]
fn build_then_reads_in_new_processes_leave_the_db_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let out = run_db(&db, &["build"]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("100 papers"), "build output: {text}");
    assert!(text.contains(path_str(&db)), "build output names the db: {text}");

    // Dated in the past: a write by any read below would date it now.
    age(&db);
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
        let out = run_db(&db, args);
        assert_success(&out);
        assert!(!stdout(&out).is_empty(), "{args:?} printed nothing");
        let after = snapshot(&db);
        assert!(before.0 == after.0, "{args:?} changed the bytes of the index");
        assert_eq!(before.1, after.1, "{args:?} changed the modification time of the index");
        assert_eq!(listing(dir.path()), files_before, "{args:?} left files beside the index");
    }
}

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
    // The snippet is the sentence that matches, with the query word's span.
    assert_eq!(hits["ranked"][0]["snippet"], "Beta studies dense graphs.");
    assert_eq!(hits["ranked"][0]["snippet_spans"], serde_json::json!([[13, 18]]));
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
    // Dated in the past, so a failed build that wrote to it would show (see above).
    age(&db);
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
