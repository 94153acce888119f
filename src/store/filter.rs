//! The reads a search filter needs (`search::filter`): the fields a filter
//! tests, for a batch of papers by doc id, and the papers newest first (the
//! list a query made only of filters ranks).

use super::Store;

/// What a filter may test of one paper. `authors` is `[]` and the text
/// empty unless asked for ([`FilterFields`]).
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

/// Which fields [`Store::filter_rows`] reads beyond id, year and venue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterFields {
    /// Id, year and venue only, from the narrow `idx_papers_doc_meta`.
    Narrow,
    /// And the authors.
    Authors,
    /// And the authors, title and abstract.
    Text,
}

impl Store {
    /// The filter fields of each of `docs` that is a paper, by one statement.
    pub fn filter_rows(&self, docs: &[i64], fields: FilterFields) -> anyhow::Result<Vec<FilterRow>> {
        let sql = match fields {
            FilterFields::Narrow => {
                "SELECT p.doc, p.id, p.year, '[]', p.venue, '', ''
                 FROM json_each(?1) AS j JOIN papers AS p INDEXED BY idx_papers_doc_meta ON p.doc = j.value"
            }
            FilterFields::Authors => {
                "SELECT p.doc, p.id, p.year, p.authors, p.venue, '', ''
                 FROM json_each(?1) AS j JOIN papers AS p ON p.doc = j.value"
            }
            FilterFields::Text => {
                "SELECT p.doc, p.id, p.year, p.authors, p.venue, p.title, p.abstract
                 FROM json_each(?1) AS j JOIN papers AS p ON p.doc = j.value"
            }
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

    /// The papers with an author of surname key `key` (`names::surname_key`).
    pub fn docs_with_surname(&self, key: &str) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self.conn.prepare_cached("SELECT doc FROM paper_authors WHERE surname = ?1")?;
        let rows = stmt.query_map([key], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The papers whose id starts with `prefix` (as given, byte for byte: a
    /// range of the id index).
    pub fn docs_with_id_prefix(&self, prefix: &str) -> anyhow::Result<Vec<i64>> {
        let mut stmt = self.conn.prepare_cached("SELECT doc FROM papers WHERE id >= ?1 AND id < ?2")?;
        let end = format!("{prefix}\u{10FFFF}");
        let rows = stmt.query_map([prefix, end.as_str()], |r| r.get(0))?;
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
