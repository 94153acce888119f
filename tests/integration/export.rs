//! `litindex export` with the real binary, every output read back by an
//! independent, maintained parser: BibTeX by the `biblatex` crate, CSL-JSON
//! checked against the official schema (`tests/data/csl/csl-data.json`) by
//! Python's `jsonschema`, RIS by Python's `rispy`. Every field must come
//! back as the papers were built, including LaTeX's special characters,
//! accents, Greek, Cyrillic and CJK, and names with particles.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use biblatex::{Bibliography, ChunksExt};
use serde_json::{Value, json};

use crate::common::{Need, Paper, litindex, skip, stderr, stdout};

/// A paper of the test index, with what every format must give back.
struct Expected {
    key: &'static str,
    id: &'static str,
    title: &'static str,
    abstract_: &'static str,
    year: Option<i32>,
    /// (family, given) per author.
    authors: Vec<(&'static str, &'static str)>,
    doi: Option<&'static str>,
    arxiv: Option<&'static str>,
    url: Option<&'static str>,
    venue: Option<&'static str>,
}

const HARD_TITLE: &str = r"Sets {a, b} at 50% & $5: x_1 #2 ^ ~ \ back";

/// A 2021 paper by Jan van der Berg with no abstract and no DOI, arXiv id or URL.
fn plain() -> Expected {
    Expected {
        key: "",
        id: "",
        title: "",
        abstract_: "",
        year: Some(2021),
        authors: vec![("van der Berg", "Jan")],
        doi: None,
        arxiv: None,
        url: None,
        venue: None,
    }
}

fn expected() -> Vec<Expected> {
    // In id order: the order of a whole-index export.
    vec![
        Expected {
            key: "zola2020uber",
            id: "10.1234/abc_def",
            title: "Über café naïve — Ελληνικά, Русский, 中文标题",
            abstract_: "Ünïcødé {braces} and 100% of $ & _ # in an abstract.",
            year: Some(2020),
            authors: vec![("Zola", "Émile"), ("张伟", "")],
            doi: Some("10.1234/abc_def"),
            arxiv: None,
            url: Some("https://doi.org/10.1234/abc_def"),
            venue: Some("Journal of Ünïcødé & Graphs"),
        },
        Expected {
            key: "vanderberg2021sets",
            id: "2101.00001",
            title: HARD_TITLE,
            abstract_: r"An abstract with \emph and {x}.",
            year: Some(2021),
            authors: vec![("van der Berg", "Jan"), ("Lovelace", "Ada")],
            doi: None,
            arxiv: Some("2101.00001"),
            url: Some("https://arxiv.org/abs/2101.00001"),
            venue: Some("Proc. Graphs 2021"),
        },
        // Two keys alike: the second gets `a`.
        Expected { key: "vanderberg2021use", id: "p3", title: "On the Use of Graphs", ..plain() },
        Expected { key: "vanderberg2021usea", id: "p4", title: "The Use of Graphs, Again", ..plain() },
        Expected { key: "anonnd", id: "p5", title: "A", year: None, authors: vec![], ..plain() },
    ]
}

/// Builds the test index in `dir`: the papers of [`expected`], each citing the next.
fn build(dir: &Path) -> PathBuf {
    let papers: Vec<Paper> = expected()
        .iter()
        .enumerate()
        .map(|(i, e)| Paper {
            id: e.id.to_string(),
            title: e.title.to_string(),
            abstract_: e.abstract_.to_string(),
            year: e.year,
            authors: e
                .authors
                .iter()
                .map(|(f, g)| if g.is_empty() { f.to_string() } else { format!("{g} {f}") })
                .collect(),
            references: expected().get(i + 1).map(|n| vec![n.id.to_string()]).unwrap_or_default(),
            citations: vec![],
        })
        .collect();
    let jsonl = dir.join("papers.jsonl");
    let lines: Vec<String> = papers
        .iter()
        .zip(expected())
        .map(|(p, e)| {
            let mut v = serde_json::to_value(p).unwrap();
            if let Some(venue) = e.venue {
                v["venue"] = json!(venue);
            }
            v.to_string()
        })
        .collect();
    fs::write(&jsonl, lines.join("\n")).unwrap();
    let db = dir.join("i.db");
    let o = litindex().arg("--db").arg(&db).args(["build", "--quiet", "--jsonl"]).arg(&jsonl).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    db
}

