//! `litindex ingest` end to end with the real binary: formats, id
//! reconciliation, incremental statistics, atomicity, and the real data sets.

use std::fs;
use std::path::{Path, PathBuf};

use litindex::search::bm25_scores;
use litindex::store::Store;
use serde_json::Value;

use crate::common::{litindex, shared_data, stderr, stdout};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest").join(name)
}

fn ingest(db: &Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).arg("ingest").arg("--quiet").args(args).output().expect("run litindex")
}

fn ok_ingest(db: &Path, args: &[&str]) -> String {
    let o = ingest(db, args);
    assert!(o.status.success(), "ingest {args:?} failed:\n{}{}", stdout(&o), stderr(&o));
    stdout(&o)
}

fn json_of(db: &Path, args: &[&str]) -> Value {
    let o = litindex().arg("--db").arg(db).args(args).arg("--format").arg("json").output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

/// The logical content of an index: papers, aliases, edges, statistics,
/// merges, records and disagreements, each sorted, as text.
fn dump(db: &Path) -> String {
    let store = Store::open(db).unwrap();
    let conn = store.conn();
    let mut out = String::new();
    for sql in [
        "SELECT id, title, abstract, year, authors, source, doc_len, arxiv_version FROM papers ORDER BY id",
        "SELECT alias, paper_id, kind FROM aliases ORDER BY alias",
        "SELECT citing, cited FROM edges ORDER BY citing, cited",
        "SELECT term, df FROM terms ORDER BY term",
        "SELECT num_docs, total_len, avgdl, min_year, max_year, analyzer, k1, b FROM index_meta",
        "SELECT source, source_id, paper_id, format, title_key, data FROM records ORDER BY source, source_id",
        "SELECT paper_id, field, kept, kept_source, other, other_source FROM disagreements ORDER BY 1, 2, 3, 4, 5, 6",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let mut cells = Vec::new();
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    cells.push(format!("{v:?}"));
                }
                Ok(cells.join("|"))
            })
            .unwrap();
        out.push_str(sql);
        out.push('\n');
        for row in rows {
            out.push_str(&row.unwrap());
            out.push('\n');
        }
    }
    // The postings, decoded from their blocks (how they are cut into blocks
    // may differ between a build and increments: the content may not).
    out.push_str("postings: term|paper|tf|doc_len\n");
    let terms: Vec<String> = conn
        .prepare("SELECT term FROM terms ORDER BY term")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for term in terms {
        let (_, postings) = store.postings(&term).unwrap().unwrap();
        let mut rows: Vec<String> = postings
            .iter()
            .map(|p| format!("{term}|{}|{}|{}", store.paper_by_doc(p.doc).unwrap().id, p.tf, p.doc_len))
            .collect();
        rows.sort();
        for row in rows {
            out.push_str(&row);
            out.push('\n');
        }
    }
    out
}

/// The same real-world paper as arXiv, Semantic Scholar and OpenAlex report it.
const ARXIV: &str = r#"{"id": "2101.00001", "title": "Sparse Mixtures of\n  Retrieval Experts", "abstract": "  We route queries to sparse experts. It works well.  ", "authors": "Ada Lovelace and Charles Babbage", "authors_parsed": [["Lovelace", "Ada", ""], ["Babbage", "Charles", ""]], "versions": [{"version": "v1", "created": "Mon, 4 Jan 2021 10:00:00 GMT"}, {"version": "v2", "created": "Tue, 2 Mar 2021 10:00:00 GMT"}], "update_date": "2021-03-02", "categories": "cs.IR", "doi": "10.1234/Shared.Paper.2021", "journal-ref": null}"#;
const S2: &str = r#"{"paperId": "0123456789abcdef0123456789abcdef01234567", "corpusId": 215416146, "externalIds": {"ArXiv": "2101.00001", "DOI": "10.1234/shared.paper.2021", "CorpusId": 215416146}, "title": "Sparse mixtures of retrieval experts", "abstract": null, "year": 2021, "authors": [{"authorId": "1", "name": "Ada Lovelace"}], "references": [{"paperId": "fedcba9876543210fedcba9876543210fedcba98", "title": "Older work"}, {"paperId": null, "title": "Unresolvable"}]}"#;
const OPENALEX: &str = r#"{"id": "https://openalex.org/W3000000001", "doi": "https://doi.org/10.1234/SHARED.PAPER.2021", "display_name": "Sparse Mixtures of Retrieval Experts", "publication_year": 2021, "authorships": [{"author": {"display_name": "Ada Lovelace"}}], "referenced_works": ["https://openalex.org/W2000000002"], "abstract_inverted_index": {"We": [0], "route": [1], "queries.": [2]}}"#;

