//! `gaps`: the ids the index's papers cite most that it does not hold
//! (dangling edge targets), so the user can fetch them.
//!
//! For `from` papers (or every paper), each cited id that is not an indexed
//! paper is counted once per citing paper; the most cited come first, ties
//! by id. Each gap names a few of its citers and the kind of id it is
//! (`doi`, `arxiv`, … as [`PaperId`] recognises it), any alias the
//! index stores for it, and the title a PDF's reference entry printed for it
//! (an unmatched entry's dangling id: its DOI, arXiv id, or `ref:…` from its
//! title).

use serde::Serialize;

use super::SAMPLE;
use crate::paper::PaperId;
use crate::store::Store;

/// One id the index lacks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    pub id: String,
    /// What kind of id it is: arxiv, doi, corpusid, openalex, s2 or own.
    pub kind: String,
    /// How many of the given papers cite it.
    pub cited_by: u64,
    /// The first few of them, sorted.
    pub cited_by_sample: Vec<String>,
    /// Other spellings the index knows for it (`kind:alias`), if any.
    pub aliases: Vec<String>,
    /// The title (and year) a PDF's reference entry printed for it, when one
    /// did (left out of the JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
}

/// The `limit` most cited missing ids, cited by `from` (canonical ids) or by any paper when `None`.
pub fn gaps(store: &Store, from: Option<&[String]>, limit: u64) -> anyhow::Result<Vec<Gap>> {
    store.snapshot(|| {
        let mut out = Vec::new();
        let targets = store.dangling_targets(from, limit)?;
        let ids: Vec<String> = targets.iter().map(|(id, _)| id.clone()).collect();
        let mut titles = store.reference_titles(&ids)?;
        for (id, cited_by) in targets {
            let (title, year) = titles.remove(&id).map_or((None, None), |(t, y)| (Some(t), y));
            let aliases = store
                .alias_kinds_of(&id)?
                .into_iter()
                .filter(|(alias, _)| *alias != id)
                .map(|(alias, kind)| format!("{kind}:{alias}"))
                .collect();
            out.push(Gap {
                kind: PaperId::parse(&id).kind().to_string(),
                cited_by_sample: store.some_citers(&id, from, SAMPLE as u64)?,
                cited_by,
                aliases,
                title,
                year,
                id,
            });
        }
        Ok(out)
    })
}