fn export(db: &Path, args: &[&str]) -> String {
    let o = litindex().arg("--db").arg(db).arg("export").args(args).output().unwrap();
    assert!(o.status.success(), "export {args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn bibtex_round_trips_through_the_biblatex_crate() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let text = export(&db, &["--format", "bibtex"]);
    let bib = Bibliography::parse(&text).unwrap_or_else(|e| panic!("biblatex cannot parse the export: {e:?}\n{text}"));
    let keys: Vec<&str> = bib.keys().collect();
    let want: Vec<&str> = expected().iter().map(|e| e.key).collect();
    assert_eq!(keys, want, "keys: surnameYEARword, deduplicated in id order");
    for e in expected() {
        let entry = bib.get(e.key).unwrap();
        assert_eq!(entry.title().unwrap().format_verbatim(), e.title, "{}", e.key);
        let kind = if e.venue.is_some() { biblatex::EntryType::Article } else { biblatex::EntryType::Misc };
        assert_eq!(entry.entry_type, kind, "{}", e.key);
        let journal = entry.get("journal").map(|c| c.format_verbatim());
        assert_eq!(journal.as_deref(), e.venue, "{}", e.key);
        let authors: Vec<(String, String)> = entry
            .author()
            .unwrap_or_default()
            .iter()
            .map(|p| {
                let family = [p.prefix.as_str(), p.name.as_str()].join(" ").trim().to_string();
                (family, p.given_name.clone())
            })
            .collect();
        let want: Vec<(String, String)> = e.authors.iter().map(|(f, g)| (f.to_string(), g.to_string())).collect();
        assert_eq!(authors, want, "{}", e.key);
        let field = |name: &str| entry.get(name).map(|c| c.format_verbatim());
        assert_eq!(field("year"), e.year.map(|y| y.to_string()), "{}", e.key);
        assert_eq!(entry.doi().ok().as_deref(), e.doi, "{}", e.key);
        assert_eq!(entry.eprint().ok().as_deref(), e.arxiv, "{}", e.key);
        let archive = entry.eprint_type().ok().map(|c| c.format_verbatim());
        assert_eq!(archive.as_deref(), e.arxiv.map(|_| "arXiv"), "{}", e.key);
        assert_eq!(entry.url().ok().as_deref(), e.url, "{}", e.key);
        let abstract_ = entry.abstract_().ok().map(|c| c.format_verbatim()).unwrap_or_default();
        assert_eq!(abstract_, e.abstract_, "{}", e.key);
    }
    // Escaped as LaTeX needs, which biblatex alone does not insist on (it
    // reads a bare `%` or `&` inside braces too): with every escape taken
    // out, no special character may be left in a title or an abstract.
    for line in text.lines().filter(|l| l.starts_with("  title = {{") || l.starts_with("  abstract = {")) {
        let value = line.split_once(" = {").unwrap().1.trim_end_matches(',').trim_start_matches('{');
        let value = value.trim_end_matches('}');
        let mut bare = value.to_string();
        for esc in [
            r"\textbackslash{}",
            r"\textasciicircum{}",
            r"\textasciitilde{}",
            r"\{",
            r"\}",
            r"\%",
            r"\&",
            r"\$",
            r"\_",
            r"\#",
        ] {
            bare = bare.replace(esc, "");
        }
        assert!(!bare.contains(['{', '}', '%', '&', '$', '_', '#', '^', '~', '\\']), "unescaped: {line}");
    }
    // Stable: the same export twice is the same text.
    assert_eq!(export(&db, &["--format", "bibtex"]), text);
}

/// Runs `python3 -c script args`, or `None` (skipped, or a failure under
/// `LITINDEX_REQUIRE_PYTHON=1`) when python3 or `module` is missing.
fn python(module: &str, script: &str, args: &[&Path]) -> Option<String> {
    let probe = Command::new("python3").args(["-c", &format!("import {module}")]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        skip(Need::Python, &format!("python3 with `{module}` is not installed (pip install {module})"));
        return None;
    }
    let o = Command::new("python3").arg("-c").arg(script).args(args).output().unwrap();
    assert!(o.status.success(), "python3 {module}: {}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8(o.stdout).unwrap())
}

#[test]
fn csl_json_is_valid_against_the_official_schema_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let out = dir.path().join("lib.json");
    let o = litindex().arg("--db").arg(&db).args(["export", "--format", "csl-json", "-o"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("wrote 5 papers"), "{}", stderr(&o));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "not the temporary file's private mode");
    }
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/csl/csl-data.json");
    let script = "import json, sys, jsonschema\n\
        schema = json.load(open(sys.argv[1], encoding='utf-8'))\n\
        data = json.load(open(sys.argv[2], encoding='utf-8'))\n\
        jsonschema.Draft7Validator(schema).validate(data)\n\
        print(len(data))";
    if let Some(n) = python("jsonschema", script, &[&schema, &out]) {
        assert_eq!(n.trim(), "5", "the schema validator read every item");
    }
    let items: Vec<Value> = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(items.len(), 5);
    for (item, e) in items.iter().zip(expected()) {
        assert_eq!(item["id"], e.key);
        assert_eq!(item["citation-key"], e.key);
        assert_eq!(item["title"], e.title, "{}", e.key);
        let authors: Vec<Value> = e
            .authors
            .iter()
            .map(|(f, g)| if g.is_empty() { json!({"family": f}) } else { json!({"family": f, "given": g}) })
            .collect();
        assert_eq!(item.get("author").cloned().unwrap_or(json!([])), json!(authors), "{}", e.key);
        assert_eq!(item.get("issued").cloned(), e.year.map(|y| json!({"date-parts": [[y]]})), "{}", e.key);
        assert_eq!(item["DOI"].as_str(), e.doi, "{}", e.key);
        assert_eq!(item["container-title"].as_str(), e.venue, "{}", e.key);
        let kind = if e.venue.is_some() { "article-journal" } else { "article" };
        assert_eq!(item["type"], kind, "{}", e.key);
        assert_eq!(item["URL"].as_str(), e.url, "{}", e.key);
        assert_eq!(item["number"].as_str().map(str::to_string), e.arxiv.map(|a| format!("arXiv:{a}")), "{}", e.key);
        assert_eq!(item["abstract"].as_str().unwrap_or(""), e.abstract_, "{}", e.key);
    }
}

