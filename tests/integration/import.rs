//! Importing reference libraries (`ingest` of BibTeX, CSL-JSON and RIS)
//! with the real binary: each describes the paper an OpenAlex fixture
//! already put in the index, and must merge into it; malformed entries are
//! reported by line and skippable.

use std::fs;
use std::path::{Path, PathBuf};

use litindex::store::Store;
use serde_json::Value;

use crate::common::{litindex, stderr, stdout};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ingest").join(name)
}

fn ingest(db: &Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).arg("ingest").arg("--quiet").args(args).output().expect("run litindex")
}

fn ok_ingest(db: &Path, args: &[&str]) {
    let o = ingest(db, args);
    assert!(o.status.success(), "ingest {args:?} failed:\n{}{}", stdout(&o), stderr(&o));
}

fn json_of(db: &Path, args: &[&str]) -> Value {
    let o = litindex().arg("--db").arg(db).args(args).arg("--format").arg("json").output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// `(kind, alias)` of every alias of paper `id`, sorted.
fn aliases(db: &Path, id: &str) -> Vec<(String, String)> {
    let store = Store::open(db).unwrap();
    let mut stmt =
        store.conn().prepare("SELECT kind, alias FROM aliases WHERE paper_id = ?1 ORDER BY kind, alias").unwrap();
    stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn each_library_format_merges_with_the_paper_openalex_gave() {
    for (file, format) in [("library.bib", "bibtex"), ("library_csl.json", "csl-json"), ("library.ris", "ris")] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("i.db");
        ok_ingest(&db, &[fixture("openalex_work.json").to_str().unwrap()]);
        let before = json_of(&db, &["paper", "W3000000001"]);
        assert_eq!(before["id"], "10.1234/shared.paper.2021", "OpenAlex alone: the DOI is canonical");

        // Sniffed, then named: the same result either way.
        for args in [vec![], vec!["--format", format]] {
            let path = fixture(file);
            let mut all = args.clone();
            all.push(path.to_str().unwrap());
            ok_ingest(&db, &all);
            let stats = json_of(&db, &["stats"]);
            assert_eq!(stats["papers"], 1, "{file}: one paper, not two: {stats}");
            let paper = json_of(&db, &["paper", "lovelace2021sparse"]);
            assert_eq!(paper["id"], "2101.00001", "{file}: the arXiv id the library names is now canonical");
            assert_eq!(paper["title"], "Sparse Mixtures of Retrieval Experts", "{file}");
            assert_eq!(paper["year"], 2021, "{file}");
            assert_eq!(paper["authors"], serde_json::json!(["Ada Lovelace", "Charles Babbage"]), "{file}");
            let sources = paper["source"].as_str().unwrap();
            assert!(sources.contains("openalex") && sources.contains(format), "{file}: {sources}");
            for alias in ["W3000000001", "10.1234/SHARED.PAPER.2021", "arXiv:2101.00001", "citekey:lovelace2021sparse"]
            {
                assert_eq!(json_of(&db, &["paper", alias])["id"], "2101.00001", "{file}: {alias}");
            }
            let kinds: Vec<(String, String)> = aliases(&db, "2101.00001");
            assert_eq!(
                kinds,
                [
                    ("arxiv".to_string(), "2101.00001".to_string()),
                    ("citekey".into(), "citekey:lovelace2021sparse".into()),
                    ("doi".into(), "10.1234/shared.paper.2021".into()),
                    ("openalex".into(), "W3000000001".into()),
                ],
                "{file}"
            );
        }
    }
}

/// Writes `text` as `name` in `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

const BAD_BIB: &str = "@misc{good1,\n  title = {A good paper},\n  year = 2020,\n}\n\n\
@misc{badyear,\n  title = {Bad year},\n  year = {20x1},\n}\n\n\
@misc{unclosed,\n  title = {Never closed,\n  year = {2020},\n}\n\n\
@misc{good2,\n  title = {Another good {$x_1$} paper},\n  author = {M{\\\"u}ller, J{\\\"o}rg},\n}\n\n\
@misc{nodoi,\n  title = {Bad DOI},\n  doi = {not-a-doi},\n}\n";

const BAD_CSL: &str = "[\n  {\"id\": \"good1\", \"title\": \"A good paper\"},\n  {\"id\": \"badyear\", \"title\": \"Bad\",\n   \"issued\": {\"date-parts\": [[\"20x1\"]]}},\n  {\"id\": \"good2\", \"title\": \"Another\", \"author\": [{\"family\": \"Berg\", \"non-dropping-particle\": \"van der\", \"given\": \"Jan\"}]},\n  {\"id\": \"notitle\"},\n  {\"id\": \"nodoi\", \"title\": \"Bad DOI\", \"DOI\": \"nope\"}\n]\n";

const BAD_RIS: &str = "TY  - JOUR\nID  - good1\nTI  - A good paper\nER  - \n\nTY  - JOUR\nID  - badyear\nTI  - Bad year\nPY  - 20x1\nER  - \n\nTY  - GEN\nTI  - No id at all\nER  - \n\nTY  - JOUR\nID  - good2\nTI  - Another\n  good paper\nAU  - van der Berg, Jan\nER  - \nTY  - JOUR\nID  - unclosed\nTI  - Never closed\n";

#[test]
fn malformed_entries_are_reported_by_line_and_skippable() {
    // Issue 24 changed three of these on purpose: a date with no year in it
    // is a note (the entry comes in without a year), an untitled entry comes
    // in untitled, and an RIS record without an id gets one derived from it.
    let cases = [
        // (file, text, the errors as `line: field`, the notes as `line: field`, papers, the good titles, the authors of `good2`, decoded)
        (
            "bad.bib",
            BAD_BIB,
            vec![(11, None), (21, Some("doi"))],
            vec![(6, "year")],
            3,
            ["A good paper", "Another good x_1 paper"],
            "Jörg Müller",
        ),
        (
            "bad.json",
            BAD_CSL,
            vec![(7, Some("DOI"))],
            vec![(3, "issued")],
            4,
            ["A good paper", "Another"],
            "Jan van der Berg",
        ),
        (
            "bad.ris",
            BAD_RIS,
            vec![(22, None)],
            vec![(6, "PY")],
            4,
            ["A good paper", "Another good paper"],
            "Jan van der Berg",
        ),
    ];
    for (name, text, errors, notes, papers, titles, author) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("i.db");
        let path = write(dir.path(), name, text);
        let o = ingest(&db, &[path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        let (line, field) = errors[0];
        assert!(err.contains(&format!("{name}:{line}: ")), "{name}: the first bad entry is named by line: {err}");
        if let Some(f) = field {
            assert!(err.contains(&format!("field `{f}`")), "{name}: {err}");
        }
        assert!(!db.exists(), "{name}: a failed creating ingest leaves no file");

        let o = ingest(&db, &["--skip-invalid", path.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        for (line, field) in &errors {
            let loc = format!("{name}:{line}: ");
            let at = err.find(&loc).unwrap_or_else(|| panic!("{name}: {loc} not listed: {err}"));
            if let Some(f) = field {
                let rest = err[at..].lines().next().unwrap();
                assert!(rest.contains(&format!("field `{f}`")), "{name}: {rest}");
            }
        }
        for (line, field) in &notes {
            let note = err.lines().find(|l| l.contains("note:") && l.contains(&format!("{name}:{line}: ")));
            let note = note.unwrap_or_else(|| panic!("{name}: no note for line {line}: {err}"));
            assert!(note.contains(&format!("field `{field}`")) && note.contains("without a year"), "{name}: {note}");
        }
        assert!(stdout(&o).contains(&format!("{} skipped", errors.len())), "{name}: {}", stdout(&o));
        let stats = json_of(&db, &["stats"]);
        assert_eq!(stats["papers"], papers, "{name}: {stats}");
        for (key, title) in ["good1", "good2"].iter().zip(&titles) {
            assert_eq!(json_of(&db, &["paper", key])["title"], *title, "{name}: {key}");
        }
        assert_eq!(json_of(&db, &["paper", "citekey:badyear"])["year"], Value::Null, "{name}");
        // Names decoded: LaTeX accents (BibTeX), particles (CSL), `Last, First` (RIS).
        assert_eq!(json_of(&db, &["paper", "citekey:good2"])["authors"], serde_json::json!([author]), "{name}");
    }
}
