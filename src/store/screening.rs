//! Screening reviews (tables `screen_reviews`, `screen_candidates`,
//! `screen_decisions`, migration 012): a named candidate set and the
//! include/exclude decisions on it. Written through [`UserEdit`] (one write
//! transaction: a failed command changes nothing), read by [`Store`]
//! methods. A candidate is named by the id the user was given (`given_id`)
//! and points at its paper's canonical id (`paper_id`), which merges update
//! ([`follow_merge`]) and `build` re-resolves ([`Carried`]).

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::marks::{NOW, UserEdit};
use super::{Handle, Store};

/// A review as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewRow {
    pub name: String,
    pub origin: String,
    pub created_at: String,
}

/// A decision as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionRow {
    pub included: bool,
    pub note: String,
    pub reason: String,
    pub seq: i64,
    pub decided_at: String,
}

/// A candidate of a review, with its decision if made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CandidateRow {
    pub given_id: String,
    pub paper_id: String,
    pub pos: i64,
    pub decision: Option<DecisionRow>,
}

impl Store {
    /// Every review, by name.
    pub fn screen_reviews(&self) -> anyhow::Result<Vec<ReviewRow>> {
        let mut stmt = self.conn.prepare_cached("SELECT name, origin, created_at FROM screen_reviews ORDER BY name")?;
        let rows =
            stmt.query_map([], |r| Ok(ReviewRow { name: r.get(0)?, origin: r.get(1)?, created_at: r.get(2)? }))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The review called `name`, if there is one.
    pub fn screen_review(&self, name: &str) -> anyhow::Result<Option<ReviewRow>> {
        review_on(&self.conn, name)
    }

    /// The candidates of review `name` in the order they were added, each with its decision.
    pub fn screen_candidates(&self, name: &str) -> anyhow::Result<Vec<CandidateRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT c.given_id, c.paper_id, c.pos, d.label, d.note, d.reason, d.seq, d.decided_at
             FROM screen_candidates AS c
             LEFT JOIN screen_decisions AS d ON d.review = c.review AND d.given_id = c.given_id
             WHERE c.review = ?1 ORDER BY c.pos, c.given_id",
        )?;
        let rows = stmt.query_map([name], |r| {
            let label: Option<String> = r.get(3)?;
            let decision = match label {
                Some(l) => Some(DecisionRow {
                    included: l == "include",
                    note: r.get(4)?,
                    reason: r.get(5)?,
                    seq: r.get(6)?,
                    decided_at: r.get(7)?,
                }),
                None => None,
            };
            Ok(CandidateRow { given_id: r.get(0)?, paper_id: r.get(1)?, pos: r.get(2)?, decision })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn review_on(conn: &Connection, name: &str) -> anyhow::Result<Option<ReviewRow>> {
    Ok(conn
        .prepare_cached("SELECT name, origin, created_at FROM screen_reviews WHERE name = ?1")?
        .query_row([name], |r| Ok(ReviewRow { name: r.get(0)?, origin: r.get(1)?, created_at: r.get(2)? }))
        .optional()?)
}

impl UserEdit<'_> {
    /// The review called `name`, read inside this transaction.
    pub fn screen_review(&self, name: &str) -> anyhow::Result<Option<ReviewRow>> {
        review_on(self.conn, name)
    }

    /// Creates review `name`; an error if it exists.
    pub fn create_review(&self, name: &str, origin: &str) -> anyhow::Result<()> {
        anyhow::ensure!(!name.trim().is_empty(), "a review needs a name");
        anyhow::ensure!(
            review_on(self.conn, name)?.is_none(),
            "review `{name}` exists already (`litindex screen status {name}`)"
        );
        self.conn
            .prepare_cached(&format!("INSERT INTO screen_reviews (name, origin, created_at) VALUES (?1, ?2, {NOW})"))?
            .execute(params![name, origin])?;
        Ok(())
    }

    /// Adds a candidate (ignored when `given_id` is one already); whether it was new.
    pub fn add_candidate(&self, review: &str, given_id: &str, paper_id: &str) -> anyhow::Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO screen_candidates (review, given_id, paper_id, pos)
                 VALUES (?1, ?2, ?3, (SELECT coalesce(max(pos), 0) + 1 FROM screen_candidates WHERE review = ?1))",
            )?
            .execute(params![review, given_id, paper_id])?;
        Ok(n > 0)
    }

