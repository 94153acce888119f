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

mod check;
mod graph;
mod migrate;
mod read;
mod summary;
pub mod vectors;
pub mod write;
pub mod writer;

pub use check::{check, CheckReport, InvariantResult};
pub use graph::StoreAdjacency;
pub use migrate::SCHEMA_VERSION;
pub use read::{IndexMeta, PaperRow, Posting};
pub use summary::{Counts, Merge};

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rusqlite::ffi::ErrorCode;
use rusqlite::{Connection, DatabaseName, OpenFlags, TransactionBehavior};

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::failpoint::failpoint;

/// `PRAGMA application_id` of every litindex database: "LITX".
pub const APPLICATION_ID: i32 = 0x4C49_5458;

/// How long a connection waits for a lock held by another process, unless
/// `LITINDEX_BUSY_TIMEOUT_MS` says otherwise.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// `PRAGMA mmap_size` of a reader: the whole file for any index up to
/// 256 GiB (address space, not memory; SQLite maps at most the file's size).
/// A build of SQLite with a smaller `SQLITE_MAX_MMAP_SIZE` caps it there.
pub const MMAP_SIZE: i64 = 1 << 38;

/// `PRAGMA page_size` of a new index.
pub const PAGE_SIZE: i64 = 8192;

/// Temporary files of a build in progress are named
/// `.litindex-build-PID-XXXXXX.db`, beside the index.
const TEMP_PREFIX: &str = ".litindex-build-";

/// An open index.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    immutable: bool,
}

impl Store {
    /// Opens the index at `path` for reading. A missing file, a file that is
    /// not a litindex database, or one written by a newer litindex is an
    /// error; an older schema is migrated in place. A file that cannot be
    /// read the usual way (read-only here: SQLite cannot create its `-wal`
    /// and `-shm` files) is opened with `immutable=1`, and stderr says so.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        if !path.exists() {
            bail!("no index at {}; run `litindex build --db {}` first", path.display(), path.display());
        }
        if path.is_dir() {
            bail!("{} is a directory, not a litindex database", path.display());
        }
        let (conn, immutable) = open_read_only(path)?;
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
            say_migrating(path, version);
            migrate::migrate(&mut rw)
                .map_err(|e| explain(e, path))
                .with_context(|| format!("cannot migrate {}", path.display()))?;
            rw
        } else {
            conn
        };
        tune_reads(&conn)?;
        Ok(Store { conn, path: path.to_path_buf(), immutable })
    }

    /// The connection, for the graph CTE and for tests.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file was opened with `immutable=1` (read-only here).
    pub fn is_immutable(&self) -> bool {
        self.immutable
    }
}

