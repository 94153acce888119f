//! `run` prints what it printed before it stopped hydrating hits (issue 25:
//! `run` asks for ids and scores only): its TREC lines on a small `gen`
//! index equal, byte for byte, the lines the binary of main printed before
//! the change (tests/fixtures/run/, written by that binary from the same
//! `gen --papers 1500 --seed 5` corpus and queries, `--limit 20`), with the
//! walk's default graph score and with the weighted one. Those follow every
//! link (`--fan-out all`); the `-fanout100` fixtures, written by the binary
//! of `674f6c2`, hold the default fan-out's runs, so a change to the walk's
//! sample shows.

use std::fs;
use std::path::Path;

use super::common::{litindex, stderr, stdout};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/run");

#[test]
fn run_prints_the_trec_lines_it_printed_before_hit_parts() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    let o = litindex().args(["gen", "--papers", "1500", "--seed", "5"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    fs::write(&corpus, &o.stdout).unwrap();
    let db = dir.path().join("gen.db");
    let o = litindex().arg("--db").arg(&db).args(["build", "--quiet", "--jsonl"]).arg(&corpus).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let queries = Path::new(FIXTURES).join("gen1500-seed5-queries.jsonl");
    // main's fixtures were written before the walk's fan-out (2026-12-04):
    // they follow every link, and this corpus's most-cited paper has 280
    // citers, more than the default 100 (docs/SEARCH.md).
    for (name, flags) in [
        ("default", &["--fan-out", "all"][..]),
        ("weighted", &["--graph-score", "weighted", "--fan-out", "all"][..]),
        ("default-fanout100", &[][..]),
        ("weighted-fanout100", &["--graph-score", "weighted"][..]),
    ] {
        let o = litindex()
            .arg("--db")
            .arg(&db)
            .args(["run", "--limit", "20", "--run-tag", "gold", "--queries"])
            .arg(&queries)
            .args(flags)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let want = fs::read_to_string(Path::new(FIXTURES).join(format!("gen1500-seed5-{name}.trec"))).unwrap();
        let got = stdout(&o);
        assert!(want.lines().count() > 400, "the fixture is a real run");
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(g, w, "{name}: line {} of the run differs from main's", i + 1);
        }
        assert_eq!(got.lines().count(), want.lines().count(), "{name}: as many lines as main's run");
    }
}