    /// The given ids of review `review` that `input` names: the candidate
    /// given that very id, or else every candidate of the paper `input`
    /// resolves to (several when a merged paper stands for several given ids).
    pub fn candidates_named(&self, review: &str, input: &str) -> anyhow::Result<Vec<String>> {
        let input = input.trim();
        let exact: Option<String> = self
            .conn
            .prepare_cached("SELECT given_id FROM screen_candidates WHERE review = ?1 AND given_id = ?2")?
            .query_row(params![review, input], |r| r.get(0))
            .optional()?;
        if let Some(g) = exact {
            return Ok(vec![g]);
        }
        let Some(paper) = self.resolve(input)? else { return Ok(Vec::new()) };
        let mut stmt = self.conn.prepare_cached(
            "SELECT given_id FROM screen_candidates WHERE review = ?1 AND paper_id = ?2 ORDER BY given_id",
        )?;
        let rows = stmt.query_map(params![review, paper], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records a decision on a candidate (replacing an earlier one, which then
    /// counts as made now).
    pub fn decide(&self, review: &str, given_id: &str, include: bool, note: &str, reason: &str) -> anyhow::Result<()> {
        let label = if include { "include" } else { "exclude" };
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO screen_decisions (review, given_id, label, note, reason, seq, decided_at)
                 VALUES (?1, ?2, ?3, ?4, ?5,
                         (SELECT coalesce(max(seq), 0) + 1 FROM screen_decisions WHERE review = ?1), {NOW})
                 ON CONFLICT (review, given_id) DO UPDATE SET label = excluded.label, note = excluded.note,
                     reason = excluded.reason, seq = excluded.seq, decided_at = excluded.decided_at"
            ))?
            .execute(params![review, given_id, label, note, reason])?;
        Ok(())
    }
}

/// A merge retired paper `old` into `canonical`: its candidates follow.
pub(super) fn follow_merge(conn: &Connection, old: &str, canonical: &str) -> anyhow::Result<()> {
    conn.prepare_cached("UPDATE screen_candidates SET paper_id = ?2 WHERE paper_id = ?1")?
        .execute(params![old, canonical])?;
    Ok(())
}

/// The screening rows of an index, carried by `build` into its new file.
#[derive(Debug, Default)]
pub(super) struct Carried {
    reviews: Vec<(String, String, String)>,
    candidates: Vec<(String, String, String, i64)>,
    decisions: Vec<(String, String, String, String, String, i64, String)>,
}

impl Carried {
    /// Reads them (nothing from an index older than migration 012).
    pub(super) fn read(c: &Connection) -> rusqlite::Result<Carried> {
        let has: i64 = c.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'screen_decisions'",
            [],
            |r| r.get(0),
        )?;
        if has == 0 {
            return Ok(Carried::default());
        }
        let collect = |sql: &str| -> rusqlite::Result<Vec<Vec<rusqlite::types::Value>>> {
            let mut stmt = c.prepare(sql)?;
            let n = stmt.column_count();
            let rows = stmt.query_map([], |r| (0..n).map(|i| r.get(i)).collect())?;
            rows.collect()
        };
        use rusqlite::types::Value;
        let s = |v: &Value| match v {
            Value::Text(t) => t.clone(),
            _ => String::new(),
        };
        let i = |v: &Value| match v {
            Value::Integer(n) => *n,
            _ => 0,
        };
        Ok(Carried {
            reviews: collect("SELECT name, origin, created_at FROM screen_reviews")?
                .iter()
                .map(|r| (s(&r[0]), s(&r[1]), s(&r[2])))
                .collect(),
            candidates: collect("SELECT review, given_id, paper_id, pos FROM screen_candidates")?
                .iter()
                .map(|r| (s(&r[0]), s(&r[1]), s(&r[2]), i(&r[3])))
                .collect(),
            decisions: collect("SELECT review, given_id, label, note, reason, seq, decided_at FROM screen_decisions")?
                .iter()
                .map(|r| (s(&r[0]), s(&r[1]), s(&r[2]), s(&r[3]), s(&r[4]), i(&r[5]), s(&r[6])))
                .collect(),
        })
    }

    /// Writes them into the new index, each candidate's paper re-resolved
    /// there by its given id (then its old paper id), kept as it was when
    /// the new index knows neither.
    pub(super) fn restore(&self, handle: Handle<'_>) -> anyhow::Result<()> {
        let conn = handle.conn;
        let mut review = conn.prepare("INSERT INTO screen_reviews (name, origin, created_at) VALUES (?1, ?2, ?3)")?;
        for (name, origin, at) in &self.reviews {
            review.execute(params![name, origin, at])?;
        }
        let mut candidate =
            conn.prepare("INSERT INTO screen_candidates (review, given_id, paper_id, pos) VALUES (?1, ?2, ?3, ?4)")?;
        for (r, given, paper, pos) in &self.candidates {
            let now = match super::read::resolve_on(conn, given)? {
                Some(p) => p,
                None => super::read::resolve_on(conn, paper)?.unwrap_or_else(|| paper.clone()),
            };
            candidate.execute(params![r, given, now, pos])?;
        }
        let mut decision = conn.prepare(
            "INSERT INTO screen_decisions (review, given_id, label, note, reason, seq, decided_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (r, g, l, n, why, seq, at) in &self.decisions {
            decision.execute(params![r, g, l, n, why, seq, at])?;
        }
        Ok(())
    }
}
