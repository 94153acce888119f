//! Full text from the command line (issue 23): PDFs into the index with the
//! real binary, bad files, `search --passages`, `paper --text`, and — on the
//! real dev PDFs of `../shared/data/pdfs` — passages with pages, unchanged
//! files skipped, changed ones replaced, and the index's invariants.

use std::path::Path;

use crate::common::{litindex, shared_data, stderr, stdout};

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    litindex().current_dir(dir).args(args).output().expect("run litindex")
}

#[test]
fn a_corrupt_pdf_is_a_file_error_naming_it_and_skip_invalid_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    let pdfs = dir.path().join("pdfs/sub");
    std::fs::create_dir_all(&pdfs).unwrap();
    // Named .pdf, starts like one, then nothing a reader can use.
    std::fs::write(pdfs.join("broken.pdf"), b"%PDF-1.7\n1 0 obj << /Type /Catalog").unwrap();
    std::fs::write(pdfs.join("notes.txt"), b"not a pdf, not named like one: not read").unwrap();
    let o = run(dir.path(), &["--db", "i.db", "ingest", "--quiet", "pdfs"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("broken.pdf") && err.contains("nothing was ingested") && err.contains("--skip-invalid"),
        "{err}"
    );
    assert!(!dir.path().join("i.db").exists(), "a failed first ingest leaves no index");
    let o = run(dir.path(), &["--db", "i.db", "ingest", "--quiet", "--skip-invalid", "pdfs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("PDFs: 0 read, 0 attached, 0 new, 0 unchanged, 1 failed"), "{}", stdout(&o));
    assert!(stderr(&o).contains("skipped") && stderr(&o).contains("broken.pdf"), "{}", stderr(&o));
}

#[test]
fn a_file_sniffed_as_pdf_goes_the_pdf_way() {
    let dir = tempfile::tempdir().unwrap();
    // No .pdf name: `auto` sniffs %PDF.
    std::fs::write(dir.path().join("paper.bin"), b"%PDF-1.4\ngarbage").unwrap();
    let o = run(dir.path(), &["--db", "i.db", "ingest", "--quiet", "paper.bin"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("paper.bin") && stderr(&o).contains("pdf format"), "{}", stderr(&o));
}

#[test]
fn passages_and_text_of_an_index_without_full_text() {
    let dir = tempfile::tempdir().unwrap();
    assert!(run(dir.path(), &["--db", "i.db", "build", "--mock"]).status.success());
    let o = run(dir.path(), &["--db", "i.db", "search", "--passages", "attention", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["total"], 0);
    let o = run(dir.path(), &["--db", "i.db", "paper", "p001", "--text"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no full text"), "{}", stderr(&o));
    // `paper` without PDFs prints what it printed before: no documents key.
    let o = run(dir.path(), &["--db", "i.db", "paper", "p001", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v.get("documents").is_none());
}

/// The dev PDFs, copied into a folder of the test's own (so a test may change a file).
fn dev_pdfs(into: &Path, names: &[&str]) -> Option<()> {
    let src = shared_data("pdfs")?;
    std::fs::create_dir_all(into).unwrap();
    for n in names {
        std::fs::copy(src.join(n), into.join(n)).unwrap();
    }
    Some(())
}

fn json(o: &std::process::Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn real_pdfs_become_passages_with_pages_and_a_changed_file_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let pdfs = dir.path().join("pdfs");
    let names = ["sp_P14-1059.pdf", "sp_map-reduce.pdf", "latex_icaps19.pdf"];
    if dev_pdfs(&pdfs, &names).is_none() {
        return;
    }
    let o = run(dir.path(), &["--db", "i.db", "ingest", "--quiet", "pdfs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("PDFs: 3 read, 0 attached, 3 new, 0 unchanged, 0 failed"), "{}", stdout(&o));
    // The links their reference lists state are counted, all new, at most one per entry.
    let out = stdout(&o);
    let number_before = |marker: &str| -> u64 {
        let head = &out[..out.find(marker).unwrap_or_else(|| panic!("no `{marker}` in {out}"))];
        head.rsplit(|c: char| !c.is_ascii_digit()).find(|w| !w.is_empty()).unwrap().parse().unwrap()
    };
    let (links, new, entries) = (number_before(" links ("), number_before(" new)"), number_before(" references ("));
    assert!(links > 0 && links == new && links <= entries, "{out}");
    // A sentence of page 3 of the phrase-generation paper (as pdftotext prints it) finds its passage on page 3.
    let v = json(&run(
        dir.path(),
        &[
            "--db",
            "i.db",
            "search",
            "--passages",
            "--format",
            "json",
            "--limit",
            "1",
            "--",
            "decomposition of the phrase vectors into two constituent vectors",
        ],
    ));
    let hit = &v["hits"][0];
    assert_eq!(hit["page_first"], 3, "{v}");
    assert!(hit["title"].as_str().unwrap().starts_with("How to make words with vectors"), "{v}");
    let id = hit["paper_id"].as_str().unwrap().to_string();
    // The structured text: headings and pages.
    let o = run(dir.path(), &["--db", "i.db", "paper", &id, "--text"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("# How to make words with vectors"), "{}", &text[..200.min(text.len())]);
    assert!(text.contains("\n[p. 3]\n") && text.contains("## "), "pages and headings");
    // The passage's offsets point into that text.
    let chars: Vec<char> = text.chars().collect();
    let (s, e) = (hit["start"].as_u64().unwrap() as usize, hit["end"].as_u64().unwrap() as usize);
    assert_eq!(chars[s..e].iter().collect::<String>(), hit["text"].as_str().unwrap());
    // Again: unchanged, skipped.
    let o = run(dir.path(), &["--db", "i.db", "ingest", "--quiet", "pdfs"]);
    assert!(stdout(&o).contains("PDFs: 0 read, 0 attached, 0 new, 3 unchanged, 0 failed"), "{}", stdout(&o));
    // A changed file (another paper's bytes at that path) replaces its passages.
    std::fs::copy(pdfs.join("sp_map-reduce.pdf"), pdfs.join("sp_P14-1059.pdf")).unwrap();
    let o = run(dir.path(), &["--db", "i.db", "ingest", "--quiet", "pdfs"]);
    assert!(stdout(&o).contains("PDFs: 1 read"), "{}", stdout(&o));
    let v = json(&run(
        dir.path(),
        &[
            "--db",
            "i.db",
            "search",
            "--passages",
            "--format",
            "json",
            "--limit",
            "1",
            "--",
            "decomposition of the phrase vectors into two constituent vectors",
        ],
    ));
    assert!(v["hits"][0]["paper_id"] != id.as_str() || v["total"] == 0, "the old passages are gone: {v}");
    let o = run(dir.path(), &["--db", "i.db", "check"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("passage_postings"), "{}", stdout(&o));
}
