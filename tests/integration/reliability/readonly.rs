//! Read-only files and directories, as the non-root user `nobody`: reads are
//! served (immutable when SQLite cannot write its side files), writes refused.

use std::fs;
use std::path::Path;
use std::process::Command;

use litindex::store::Store;

use super::{dump, generated_corpus, is_root, json, listing, ok, one_line_error, ranking, run, set_mode, tempdir};
use crate::common::{Need, skip, stderr};

const NOBODY: u32 = 65534;

/// A copy of the binary, readable and runnable by every user, made once per
/// test process in a temporary directory of mode 755 (kept for the process).
fn nobody_binary() -> std::path::PathBuf {
    static COPY: std::sync::OnceLock<(tempfile::TempDir, std::path::PathBuf)> = std::sync::OnceLock::new();
    let (_, exe) = COPY.get_or_init(|| {
        let dir = tempdir();
        let exe = dir.path().join("litindex");
        fs::copy(env!("CARGO_BIN_EXE_litindex"), &exe).unwrap();
        set_mode(&exe, 0o755);
        (dir, exe)
    });
    exe.clone()
}

/// The binary run as user `nobody` through `setpriv`, or `None` (with a note)
/// when that is impossible: not root, or no `setpriv`.
fn as_nobody(db: &Path, args: &[&str]) -> Option<Command> {
    if !is_root() {
        skip(Need::Root, "not root, so cannot run as another user (root ignores file permissions)");
        return None;
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        skip(Need::Root, "`setpriv` is not installed");
        return None;
    }
    // Every directory above the index and the binary must let others through:
    // the binary is run from a copy in a world-readable temporary directory,
    // so a checkout under a closed home directory does not matter.
    let exe = nobody_binary();
    for path in [db, exe.as_path()] {
        for dir in path.ancestors().skip(1) {
            let mode = std::os::unix::fs::PermissionsExt::mode(&fs::metadata(dir).unwrap().permissions());
            if mode & 0o001 == 0 {
                skip(Need::Root, &format!("user nobody cannot enter {}", dir.display()));
                return None;
            }
        }
    }
    let mut c = Command::new("setpriv");
    c.args([format!("--reuid={NOBODY}"), format!("--regid={NOBODY}"), "--clear-groups".into()])
        .arg(&exe)
        .current_dir(db.parent().unwrap())
        .env_remove("LITINDEX_DB")
        .arg("--db")
        .arg(db)
        .args(args);
    Some(c)
}

#[test]
fn read_only_files_and_directories_serve_reads_and_refuse_writes() {
    let dir = tempdir();
    let one = dir.path().join("one.jsonl");
    fs::write(&one, generated_corpus(3, 10)).unwrap();
    set_mode(&one, 0o644);
    let one = one.to_str().unwrap().to_string();
    let reads: [&[&str]; 5] = [
        // The flags of `ranking()`, which gives the expected answer.
        &[
            "search",
            "sparse attention",
            "--format",
            "json",
            "--limit",
            "50",
            "--graph-score",
            "by-hops",
            "--pool",
            "10",
        ],
        &["paper", "p001", "--format", "json"],
        &["neighbors", "p001", "--format", "json"],
        &["stats", "--format", "json"],
        &["check"],
    ];

    // 1. A file nobody may not write, in a directory nobody may not write.
    let sub = dir.path().join("ro-file");
    fs::create_dir(&sub).unwrap();
    set_mode(&sub, 0o755);
    let db = sub.join("i.db");
    ok(&run(&db, &["build"]));
    set_mode(&db, 0o444);
    let expected = ranking(&db, "sparse attention");
    let Some(_) = as_nobody(&db, &["stats"]) else { return };
    let files = listing(&sub);
    for args in reads {
        let o = as_nobody(&db, args).unwrap().output().unwrap();
        ok(&o);
        assert!(stderr(&o).contains("immutable"), "{args:?}: {}", stderr(&o));
        assert_eq!(listing(&sub), files, "{args:?} left files");
    }
    let o = as_nobody(&db, reads[0]).unwrap().output().unwrap();
    assert!(json(&o)["ranked"] == expected, "read-only search differs");
    let before = dump(&db);
    one_line_error(&as_nobody(&db, &["ingest", "--quiet", &one]).unwrap().output().unwrap(), &["read-only"]);
    one_line_error(&as_nobody(&db, &["build"]).unwrap().output().unwrap(), &["cannot"]);
    assert!(dump(&db) == before);

    // 2. A file nobody may not write, in a directory anyone may write: read it
    //    without creating side files it could not remove; refuse to replace it.
    set_mode(&sub, 0o777);
    for args in reads {
        ok(&as_nobody(&db, args).unwrap().output().unwrap());
        assert_eq!(listing(&sub), files, "{args:?} left files");
    }
    one_line_error(&as_nobody(&db, &["ingest", "--quiet", &one]).unwrap().output().unwrap(), &["read-only"]);
    one_line_error(&as_nobody(&db, &["build"]).unwrap().output().unwrap(), &["cannot rebuild", "read-only"]);
    assert!(dump(&db) == before);

    // 3. The same file while its owner has it open (its -wal and -shm exist):
    //    read through them, read-only.
    set_mode(&sub, 0o755);
    set_mode(&db, 0o644);
    let owner = Store::open(&db).unwrap();
    assert!(sub.join("i.db-shm").exists());
    for args in reads {
        let o = as_nobody(&db, args).unwrap().output().unwrap();
        ok(&o);
        assert!(!stderr(&o).contains("immutable"), "{}", stderr(&o));
    }
    drop(owner);

    // 4. A file nobody owns, in a directory nobody may not write: SQLite cannot
    //    create the -wal and -shm files there, so reads fall back to immutable.
    let sub = dir.path().join("ro-dir");
    fs::create_dir(&sub).unwrap();
    let db = sub.join("i.db");
    ok(&run(&db, &["build"]));
    std::os::unix::fs::chown(&db, Some(NOBODY), Some(NOBODY)).unwrap();
    set_mode(&sub, 0o555);
    let files = listing(&sub);
    for args in reads {
        let o = as_nobody(&db, args).unwrap().output().unwrap();
        ok(&o);
        assert!(stderr(&o).contains("immutable"), "{args:?}: {}", stderr(&o));
    }
    let o = as_nobody(&db, reads[0]).unwrap().output().unwrap();
    assert!(json(&o)["ranked"] == expected, "immutable search differs");
    one_line_error(
        &as_nobody(&db, &["ingest", "--quiet", &one]).unwrap().output().unwrap(),
        &["directory is read-only"],
    );
    assert_eq!(listing(&sub), files);
    set_mode(&sub, 0o755);
}
