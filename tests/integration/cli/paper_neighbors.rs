//! `paper` and `neighbors`: the JSON shape and order, the two engines, dangling ids, errors.

use super::*;

#[test]
fn neighbors_json_shape_and_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let v = json(&run_db(&db, &["neighbors", "p001", "--hops", "2", "--format", "json"]));
    assert_eq!(v["seed"], "p001");
    assert_eq!(v["hops"], 2);
    assert_eq!(v["direction"], "both");
    let nodes = v["nodes"].as_array().unwrap();
    assert!(nodes.len() > 1, "p001 has neighbours: {v}");
    assert_eq!(nodes[0]["id"], "p001");
    assert_eq!(nodes[0]["distance"], 0);
    assert_eq!(nodes[0]["indexed"], true);
    let keys: Vec<(u64, String)> =
        nodes.iter().map(|n| (u64_of(n, "distance"), n["id"].as_str().unwrap().to_string())).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "nodes sorted by distance then id, no repeats");
    assert!(keys.iter().all(|(d, _)| *d <= 2));
    assert_eq!(keys.iter().filter(|(d, _)| *d == 0).count(), 1, "only the seed at distance 0");
    for n in nodes {
        let obj = n.as_object().unwrap();
        assert_eq!(
            obj.keys().collect::<BTreeSet<_>>(),
            BTreeSet::from([&"id".to_string(), &"distance".to_string(), &"indexed".to_string()])
        );
        assert!(n["indexed"].is_boolean());
    }

    // Distance-1 nodes are exactly the references and citations of p001.
    let p = paper(&db, "p001");
    let mut linked: BTreeSet<String> = strings(&p["references"]).into_iter().collect();
    linked.extend(strings(&p["citations"]));
    let one_hop: BTreeSet<String> = keys.iter().filter(|(d, _)| *d == 1).map(|(_, id)| id.clone()).collect();
    assert_eq!(one_hop, linked);

    // hops 0: only the seed.
    let v0 = json(&run_db(&db, &["neighbors", "p001", "--hops", "0", "--format", "json"]));
    assert_eq!(v0["nodes"], serde_json::json!([{"id": "p001", "distance": 0, "indexed": true}]));
}

#[test]
fn neighbors_sql_and_memory_engines_agree() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut seeds = vec!["p001".to_string(), "p037".to_string(), "p100".to_string()];
    seeds.extend(dangling_id(&db));
    for seed in &seeds {
        for hops in ["0", "1", "2", "3"] {
            for direction in ["both", "references", "citations"] {
                let args = |engine| {
                    run_db(
                        &db,
                        &[
                            "neighbors",
                            seed,
                            "--hops",
                            hops,
                            "--direction",
                            direction,
                            "--engine",
                            engine,
                            "--format",
                            "json",
                        ],
                    )
                };
                let (sql, memory) = (json(&args("sql")), json(&args("memory")));
                assert_eq!(sql, memory, "engines disagree for {seed} --hops {hops} --direction {direction}");
                assert_eq!(sql["direction"], direction);
            }
        }
    }
}

#[test]
fn neighbors_accepts_a_dangling_id_as_seed() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let dangling = dangling_id(&db).expect("the mock corpus cites at least one id that is not a paper");
    let out = run_db(&db, &["paper", &dangling]);
    assert_one_line_error(&out, 1, &[&dangling]);

    let v = json(&run_db(&db, &["neighbors", &dangling, "--hops", "1", "--format", "json"]));
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes[0], serde_json::json!({"id": dangling, "distance": 0, "indexed": false}));
    assert!(nodes.len() > 1, "a dangling id is cited by someone: {v}");
    for n in &nodes[1..] {
        // Citers of a cited-only id are papers of the corpus.
        let id = n["id"].as_str().unwrap();
        assert_eq!(n["indexed"], true, "{id}");
        assert!(strings(&paper(&db, id)["references"]).contains(&dangling), "{id} cites {dangling}");
    }
    // The table marks it too.
    let out = run_db(&db, &["neighbors", &dangling, "--hops", "0"]);
    assert_success(&out);
    assert!(stdout(&out).contains("(not indexed)"), "{}", stdout(&out));
}

#[test]
fn neighbors_hops_range_and_unknown_ids() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let v = json(&run_db(&db, &["neighbors", "p001", "--hops", "10", "--format", "json"]));
    assert_eq!(v["hops"], 10);
    assert_one_line_error(&run_db(&db, &["neighbors", "p001", "--hops", "11"]), 2, &["--hops", "11"]);
    assert_one_line_error(&run_db(&db, &["neighbors", "nope", "--hops", "1"]), 1, &["nope"]);
    assert_one_line_error(&run_db(&db, &["neighbors", "p001", "--direction", "sideways"]), 2, &["sideways"]);
}

#[test]
fn unknown_paper_id_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    assert_one_line_error(&run_db(&db, &["paper", "nope"]), 1, &["`nope`", "unknown paper id"]);
    assert_one_line_error(&run_db(&db, &["paper", "nope", "--format", "json"]), 1, &["nope"]);
}
