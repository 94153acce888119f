//! Why A cites B: the sentences of A's full text in which it cites B, with
//! their pages and sections ([`why`], what `litindex why A B` prints); and
//! the other direction, every citer with full text and the sentences in
//! which it cites a paper ([`cited_in_context`], `paper ID`'s block).

use serde::Serialize;

use super::resolve::resolve_one;
use crate::graph::Direction;
use crate::paper::PaperId;
use crate::store::{CitingSentence, EntryContexts, Store};

/// `why A B`: A is a paper (any id or alias); B a paper or a dangling id a
/// reference entry names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhyRequest {
    pub citing: String,
    pub cited: String,
}

/// What A's full text says about B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WhyVerdict {
    /// A has no PDF in the index: nothing to read.
    NoFullText,
    /// A's reference list has no entry that names B.
    NotCited,
    /// An entry names B, but no sentence of A's body was found citing it.
    NoContext,
    /// The sentences are in `entries`.
    Cited,
}

/// The answer of [`why`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Why {
    /// A's and B's canonical ids (B as given when it is a dangling id).
    pub citing: String,
    pub cited: String,
    pub verdict: WhyVerdict,
    /// How many entries A's reference list has (0 without full text).
    pub reference_entries: u64,
    /// Whether the citation graph holds A → B (from any source, the PDF's included).
    pub graph_edge: bool,
    /// A's entries that name B, each with the sentences citing it.
    pub entries: Vec<EntryContexts>,
}

/// The sentences in which `citing` cites `cited`, read in one snapshot.
pub fn why(store: &Store, req: &WhyRequest) -> anyhow::Result<Why> {
    store.snapshot(|| {
        let citing = resolve_one(store, &req.citing)?;
        let cited = match store.resolve(&req.cited)? {
            Some(id) => id,
            None if store.is_reference_target(&PaperId::parse(&req.cited).key())? => PaperId::parse(&req.cited).key(),
            None => {
                return Err(super::UnknownPaper { input: req.cited.clone(), index: store.path().to_path_buf() }.into());
            }
        };
        let graph_edge = store.linked(&citing, Direction::References)?.contains(&cited);
        let documents = store.documents_of(&citing)?;
        let mut reference_entries = 0;
        for &d in &documents {
            reference_entries += store.reference_entries(d)?;
        }
        let entries = if documents.is_empty() { Vec::new() } else { store.entries_naming(&cited, Some(&documents))? };
        let verdict = if documents.is_empty() {
            WhyVerdict::NoFullText
        } else if entries.is_empty() {
            WhyVerdict::NotCited
        } else if entries.iter().all(|e| e.sentences.is_empty()) {
            WhyVerdict::NoContext
        } else {
            WhyVerdict::Cited
        };
        Ok(Why { citing, cited, verdict, reference_entries, graph_edge, entries })
    })
}

/// One citer with full text and what its PDF says where it cites the paper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CitedInContext {
    pub citing: String,
    pub citing_title: String,
    /// The entry of its reference list that names the paper, as printed.
    pub label: Option<String>,
    pub reference: String,
    /// The sentences citing it (empty when none was found).
    pub sentences: Vec<CitingSentence>,
}

/// Every entry of an indexed PDF that names `paper_id` (canonical), with its sentences.
pub fn cited_in_context(store: &Store, paper_id: &str) -> anyhow::Result<Vec<CitedInContext>> {
    let mut out = Vec::new();
    for e in store.entries_naming(paper_id, None)? {
        if e.citing == paper_id {
            continue;
        }
        let citing_title = store.paper(&e.citing)?.map(|p| p.title).unwrap_or_default();
        out.push(CitedInContext {
            citing: e.citing,
            citing_title,
            label: e.entry.label,
            reference: e.entry.raw,
            sentences: e.sentences,
        });
    }
    Ok(out)
}
