//! SQLite failures put into words for the people who meet them.

use std::fmt;
use std::path::Path;

use rusqlite::ffi::ErrorCode;

use super::busy_timeout;

/// The primary SQLite result code of an error, if it is one.
pub(super) fn sqlite_code(e: &rusqlite::Error) -> Option<ErrorCode> {
    e.sqlite_error_code()
}

/// The first SQLite error in an error's chain.
fn sqlite_error(e: &anyhow::Error) -> Option<rusqlite::ffi::Error> {
    e.chain().find_map(|c| match c.downcast_ref::<rusqlite::Error>() {
        Some(rusqlite::Error::SqliteFailure(f, _)) => Some(*f),
        _ => None,
    })
}

/// `SQLITE_READONLY_DIRECTORY` (not exported by every `libsqlite3-sys`).
const SQLITE_READONLY_DIRECTORY: std::os::raw::c_int = rusqlite::ffi::SQLITE_READONLY | (6 << 8);

/// What [`explain`] adds: a sentence for people, ahead of SQLite's own words.
#[derive(Debug)]
pub(super) struct Explained(String);

impl fmt::Display for Explained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Puts an SQLite failure on `path` into words: another writer holding the
/// lock past the busy timeout, a read-only file or directory, a full disk, a
/// file replaced meanwhile, a damaged file. Other errors pass unchanged.
pub(crate) fn explain(e: anyhow::Error, path: &Path) -> anyhow::Error {
    if e.downcast_ref::<Explained>().is_some() {
        return e;
    }
    let Some(f) = sqlite_error(&e) else { return e };
    let p = path.display();
    let text = match f.code {
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => format!(
            "{p} is being written by another process; gave up after waiting {:.1} s (try again when it has finished)",
            busy_timeout().as_secs_f64()
        ),
        ErrorCode::ReadOnly if f.extended_code == rusqlite::ffi::SQLITE_READONLY_DBMOVED => {
            format!(
                "{p} was replaced (by a rebuild) while this command was starting; nothing was written, run it again"
            )
        }
        ErrorCode::ReadOnly if f.extended_code == SQLITE_READONLY_DIRECTORY => format!(
            "cannot write to {p}: its directory is read-only (SQLite must create {p}-wal and {p}-shm beside it)"
        ),
        ErrorCode::ReadOnly => {
            format!("cannot write to {p}: it is read-only (the file, its directory or the file system)")
        }
        ErrorCode::DiskFull => {
            format!(
                "cannot write to {p}: the disk is full (or the database reached its size limit); nothing was changed"
            )
        }
        ErrorCode::CannotOpen => format!("cannot open {p} or its -wal/-shm files (is its directory writable?)"),
        ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => {
            format!("{p} is damaged; `litindex check` lists what is wrong; rebuild it from its sources")
        }
        ErrorCode::SystemIoFailure => format!("I/O error on {p}"),
        _ => return e,
    };
    e.context(Explained(text))
}
