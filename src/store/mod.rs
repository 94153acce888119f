//! The SQLite file that holds the whole index.
//!
//! [`Store::open`] opens an existing index for reading (migrating an older
//! schema); [`open_for_writing`] opens one for an ingest; [`create_index`]
//! and [`create_new_index`] write a new one atomically (temporary file, then
//! rename). Schema changes are numbered files in `migrations/`; the applied
//! version is kept in `PRAGMA user_version` and the file is marked as ours by
//! `PRAGMA application_id`. [`check()`] verifies a file against SQLite's
//! integrity check and litindex's own invariants.
//!
//! **Concurrency.** An index uses write-ahead logging (`journal_mode=WAL`,
//! persistent in the file): readers open it with `query_only` and see the last
//! committed state while one writer appends to the `-wal` file (the last
//! connection to close folds it back and removes `-wal` and `-shm`); a second
//! writer waits up to the busy timeout (5 s, `LITINDEX_BUSY_TIMEOUT_MS`),
//! then fails with a message saying so. A file this user cannot write, or one
//! in a directory where SQLite cannot create its `-wal`/`-shm` files, is read
//! with `immutable=1` (said on stderr). Replacing an index by a rename first
//! retires the old file (checkpointed, switched out of WAL, locked) so that no
//! `-wal`, `-shm` or `-journal` of the old file can ever be applied to the
//! new one. Errors from SQLite are explained by [`explain`].

mod adjacency;
mod block_max;
mod blocks;
mod blocks_legacy;
mod check;
mod check_blocks;
mod check_graph;
mod create;
pub(crate) mod documents;
mod edges;
mod explain;
mod explore;
mod field;
mod filter;
mod lengths;
pub use explore::Shared;
mod chunked;
mod citing;
mod export;
pub mod fetch;
pub mod fts5;
mod graph;
#[cfg(test)]
mod graph_tests;
pub mod ingest_writer;
pub mod marks;
mod migrate;
mod node_meta;
pub mod passage_vectors;
pub mod passages;
pub mod postings_writer;
mod read;
mod record_data;
pub(crate) mod references;
#[cfg(test)]
mod references_tests;
mod scoring;
mod screen_reads;
pub mod screening;
mod stated;
mod walk;
pub use screen_reads::Neighbourhood;
pub use screening::{CandidateRow, DecisionRow, ReviewRow};
mod summary;
pub(crate) mod vector_codes;
pub mod vectors;
pub mod watches;
pub mod zotero;

pub use block_max::DecodeCount;
pub use blocks::{BlockInfo, TermBlocks};
pub use check::{CheckReport, InvariantResult};
pub use citing::{CitedEntry, CitingSentence, EntryContexts};
pub(crate) use create::{create_index, create_new_index};
pub use documents::{PaperDoc, StoredDocument};
pub(crate) use explain::explain;
use explain::{Explained, sqlite_code};
pub use filter::{FilterFields, FilterRow};
pub use graph::StoreAdjacency;
pub(crate) use marks::Carried;
pub use marks::{Label, MarkFilter, MarkedPaper, UserEdit, edit};
pub use migrate::SCHEMA_VERSION;
pub use passages::{DocumentRow, PassageRow, PassageStats};
pub use read::{IndexMeta, PaperRow, Posting};
pub use references::LinkCounts;
pub(crate) use references::write_document_links;
pub use summary::{Counts, Merge};
pub use walk::{LentLists, SearchGraph};
pub use watches::Watch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use rusqlite::ffi::ErrorCode;
use rusqlite::{Connection, MAIN_DB, OpenFlags, TransactionBehavior};

use crate::failpoint::failpoint;

/// `PRAGMA application_id` of every litindex database: "LITX".
pub(crate) const APPLICATION_ID: i32 = 0x4C49_5458;

/// How long a connection waits for a lock held by another process, unless
/// `LITINDEX_BUSY_TIMEOUT_MS` says otherwise.
pub(crate) const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// `PRAGMA mmap_size` of a reader: the whole file for any index up to
/// 256 GiB (address space, not memory; SQLite maps at most the file's size).
/// A build of SQLite with a smaller `SQLITE_MAX_MMAP_SIZE` caps it there.
pub(crate) const MMAP_SIZE: i64 = 1 << 38;

/// `PRAGMA page_size` of a new index.
pub const PAGE_SIZE: i64 = 8192;

/// Temporary files of a build in progress are named
/// `.litindex-build-PID-XXXXXX.db`, beside the index.
const TEMP_PREFIX: &str = ".litindex-build-";

/// Where the store sends what a user should know (the library never
/// prints): the binary writes each note on stderr as `litindex: note: …`.
pub type Notes<'a> = &'a dyn Fn(&str);

