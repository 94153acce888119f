//! Short descriptions of papers named by id, for the surfaces that return
//! ids (MCP's `get_paper`, `neighbors`, `get_papers`): the title, year and
//! first author beside each id, so a caller reads a neighbourhood in one call,
//! and the index described for an agent (`describe_index`).

use serde::Serialize;

use crate::graph::Direction;
use crate::store::Store;

/// One id with what the index knows of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Brief {
    pub id: String,
    /// Whether the id is an indexed paper (false: a dangling id; no title, year or author).
    pub indexed: bool,
    pub title: Option<String>,
    pub year: Option<i32>,
    pub first_author: Option<String>,
}

/// The brief of each of `ids` (canonical ids or dangling graph ids), in order.
pub fn briefs(store: &Store, ids: &[String]) -> anyhow::Result<Vec<Brief>> {
    ids.iter()
        .map(|id| {
            Ok(match store.paper(id)? {
                Some(p) => Brief {
                    id: id.clone(),
                    indexed: true,
                    title: Some(p.title),
                    year: p.year,
                    first_author: p.authors.into_iter().next(),
                },
                None => Brief { id: id.clone(), indexed: false, title: None, year: None, first_author: None },
            })
        })
        .collect()
}

/// One paper of a batch: its metadata and how many references and citations it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaperSummary {
    /// The id the caller gave.
    pub input: String,
    pub id: String,
    pub title: String,
    #[serde(rename = "abstract")]
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    pub venue: Option<String>,
    pub references_total: usize,
    pub citations_total: usize,
}

/// A batch of papers: the ones found, in the order given (repeats dropped),
/// and the inputs the index does not hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaperBatch {
    pub papers: Vec<PaperSummary>,
    pub unknown: Vec<String>,
}

/// The papers `inputs` name (ids or aliases), read in one snapshot; an
/// unknown input is listed, not an error (a batch answers what it can).
pub fn paper_batch(store: &Store, inputs: &[String]) -> anyhow::Result<PaperBatch> {
    store.snapshot(|| {
        let mut batch = PaperBatch { papers: Vec::new(), unknown: Vec::new() };
        for input in inputs {
            let Some(id) = store.resolve(input)? else {
                batch.unknown.push(input.clone());
                continue;
            };
            if batch.papers.iter().any(|p| p.id == id) {
                continue;
            }
            let Some(row) = store.paper(&id)? else {
                batch.unknown.push(input.clone());
                continue;
            };
            batch.papers.push(PaperSummary {
                input: input.clone(),
                references_total: store.linked(&row.id, Direction::References)?.len(),
                citations_total: store.linked(&row.id, Direction::Citations)?.len(),
                id: row.id,
                title: row.title,
                abstract_: row.abstract_,
                year: row.year,
                authors: row.authors,
                venue: row.venue,
            });
        }
        Ok(batch)
    })
}

/// The vector model an index was embedded with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelFacts {
    pub name: String,
    pub dim: usize,
    /// Papers with a vector of this model.
    pub papers: u64,
}

/// What an index holds and what can be asked of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexDescription {
    pub papers: u64,
    pub edges: u64,
    /// Edges whose cited id is not an indexed paper (`gaps` lists the most cited of them).
    pub dangling_edges: u64,
    pub analyzer: String,
    pub year_min: Option<i32>,
    pub year_max: Option<i32>,
    /// The most recently embedded model, `None` without vectors (then only `bm25` search).
    pub model: Option<ModelFacts>,
    /// The search modes this index answers.
    pub modes: Vec<&'static str>,
    pub marks: MarkCounts,
    pub built_at: String,
}

/// How many papers carry each label.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MarkCounts {
    pub favorite: usize,
    pub exclude: usize,
    pub to_read: usize,
    pub read: usize,
}

/// The index described (counts, analyzer, years, model, marks).
pub fn describe(store: &Store) -> anyhow::Result<IndexDescription> {
    use crate::store::Label;
    store.snapshot(|| {
        let meta = store.meta()?;
        let counts = store.counts()?;
        let model = match store.vector_models()?.into_iter().next() {
            Some(m) => {
                let (papers, _) = store.vector_counts(m.model_id)?;
                Some(ModelFacts { name: m.name, dim: m.dim, papers })
            }
            None => None,
        };
        let modes =
            if model.as_ref().is_some_and(|m| m.papers > 0) { vec!["bm25", "dense", "hybrid"] } else { vec!["bm25"] };
        let n = |l: Label| store.papers_labelled(l).map(|v| v.len());
        Ok(IndexDescription {
            papers: counts.papers,
            edges: counts.edges,
            dangling_edges: counts.dangling_edges,
            analyzer: meta.analyzer,
            year_min: meta.min_year,
            year_max: meta.max_year,
            model,
            modes,
            marks: MarkCounts {
                favorite: n(Label::Favorite)?,
                exclude: n(Label::Exclude)?,
                to_read: n(Label::ToRead)?,
                read: n(Label::Read)?,
            },
            built_at: meta.built_at,
        })
    })
}
