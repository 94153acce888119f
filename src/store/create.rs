//! Making a new index atomically: filled in a temporary file beside the
//! target, renamed into place only when complete, after the old file (if
//! any) has been retired so that none of its side files can be applied to
//! the new one.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use rusqlite::{Connection, OpenFlags};

use super::*;
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::failpoint::failpoint;

/// Creates a new index at `path`, replacing any file there: an empty schema
/// and statistics, filled by `fill` in one transaction, written to a
/// temporary file beside `path` and renamed over it only when complete. A
/// failure leaves `path` as it was (absent, or the old index).
pub(crate) fn create_index<T>(
    path: &Path,
    analyzer: Analyzer,
    bm25: Bm25,
    fill: impl FnOnce(Handle<'_>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    create(path, true, analyzer, bm25, |conn| fill(Handle::new(conn)))
}

/// [`create_index`] for a path that must not exist: when another process
/// created a file there meanwhile, nothing is written and it is an error.
pub(crate) fn create_new_index<T>(
    path: &Path,
    analyzer: Analyzer,
    bm25: Bm25,
    fill: impl FnOnce(Handle<'_>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    create(path, false, analyzer, bm25, |conn| fill(Handle::new(conn)))
}

fn create<T>(
    path: &Path,
    replace: bool,
    analyzer: Analyzer,
    bm25: Bm25,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!("cannot create {}: directory {} does not exist", path.display(), dir.display());
    }
    if path.is_dir() {
        bail!("cannot create {}: it is a directory", path.display());
    }
    if replace && path.is_file() && !writable(path) {
        bail!("cannot rebuild {}: the file is read-only (its permissions, or the file system)", path.display());
    }
    remove_dead_temporaries(dir);
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".db");
    // A temporary file is private (0600) by default; the index is an ordinary
    // file, so ask for 0666 and let the umask decide, as for any new file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let tmp =
        builder.tempfile_in(dir).with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let out = match fill_new(tmp.path(), path, analyzer, bm25, fill) {
        Ok(out) => out,
        Err(e) => {
            // A rollback that failed (a full disk) can leave a journal behind;
            // the temporary file itself goes when `tmp` is dropped.
            let _ = remove_side_files(tmp.path());
            return Err(e);
        }
    };
    for suffix in ["-wal", "-shm", "-journal"] {
        let side = side_file(tmp.path(), suffix);
        if side.exists() {
            bail!("cannot finish {}: {} was left behind", path.display(), side.display());
        }
    }
    // Rebuilding keeps the permissions the old index had.
    if let Ok(old) = std::fs::metadata(path) {
        if old.is_file() {
            std::fs::set_permissions(tmp.path(), old.permissions())?;
        }
    }
    failpoint("before-rename");
    if replace {
        // Holds the old file's exclusive lock until the new one is in place.
        let old = retire(path)?;
        tmp.persist(path)
            .map_err(|e| e.error)
            .with_context(|| format!("cannot move the new index into place at {}", path.display()))?;
        drop(old);
    } else {
        if !path.exists() {
            remove_side_files(path)?;
        }
        tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                anyhow::anyhow!(
                    "another process created {} meanwhile; nothing was written (run the command again to add to it)",
                    path.display()
                )
            } else {
                anyhow::Error::new(e.error)
                    .context(format!("cannot move the new index into place at {}", path.display()))
            }
        })?;
    }
    // Make the rename itself durable (best effort: not every system can sync a directory).
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(out)
}