/// An open index.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Each field's document lengths, as last loaded, with the
    /// `PRAGMA data_version` they were loaded at ([`Store::lengths`]).
    lengths: lengths::Cache,
    /// BM25's length table, kept while the index's parameters hold
    /// ([`crate::bm25::LengthNorms`]).
    norms: std::cell::RefCell<Option<std::sync::Arc<crate::bm25::LengthNorms>>>,
}

impl Store {
    /// Opens the index at `path` for reading. A missing file, a file that is
    /// not a litindex database, or one written by a newer litindex is an
    /// error; an older schema is migrated in place. A file that cannot be
    /// read the usual way (read-only here: SQLite cannot create its `-wal`
    /// and `-shm` files) is opened with `immutable=1`, and stderr says so.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        Store::open_with_notes(path, &|_| {})
    }

    /// [`Store::open`], telling `note` what a user should know: that the
    /// file is read as immutable, or that an older schema is being upgraded
    /// (said before the upgrade starts: on a large index it takes minutes).
    pub fn open_with_notes(path: &Path, note: Notes) -> anyhow::Result<Store> {
        if !path.exists() {
            bail!("no index at {}; run `litindex build --db {}` first", path.display(), path.display());
        }
        if path.is_dir() {
            bail!("{} is a directory, not a litindex database", path.display());
        }
        let (conn, immutable) = open_read_only(path, note)?;
        let version = check_identity(&conn, path)?;
        let conn = if version < SCHEMA_VERSION {
            if immutable {
                bail!(
                    "{} has schema version {version} and needs migrating to {SCHEMA_VERSION}, but it is read-only \
                     here; run a litindex write command on it once with write access",
                    path.display()
                );
            }
            drop(conn);
            let mut rw =
                Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .with_context(|| format!("cannot open {} to migrate it", path.display()))?;
            configure_writer(&rw)?;
            note(&migrating(path, version));
            migrate::migrate(&mut rw)
                .map_err(|e| explain(e, path))
                .with_context(|| format!("cannot migrate {}", path.display()))?;
            rw
        } else {
            conn
        };
        tune_reads(&conn)?;
        Ok(Store { conn, path: path.to_path_buf(), lengths: Default::default(), norms: Default::default() })
    }

    /// The connection, for the integration tests to read the file as
    /// `sqlite3` would (feature `test-support`, not the product's API: other
    /// modules call the store's methods). It is `query_only`: writes go
    /// through litindex's own paths.
    #[cfg(any(test, feature = "test-support"))]
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Opens `path` for reading. Normally a read-write handle with
/// `query_only=ON`: it cannot change the file, shares the `-wal`/`-shm`
/// files with writers, and when it is the last connection to close it
/// checkpoints and removes them, so reading leaves nothing beside the index.
/// A file this user cannot write is opened read-only when those side files
/// exist, and with `immutable=1` when they do not (or cannot be created).
fn open_read_only(path: &Path, note: Notes) -> anyhow::Result<(Connection, bool)> {
    let side_files = side_file(path, "-wal").exists() || side_file(path, "-shm").exists();
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let conn = if conn.is_readonly(MAIN_DB)? {
        drop(conn);
        if !side_files {
            // Reading it normally would create a -wal and -shm owned by this
            // user (where the directory allows it), which its owner could not write.
            return open_immutable(path, "it is read-only for this user", note);
        }
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_context(|| format!("cannot open {}", path.display()))?
    } else {
        conn
    };
    configure(&conn)?;
    conn.pragma_update(None, "query_only", "ON")?;
    // The first read opens (and if need be creates) the -wal and -shm files.
    match conn.query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok((conn, false)),
        Err(e) if matches!(sqlite_code(&e), Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)) => {
            drop(conn);
            open_immutable(path, "SQLite cannot create its -wal and -shm files in its directory", note)
        }
        // Not a database, or damaged: `check_identity` names it.
        Err(e) if matches!(sqlite_code(&e), Some(ErrorCode::NotADatabase)) => Ok((conn, false)),
        Err(e) => Err(explain(e.into(), path)).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Opens `path` with `immutable=1`: no locks, no side files, and changes
/// others make meanwhile are not seen. Refused when the `-wal` holds changes
/// not yet in the file, which an immutable reader would miss.
fn open_immutable(path: &Path, why: &str, note: Notes) -> anyhow::Result<(Connection, bool)> {
    let wal = side_file(path, "-wal");
    if std::fs::metadata(&wal).map(|m| m.len() > 0).unwrap_or(false) {
        bail!(
            "cannot read {}: {why}, and {} holds changes not yet written into it; open it once with write access \
             (any litindex write command, or `sqlite3 {} 'PRAGMA wal_checkpoint'`)",
            path.display(),
            wal.display(),
            path.display()
        );
    }
    note(&format!(
        "reading {} as immutable ({why}); changes other processes make meanwhile are not seen",
        path.display()
    ));
    let abs = path.canonicalize().with_context(|| format!("cannot open {}", path.display()))?;
    let uri = format!("file:{}?immutable=1", uri_escape(&abs));
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("cannot open {}", path.display()))?;
    configure(&conn)?;
    Ok((conn, true))
}

