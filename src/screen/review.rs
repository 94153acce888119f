//! Reviews and decisions: making a review's candidate set, recording
//! include/exclude decisions one at a time or from a labels file. Each
//! command is one write transaction: an unknown id, an id outside the
//! candidate set or a bad labels row fails the whole command, naming it,
//! and nothing is written.

use std::path::Path;

use serde::Serialize;

use super::labels::read_labels;
use crate::store::marks::{UserEdit, edit};
use crate::store::{Notes, Store};

/// One id offered as a candidate, with where it came from (for errors:
/// `FILE:LINE`, or empty when the index gave it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenId {
    pub id: String,
    pub location: String,
}

impl GivenId {
    /// An id the index gave (a search hit, a paper of a source): never unknown.
    pub fn from_index(id: String) -> GivenId {
        GivenId { id, location: String::new() }
    }
}

/// What `create` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Created {
    pub name: String,
    pub candidates: usize,
    /// Given ids that named the same paper as an earlier one (kept, each under its own id).
    pub same_paper: usize,
    /// Ids given twice (kept once).
    pub repeated: usize,
}

/// Creates review `name` over `ids`; every id must name a paper of the index.
pub fn create(db: &Path, notes: Notes, name: &str, origin: &str, ids: &[GivenId]) -> anyhow::Result<Created> {
    anyhow::ensure!(!ids.is_empty(), "review `{name}` would have no candidates ({origin})");
    edit(db, notes, |e| {
        e.create_review(name, origin)?;
        let mut papers = std::collections::HashSet::new();
        let (mut added, mut same_paper, mut repeated) = (0, 0, 0);
        for g in ids {
            let paper = e.resolve(&g.id)?.ok_or_else(|| unknown(g))?;
            if e.add_candidate(name, g.id.trim(), &paper)? {
                added += 1;
                if !papers.insert(paper) {
                    same_paper += 1;
                }
            } else {
                repeated += 1;
            }
        }
        Ok(Created { name: name.to_string(), candidates: added, same_paper, repeated })
    })
}

fn unknown(g: &GivenId) -> anyhow::Error {
    let at = if g.location.is_empty() { String::new() } else { format!("{}: ", g.location) };
    anyhow::anyhow!("{at}no paper `{}` in the index (ingest or fetch it first)", g.id.trim())
}

/// What a decision command did: the given ids decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decided {
    pub review: String,
    pub decided: Vec<String>,
    pub included: usize,
    pub excluded: usize,
}

/// Includes or excludes the candidate(s) `id` names in review `name`.
pub fn label(
    db: &Path,
    notes: Notes,
    name: &str,
    id: &str,
    include: bool,
    note: &str,
    reason: &str,
) -> anyhow::Result<Decided> {
    edit(db, notes, |e| {
        need_review(e, name)?;
        let given = named(e, name, id, "")?;
        for g in &given {
            e.decide(name, g, include, note, reason)?;
        }
        let n = given.len();
        Ok(Decided {
            review: name.into(),
            decided: given,
            included: if include { n } else { 0 },
            excluded: if include { 0 } else { n },
        })
    })
}

/// Records every row of a labels file (`id,label`) as a decision, in file order.
pub fn import(db: &Path, notes: Notes, name: &str, labels: &Path) -> anyhow::Result<Decided> {
    let rows = read_labels(labels)?;
    edit(db, notes, |e| {
        need_review(e, name)?;
        let mut out = Decided { review: name.into(), decided: Vec::new(), included: 0, excluded: 0 };
        let mut done = std::collections::HashMap::new();
        for r in &rows {
            let at = format!("{}:{}", labels.display(), r.line);
            for g in named(e, name, &r.id, &at)? {
                if let Some(first) = done.insert(g.clone(), r.line) {
                    anyhow::bail!("{at}: `{}` names candidate {g}, which line {first} decided already", r.id);
                }
                e.decide(name, &g, r.included, "", "")?;
                if r.included {
                    out.included += 1
                } else {
                    out.excluded += 1
                }
                out.decided.push(g);
            }
        }
        Ok(out)
    })
}

fn need_review(e: &UserEdit, name: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        e.screen_review(name)?.is_some(),
        "no review `{name}` (make one with `litindex screen new {name} …`)"
    );
    Ok(())
}

/// The candidates `id` names, or an error saying why there are none.
fn named(e: &UserEdit, review: &str, id: &str, at: &str) -> anyhow::Result<Vec<String>> {
    let given = e.candidates_named(review, id)?;
    if !given.is_empty() {
        return Ok(given);
    }
    let at = if at.is_empty() { String::new() } else { format!("{at}: ") };
    match e.resolve(id)? {
        None => anyhow::bail!("{at}no paper `{}` in the index", id.trim()),
        Some(p) => anyhow::bail!("{at}`{}` ({p}) is not a candidate of review `{review}`", id.trim()),
    }
}

/// A review's decisions in the order they were made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionLine {
    pub given_id: String,
    pub paper_id: String,
    pub included: bool,
    pub note: String,
    pub reason: String,
    pub decided_at: String,
}

/// The decisions of review `name`, oldest first.
pub fn decisions(store: &Store, name: &str) -> anyhow::Result<Vec<DecisionLine>> {
    anyhow::ensure!(store.screen_review(name)?.is_some(), "no review `{name}`");
    let mut out: Vec<(i64, DecisionLine)> = store
        .screen_candidates(name)?
        .into_iter()
        .filter_map(|c| {
            c.decision.map(|d| {
                (
                    d.seq,
                    DecisionLine {
                        given_id: c.given_id,
                        paper_id: c.paper_id,
                        included: d.included,
                        note: d.note,
                        reason: d.reason,
                        decided_at: d.decided_at,
                    },
                )
            })
        })
        .collect();
    out.sort_by_key(|(s, _)| *s);
    Ok(out.into_iter().map(|(_, d)| d).collect())
}

/// The canonical ids of the included papers, once each, in decision order.
pub fn included_papers(store: &Store, name: &str) -> anyhow::Result<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    Ok(decisions(store, name)?
        .into_iter()
        .filter(|d| d.included && seen.insert(d.paper_id.clone()))
        .map(|d| d.paper_id)
        .collect())
}
