//! The reads a search filter needs (`search::filter`): the fields a filter
//! tests, for a batch of papers by doc id, and the papers newest first (the
//! list a query made only of filters ranks).

use super::Store;

/// What a filter may test of one paper. `title` and `abstract_` are empty
/// unless the text was asked for (phrases, `+word`, `-word`).
#[derive(Debug, Clone, PartialEq)]
pub struct FilterRow {
    pub doc: i64,
    pub id: String,
    pub year: Option<i32>,
    /// The JSON array of names, as stored.
    pub authors: String,
    pub venue: Option<String>,
    pub title: String,
    pub abstract_: String,
}

impl Store {
    /// The filter fields of each of `docs` that is a paper, by one statement.
    pub fn filter_rows(&self, docs: &[i64], with_text: bool) -> anyhow::Result<Vec<FilterRow>> {
        let sql = if with_text {
            "SELECT p.doc, p.id, p.year, p.authors, p.venue, p.title, p.abstract
             FROM json_each(?1) AS j JOIN papers AS p ON p.doc = j.value"
        } else {
            "SELECT p.doc, p.id, p.year, p.authors, p.venue, '', ''
             FROM json_each(?1) AS j JOIN papers AS p ON p.doc = j.value"
        };
        let json = serde_json::to_string(docs)?;
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map([json], |r| {
            Ok(FilterRow {
                doc: r.get(0)?,
                id: r.get(1)?,
                year: r.get(2)?,
                authors: r.get(3)?,
                venue: r.get(4)?,
                title: r.get(5)?,
                abstract_: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Doc ids newest first (year descending, papers without a year last,
    /// equal years by doc id), `limit` of them from position `offset`.
    pub fn docs_by_recency(&self, offset: usize, limit: usize) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc FROM papers ORDER BY year IS NULL, year DESC, doc LIMIT ?1 OFFSET ?2")?;
        let rows = stmt.query_map([limit as i64, offset as i64], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
