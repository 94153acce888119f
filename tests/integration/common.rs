//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use litindex::analyzer::Analyzer;
use litindex::bm25::Bm25;
use litindex::ingest::{build_index, union_sources};
use litindex::paper::Paper;
use litindex::source::{ArxivMock, SemanticScholarMock, Source, Union};
use litindex::store::Store;

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

/// Builds the mock-corpus index (arXiv then S2, default settings) in a new
/// temporary directory and opens it.
pub fn mock_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("mock.db");
    let sources: Vec<Box<dyn Source>> = vec![Box::new(ArxivMock), Box::new(SemanticScholarMock)];
    build_index(&path, union_sources(&sources).unwrap(), Analyzer::Plain, Bm25::default()).unwrap();
    let store = Store::open(&path).unwrap();
    (dir, store)
}

/// Builds an index of `papers` (ids used as given) at `path` and opens it.
pub fn build_papers(path: &Path, papers: &[Paper], bm25: Bm25) -> Store {
    let mut u = Union::new();
    for p in papers {
        u.add(p.clone());
    }
    build_index(path, u, Analyzer::Plain, bm25).unwrap();
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
