//! The SQLite file that holds the whole index.
//!
//! [`Store::open`] opens an existing index for reading (migrating an older
//! schema), [`build::build_index`] writes a new one atomically. Schema changes
//! are numbered files in `migrations/`; the applied version is kept in
//! `PRAGMA user_version` and the file is marked as ours by
//! `PRAGMA application_id`.

pub mod build;
mod migrate;
mod read;

pub use build::{build_index, BuildReport};
pub use migrate::SCHEMA_VERSION;
pub use read::{Counts, IndexMeta, PaperRow, Posting, StoreAdjacency};

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use rusqlite::{Connection, OpenFlags};

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
