//! The integer graph end to end with the real binary: a record's reference
//! and citation lists are stored once (as its links) and given back whole,
//! and a merge re-derives the integer edges.

use std::fs;
use std::path::Path;

use litindex::store::Store;
use serde_json::Value;

use crate::common::{litindex, stderr, stdout};

fn ok(db: &Path, args: &[&str]) -> String {
    let o = litindex().arg("--db").arg(db).args(args).output().expect("run litindex");
    assert!(o.status.success(), "{args:?} failed:\n{}{}", stdout(&o), stderr(&o));
    stdout(&o)
}

/// (data as JSON, shared bits) of the record `source:source_id`.
fn record(db: &Path, source_id: &str) -> (Value, i64) {
    let store = Store::open(db).unwrap();
    let (data, shared): (String, i64) = store
        .conn()
        .query_row("SELECT data, shared FROM records WHERE source_id = ?1", [source_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    (serde_json::from_str(&data).unwrap(), shared)
}

#[test]
fn reference_lists_are_stored_as_links_once_and_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let file = dir.path().join("p.jsonl");
    fs::write(
        &file,
        concat!(
            r#"{"id": "a", "title": "Sparse routing", "references": ["b", "c"], "citations": ["d"]}"#,
            "\n",
            r#"{"id": "e", "title": "Dense routing", "references": ["z", "y", "z"]}"#,
            "\n",
        ),
    )
    .unwrap();
    ok(&db, &["ingest", "--quiet", file.to_str().unwrap()]);

    let (a, shared) = record(&db, "a");
    assert_eq!(shared & 12, 12, "a's sorted lists are its links: {shared}");
    assert_eq!((a.get("references"), a.get("citations")), (None, None), "left out of the JSON: {a}");
    let (e, shared) = record(&db, "e");
    assert_eq!(shared & 4, 0, "an unsorted list with a repeat is kept as given");
    let ids: Vec<&str> = e["references"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["z", "y", "z"]);

    // Read back whole, both records are recognised as unchanged.
    let out = ok(&db, &["ingest", file.to_str().unwrap()]);
    assert!(out.contains("2 unchanged"), "{out}");
    // A changed list replaces the links and is stored once again.
    fs::write(
        &file,
        format!("{}\n", r#"{"id": "a", "title": "Sparse routing", "references": ["c", "f"], "citations": ["d"]}"#),
    )
    .unwrap();
    let out = ok(&db, &["ingest", file.to_str().unwrap()]);
    assert!(out.contains("1 updated"), "{out}");
    let paper: Value = serde_json::from_str(&ok(&db, &["paper", "a", "--format", "json"])).unwrap();
    assert_eq!(paper["references"], serde_json::json!(["c", "f"]), "{paper}");
    let check = litindex().arg("--db").arg(&db).arg("check").output().unwrap();
    assert!(check.status.success(), "{}", stdout(&check));
}

#[test]
fn a_merge_moves_the_integer_edges_to_the_surviving_paper() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let first = dir.path().join("1.jsonl");
    let second = dir.path().join("2.jsonl");
    fs::write(
        &first,
        concat!(
            r#"{"id": "10.1234/shared.paper.2021", "title": "Sparse mixtures of retrieval experts", "references": ["r"]}"#,
            "\n",
            r#"{"id": "c", "title": "Citer", "references": ["2101.00001"]}"#,
            "\n",
        ),
    )
    .unwrap();
    // An arXiv record naming the DOI: the two are one paper, under the arXiv id.
    let arxiv = r#"{"id": "2101.00001", "title": "Sparse Mixtures of Retrieval Experts", "abstract": "We route queries.", "authors": "Ada Lovelace", "versions": [{"version": "v1", "created": "Mon, 4 Jan 2021 10:00:00 GMT"}], "update_date": "2021-01-04", "categories": "cs.IR", "doi": "10.1234/Shared.Paper.2021", "journal-ref": null}"#;
    fs::write(&second, format!("{arxiv}\n")).unwrap();
    ok(&db, &["ingest", "--quiet", first.to_str().unwrap()]);
    ok(&db, &["ingest", "--quiet", second.to_str().unwrap()]);
    let neighbors: Value =
        serde_json::from_str(&ok(&db, &["neighbors", "2101.00001", "--hops", "1", "--format", "json"])).unwrap();
    let text = neighbors.to_string();
    assert!(text.contains("\"r\"") && text.contains("\"c\""), "{text}");
    let check = litindex().arg("--db").arg(&db).arg("check").output().unwrap();
    assert!(check.status.success(), "{}", stdout(&check));
}

/// A hub cited by five papers, walked with `--fan-out 2`: two of its citers
/// are reached, each saying through which cut list; `all` follows every
/// link and names no cut; a fan-out of 0 is refused.
#[test]
fn a_hub_is_followed_in_part_and_the_hits_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::common::hub_index(dir.path());

    let json = |fan_out: &str| -> Value {
        let out = ok(&db, &["search", "sparse attention", "--fan-out", fan_out, "--format", "json"]);
        serde_json::from_str(&out).unwrap()
    };
    let cut = json("2");
    let vias: Vec<&Value> = cut["ranked"].as_array().unwrap().iter().filter_map(|h| h.get("graph_via")).collect();
    assert_eq!(cut["hit_count"], 3, "the hub and two of its citers: {cut}");
    assert_eq!(vias.len(), 2, "{cut}");
    for v in vias {
        assert_eq!(v, &serde_json::json!({"paper": "hub", "direction": "citations", "followed": 2, "total": 5}));
    }
    let text = ok(&db, &["search", "sparse attention", "--fan-out", "2"]);
    assert_eq!(text.matches("reached via 1 of 5 citers of hub (the walk follows 2 per paper)").count(), 2, "{text}");

    let all = json("all");
    assert_eq!(all["hit_count"], 6, "{all}");
    assert!(all["ranked"].as_array().unwrap().iter().all(|h| h.get("graph_via").is_none()), "{all}");
    assert_eq!(json("100")["hit_count"], 6, "the default's 100 is more than 5");

    let o = litindex().arg("--db").arg(&db).args(["search", "sparse attention", "--fan-out", "0"]).output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("is not a fan-out: use a number from 1 up, or `all`"), "{}", stderr(&o));
}