#[test]
fn the_same_paper_from_three_sources_is_one_paper() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let a = write(dir.path(), "a.jsonl", &format!("{ARXIV}\n"));
    let s = write(dir.path(), "s.json", S2);
    let o = write(dir.path(), "o.json", OPENALEX);
    ok_ingest(&db, &[a.to_str().unwrap(), s.to_str().unwrap(), o.to_str().unwrap()]);
    let stats = json_of(&db, &["stats"]);
    assert_eq!(stats["papers"], 1, "{stats}");
    let paper = json_of(&db, &["paper", "10.1234/SHARED.PAPER.2021"]);
    assert_eq!(paper["id"], "2101.00001", "the arXiv id is canonical");
    assert_eq!(paper["title"], "Sparse Mixtures of Retrieval Experts", "text comes from arXiv, whitespace collapsed");
    assert_eq!(paper["abstract"], "We route queries to sparse experts. It works well.");
    assert_eq!(paper["year"], 2021);
    let refs: Vec<&str> = paper["references"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(refs, ["W2000000002", "fedcba9876543210fedcba9876543210fedcba98"], "union of S2 and OpenAlex edges");
    // Every alias, in its usual spellings, finds it.
    for alias in [
        "2101.00001",
        "2101.00001v2",
        "arXiv:2101.00001v1",
        "https://arxiv.org/abs/2101.00001v2",
        "10.1234/shared.paper.2021",
        "https://doi.org/10.1234/Shared.Paper.2021",
        "CorpusId:215416146",
        "0123456789abcdef0123456789abcdef01234567",
        "W3000000001",
        "https://openalex.org/W3000000001",
    ] {
        assert_eq!(json_of(&db, &["paper", alias])["id"], "2101.00001", "{alias}");
    }
    let n = json_of(&db, &["neighbors", "CorpusId:215416146"]);
    assert_eq!(n["seed"], "2101.00001");
    let store = Store::open(&db).unwrap();
    let kinds: Vec<String> = store
        .conn()
        .prepare("SELECT DISTINCT kind FROM aliases WHERE paper_id = '2101.00001' ORDER BY kind")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(kinds, ["arxiv", "corpusid", "doi", "openalex", "s2"]);
    let version: Option<i64> = store.conn().query_row("SELECT arxiv_version FROM papers", [], |r| r.get(0)).unwrap();
    assert_eq!(version, Some(2), "the highest version is kept");
    assert!(stats["disagreements"]["title"].as_u64().unwrap() >= 1, "S2's lowercase title is a disagreement");
}

#[test]
fn any_order_gives_the_same_database_and_reingest_is_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.jsonl", &format!("{ARXIV}\n"));
    let s = write(dir.path(), "s.json", S2);
    let o = write(dir.path(), "o.json", OPENALEX);
    let e = write(dir.path(), "e.tsv", "citing\tcited\nW2000000002\thttps://arxiv.org/abs/2101.00001v1\n");
    let files = [&a, &s, &o, &e].map(|p| p.to_str().unwrap().to_string());
    let mut dumps = Vec::new();
    for (i, order) in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]].iter().enumerate() {
        let db = dir.path().join(format!("order{i}.db"));
        for &f in order {
            ok_ingest(&db, &[&files[f]]);
        }
        dumps.push(dump(&db));
    }
    assert_eq!(dumps[0], dumps[1]);
    assert_eq!(dumps[0], dumps[2]);

    let db = dir.path().join("order0.db");
    let before = dump(&db);
    let out = ok_ingest(&db, &[&files[0], &files[1], &files[2], &files[3]]);
    assert!(out.contains("0 added, 0 updated, 0 merged, 0 repeated, 3 unchanged"), "{out}");
    assert_eq!(dump(&db), before, "re-ingest changed the index");
}

