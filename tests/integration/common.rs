//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

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

/// An index in `dir` of one paper ("hub", titled "Sparse attention for long
/// documents") cited by five ("c1" … "c5"), ingested by the real binary: a
/// list of five for the walk's fan-out to cut.
pub fn hub_index(dir: &Path) -> PathBuf {
    let db = dir.join("hub.db");
    let file = dir.join("hub.jsonl");
    let mut lines = vec![r#"{"id": "hub", "title": "Sparse attention for long documents", "year": 2019}"#.to_string()];
    for i in 1..=5 {
        lines.push(format!(
            r#"{{"id": "c{i}", "title": "Follow-up study {i} on routing", "year": 2021, "references": ["hub"]}}"#
        ));
    }
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let o = litindex().arg("--db").arg(&db).args(["ingest", "--quiet"]).arg(&file).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    db
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

/// What a test may need that is not part of the repository. Without it the
/// test says `skipping: …` on stderr and passes; with its switch,
/// `LITINDEX_REQUIRE_<NAME>=1`, it fails instead. `.ci/run` sets every switch
/// (checked by [`ci_sets_every_require_switch`]), so nothing is skipped in CI.
///
/// | switch                          | what the tests need                                   |
/// |---------------------------------|-------------------------------------------------------|
/// | `LITINDEX_REQUIRE_DATA`         | `../shared/data` (SciFact, CACM, the MiniLM reference)|
/// | `LITINDEX_REQUIRE_MODEL`        | the embedding model (`LITINDEX_MODEL_DIR`)            |
/// | `LITINDEX_REQUIRE_PYTHON`       | python3 with rispy and jsonschema (export read-backs) |
/// | `LITINDEX_REQUIRE_MCP_CLIENT`   | the MCP Python SDK (`mcp`'s independent client)       |
/// | `LITINDEX_REQUIRE_BROWSER`      | chromium and playwright-core (`serve/browser`)        |
/// | `LITINDEX_REQUIRE_OPENSEARCH`   | Java, Maven and the test node (`opensearch/`)         |
/// | `LITINDEX_REQUIRE_ROOT`         | root, `setpriv` and a mountable tmpfs (`reliability`) |
/// | `LITINDEX_REQUIRE_SQLITE3`      | the `sqlite3` shell (`reliability::crash`)            |
/// | `LITINDEX_REQUIRE_FAILPOINTS`   | a build with `--features failpoints` (`failpoints`)   |
///
/// `mcp`, `serve/browser` and `opensearch/node` read their switch themselves
/// (the same names); the others call [`skip`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Data,
    Model,
    Python,
    McpClient,
    Browser,
    OpenSearch,
    Root,
    Sqlite3,
    Failpoints,
}

impl Need {
    pub const ALL: [Need; 9] = [
        Need::Data,
        Need::Model,
        Need::Python,
        Need::McpClient,
        Need::Browser,
        Need::OpenSearch,
        Need::Root,
        Need::Sqlite3,
        Need::Failpoints,
    ];

    /// The environment variable that makes a skip for want of this a failure.
    pub fn switch(self) -> &'static str {
        match self {
            Need::Data => "LITINDEX_REQUIRE_DATA",
            Need::Model => "LITINDEX_REQUIRE_MODEL",
            Need::Python => "LITINDEX_REQUIRE_PYTHON",
            Need::McpClient => "LITINDEX_REQUIRE_MCP_CLIENT",
            Need::Browser => "LITINDEX_REQUIRE_BROWSER",
            Need::OpenSearch => "LITINDEX_REQUIRE_OPENSEARCH",
            Need::Root => "LITINDEX_REQUIRE_ROOT",
            Need::Sqlite3 => "LITINDEX_REQUIRE_SQLITE3",
            Need::Failpoints => "LITINDEX_REQUIRE_FAILPOINTS",
        }
    }

    /// Whether its switch is set to `1`.
    pub fn required(self) -> bool {
        std::env::var(self.switch()).is_ok_and(|v| v == "1")
    }
}

/// Skips a test for want of `what`: says so on stderr, or fails when
/// `need`'s switch is set.
pub fn skip(need: Need, what: &str) {
    assert!(!need.required(), "{}=1, but {what}", need.switch());
    eprintln!("skipping: {what}");
}

/// Whether `LITINDEX_REQUIRE_DATA=1`: the data sets must be there, and a
/// test that would skip for want of them fails instead (CI sets it).
pub fn data_required() -> bool {
    Need::Data.required()
}

/// Skips a test for want of data: [`skip`] with [`Need::Data`].
pub fn skip_for_want_of(what: &str) {
    skip(Need::Data, what);
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

/// The SciFact corpus's `english` index, built by the real binary once per
/// test binary (not once per test: an ingest of SciFact is the slowest setup
/// of the suite), and the data set's folder; `None` (after
/// [`skip_for_want_of`]) without the data.
///
/// The index lives in a directory of its own under cargo's
/// `CARGO_TARGET_TMPDIR`, kept while the process runs; the directories of
/// processes that have ended are removed by the next one. Tests only read it
/// (search, eval, the citation check); a test that would write must copy
/// it first (`VACUUM INTO` a file of its own), none does today.
pub fn scifact_english() -> Option<(&'static Path, &'static Path)> {
    static INDEX: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    let built = INDEX.get_or_init(|| {
        let data = shared_data("scifact")?;
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
        remove_ended_fixtures(parent);
        let dir = parent.join(format!("{FIXTURE_PREFIX}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("scifact.db");
        let corpus = data.join("corpus.jsonl.gz");
        let out = litindex()
            .arg("--db")
            .arg(&db)
            .args(["ingest", "-q", "--analyzer", "english"])
            .arg(&corpus)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        Some((db, data))
    });
    built.as_ref().map(|(db, data)| (db.as_path(), data.as_path()))
}

/// The prefix of the shared fixtures' directories; the process id follows.
const FIXTURE_PREFIX: &str = "scifact-english-";

/// Removes the fixture directories under `parent` whose process has ended.
fn remove_ended_fixtures(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(FIXTURE_PREFIX).and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// `.ci/run` exports every switch of [`Need`] (to `1`, overridable from the
/// environment), and the tests name no `LITINDEX_REQUIRE_*` switch that is not
/// one of them.
#[test]
fn ci_sets_every_require_switch() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    for need in Need::ALL {
        let export = format!("export {}=\"${{{}:-1}}\"", need.switch(), need.switch());
        assert!(ci.contains(&export), ".ci/run does not `{export}`");
    }
    let known: Vec<&str> = Need::ALL.iter().map(|n| n.switch()).collect();
    let mut stack = vec![root.join("tests")];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("node_modules") {
                    stack.push(path);
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            files += 1;
            for (at, _) in text.match_indices("LITINDEX_REQUIRE_") {
                let name: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_' || c.is_ascii_digit())
                    .collect();
                let name = name.trim_end_matches('_');
                assert!(
                    name == "LITINDEX_REQUIRE" || known.contains(&name),
                    "{} names {name}, which is not a switch of common::Need",
                    path.display()
                );
            }
        }
    }
    assert!(files > 50, "read only {files} files under tests/");
}