#[test]
fn a_stored_title_code_that_another_title_shares_merges_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, scratch) = (dir.path().join("i.db"), dir.path().join("s.db"));
    let (o, a) = (dir.path().join("o.json"), dir.path().join("a.jsonl"));
    fs::write(
        &o,
        r#"{"id": "https://openalex.org/W77", "display_name": "Graph Walks for Literature Search", "publication_year": 2019, "authorships": [{"author": {"display_name": "José García"}}]}"#,
    )
    .unwrap();
    fs::write(
        &a,
        r#"{"id": "1907.00002", "title": "Entirely other words about walking graphs", "abstract": "We walk.", "authors": "J. Garcia", "authors_parsed": [["Garcia", "José", ""]], "versions": [{"version": "v1", "created": "Mon, 1 Jul 2019 10:00:00 GMT"}], "update_date": "2019-07-01"}"#,
    )
    .unwrap();
    let ingest = |db: &Path, file: &Path| ok(db, &["ingest", "--quiet", file.to_str().unwrap()]);
    // The code the arXiv record's title signature is stored as, put on the
    // OpenAlex record (as if their titles' codes collided).
    ingest(&scratch, &a);
    let code: Vec<u8> =
        Store::open(&scratch).unwrap().conn().query_row("SELECT title_key FROM records", [], |r| r.get(0)).unwrap();
    assert_eq!(code.len(), 8, "a title signature is stored as its 8-byte code");
    ingest(&db, &o);
    rusqlite::Connection::open(&db).unwrap().execute("UPDATE records SET title_key = ?1", [&code]).unwrap();
    ingest(&db, &a);
    // Same year and first author, but the titles differ: the code's match is no title match.
    let stats: Value = serde_json::from_str(&ok(&db, &["stats", "--format", "json"])).unwrap();
    assert_eq!(stats["papers"], 2);
    let dupes: Value = serde_json::from_str(&ok(&db, &["dupes", "--format", "json"])).unwrap();
    assert_eq!(dupes.as_array().unwrap().len(), 0);
}