#[test]
fn ris_round_trips_through_rispy() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let out = dir.path().join("lib.ris");
    fs::write(&out, export(&db, &["--format", "ris"])).unwrap();
    let script = "import json, sys, rispy\n\
        print(json.dumps(rispy.load(open(sys.argv[1], encoding='utf-8'))))";
    let Some(parsed) = python("rispy", script, &[&out]) else { return };
    let records: Vec<BTreeMap<String, Value>> = serde_json::from_str(&parsed).unwrap();
    assert_eq!(records.len(), 5, "{parsed}");
    for (r, e) in records.iter().zip(expected()) {
        let s = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
        assert_eq!(s("id").as_deref(), Some(e.key));
        assert_eq!(s("type_of_reference").as_deref(), Some(if e.venue.is_some() { "JOUR" } else { "GEN" }));
        assert_eq!(s("journal_name").as_deref(), e.venue, "{}", e.key);
        assert_eq!(s("title").as_deref(), Some(e.title), "{}", e.key);
        let authors: Vec<String> =
            e.authors.iter().map(|(f, g)| if g.is_empty() { f.to_string() } else { format!("{f}, {g}") }).collect();
        assert_eq!(r.get("authors").cloned().unwrap_or(json!([])), json!(authors), "{}", e.key);
        assert_eq!(s("year"), e.year.map(|y| y.to_string()), "{}", e.key);
        assert_eq!(s("doi").as_deref(), e.doi, "{}", e.key);
        assert_eq!(r.get("urls").cloned(), e.url.map(|u| json!([u])), "{}", e.key);
        assert_eq!(s("accession_number"), e.arxiv.map(|a| format!("arXiv:{a}")), "{}", e.key);
        assert_eq!(s("abstract").unwrap_or_default(), e.abstract_, "{}", e.key);
    }
}

