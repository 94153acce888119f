//! The SQLite file that holds the whole index.
//!
//! [`Store::open`] opens an existing index for reading (migrating an older
//! schema); [`open_for_writing`] opens one for an ingest; [`create_index`]
//! writes a new one atomically (temporary file, then rename). Schema changes
//! are numbered files in `migrations/`; the applied version is kept in
//! `PRAGMA user_version` and the file is marked as ours by
//! `PRAGMA application_id`.

mod migrate;
mod read;
pub mod write;

pub use migrate::SCHEMA_VERSION;
pub use read::{Counts, IndexMeta, PaperRow, Posting, StoreAdjacency};

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;

/// `PRAGMA application_id` of every litindex database: "LITX".
pub const APPLICATION_ID: i32 = 0x4C49_5458;

/// An open index.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the index at `path` for reading. A missing file, a file that is
    /// not a litindex database, or one written by a newer litindex is an
    /// error; an older schema is migrated in place.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        if !path.exists() {
            bail!("no index at {}; run `litindex build --db {}` first", path.display(), path.display());
        }
        if path.is_dir() {
            bail!("{} is a directory, not a litindex database", path.display());
        }
        let conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .with_context(|| format!("cannot open {}", path.display()))?;
        let version = check_identity(&conn, path)?;
        let conn = if version < SCHEMA_VERSION {
            drop(conn);
            let mut rw =
                Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .with_context(|| format!("cannot open {} to migrate it", path.display()))?;
            configure(&rw)?;
            migrate::migrate(&mut rw).with_context(|| format!("cannot migrate {}", path.display()))?;
            rw
        } else {
            conn
        };
        configure(&conn)?;
        Ok(Store { conn, path: path.to_path_buf() })
    }

    /// The connection, for the graph CTE and for tests.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Opens an existing index for writing (migrating an older schema).
pub fn open_for_writing(path: &Path) -> anyhow::Result<Connection> {
    if !path.is_file() {
        bail!("no index at {}", path.display());
    }
    let mut conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_context(|| format!("cannot open {} for writing", path.display()))?;
    let version = check_identity(&conn, path)?;
    configure(&conn)?;
    if version < SCHEMA_VERSION {
        migrate::migrate(&mut conn).with_context(|| format!("cannot migrate {}", path.display()))?;
    }
    Ok(conn)
}

/// Runs `fill` in one write transaction on `conn`: all of it commits, or
/// none of it does.
pub fn write_transaction<T>(
    conn: &mut Connection,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).context("cannot start a write")?;
    let out = fill(&tx)?;
    tx.commit().context("cannot commit")?;
    Ok(out)
}

/// Creates a new index at `path`: an empty schema and statistics, filled
/// by `fill` in one transaction, written to a temporary file beside `path`
/// and renamed over it only when complete. A failure leaves `path` as it was
/// (absent, or the old index).
pub fn create_index<T>(
    path: &Path,
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
    let mut builder = tempfile::Builder::new();
    builder.prefix(".litindex-build-").suffix(".db");
    // A temporary file is private (0600) by default; the index is an ordinary
    // file, so ask for 0666 and let the umask decide, as for any new file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let tmp =
        builder.tempfile_in(dir).with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    // Rebuilding keeps the permissions the old index had.
    if let Ok(old) = std::fs::metadata(path) {
        if old.is_file() {
            std::fs::set_permissions(tmp.path(), old.permissions())?;
        }
    }
    let out = {
        let mut conn = Connection::open(tmp.path())?;
        configure(&conn)?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        migrate::migrate(&mut conn)?;
        let out = write_transaction(&mut conn, |tx| {
            write::init_meta(tx, analyzer, bm25)?;
            fill(tx)
        })?;
        conn.close().map_err(|(_, e)| e)?;
        out
    };
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot move the new index into place at {}", path.display()))?;
    Ok(out)
}

/// Per-connection settings (never inside migrations).
fn configure(conn: &Connection) -> anyhow::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Checks that `conn` is a litindex database this binary can read and
/// returns its schema version.
fn check_identity(conn: &Connection, path: &Path) -> anyhow::Result<i64> {
    let not_ours = || format!("{} is not a litindex database", path.display());
    let app_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).with_context(not_ours)?;
    if app_id != APPLICATION_ID {
        bail!("{} (build one with `litindex build --db PATH`)", not_ours());
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        bail!(
            "{} has schema version {version}, newer than this litindex supports ({SCHEMA_VERSION}); upgrade litindex",
            path.display()
        );
    }
    Ok(version)
}
