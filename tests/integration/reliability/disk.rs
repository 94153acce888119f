//! A full disk: a capped database and a full tmpfs make an ingest fail with
//! one clear line, the index unchanged, and a new index leave no file.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use litindex::store::Store;

use super::{
    assert_check_passes, base_index, cmd, dump, generated_corpus, is_root, listing, ok, one_line_error, ranking, run,
    tempdir,
};
use crate::common::{Need, skip};

#[test]
fn a_full_database_fails_cleanly_and_stays_consistent() {
    let dir = tempdir();
    let db = base_index(dir.path(), "i.db");
    let corpus = dir.path().join("big.jsonl");
    fs::write(&corpus, generated_corpus(400, 11)).unwrap();
    let before = dump(&db);
    let pages: u64 = Store::open(&db).unwrap().conn().query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
    let cap = (pages + 8).to_string();
    let o = cmd(&db, &["ingest", "--quiet", corpus.to_str().unwrap()])
        .env("LITINDEX_MAX_PAGE_COUNT", &cap)
        .output()
        .unwrap();
    one_line_error(&o, &["disk is full", "nothing was changed"]);
    assert!(dump(&db) == before);
    assert_check_passes(&db);
    // Creating an index that does not fit leaves nothing.
    let new = dir.path().join("new.db");
    let o = cmd(&new, &["ingest", "--quiet", corpus.to_str().unwrap()])
        .env("LITINDEX_MAX_PAGE_COUNT", "40")
        .output()
        .unwrap();
    one_line_error(&o, &["disk is full"]);
    assert!(!listing(dir.path()).iter().any(|n| n.starts_with("new.db") || n.starts_with(".litindex-build")));
}

/// A small tmpfs mounted on a directory, unmounted on drop.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_file_system_fails_cleanly_and_stays_consistent() {
    if !is_root() {
        return skip(Need::Root, "mounting a small tmpfs needs root");
    }
    let dir = tempdir();
    let mnt = dir.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1200k", "tmpfs"])
        .arg(&mnt)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !mounted {
        return skip(Need::Root, "cannot mount a tmpfs here");
    }
    let _guard = Mounted(mnt.clone());
    let db = mnt.join("i.db");
    ok(&run(&db, &["build", "--analyzer", "plain"]));
    let corpus = dir.path().join("big.jsonl");
    fs::write(&corpus, generated_corpus(400, 12)).unwrap();
    let before = dump(&db);
    let o = run(&db, &["ingest", "--quiet", corpus.to_str().unwrap()]);
    one_line_error(&o, &["disk is full"]);
    assert!(dump(&db) == before);
    assert_check_passes(&db);
    assert_eq!(ranking(&db, "sparse attention").as_array().unwrap().len(), 26);
    // A new index that does not fit leaves no file behind.
    let new = mnt.join("new.db");
    one_line_error(&run(&new, &["ingest", "--quiet", corpus.to_str().unwrap()]), &["disk is full"]);
    assert_eq!(listing(&mnt), BTreeSet::from(["i.db".to_string()]));
}
