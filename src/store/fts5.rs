//! The peer `bench` measures against: an SQLite FTS5 table over the same
//! text (`title + " " + abstract`), in a file of its own, and its top-10
//! `bm25()` query.

use std::path::Path;

use anyhow::Context;
use rusqlite::{Connection, OpenFlags, Transaction};

/// A new FTS5 file being filled, in one transaction.
pub struct Fts5Builder {
    conn: Connection,
}

impl Fts5Builder {
    /// Creates the file at `path` (which must not exist) with one FTS5
    /// table `t(body)` using `tokenizer` (`unicode61`, `porter unicode61`).
    pub fn create(path: &Path, tokenizer: &'static str) -> anyhow::Result<Fts5Builder> {
        anyhow::ensure!(!path.exists(), "{} already exists", path.display());
        let conn = Connection::open(path).with_context(|| format!("cannot create {}", path.display()))?;
        // The tokenizer is one of two fixed names, never user text.
        conn.execute_batch(&format!("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '{tokenizer}')"))
            .context("cannot create the FTS5 table (is FTS5 compiled in?)")?;
        Ok(Fts5Builder { conn })
    }

    /// Inserts every `(rowid, body)` that `rows` yields, in one transaction.
    pub fn fill(
        mut self,
        rows: impl FnOnce(&mut dyn FnMut(i64, &str) -> anyhow::Result<()>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let tx: Transaction = self.conn.transaction()?;
        {
            let mut insert = tx.prepare("INSERT INTO t (rowid, body) VALUES (?1, ?2)")?;
            rows(&mut |rowid, body| {
                insert.execute(rusqlite::params![rowid, body])?;
                Ok(())
            })?;
        }
        tx.commit()?;
        self.conn.close().map_err(|(_, e)| e)?;
        Ok(())
    }
}

/// An FTS5 file opened for its top-10 query.
pub struct Fts5Reader {
    conn: Connection,
}

impl Fts5Reader {
    pub fn open(path: &Path) -> anyhow::Result<Fts5Reader> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Fts5Reader { conn })
    }

    /// The rowids of the ten best `bm25()` matches of the FTS5 query `matching`.
    pub fn top10(&self, matching: &str) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self.conn.prepare_cached("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t) LIMIT 10")?;
        let rows = stmt.query_map([matching], |r| r.get::<_, i64>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
