//! Passage vectors end to end: `embed --passages` on real dev PDFs of
//! `../shared/data/pdfs` with the real model (`LITINDEX_MODEL_DIR`), the
//! dense and hybrid passage search, a re-ingested PDF, `check` and `stats`.
//! Skipped with a message when the data or the model is absent.

use std::path::{Path, PathBuf};
use std::process::Output;

use litindex::embed::MODEL_DIR_ENV;
use serde_json::Value;

use crate::common::{Need, litindex, shared_data, skip, stderr, stdout};

const PDFS: [&str; 3] = ["sp_P14-1059.pdf", "sp_map-reduce.pdf", "latex_icaps19.pdf"];

/// The real model's directory, or `None` after a skip message.
fn real_model() -> Option<PathBuf> {
    match std::env::var_os(MODEL_DIR_ENV).map(PathBuf::from) {
        Some(dir) if dir.join("model.safetensors").is_file() => Some(dir),
        _ => {
            skip(Need::Model, &format!("{MODEL_DIR_ENV} is not set to a directory holding model.safetensors"));
            None
        }
    }
}

/// A folder `pdfs` in `dir` with the dev PDFs, ingested into `dir/i.db`;
/// `None` after a skip message when `../shared` is absent.
fn ingested(dir: &Path) -> Option<PathBuf> {
    let src = shared_data("pdfs")?;
    let pdfs = dir.join("pdfs");
    std::fs::create_dir_all(&pdfs).unwrap();
    for n in PDFS {
        std::fs::copy(src.join(n), pdfs.join(n)).unwrap();
    }
    let o = run(dir, None, &["ingest", "--quiet", "pdfs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    Some(pdfs)
}

/// `litindex --db i.db ARGS…` in `dir`, with the model directory `model` (or none).
fn run(dir: &Path, model: Option<&Path>, args: &[&str]) -> Output {
    let mut c = litindex();
    c.current_dir(dir).args(["--db", "i.db"]).args(args).env_remove(MODEL_DIR_ENV);
    if let Some(m) = model {
        c.env(MODEL_DIR_ENV, m);
    }
    let o = c.output().expect("run litindex");
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "panic:\n{err}");
    o
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "expected success, got {:?}\nstdout:\n{}\nstderr:\n{}", o.status, stdout(o), stderr(o));
    stdout(o)
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn sql(dir: &Path, query: &str) -> i64 {
    let conn = rusqlite::Connection::open(dir.join("i.db")).unwrap();
    conn.query_row(query, [], |r| r.get(0)).unwrap()
}

/// The passages `embed --passages` embeds.
const EMBEDDABLE: &str = "SELECT count(*) FROM passages WHERE kind IN ('abstract', 'body', 'caption')";

/// (embedded, of) from the `passages: N of M embedded` line of `embed --passages`.
fn embedded(out: &str) -> (i64, i64) {
    let line = out.lines().find(|l| l.starts_with("passages: ")).unwrap_or_else(|| panic!("no passages line: {out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((words[2], words[4]), ("of", "embedded;"), "{line}");
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

fn passages(dir: &Path, model: Option<&Path>, mode: &str, query: &str) -> Value {
    json(&run(dir, model, &["search", "--passages", "--mode", mode, "--format", "json", "--limit", "3", "--", query]))
}

#[test]
fn dense_passage_search_without_passage_vectors_is_a_clear_error_and_bm25_stays_the_default() {
    let dir = tempfile::tempdir().unwrap();
    if ingested(dir.path()).is_none() {
        return;
    }
    for mode in ["dense", "hybrid"] {
        let o = run(dir.path(), None, &["search", "--passages", "--mode", mode, "phrase vectors"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("no passage vectors") && err.contains("embed --passages"), "{err}");
    }
    // Without --mode: BM25, as before passage vectors existed.
    let v = json(&run(dir.path(), None, &["search", "--passages", "--format", "json", "phrase vectors"]));
    assert!(v["total"].as_u64().unwrap() > 0, "{v}");
    let bm25 =
        json(&run(dir.path(), None, &["search", "--passages", "--mode", "bm25", "--format", "json", "phrase vectors"]));
    assert_eq!(v, bm25);
    let o = run(dir.path(), None, &["search", "--passages", "--mode", "dense", "--rerank", "5", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn passages_get_vectors_once_dense_search_finds_a_paraphrase_and_a_changed_pdf_leaves_none_stale() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(pdfs) = ingested(d) else { return };
    let Some(model) = real_model() else { return };
    let m = Some(model.as_path());
    let want = sql(d, EMBEDDABLE);
    assert!(want > 10, "{want} passages to embed");

    // Every embeddable passage gets a vector; a second run embeds none.
    let out = ok(&run(d, m, &["embed", "--passages", "--quiet"]));
    assert_eq!(embedded(&out), (want, want), "{out}");
    assert_eq!(sql(d, "SELECT count(*) FROM passage_vectors"), want);
    assert_eq!(
        sql(d, "SELECT count(*) FROM passage_vectors JOIN passages USING (passage) WHERE kind = 'reference'"),
        0
    );
    let out = ok(&run(d, m, &["embed", "--passages", "--quiet"]));
    assert_eq!(embedded(&out), (0, want), "{out}");
    assert!(out.contains(&format!("{want} already current")), "{out}");
    // Plain `embed` leaves the passage vectors alone and prints no passage line.
    let out = ok(&run(d, m, &["embed", "--quiet"]));
    assert!(!out.contains("passages:"), "{out}");
    assert_eq!(sql(d, "SELECT count(*) FROM passage_vectors"), want);

    // A paraphrase sharing almost no words with the MapReduce paper's text
    // about re-executing the work of failed machines.
    let query = "if one computer of the group crashes, its share of the job is simply done again by another computer";
    let v = passages(d, m, "dense", query);
    let top = &v["hits"][0];
    assert!(top["title"].as_str().unwrap_or("").starts_with("MapReduce"), "dense: {v}");
    // And a passage about failed machines (BM25's best is one that shares "job" and "computation").
    let about = format!("{} {}", top["section"], top["text"]).to_lowercase();
    assert!(about.contains("fail"), "dense: {v}");
    let cos = top["score"].as_f64().unwrap();
    assert!(cos > 0.0 && cos <= 1.0 + 1e-6, "a cosine: {v}");
    // The dense list is --dense-k deep (100 unless it says), at most every passage vector.
    assert_eq!(v["total"].as_i64(), Some(want.min(100)), "{v}");
    let all = json(&run(
        d,
        m,
        &[
            "search",
            "--passages",
            "--mode",
            "dense",
            "--dense-k",
            "100000",
            "--format",
            "json",
            "--limit",
            "1",
            "--",
            query,
        ],
    ));
    assert_eq!((all["total"].as_i64(), &all["hits"][0]["passage"]), (Some(want), &top["passage"]), "{all}");
    let h = passages(d, m, "hybrid", query);
    assert!(h["hits"][0]["title"].as_str().unwrap_or("").starts_with("MapReduce"), "hybrid: {h}");
    let s = h["hits"][0]["score"].as_f64().unwrap();
    assert!((0.0..=1.0 + 1e-9).contains(&s), "a min-max blend: {h}");
    // RRF fuses too: its scores are sums of 1/(60 + rank).
    let r = json(&run(
        d,
        m,
        &[
            "search",
            "--passages",
            "--mode",
            "hybrid",
            "--fusion",
            "rrf",
            "--format",
            "json",
            "--limit",
            "1",
            "--",
            query,
        ],
    ));
    assert!(r["hits"][0]["score"].as_f64().unwrap() <= 2.0 / 61.0 + 1e-12, "{r}");

    // `stats` counts them; `check` verifies them.
    let st = json(&run(d, None, &["stats", "--format", "json"]));
    assert_eq!(st["passage_vectors"].as_i64(), Some(want), "{st}");
    let out = ok(&run(d, None, &["check"]));
    assert!(out.contains("passage-vector-passage") && out.contains("passage-vector-dim"), "{out}");

    // A changed PDF: its passages are replaced, and the old ones' vectors go with them.
    let old_doc =
        sql(d, "SELECT count(*) FROM passages JOIN documents USING (document) WHERE path LIKE '%sp_P14-1059.pdf'");
    std::fs::copy(pdfs.join("sp_map-reduce.pdf"), pdfs.join("sp_P14-1059.pdf")).unwrap();
    let o = run(d, None, &["ingest", "--quiet", "pdfs"]);
    assert!(stdout(&o).contains("PDFs: 1 read"), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(sql(d, "SELECT count(*) FROM passage_vectors WHERE passage NOT IN (SELECT passage FROM passages)"), 0);
    let stale = "SELECT count(*) FROM passage_vectors JOIN passages USING (passage) JOIN documents USING (document)
                 WHERE path LIKE '%sp_P14-1059.pdf'";
    assert_eq!(sql(d, stale), 0, "no vector of the old text is attached to the new passages");
    let new_doc = sql(
        d,
        "SELECT count(*) FROM passages JOIN documents USING (document)
         WHERE path LIKE '%sp_P14-1059.pdf' AND kind IN ('abstract', 'body', 'caption')",
    );
    assert!(old_doc > 0 && new_doc > 0);
    ok(&run(d, None, &["check"]));
    // The next run embeds exactly the new passages.
    let now = sql(d, EMBEDDABLE);
    let out = ok(&run(d, m, &["embed", "--passages", "--quiet"]));
    assert_eq!(embedded(&out), (new_doc, now), "{out}");
    assert_eq!(sql(d, "SELECT count(*) FROM passage_vectors"), now);

    // `check` catches a vector of the wrong size and one whose passage is gone.
    {
        let conn = rusqlite::Connection::open(d.join("i.db")).unwrap();
        // As a tool without foreign keys (or a damaged file) would leave it.
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        conn.execute("UPDATE passage_vectors SET vector = x'0000803f' WHERE passage = (SELECT min(passage) FROM passage_vectors)", [])
            .unwrap();
        conn.execute(
            "INSERT INTO passage_vectors (model_id, passage, text_hash, vector)
             SELECT model_id, 999999, text_hash, vector FROM passage_vectors WHERE passage = (SELECT max(passage) FROM passage_vectors)",
            [],
        )
        .unwrap();
    }
    let o = run(d, None, &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("passage 999999, which is not stored"), "{out}");
    assert!(out.contains("vector of 4 bytes"), "{out}");
}
