//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use litindex::analyzer::Analyzer;
use litindex::bm25::Bm25;
use litindex::ingest::{IngestOptions, Input, build};
use litindex::store::Store;
use serde::Serialize;

/// The real binary, with no inherited `LITINDEX_DB`.
pub fn litindex() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_litindex"));
    c.env_remove("LITINDEX_DB");
    c
}

/// Runs the binary with `args` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    litindex().current_dir(dir).args(args).output().expect("run litindex")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Builds the mock-corpus index (default settings) in a new temporary
/// directory and opens it.
pub fn mock_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("mock.db");
    build(&path, &[Input::Mock], &IngestOptions::default()).unwrap();
    let store = Store::open(&path).unwrap();
    (dir, store)
}

/// A paper as a test writes it: one line of the Paper JSON Lines format.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Paper {
    pub id: String,
    pub title: String,
    #[serde(rename = "abstract")]
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    pub references: Vec<String>,
    pub citations: Vec<String>,
}

/// Builds an index of `papers` (ids used as given, plain analyzer) at
/// `path`, as `build --jsonl` would, and opens it.
pub fn build_papers(path: &Path, papers: &[Paper], bm25: Bm25) -> Store {
    let jsonl = path.with_extension("jsonl");
    let lines: Vec<String> = papers.iter().map(|p| serde_json::to_string(p).unwrap()).collect();
    std::fs::write(&jsonl, lines.join("\n")).unwrap();
    let opts = IngestOptions { analyzer: Analyzer::Plain, bm25, ..IngestOptions::default() };
    build(path, &[Input::File { path: jsonl, format: Some(litindex::ingest::InputFormat::Paper) }], &opts).unwrap();
    Store::open(path).unwrap()
}

/// Whether `LITINDEX_REQUIRE_DATA=1`: the data sets and the model must be
/// there, and a test that would skip for want of them fails instead (CI sets it).
pub fn data_required() -> bool {
    std::env::var("LITINDEX_REQUIRE_DATA").is_ok_and(|v| v == "1")
}

/// Skips a test for want of `what`: says so on stderr, or, under
/// `LITINDEX_REQUIRE_DATA=1`, fails.
pub fn skip_for_want_of(what: &str) {
    assert!(!data_required(), "LITINDEX_REQUIRE_DATA=1, but {what}");
    eprintln!("skipping: {what}");
}

/// `../shared/data/SUB` (`SUB` may be empty), the real data sets that are not
/// part of the repository; `None` after [`skip_for_want_of`] when it is absent.
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(sub);
    if path.exists() {
        Some(path)
    } else {
        skip_for_want_of(&format!("{} is absent (the real data sets are not part of the repository)", path.display()));
        None
    }
}

/// An `english` index of the SciFact corpus, built by the real binary in
/// `dir`, and the data set's folder; `None` (after [`skip_for_want_of`])
/// without the data.
pub fn scifact_english(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let data = shared_data("scifact")?;
    let db = dir.join("scifact.db");
    let corpus = data.join("corpus.jsonl.gz");
    let out =
        litindex().arg("--db").arg(&db).args(["ingest", "-q", "--analyzer", "english"]).arg(&corpus).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    Some((db, data))
}
