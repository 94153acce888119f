//! `postings`: a term's blocks and postings, decoded by the binary; the
//! decoded-postings count of the block-max top-k.

use super::*;

#[test]
fn postings_lists_a_terms_blocks_and_papers() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let o = run_db(&db, &["postings", "Sparse", "--limit", "0", "--format", "json"]);
    assert_success(&o);
    let v = json(&o);
    assert_eq!(v["term"], "sparse", "the term is analysed as the text was");
    let df = v["df"].as_u64().unwrap();
    let postings = v["postings"].as_array().unwrap();
    let blocks = v["blocks"].as_array().unwrap();
    assert!(df > 1);
    assert_eq!(postings.len() as u64, df);
    assert_eq!(blocks.iter().map(|b| b["n"].as_u64().unwrap()).sum::<u64>(), df);
    let docs: Vec<i64> = postings.iter().map(|p| p["doc"].as_i64().unwrap()).collect();
    assert!(docs.windows(2).all(|w| w[0] < w[1]), "in doc order: {docs:?}");
    assert_eq!(blocks.last().unwrap()["last_doc"].as_i64(), docs.last().copied());
    let ids: Vec<&str> = postings.iter().map(|p| p["paper_id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"p018"), "{ids:?}");
    // The search's BM25 hits for the word are exactly these papers.
    let s = json(&run_db(
        &db,
        &["search", "sparse", "--hops", "0", "--top-k", "100", "--limit", "100", "--format", "json"],
    ));
    let mut hits: Vec<&str> = s["ranked"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut want = ids.clone();
    hits.sort_unstable();
    want.sort_unstable();
    assert_eq!(hits, want);

    let o = run_db(&db, &["postings", "sparse", "--limit", "2"]);
    assert_success(&o);
    let text = stdout(&o);
    assert!(text.starts_with(&format!("term \"sparse\": df {df}, {df} postings in 1 block (")), "{text}");
    assert!(text.contains(&format!("{df} postings (showing 2)")), "{text}");

    let o = run_db(&db, &["postings", "zebra", "--format", "json"]);
    assert_success(&o);
    assert_eq!((json(&o)["df"].as_u64(), json(&o)["posting_count"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn postings_refuses_what_is_not_one_term() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    assert_one_line_error(&run_db(&db, &["postings", "sparse attention"]), 2, &["\"sparse attention\"", "one word"]);
    assert_one_line_error(&run_db(&db, &["postings", "?!"]), 2, &["0 tokens"]);
    assert_no_panic(&run_db(&db, &["postings"]));
    assert_eq!(run_db(&db, &["postings"]).status.code(), Some(2));
}

#[test]
fn decoded_for_counts_the_postings_top_k_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let queries = dir.path().join("q.txt");
    fs::write(&queries, "sparse attention\nzebra\ngraph\n").unwrap();
    let o = run_db(&db, &["postings", "--decoded-for", path_str(&queries), "--k", "3", "--format", "json"]);
    assert_success(&o);
    let v = json(&o);
    let df = |t: &str| json(&run_db(&db, &["postings", t, "--format", "json"]))["df"].as_u64().unwrap();
    let per: Vec<(u64, u64)> = v["per_query"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["decoded"].as_u64().unwrap(), q["total"].as_u64().unwrap()))
        .collect();
    assert_eq!(per[0].1, df("sparse") + df("attention"));
    assert_eq!(per[1], (0, 0), "an unknown word has no postings");
    assert_eq!(per[2].1, df("graph"));
    assert!(per.iter().all(|(d, t)| d <= t));
    assert_eq!(v["total"].as_u64().unwrap(), per.iter().map(|p| p.1).sum::<u64>());
    let o = run_db(&db, &["postings", "--decoded-for", path_str(&queries)]);
    assert!(stdout(&o).starts_with("3 queries, top-10: "), "{}", stdout(&o));
}