#[test]
fn incremental_ingest_scores_equal_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    let words = ["sparse", "attention", "retrieval", "graph", "citation", "model", "low", "rank", "data"];
    for i in 0..40 {
        let title: Vec<&str> = (0..5).map(|j| words[(i * 7 + j * 3) % words.len()]).collect();
        let abs: Vec<&str> = (0..(10 + i % 13)).map(|j| words[(i + j * j) % words.len()]).collect();
        lines.push(format!(
            r#"{{"id": "d{i}", "title": "{}", "abstract": "{}", "year": {}, "references": ["d{}"]}}"#,
            title.join(" "),
            abs.join(" "),
            2000 + i % 9,
            (i + 1) % 40
        ));
    }
    let first = write(dir.path(), "first.jsonl", &(lines[..25].join("\n") + "\n"));
    let second = write(dir.path(), "second.jsonl", &(lines[25..].join("\n") + "\n"));
    // Replace one record of the first file with a changed version.
    let changed = write(dir.path(), "changed.jsonl", &lines[3].replace("\"year\": 2003", "\"year\": 2011"));
    let all = write(dir.path(), "all.jsonl", &{
        let mut v = lines.clone();
        v[3] = v[3].replace("\"year\": 2003", "\"year\": 2011");
        v.join("\n") + "\n"
    });
    let inc = dir.path().join("inc.db");
    ok_ingest(&inc, &[first.to_str().unwrap()]);
    ok_ingest(&inc, &[second.to_str().unwrap()]);
    let out = ok_ingest(&inc, &[changed.to_str().unwrap()]);
    assert!(out.contains("1 updated"), "{out}");
    let fresh = dir.path().join("fresh.db");
    ok_ingest(&fresh, &[all.to_str().unwrap()]);
    let built = dir.path().join("built.db");
    let o = litindex().arg("--db").arg(&built).args(["build", "--jsonl", all.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));

    let (si, sf, sb) = (Store::open(&inc).unwrap(), Store::open(&fresh).unwrap(), Store::open(&built).unwrap());
    let (mi, mf) = (si.meta().unwrap(), sf.meta().unwrap());
    assert_eq!(
        (mi.num_docs, mi.total_len, mi.min_year, mi.max_year),
        (mf.num_docs, mf.total_len, mf.min_year, mf.max_year)
    );
    assert_eq!(mi.avgdl, mf.avgdl);
    for q in ["sparse attention", "graph citation model", "low rank data data", "retrieval"] {
        let by_id = |s: &Store| -> Vec<(String, f64)> {
            let mut v: Vec<(String, f64)> = bm25_scores(s, q)
                .unwrap()
                .into_iter()
                .map(|(doc, score)| (s.paper_by_doc(doc).unwrap().id, score))
                .collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        };
        let (a, b, c) = (by_id(&si), by_id(&sf), by_id(&sb));
        assert_eq!(a.len(), b.len());
        assert_eq!(a.len(), c.len());
        for ((x, y), z) in a.iter().zip(&b).zip(&c) {
            assert_eq!(x.0, y.0);
            assert_eq!(x.0, z.0);
            assert!((x.1 - y.1).abs() <= 1e-9 * y.1.abs(), "{q} {}: {} vs {}", x.0, x.1, y.1);
            assert!((x.1 - z.1).abs() <= 1e-9 * z.1.abs(), "{q} {}: {} vs build {}", x.0, x.1, z.1);
        }
    }
    assert_eq!(json_of(&inc, &["paper", "d3"])["year"], 2011);
}

