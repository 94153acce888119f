//! `search`: the JSON and table output, its flags' ranges, empty queries.

use std::time::Instant;

use super::*;

#[test]
fn search_json_carries_every_field_and_consistent_scores() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let started = Instant::now();
    let out = run_db(&db, &["search", "sparse attention", "--format", "json", "--limit", "1000"]);
    let process_ms = started.elapsed().as_secs_f64() * 1000.0;
    let full = json(&out);

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
    let wall = f64_of(&full, "wall_time_ms");
    assert!(wall > 0.0 && wall < process_ms, "wall_time_ms {wall} is not within the {process_ms} ms the process ran");
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

    // Snippets are sentences of the abstract, in its order, with the query's
    // words marked; references match `paper`.
    for hit in ranked.iter().take(5) {
        let id = hit["id"].as_str().unwrap();
        let p = paper(&db, id);
        let abstract_ = p["abstract"].as_str().unwrap();
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(!snippet.is_empty(), "{id} has an empty snippet");
        let mut at = 0;
        for piece in snippet.split(" … ") {
            let found = abstract_[at..].find(piece);
            assert!(
                found.is_some(),
                "snippet of {id} is not sentences of its abstract in order:\n{snippet}\n{abstract_}"
            );
            at += found.unwrap() + piece.len();
        }
        for span in hit["snippet_spans"].as_array().unwrap() {
            let (s, e) = (span[0].as_u64().unwrap() as usize, span[1].as_u64().unwrap() as usize);
            let word = snippet[s..e].to_lowercase();
            assert!(["sparse", "attention"].contains(&word.as_str()), "{id}: span {s}..{e} marks `{word}`");
        }
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
fn search_table_has_a_header_and_one_row_and_snippet_per_hit() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let out = run_db(&db, &["search", "sparse attention", "--limit", "4"]);
    assert_success(&out);
    let text = stdout(&out);
    let header = text.lines().next().unwrap();
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(columns, ["rank", "id", "final", "bm25", "hop", "recency", "year", "title"], "header: {header}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "header, 4 rows each with its snippet line, summary:\n{text}");
    for i in 0..4 {
        let (row, snippet) = (lines[1 + 2 * i], lines[2 + 2 * i]);
        assert!(row.split_whitespace().next() == Some(&(i + 1).to_string()), "rank column of row {i}: {row}");
        // Not a terminal: the query's words are marked **like this**.
        assert!(snippet.starts_with("      ") && snippet.contains("**"), "snippet line of row {i}: {snippet}");
    }
    assert!(lines[9].contains("hits (showing 4)"), "summary line:\n{text}");
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
