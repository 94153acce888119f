//! A consistent private copy of a Zotero database, checked before use.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context;
use rusqlite::{Connection, OpenFlags};

use super::{KNOWN_TABLES, NEWEST_USERDATA, OLDEST_USERDATA, REQUIRED_TABLES};

/// How many times a copy is made before giving up on a file that keeps
/// changing or fails its check.
pub(crate) const COPY_ATTEMPTS: usize = 3;

/// The first 16 bytes of every SQLite 3 database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The Zotero database `path` names: the file itself, or `zotero.sqlite`
/// inside a folder; with the data folder (where `storage/` is).
pub(crate) fn locate(path: &Path) -> Option<(PathBuf, PathBuf)> {
    if path.is_dir() {
        let db = path.join("zotero.sqlite");
        return db.is_file().then(|| (db, path.to_path_buf()));
    }
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Some((path.to_path_buf(), if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir }))
}

/// Whether the file starts with SQLite's magic bytes.
pub(crate) fn looks_like_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == SQLITE_MAGIC
}

/// A checked copy of a Zotero database, open; the copy goes with it.
pub(crate) struct Snapshot {
    /// The database as given (never opened by SQLite).
    pub source: PathBuf,
    /// The data folder: `storage/KEY/NAME` is resolved against it.
    pub data_dir: PathBuf,
    /// `version.userdata`.
    pub userdata: i64,
    /// Tables present that this reader does not know (a newer schema).
    pub unknown_tables: Vec<String>,
    /// Whether a `-journal` or `-wal` file was copied with it.
    pub side_files: Vec<String>,
    pub(super) conn: Connection,
    pub(super) tables: Vec<String>,
    _dir: tempfile::TempDir,
}

/// Size and modification time, to see whether a file moved while copied.
fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

impl Snapshot {
    /// Copies the database at `db` (data folder `data_dir`) and opens the
    /// copy, checked; see the module doc.
    pub(crate) fn open(db: &Path, data_dir: &Path) -> anyhow::Result<Snapshot> {
        let shown = db.display();
        anyhow::ensure!(db.is_file(), "{shown}: no such Zotero database (a zotero.sqlite, or the folder holding it)");
        anyhow::ensure!(
            looks_like_sqlite(db),
            "{shown} is not a Zotero database: it is not an SQLite file (a Zotero library is `zotero.sqlite` in the \
             Zotero data folder, e.g. ~/Zotero)"
        );
        let mut last_problem = String::new();
        for _ in 0..COPY_ATTEMPTS {
            let dir = tempfile::Builder::new()
                .prefix("litindex-zotero-")
                .tempdir()
                .context("cannot make a temporary folder for the copy of the Zotero database")?;
            match Self::copy_once(db, dir.path()) {
                Ok((copy, side_files)) => match check(&copy) {
                    Ok(conn) => return Self::finish(db, data_dir, conn, side_files, dir),
                    Err(problem) => last_problem = problem,
                },
                Err(problem) => last_problem = problem,
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        anyhow::bail!(
            "{shown}: could not read a consistent copy in {COPY_ATTEMPTS} attempts ({last_problem}); Zotero may be \
             writing to it: try again in a moment, or close Zotero"
        )
    }

    /// One copy of the file and its side files; the problem when the file moved meanwhile.
    fn copy_once(db: &Path, dir: &Path) -> Result<(PathBuf, Vec<String>), String> {
        let before = stamp(db);
        let copy = dir.join("zotero.sqlite");
        std::fs::copy(db, &copy).map_err(|e| format!("cannot read {}: {e}", db.display()))?;
        let mut side_files = Vec::new();
        for suffix in ["-journal", "-wal"] {
            let mut side = db.as_os_str().to_owned();
            side.push(suffix);
            let side = PathBuf::from(side);
            if side.is_file() {
                std::fs::copy(&side, dir.join(format!("zotero.sqlite{suffix}")))
                    .map_err(|e| format!("cannot read {}: {e}", side.display()))?;
                side_files.push(format!("zotero.sqlite{suffix}"));
            }
        }
        if stamp(db) != before {
            return Err("the file changed while it was copied".into());
        }
        Ok((copy, side_files))
    }

    fn finish(
        db: &Path,
        data_dir: &Path,
        conn: Connection,
        side_files: Vec<String>,
        dir: tempfile::TempDir,
    ) -> anyhow::Result<Snapshot> {
        let shown = db.display();
        let tables: Vec<String> = {
            let mut stmt = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")?;
            stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?
        };
        let missing: Vec<&str> =
            REQUIRED_TABLES.iter().copied().filter(|t| !tables.iter().any(|have| have == t)).collect();
        anyhow::ensure!(
            missing.is_empty(),
            "{shown} is an SQLite database but not a Zotero library: it has no {} table{}",
            missing.join(", "),
            if missing.len() == 1 { "" } else { "s" }
        );
        let userdata: Option<i64> = if tables.iter().any(|t| t == "version") {
            conn.query_row("SELECT version FROM version WHERE schema = 'userdata'", [], |r| r.get(0)).ok()
        } else {
            None
        };
        let Some(userdata) = userdata else {
            anyhow::bail!("{shown} looks like a Zotero library but has no `version` row for `userdata`")
        };
        anyhow::ensure!(
            userdata >= OLDEST_USERDATA,
            "{shown} is a Zotero 4 (or older) library (schema userdata {userdata}); litindex reads Zotero 5 and \
             later (userdata {OLDEST_USERDATA}+): open it once in a current Zotero, which upgrades it"
        );
        let unknown_tables = tables.iter().filter(|t| !KNOWN_TABLES.contains(&t.as_str())).cloned().collect::<Vec<_>>();
        Ok(Snapshot {
            source: db.to_path_buf(),
            data_dir: data_dir.to_path_buf(),
            userdata,
            unknown_tables,
            side_files,
            conn,
            tables,
            _dir: dir,
        })
    }

    /// Whether the database has table `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        self.tables.iter().any(|t| t == name)
    }

    /// `combined` when the database has it (Zotero 5.0.? and later keep
    /// custom types and fields there too), else `plain`.
    pub(super) fn either<'a>(&self, combined: &'a str, plain: &'a str) -> &'a str {
        if self.has(combined) { combined } else { plain }
    }

    /// A note for a schema newer than known, naming what was not read.
    pub(crate) fn schema_note(&self) -> Option<String> {
        if self.userdata <= NEWEST_USERDATA && self.unknown_tables.is_empty() {
            return None;
        }
        let mut note = format!(
            "{}: Zotero schema userdata {} (this litindex knows up to {NEWEST_USERDATA}): read the known tables",
            self.source.display(),
            self.userdata
        );
        if !self.unknown_tables.is_empty() {
            note.push_str(&format!("; not read: {}", self.unknown_tables.join(", ")));
        }
        Some(note)
    }
}

/// Opens the copy at `path` (the copy is ours: a hot journal copied with it
/// is rolled back in the copy, never in the original) and checks it.
fn check(path: &Path) -> Result<Connection, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| format!("cannot open the copy: {e}"))?;
    let verdict: Result<String, _> = conn.query_row("PRAGMA quick_check", [], |r| r.get(0));
    match verdict {
        Ok(v) if v == "ok" => {}
        Ok(v) => return Err(format!("the copy fails SQLite's quick_check: {v}")),
        Err(e) => return Err(format!("the copy is not a readable SQLite database: {e}")),
    }
    conn.pragma_update(None, "query_only", true).map_err(|e| format!("cannot open the copy: {e}"))?;
    Ok(conn)
}