/// Each library format exported and imported again by litindex's own
/// reader gives every paper its venue back (and none to a paper without).
#[test]
fn venues_round_trip_through_the_library_readers() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    for (format, file) in [("bibtex", "lib.bib"), ("csl-json", "lib.json"), ("ris", "lib.ris")] {
        let out = dir.path().join(file);
        fs::write(&out, export(&db, &["--format", format])).unwrap();
        let db2 = dir.path().join(format!("{format}.db"));
        let o = litindex().arg("--db").arg(&db2).args(["ingest", "--format", format]).arg(&out).output().unwrap();
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        for e in expected() {
            let o = litindex().arg("--db").arg(&db2).args(["paper", e.key, "--format", "json"]).output().unwrap();
            assert!(o.status.success(), "{format} {}: {}", e.key, stderr(&o));
            let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
            assert_eq!(v["venue"].as_str(), e.venue, "{format} {}", e.key);
        }
    }
}

/// Every paper's row and references, as text, read through the binary.
fn papers_of(db: &Path, ids: &[&str]) -> Vec<Value> {
    ids.iter()
        .map(|id| {
            let o = litindex().arg("--db").arg(db).args(["paper", id, "--format", "json"]).output().unwrap();
            assert!(o.status.success(), "{}", stderr(&o));
            let mut v: Value = serde_json::from_str(&stdout(&o)).unwrap();
            v.as_object_mut().unwrap().remove("source");
            v
        })
        .collect()
}

#[test]
fn jsonl_export_builds_the_same_papers_and_graph() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let jsonl = dir.path().join("again.jsonl");
    fs::write(&jsonl, export(&db, &["--format", "jsonl"])).unwrap();
    let db2 = dir.path().join("again.db");
    let o = litindex().arg("--db").arg(&db2).args(["build", "--quiet", "--jsonl"]).arg(&jsonl).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<&str> = expected().iter().map(|e| e.id).collect();
    assert_eq!(papers_of(&db2, &ids), papers_of(&db, &ids));

    // The mock corpus too: every paper, references included.
    let mock = dir.path().join("mock.db");
    assert!(litindex().arg("--db").arg(&mock).args(["build", "--quiet"]).status().unwrap().success());
    let text = export(&mock, &["--format", "jsonl"]);
    let mock_ids: Vec<String> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    let stats: Value = serde_json::from_str(&stdout(
        &litindex().arg("--db").arg(&mock).args(["stats", "--format", "json"]).output().unwrap(),
    ))
    .unwrap();
    assert_eq!(mock_ids.len() as u64, stats["papers"].as_u64().unwrap(), "the whole index is exported");
    let jsonl = dir.path().join("mock.jsonl");
    fs::write(&jsonl, text).unwrap();
    let mock2 = dir.path().join("mock2.db");
    let o = litindex().arg("--db").arg(&mock2).args(["build", "--quiet", "--jsonl"]).arg(&jsonl).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let refs: Vec<&str> = mock_ids.iter().map(String::as_str).collect();
    assert_eq!(papers_of(&mock2, &refs), papers_of(&mock, &refs));
}

#[test]
fn ids_by_alias_query_hits_and_a_failed_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    // Ids by any alias, in the order given; their keys are deduplicated among themselves only.
    let text = export(&db, &["--format", "jsonl", "p4", "https://arxiv.org/abs/2101.00001v3", "doi:10.1234/ABC_DEF"]);
    let ids: Vec<String> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["p4", "2101.00001", "10.1234/abc_def"]);
    let bib = export(&db, &["--format", "bibtex", "p4"]);
    assert!(bib.starts_with("@misc{vanderberg2021use,"), "alone, p4 keeps the bare key: {bib}");

    // The hits of a search, in rank order.
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["search", "graphs", "--format", "json", "--limit", "3"])
        .output()
        .unwrap();
    let hits: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let want: Vec<&str> = hits["ranked"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    let text = export(&db, &["--format", "jsonl", "--query", "graphs", "--limit", "3"]);
    let got: Vec<String> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);

    // An unknown id fails before anything is written; -o leaves the old file.
    let out = dir.path().join("lib.bib");
    fs::write(&out, "old").unwrap();
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["export", "--format", "bibtex", "p3", "nope", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unknown paper id `nope`"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&out).unwrap(), "old");
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["export", "--format", "bibtex", "-o"])
        .arg(dir.path().join("no/such/dir/x.bib"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // No temporary file is left behind.
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().starts_with(".tmp")), "{left:?}");
    // A bad format is a usage error.
    let o = litindex().arg("--db").arg(&db).args(["export", "--format", "endnote"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}
