//! Saved searches (tables `watches` and `watch_seen`, migration 004): a
//! name, the query and its search flags as given, and the hits of the last
//! check. The library stores and compares; the binary parses the flags and
//! runs the search.

use std::collections::HashSet;

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::Store;
use super::marks::{NOW, UserEdit};

/// One saved search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Watch {
    pub name: String,
    pub query: String,
    /// The search flags given to `watch add`, one argument each.
    pub flags: Vec<String>,
    pub created_at: String,
    /// `None` until its first check.
    pub last_checked: Option<String>,
    /// How many hits its last check recorded.
    pub seen: usize,
}

impl Store {
    /// Every saved search, by name.
    pub fn watches(&self) -> anyhow::Result<Vec<Watch>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT w.name, w.query, w.flags, w.created_at, w.last_checked,
                    (SELECT count(*) FROM watch_seen AS s WHERE s.watch = w.name)
             FROM watches AS w ORDER BY w.name",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get(1)?, r.get::<_, String>(2)?, r.get(3)?, r.get(4)?, r.get::<_, i64>(5)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (name, query, flags, created_at, last_checked, seen) = row?;
            let flags: Vec<String> = serde_json::from_str(&flags).map_err(|e| {
                anyhow::anyhow!("table watches, watch `{name}`: flags are not a JSON array of strings: {e}")
            })?;
            out.push(Watch { name, query, flags, created_at, last_checked, seen: seen.max(0) as usize });
        }
        Ok(out)
    }

    /// The saved search called `name`, if any.
    pub fn watch(&self, name: &str) -> anyhow::Result<Option<Watch>> {
        Ok(self.watches()?.into_iter().find(|w| w.name == name))
    }

    /// The paper ids the last check of watch `name` recorded.
    pub fn watch_seen(&self, name: &str) -> anyhow::Result<HashSet<String>> {
        let mut stmt = self.conn.prepare_cached("SELECT paper_id FROM watch_seen WHERE watch = ?1")?;
        let rows = stmt.query_map([name], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl UserEdit<'_> {
    /// Saves a search; `false` (nothing written) when the name is taken.
    pub fn add_watch(&self, name: &str, query: &str, flags: &[String]) -> anyhow::Result<bool> {
        let taken: Option<i64> = self
            .conn
            .prepare_cached("SELECT 1 FROM watches WHERE name = ?1")?
            .query_row([name], |r| r.get(0))
            .optional()?;
        if taken.is_some() {
            return Ok(false);
        }
        let sql = format!("INSERT INTO watches (name, query, flags, created_at) VALUES (?1, ?2, ?3, {NOW})");
        self.conn.prepare_cached(&sql)?.execute(params![name, query, serde_json::to_string(flags)?])?;
        Ok(true)
    }

    /// Removes a saved search and what it saw; `false` when there is none by that name.
    pub fn remove_watch(&self, name: &str) -> anyhow::Result<bool> {
        self.conn.prepare_cached("DELETE FROM watch_seen WHERE watch = ?1")?.execute([name])?;
        Ok(self.conn.prepare_cached("DELETE FROM watches WHERE name = ?1")?.execute([name])? > 0)
    }

    /// Records a check of watch `name`: `hits` (best first) replace what it saw before.
    pub fn record_check(&self, name: &str, hits: &[String]) -> anyhow::Result<()> {
        self.conn.prepare_cached("DELETE FROM watch_seen WHERE watch = ?1")?.execute([name])?;
        let mut insert =
            self.conn.prepare_cached("INSERT OR IGNORE INTO watch_seen (watch, paper_id, rank) VALUES (?1, ?2, ?3)")?;
        for (i, id) in hits.iter().enumerate() {
            insert.execute(params![name, id, i as i64 + 1])?;
        }
        let sql = format!("UPDATE watches SET last_checked = {NOW} WHERE name = ?1");
        self.conn.prepare_cached(&sql)?.execute([name])?;
        Ok(())
    }
}