/// `path` as the path part of a `file:` URI: every byte but unreserved ones and `/` percent-encoded.
fn uri_escape(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut out = String::with_capacity(bytes.len());
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether this process may write the file at `path` (asked of SQLite, which
/// opens a write-protected file read-only; no other descriptor is opened, so
/// no lock held by another connection of this process is disturbed).
fn writable(path: &Path) -> bool {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .and_then(|c| c.is_readonly(MAIN_DB))
        .map(|ro| !ro)
        .unwrap_or(false)
}

/// `path` with `suffix` appended: the `-wal`, `-shm` or `-journal` of a database.
fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The index's connection as the store lends it to `ingest` and `embed`:
/// they hand it back to store functions (which hold the SQL) and never
/// reach the connection itself. Inside [`Writable::write`] or the fill of
/// [`create_index`] it is the write transaction.
#[derive(Clone, Copy)]
pub struct Handle<'c> {
    conn: &'c Connection,
}

impl<'c> Handle<'c> {
    fn new(conn: &'c Connection) -> Handle<'c> {
        Handle { conn }
    }
}

/// An existing index opened for writing, as `embed` holds it: reads through
/// [`Writable::handle`], writes in [`Writable::write`] transactions.
pub(crate) struct Writable {
    conn: Connection,
}

impl Writable {
    /// [`open_for_writing`]: migrates an older schema, switches to WAL.
    pub(crate) fn open(path: &Path, note: Notes) -> anyhow::Result<Writable> {
        Ok(Writable { conn: open_for_writing(path, note)? })
    }

    /// The handle for reads outside a transaction.
    pub(crate) fn handle(&self) -> Handle<'_> {
        Handle::new(&self.conn)
    }

    /// Runs `fill` in one write transaction ([`write_transaction`]).
    pub(crate) fn write<T>(&mut self, fill: impl FnOnce(Handle<'_>) -> anyhow::Result<T>) -> anyhow::Result<T> {
        write_transaction(&mut self.conn, |tx| fill(Handle::new(tx)))
    }
}

/// [`Writable::open`], then `fill` in one write transaction on it, its
/// errors explained as errors on `path`.
pub(crate) fn write_to<T>(
    path: &Path,
    note: Notes,
    fill: impl FnOnce(Handle<'_>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    Writable::open(path, note).and_then(|mut w| w.write(fill)).map_err(|e| explain(e, path))
}

/// Opens an existing index for writing (migrating an older schema) and
/// makes sure it uses write-ahead logging.
pub(in crate::store) fn open_for_writing(path: &Path, note: Notes) -> anyhow::Result<Connection> {
    if !path.is_file() {
        bail!("no index at {}", path.display());
    }
    let mut conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_context(|| format!("cannot open {} for writing", path.display()))?;
    configure_writer(&conn)?;
    if conn.is_readonly(MAIN_DB)? {
        bail!("cannot write to {}: the file is read-only (its permissions, or the file system)", path.display());
    }
    let version = check_identity(&conn, path)?;
    set_wal(&conn, path)?;
    if version < SCHEMA_VERSION {
        note(&migrating(path, version));
        migrate::migrate(&mut conn)
            .map_err(|e| explain(e, path))
            .with_context(|| format!("cannot migrate {}", path.display()))?;
    }
    Ok(conn)
}

/// The note that an existing index is being upgraded: it happens once, but
/// rewrites its largest tables (minutes for millions of papers).
fn migrating(path: &Path, version: i64) -> String {
    format!(
        "upgrading {} from schema version {version} to {SCHEMA_VERSION} (once; a large index takes a while)",
        path.display()
    )
}

/// Switches `conn`'s database to write-ahead logging (a no-op when it already
/// is); the mode is stored in the file.
fn set_wal(conn: &Connection, path: &Path) -> anyhow::Result<()> {
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(|e| explain(e.into(), path))
        .with_context(|| format!("cannot switch {} to write-ahead logging", path.display()))?;
    if !mode.eq_ignore_ascii_case("wal") {
        bail!("cannot switch {} to write-ahead logging (it stays in {mode} mode)", path.display());
    }
    Ok(())
}

/// Runs `fill` in one write transaction on `conn`: all of it commits, or
/// none of it does. A second writer waits for the first up to the busy
/// timeout, then fails; [`explain`] puts such failures into words.
pub(in crate::store) fn write_transaction<T>(
    conn: &mut Connection,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    write_transaction_of(conn, Written::Content, fill)
}

/// What a write transaction may change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::store) enum Written {
    /// The index's content (papers, links, vectors, …): the transaction
    /// moves the index's generation ([`Store::generation`]) on.
    Content,
    /// Only the user's own tables (marks, watches, screening decisions).
    UserTables,
}

/// [`write_transaction`], saying what it changes.
pub(in crate::store) fn write_transaction_of<T>(
    conn: &mut Connection,
    written: Written,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).context("cannot start a write")?;
    let out = fill(&tx)?;
    if written == Written::Content {
        node_meta::refresh(&tx).context("cannot write the walk's chunks of doc ids and years")?;
        lengths::refresh(&tx).context("cannot write the chunks of document lengths")?;
        vector_codes::refresh(&tx).context("cannot write the chunks of vector codes")?;
        tx.execute("UPDATE index_generation SET generation = generation + 1 WHERE id = 1", [])
            .context("cannot move the index's generation on")?;
    }
    failpoint("before-commit");
    tx.commit().context("cannot commit")?;
    failpoint("after-commit");
    Ok(out)
}

/// [`write_transaction`], with its errors explained as errors on `path`.
fn write_transaction_named<T>(
    conn: &mut Connection,
    path: &Path,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    write_transaction(conn, fill).map_err(|e| explain(e, path))
}

/// The busy timeout: `LITINDEX_BUSY_TIMEOUT_MS`, or [`DEFAULT_BUSY_TIMEOUT`].
pub(crate) fn busy_timeout() -> Duration {
    std::env::var("LITINDEX_BUSY_TIMEOUT_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_BUSY_TIMEOUT)
}

/// Per-connection settings (never inside migrations).
///
/// The query planner's stability guarantee (`SQLITE_DBCONFIG_ENABLE_QPSG`):
/// without it SQLite may plan a statement by the values bound to it (this
/// build has STAT4), and marks such a statement to be compiled again when a
/// binding changes. rusqlite clears a cached statement's bindings when it
/// goes back to the cache, so every use of such a statement compiled it
/// again: `posting_blocks WHERE term_id = ?1 ORDER BY last_doc`, read once
/// per query term (130.8 M instructions over 200 SciFact queries before,
/// 25.0 M after: docs/PERFORMANCE.md, SciFact 2026-12-03). With the
/// guarantee a statement keeps the plan it was prepared with; the index
/// keeps no `sqlite_stat*` tables, so no plan is lost.
fn configure(conn: &Connection) -> anyhow::Result<()> {
    conn.busy_timeout(busy_timeout())?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(())
}

/// Read settings for a connection already known to be ours: read the file
/// through a memory map and keep up to 64 MiB of pages. Measured 3x faster
/// `eval` on SciFact (3.06 s → 0.98 s for 300 queries), the difference being
/// system time spent in read(2).
fn tune_reads(conn: &Connection) -> anyhow::Result<()> {
    conn.pragma_update(None, "mmap_size", MMAP_SIZE)?;
    conn.pragma_update(None, "cache_size", -65536)?;
    Ok(())
}

/// [`configure`] with a large page cache, plus `LITINDEX_MAX_PAGE_COUNT` (a test knob: caps the file
/// size in pages, to exercise a full disk).
fn configure_writer(conn: &Connection) -> anyhow::Result<()> {
    configure(conn)?;
    // A large ingest inserts into B-trees bigger than the default 2 MiB
    // cache; 512 MiB (a bound, not an allocation) keeps their hot pages
    // (measured: see docs/PERFORMANCE.md).
    conn.pragma_update(None, "cache_size", -524_288)?;
    if let Some(n) = std::env::var("LITINDEX_MAX_PAGE_COUNT").ok().and_then(|s| s.parse::<u64>().ok()) {
        conn.query_row(&format!("PRAGMA max_page_count = {n}"), [], |_| Ok(()))?;
    }
    Ok(())
}

/// Checks that `conn` is a litindex database this binary can read and
/// returns its schema version.
fn check_identity(conn: &Connection, path: &Path) -> anyhow::Result<i64> {
    let not_ours = || format!("{} is not a litindex database", path.display());
    let app_id: i32 = match conn.query_row("PRAGMA application_id", [], |r| r.get(0)) {
        Ok(id) => id,
        Err(e) if matches!(sqlite_code(&e), Some(ErrorCode::NotADatabase)) => {
            return Err(anyhow::Error::new(e).context(not_ours()));
        }
        Err(e) => {
            let e = explain(e.into(), path);
            if e.downcast_ref::<Explained>().is_some() {
                return Err(e);
            }
            return Err(e.context(format!("cannot read {}", path.display())));
        }
    };
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