/// Opens `path` for reading. Normally a read-write handle with
/// `query_only=ON`: it cannot change the file, shares the `-wal`/`-shm`
/// files with writers, and when it is the last connection to close it
/// checkpoints and removes them, so reading leaves nothing beside the index.
/// A file this user cannot write is opened read-only when those side files
/// exist, and with `immutable=1` when they do not (or cannot be created).
fn open_read_only(path: &Path) -> anyhow::Result<(Connection, bool)> {
    let side_files = side_file(path, "-wal").exists() || side_file(path, "-shm").exists();
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let conn = if conn.is_readonly(DatabaseName::Main)? {
        drop(conn);
        if !side_files {
            // Reading it normally would create a -wal and -shm owned by this
            // user (where the directory allows it), which its owner could not write.
            return open_immutable(path, "it is read-only for this user");
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
            open_immutable(path, "SQLite cannot create its -wal and -shm files in its directory")
        }
        // Not a database, or damaged: `check_identity` names it.
        Err(e) if matches!(sqlite_code(&e), Some(ErrorCode::NotADatabase)) => Ok((conn, false)),
        Err(e) => Err(explain(e.into(), path)).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Opens `path` with `immutable=1`: no locks, no side files, and changes
/// others make meanwhile are not seen. Refused when the `-wal` holds changes
/// not yet in the file, which an immutable reader would miss.
fn open_immutable(path: &Path, why: &str) -> anyhow::Result<(Connection, bool)> {
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
    eprintln!(
        "litindex: note: reading {} as immutable ({why}); changes other processes make meanwhile are not seen",
        path.display()
    );
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
        .and_then(|c| c.is_readonly(DatabaseName::Main))
        .map(|ro| !ro)
        .unwrap_or(false)
}

/// `path` with `suffix` appended: the `-wal`, `-shm` or `-journal` of a database.
fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Opens an existing index for writing (migrating an older schema) and
/// makes sure it uses write-ahead logging.
pub fn open_for_writing(path: &Path) -> anyhow::Result<Connection> {
    if !path.is_file() {
        bail!("no index at {}", path.display());
    }
    let mut conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_context(|| format!("cannot open {} for writing", path.display()))?;
    configure_writer(&conn)?;
    if conn.is_readonly(DatabaseName::Main)? {
        bail!("cannot write to {}: the file is read-only (its permissions, or the file system)", path.display());
    }
    let version = check_identity(&conn, path)?;
    set_wal(&conn, path)?;
    if version < SCHEMA_VERSION {
        say_migrating(path, version);
        migrate::migrate(&mut conn)
            .map_err(|e| explain(e, path))
            .with_context(|| format!("cannot migrate {}", path.display()))?;
    }
    Ok(conn)
}

/// Tells stderr that an existing index is being upgraded: it happens once,
/// but rewrites its largest tables (minutes for millions of papers).
fn say_migrating(path: &Path, version: i64) {
    eprintln!(
        "litindex: upgrading {} from schema version {version} to {SCHEMA_VERSION} (once; a large index takes a while)",
        path.display()
    );
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
pub fn write_transaction<T>(
    conn: &mut Connection,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).context("cannot start a write")?;
    let out = fill(&tx)?;
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

/// Creates a new index at `path`, replacing any file there: an empty schema
/// and statistics, filled by `fill` in one transaction, written to a
/// temporary file beside `path` and renamed over it only when complete. A
/// failure leaves `path` as it was (absent, or the old index).
pub fn create_index<T>(
    path: &Path,
    analyzer: Analyzer,
    bm25: Bm25,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    create(path, true, analyzer, bm25, fill)
}

/// [`create_index`] for a path that must not exist: when another process
/// created a file there meanwhile, nothing is written and it is an error.
pub fn create_new_index<T>(
    path: &Path,
    analyzer: Analyzer,
    bm25: Bm25,
    fill: impl FnOnce(&Connection) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    create(path, false, analyzer, bm25, fill)
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
    // The file is private until the rename, so it is filled with a rollback
    // journal (each page written once), then switched to WAL.
    let out = write_transaction_named(&mut conn, path, |tx| {
        write::init_meta(tx, analyzer, bm25)?;
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
                )))
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

/// The busy timeout: `LITINDEX_BUSY_TIMEOUT_MS`, or [`DEFAULT_BUSY_TIMEOUT`].
pub fn busy_timeout() -> Duration {
    std::env::var("LITINDEX_BUSY_TIMEOUT_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_BUSY_TIMEOUT)
}

/// Per-connection settings (never inside migrations).
fn configure(conn: &Connection) -> anyhow::Result<()> {
    conn.busy_timeout(busy_timeout())?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
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
            return Err(anyhow::Error::new(e).context(not_ours()))
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

/// The primary SQLite result code of an error, if it is one.
fn sqlite_code(e: &rusqlite::Error) -> Option<ErrorCode> {
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
struct Explained(String);

impl fmt::Display for Explained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Puts an SQLite failure on `path` into words: another writer holding the
/// lock past the busy timeout, a read-only file or directory, a full disk, a
/// file replaced meanwhile, a damaged file. Other errors pass unchanged.
pub fn explain(e: anyhow::Error, path: &Path) -> anyhow::Error {
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
