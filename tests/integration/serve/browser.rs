//! The web page in a real browser: `tests/browser/walkthrough.mjs` drives
//! headless Chromium (Debian's `/usr/bin/chromium`, or `LITINDEX_CHROMIUM`)
//! through playwright-core against the real binary serving a real index with
//! `--allow-writes`: search, click through to a paper, download its BibTeX,
//! mark it excluded, see it gone from the results and flagged with "show
//! excluded", a bad query's 400. Screenshots go to `target/browser-test/`.
//!
//! It needs node, Chromium and `npm ci` in `tests/browser/` (`.ci/run` does
//! all three); without them it says so and skips, or fails under
//! `LITINDEX_REQUIRE_DATA=1` or `LITINDEX_REQUIRE_BROWSER=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Server, hostile_index, labels};

/// What is missing to run the browser test, if anything.
fn missing(dir: &Path, chromium: &Path) -> Option<String> {
    if Command::new("node").arg("--version").output().map_or(true, |o| !o.status.success()) {
        return Some("node is not installed".into());
    }
    if !chromium.is_file() {
        return Some(format!("no Chromium at {} (apt-get install chromium)", chromium.display()));
    }
    if !dir.join("node_modules/playwright-core").is_dir() {
        return Some(format!("playwright-core is not installed (npm ci in {})", dir.display()));
    }
    None
}

#[test]
fn serve_in_a_real_browser() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/browser");
    let chromium =
        std::env::var_os("LITINDEX_CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if let Some(what) = missing(&dir, &chromium) {
        let must = std::env::var("LITINDEX_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        assert!(!must, "LITINDEX_REQUIRE_BROWSER=1, but {what}");
        crate::common::skip_for_want_of(&format!("the browser test: {what}"));
        return;
    }
    let out = root.join("target/browser-test");
    let _ = std::fs::remove_dir_all(&out);
    let (_tmp, db) = hostile_index();
    let server = Server::start(&db, &["--allow-writes"]);
    let run = Command::new("node")
        .arg(dir.join("walkthrough.mjs"))
        .arg(server.url())
        .arg(&out)
        .env("LITINDEX_CHROMIUM", &chromium)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "the walk-through failed:\n{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    // What the browser did is in the index: the paper it excluded.
    let summary: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap();
    let excluded = summary["excluded"].as_str().unwrap();
    assert_eq!(labels(&db, excluded), ["exclude"], "the button marked {excluded} in the index");
    for shot in ["search.png", "paper.png", "paper-excluded.png", "search-excluded.png"] {
        let len = std::fs::metadata(out.join(shot)).map_or(0, |m| m.len());
        assert!(len > 10_000, "screenshot {shot} ({len} bytes)");
    }
    eprintln!("browser test screenshots in {}", out.display());
}