#[test]
fn different_dois_stay_apart_and_generic_titles_never_merge() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let f = write(
        dir.path(),
        "w.jsonl",
        concat!(
            r#"{"id": "https://openalex.org/W1", "doi": "https://doi.org/10.1/aaa", "display_name": "A Study of Learned Index Structures", "publication_year": 2020, "authorships": [{"author": {"display_name": "Tim Kraska"}}]}"#,
            "\n",
            r#"{"id": "https://openalex.org/W2", "doi": "https://doi.org/10.1/bbb", "display_name": "A Study of Learned Index Structures", "publication_year": 2020, "authorships": [{"author": {"display_name": "Tim Kraska"}}]}"#,
            "\n",
            r#"{"id": "https://openalex.org/W3", "display_name": "Preface", "publication_year": 2020, "authorships": [{"author": {"display_name": "Jane Doe"}}]}"#,
            "\n",
            r#"{"id": "https://openalex.org/W4", "display_name": "Preface", "publication_year": 2020, "authorships": [{"author": {"display_name": "Jane Doe"}}]}"#,
            "\n",
        ),
    );
    ok_ingest(&db, &["--format", "openalex", f.to_str().unwrap()]);
    assert_eq!(json_of(&db, &["stats"])["papers"], 4);
    assert_eq!(json_of(&db, &["dupes"]).as_array().unwrap().len(), 0);
}