/// Fills the new index in the temporary file `tmp` (errors name `path`).
fn fill_new<T>(
    tmp: &Path,
    path: &Path,
    analyzer: Analyzer,
    bm25: Bm25,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let mut conn = Connection::open(tmp)?;
    configure_writer(&conn)?;
    // Foreign keys make every posting look up its term and its paper: 20 % of
    // a 100k-paper build. A new index is private until the rename, and
    // `check` verifies the same references (posting-paper, posting-term).
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    // Paper and record rows are 1-3 KB: 8 KiB pages waste less space at
    // their ends than 4 KiB ones (a 100k-paper index: 9 % smaller).
    conn.pragma_update(None, "page_size", PAGE_SIZE).map_err(|e| explain(e.into(), path))?;
    conn.pragma_update(None, "application_id", APPLICATION_ID).map_err(|e| explain(e.into(), path))?;
    migrate::migrate(&mut conn).map_err(|e| explain(e, path))?;
    // The file is private until the rename (a failed fill is deleted), so it
    // is filled with its rollback journal in memory, then switched to WAL.
    // That also keeps the statement journal in memory: a statement that may
    // abort half-way (an insert whose triggers write other tables) journals
    // the pages it changes, and on disk that was a temporary file written
    // for every paper (5 % of a 1M-paper build).
    let mode: String = conn.query_row("PRAGMA journal_mode = MEMORY", [], |r| r.get(0))?;
    anyhow::ensure!(mode == "memory", "cannot fill {}: SQLite kept journal mode {mode}", path.display());
    let out = write_transaction_named(&mut conn, path, |tx| {
        postings_writer::init_meta(tx, analyzer, bm25)?;
        fill(tx)
    })?;
    set_wal(&conn, path)?;
    // The last connection to close checkpoints and removes -wal and -shm.
    conn.close().map_err(|(_, e)| explain(e.into(), path))?;
    Ok(out)
}

/// Prepares the file at `path` to be replaced by a rename. SQLite finds a
/// database's `-wal`, `-shm` and `-journal` by name, so whatever the old file
/// left there would be applied to the new one: the old file is opened (which
/// rolls back a hot journal), checkpointed and switched out of WAL (which
/// removes its side files and needs every other connection gone: waits up to
/// the busy timeout, then fails), and locked exclusively, so a reader that
/// opened it before the rename reads it whole and a writer fails (SQLite
/// refuses to write a file that was moved). The returned connection holds
/// the lock; drop it after the rename.
fn retire(path: &Path) -> anyhow::Result<Option<Connection>> {
    if !path.exists() {
        remove_side_files(path)?;
        return Ok(None);
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .with_context(|| format!("cannot open the old index at {}", path.display()))?;
    configure(&conn)?;
    let timeout = busy_timeout();
    let deadline = Instant::now() + timeout;
    loop {
        match conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get::<_, String>(0)) {
            Ok(mode) if mode.eq_ignore_ascii_case("delete") => break,
            // Still WAL: another connection has it open.
            Ok(_) => {}
            Err(e) if matches!(sqlite_code(&e), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)) => {}
            Err(e) if matches!(sqlite_code(&e), Some(ErrorCode::NotADatabase)) => {
                // Not an SQLite database: no side file can belong to it.
                drop(conn);
                remove_side_files(path)?;
                return Ok(None);
            }
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!(
                    "cannot retire the old index at {}; move it away (with any -wal, -shm and -journal beside it) \
                     and run the command again",
                    path.display()
                )));
            }
        }
        if Instant::now() >= deadline {
            bail!(
                "{} is in use by another process (a search or an ingest); waited {:.1} s, the new index was not \
                 moved into place; try again when it is closed",
                path.display(),
                timeout.as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    conn.execute_batch("BEGIN EXCLUSIVE").map_err(|e| explain(e.into(), path))?;
    Ok(Some(conn))
}

/// Removes the `-wal`, `-shm` and `-journal` of a database file that is absent
/// (or not a database), so that a new file renamed there does not inherit them.
fn remove_side_files(path: &Path) -> anyhow::Result<()> {
    for suffix in ["-wal", "-shm", "-journal"] {
        let side = side_file(path, suffix);
        match std::fs::remove_file(&side) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot remove the stale {}", side.display())),
        }
    }
    Ok(())
}

/// Removes the temporary files (and their side files) of builds whose
/// process is gone (killed, crashed), found by the process id in their name.
/// Only where `/proc` tells which processes are alive.
fn remove_dead_temporaries(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMP_PREFIX)) else { continue };
        let Some(pid) = rest.split_once('-').and_then(|(pid, _)| pid.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