#[test]
fn title_fallback_and_bridge_merges_are_listed_by_dupes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    // An OpenAlex work without DOI and an arXiv record of the same paper:
    // no shared id, same title (up to case and accents), year ±1, same first author.
    let o = write(
        dir.path(),
        "o.json",
        r#"{"id": "https://openalex.org/W77", "display_name": "Graph Walks for Literature Séarch", "publication_year": 2019, "authorships": [{"author": {"display_name": "José García"}}]}"#,
    );
    let a = write(
        dir.path(),
        "a.jsonl",
        r#"{"id": "1907.00002", "title": "Graph walks for literature search", "abstract": "We walk.", "authors": "J. Garcia", "authors_parsed": [["Garcia", "José", ""]], "versions": [{"version": "v1", "created": "Mon, 1 Jul 2019 10:00:00 GMT"}], "update_date": "2019-07-01"}"#,
    );
    ok_ingest(&db, &[o.to_str().unwrap()]);
    ok_ingest(&db, &[a.to_str().unwrap()]);
    assert_eq!(json_of(&db, &["stats"])["papers"], 1);
    assert_eq!(json_of(&db, &["paper", "W77"])["id"], "1907.00002");

    // A paper known by DOI (OpenAlex) and another known by arXiv id: an S2
    // record carrying both ids bridges them.
    let x = write(
        dir.path(),
        "x.json",
        r#"{"id": "https://openalex.org/W88", "doi": "10.5555/bridge", "display_name": "Bridging Two Records Into One Paper", "publication_year": 2022, "authorships": [{"author": {"display_name": "Grace Hopper"}}], "referenced_works": ["https://openalex.org/W1000"]}"#,
    );
    let y = write(
        dir.path(),
        "y.jsonl",
        r#"{"id": "2203.00003", "title": "Completely Different Title Here", "abstract": "", "authors": "A B", "authors_parsed": [["B", "A", ""]], "versions": [{"version": "v1", "created": "Tue, 1 Mar 2022 10:00:00 GMT"}], "update_date": "2022-03-01"}"#,
    );
    let z = write(
        dir.path(),
        "z.json",
        r#"{"paperId": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "externalIds": {"DOI": "10.5555/BRIDGE", "ArXiv": "2203.00003"}, "title": "Bridging two records into one paper", "year": 2022, "authors": [{"name": "Grace Hopper"}]}"#,
    );
    ok_ingest(&db, &[x.to_str().unwrap(), y.to_str().unwrap()]);
    assert_eq!(json_of(&db, &["stats"])["papers"], 3);
    ok_ingest(&db, &[z.to_str().unwrap()]);
    assert_eq!(json_of(&db, &["stats"])["papers"], 2, "the bridge merged two papers");
    let p = json_of(&db, &["paper", "W88"]);
    assert_eq!(p["id"], "2203.00003");
    assert_eq!(p["references"][0], "W1000", "edges follow the merge");

    let dupes = json_of(&db, &["dupes"]);
    let rules: Vec<&str> = dupes.as_array().unwrap().iter().map(|m| m["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"title-fallback") && rules.contains(&"bridge"), "{dupes}");
    let table = stdout(&litindex().arg("--db").arg(&db).arg("dupes").output().unwrap());
    assert!(table.contains("title-fallback") && table.contains("bridge"), "{table}");
}

#[test]
fn a_bad_line_leaves_the_database_exactly_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let good = write(dir.path(), "good.jsonl", "{\"id\": \"a\", \"title\": \"First paper\"}\n");
    ok_ingest(&db, &[good.to_str().unwrap()]);
    let bytes = fs::read(&db).unwrap();
    let before = dump(&db);
    let bad = write(
        dir.path(),
        "bad.jsonl",
        "{\"id\": \"b\", \"title\": \"Second\"}\n{\"id\": \"c\", \"title\": \"Third\", \"year\": \"20x1\"}\n{\"id\": \"d\", \"title\": \"Fourth\"}\n",
    );
    let o = ingest(&db, &["--format", "paper", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("bad.jsonl:2") && err.contains("year"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(fs::read(&db).unwrap(), bytes, "the file changed");
    assert_eq!(dump(&db), before);

    // With --skip-invalid the rest commits and the bad line is listed.
    let o = ingest(&db, &["--skip-invalid", bad.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("skipped") && stderr(&o).contains("bad.jsonl:2"), "{}", stderr(&o));
    assert!(stdout(&o).contains("1 skipped"), "{}", stdout(&o));
    assert_eq!(json_of(&db, &["stats"])["papers"], 3);
}

#[test]
fn a_failed_ingest_that_was_creating_the_database_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let bad = write(dir.path(), "bad.jsonl", "{\"id\": \"a\", \"title\": \"Ok\"}\nnot json\n");
    let o = ingest(&db, &[bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad.jsonl:2"), "{}", stderr(&o));
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "left behind: {left:?}");
    // Faults of the file itself are errors even with --skip-invalid.
    let o = ingest(&db, &["--skip-invalid", dir.path().join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing.jsonl"));
    assert!(!db.exists());
}

#[test]
fn gzip_input_is_detected_by_magic_bytes() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("papers.data");
    let mut enc = flate2::write::GzEncoder::new(fs::File::create(&gz).unwrap(), flate2::Compression::default());
    enc.write_all(format!("{ARXIV}\n").as_bytes()).unwrap();
    enc.finish().unwrap();
    let db = dir.path().join("i.db");
    ok_ingest(&db, &[gz.to_str().unwrap()]);
    assert_eq!(json_of(&db, &["paper", "2101.00001"])["year"], 2021);
    // A truncated gzip is a fault of the file, even with --skip-invalid.
    let bytes = fs::read(&gz).unwrap();
    let cut = write(dir.path(), "cut.gz", "");
    fs::write(&cut, &bytes[..bytes.len() - 12]).unwrap();
    let db2 = dir.path().join("j.db");
    let o = ingest(&db2, &["--skip-invalid", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(!db2.exists());
}

#[test]
fn s2_reference_pages_need_the_paper_they_belong_to() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let page = write(
        dir.path(),
        "refs.json",
        r#"{"offset": 0, "data": [{"citedPaper": {"paperId": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "title": "Cited One"}}, {"citedPaper": {"paperId": null, "title": "Unknown"}}]}"#,
    );
    let o = ingest(&db, &["--format", "s2", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--paper"), "{}", stderr(&o));
    let out = ok_ingest(&db, &["--format", "s2", "--paper", "arXiv:2101.00001v1", page.to_str().unwrap()]);
    assert!(out.contains("1 without id"), "{out}");
    let n = json_of(&db, &["neighbors", "2101.00001"]);
    let ids: Vec<&str> = n["nodes"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["2101.00001", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]);
}

#[test]
fn every_fixture_ingests() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("all.db");
    let names: Vec<PathBuf> = fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            !n.contains("error") && !n.contains("references") && !n.contains("citations.json")
        })
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    let mut args: Vec<&str> = names.iter().map(|p| p.to_str().unwrap()).collect();
    args.sort();
    ok_ingest(&db, &args);
    let shared = json_of(&db, &["paper", "10.1234/shared.paper.2021"]);
    assert_eq!(shared["id"], "2101.00001", "{shared}");
}

#[test]
fn real_data_scifact_and_cacm_ingest() {
    let (Some(scifact), Some(cacm_data)) = (shared_data("scifact"), shared_data("cacm")) else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("real.db");
    let scifact = scifact.join("corpus.jsonl.gz");
    let out = ok_ingest(&db, &[scifact.to_str().unwrap()]);
    assert!(out.contains("(beir)") && out.lines().count() == 1, "{out}");
    assert_eq!(json_of(&db, &["stats"])["papers"], 5183);

    let cacm = dir.path().join("cacm.db");
    let papers = cacm_data.join("papers.jsonl");
    let edges = cacm_data.join("citations_directed.tsv");
    let out = ok_ingest(&cacm, &[papers.to_str().unwrap(), edges.to_str().unwrap()]);
    assert!(out.contains("(paper, edges)"), "{out}");
    let stats = json_of(&cacm, &["stats"]);
    assert_eq!(stats["papers"], 3204);
    assert!(stats["edges"].as_u64().unwrap() > 2000, "{stats}");
    // Re-ingesting is a no-op.
    let before = dump(&cacm);
    ok_ingest(&cacm, &[papers.to_str().unwrap(), edges.to_str().unwrap()]);
    assert_eq!(dump(&cacm), before);
}

#[test]
fn a_new_index_has_8_kib_pages_and_its_load_time_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let a = write(dir.path(), "a.jsonl", &format!("{ARXIV}\n"));
    ok_ingest(&db, &[a.to_str().unwrap()]);
    let store = Store::open(&db).unwrap();
    let page_size: i64 = store.conn().query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    assert_eq!(page_size, litindex::store::PAGE_SIZE);
    // The indexes a bulk load drops are all back.
    for name in ["idx_papers_year", "idx_papers_doc_meta", "idx_paper_authors_surname"] {
        let n: i64 = store
            .conn()
            .query_row("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1", [name], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1, "{name}");
    }
}

#[test]
fn a_replaced_record_takes_its_old_links_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let paper = |refs: &str, cits: &str| {
        format!(r#"{{"id": "a", "title": "Sparse routing", "references": [{refs}], "citations": [{cits}]}}"#)
    };
    let first = write(dir.path(), "1.jsonl", &format!("{}\n", paper(r#""r1", "r2""#, r#""c1""#)));
    let second = write(dir.path(), "2.jsonl", &format!("{}\n", paper(r#""r2""#, r#""c2""#)));
    let edges = write(dir.path(), "e.tsv", "citing\tcited\nc1\ta\n");
    ok_ingest(&db, &[first.to_str().unwrap()]);
    ok_ingest(&db, &[edges.to_str().unwrap()]);
    ok_ingest(&db, &[second.to_str().unwrap()]);
    let store = Store::open(&db).unwrap();
    let rows = |sql: &str| -> Vec<String> {
        store.conn().prepare(sql).unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(
        rows("SELECT origin_source || ':' || citing || '>' || cited FROM links ORDER BY 1"),
        ["edges:c1>a", "paper:a>r2", "paper:c2>a"],
        "the first record's links are gone, the edge file's stays"
    );
    assert_eq!(rows("SELECT citing || '>' || cited FROM edges ORDER BY 1"), ["a>r2", "c1>a", "c2>a"]);
}

#[test]
fn record_text_is_stored_once_and_given_back_when_another_source_takes_over() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let s = write(dir.path(), "s.json", S2);
    let a = write(dir.path(), "a.jsonl", &format!("{ARXIV}\n"));
    let record = |source: &str| -> (Value, i64) {
        let store = Store::open(&db).unwrap();
        let (data, shared): (String, i64) = store
            .conn()
            .query_row("SELECT data, shared FROM records WHERE source = ?1", [source], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        (serde_json::from_str(&data).unwrap(), shared)
    };

    ok_ingest(&db, &[s.to_str().unwrap()]);
    let (data, shared) = record("s2");
    // Bits 1 and 2 are the text; bit 4 says S2's one stated reference is kept as its link only;
    // bits 16 and 32 the authors and the year. A field left out is absent from the JSON.
    assert_eq!((data.get("title"), shared & 3), (None, 1), "the paper row holds S2's title: not stored twice");
    assert_eq!((data.get("references"), shared & 4), (None, 4), "{data}");
    assert_eq!((data.get("authors"), data.get("year"), shared & 48), (None, None, 48), "{data}");
    assert_eq!((data.get("source"), data.get("abstract")), (None, None), "the source column, an empty field: {data}");
    assert_eq!(json_of(&db, &["paper", "2101.00001"])["title"], "Sparse mixtures of retrieval experts");

    // arXiv outranks S2 for text: S2's record gets its own title and authors back
    // (arXiv names two authors); the year is the same, still left out.
    ok_ingest(&db, &[a.to_str().unwrap()]);
    let (data, shared) = record("s2");
    assert_eq!((data["title"].as_str(), shared & 3), (Some("Sparse mixtures of retrieval experts"), 0));
    assert_eq!((&data["authors"], data.get("year"), shared & 48), (&serde_json::json!(["Ada Lovelace"]), None, 32));
    let (data, shared) = record("arxiv");
    assert_eq!((data.get("title"), data.get("abstract"), shared & 3), (None, None, 3));
    assert_eq!((data.get("authors"), shared & 16), (None, 16), "{data}");
    assert_eq!(json_of(&db, &["paper", "2101.00001"])["title"], "Sparse Mixtures of Retrieval Experts");
    assert_eq!(
        json_of(&db, &["paper", "2101.00001"])["authors"],
        serde_json::json!(["Ada Lovelace", "Charles Babbage"])
    );

    // Stripped or not, a record read again is recognised as unchanged.
    for f in [&s, &a] {
        let out = ok_ingest(&db, &[f.to_str().unwrap()]);
        assert!(out.contains("1 unchanged"), "{out}");
    }
}

/// The summary's `L links (M new)` counts a record's inline references and
/// citations as it counts an edge file's lines (issue 27: it said `0 links`
/// when inline references had added every edge).
#[test]
fn the_summary_counts_inline_links_as_edge_file_links() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("links.db");
    let papers = write(
        dir.path(),
        "papers.jsonl",
        concat!(
            r#"{"id": "a1", "title": "Alpha", "abstract": "one", "references": ["b2", "c3", "x9"]}"#,
            "\n",
            r#"{"id": "b2", "title": "Beta", "abstract": "two", "references": ["c3"], "citations": ["d4"]}"#,
            "\n",
            r#"{"id": "c3", "title": "Gamma", "abstract": "three"}"#,
            "\n"
        ),
    );
    let out = ok_ingest(&db, &[papers.to_str().unwrap()]);
    assert!(out.contains("; 5 links (5 new);"), "three + one references, one citation: {out}");
    // The same file again: read, none new.
    let out = ok_ingest(&db, &[papers.to_str().unwrap()]);
    assert!(out.contains("; 5 links (0 new);"), "{out}");
    // A record updated with one reference more: only that one is new.
    let updated = write(
        dir.path(),
        "updated.jsonl",
        r#"{"id": "a1", "title": "Alpha", "abstract": "one", "references": ["b2", "c3", "x9", "e5"]}"#,
    );
    let out = ok_ingest(&db, &[updated.to_str().unwrap()]);
    assert!(out.contains("; 4 links (1 new);"), "{out}");
    // An edge file counts the same way.
    let edges = write(dir.path(), "edges.tsv", "c3\ta1\nc3\tb2\n");
    let out = ok_ingest(&db, &["--format", "edges", edges.to_str().unwrap()]);
    assert!(out.contains("; 2 links (2 new);"), "{out}");
}
