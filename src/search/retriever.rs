//! What the ranker ([`super::rank::rank`]) asks of an index: the
//! [`Retriever`] trait, and [`Local`], its implementation over a [`Store`]
//! (the OpenSearch backend has the other, `crate::opensearch::backend`).
//!
//! A retriever answers for one search (it is built from the request):
//! the first stage's list, the walk from its seeds over its citation graph,
//! the doc ids and years of papers named by id, the scores of the merged
//! papers, and the details of the hits shown. The ranker does the rest —
//! merge, score ([`super::score`]), sort, offset and limit, evidence
//! sentences ([`crate::evidence`]) — the same way for every retriever.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use super::feedback::{FeedbackPart, Prepared};
use super::filter::Gate;
use super::first_stage::FirstStage;
use super::lexical::Lexical;
use super::request::{HitParts, Mode, SearchRequest};
use crate::bm25::query_terms;
use crate::candidate::DocScores;
use crate::embed::SemanticIndex;
use crate::evidence::EvidenceQuery;
pub use crate::graph::Reached;
pub(crate) use crate::graph::Walk;
use crate::graph::{Adjacency, Direction, Reach};
use crate::store::{LentLists, SearchGraph, Store};

/// A paper of a first-stage list: its id, the retriever's handle on it and its first-stage score.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<D> {
    pub id: String,
    pub doc: D,
    pub score: f64,
}

/// The first stage's list, best first, and what ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstList<D> {
    pub mode: Mode,
    pub list: Vec<Listed<D>>,
}

/// The papers the ranker knows by id: the retriever's handle and the year of each.
pub type Papers<D> = HashMap<String, (D, Option<i32>), foldhash::fast::FixedState>;

/// A paper of the merged set (keyed by its handle in [`Merged`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MergedPaper {
    /// Its id when read already: the first stage's papers and those named
    /// by id come with theirs; a walk's are read only where needed (the
    /// hits shown and the ties at the page's end, an `id:` filter, marks).
    pub id: Option<String>,
    /// Its walk distance; `None`: not reached, from the first stage's pool.
    pub distance: Option<u32>,
    pub year: Option<i32>,
    /// The `weighted` graph score's evidence for it, once summed (`None`:
    /// no seed reaches it, or the graph score is `by-hops`).
    pub evidence: Option<f64>,
}

/// The merged set, by the retriever's handle.
pub type Merged<D> = HashMap<D, MergedPaper, foldhash::fast::FixedState>;

/// Reads the ids of the merged papers that have none yet (`read` gives
/// the ids of handles, in their order).
pub(crate) fn fill_ids<D: Copy + Hash + Eq>(
    merged: &mut Merged<D>,
    read: impl FnOnce(&[D]) -> anyhow::Result<Vec<String>>,
) -> anyhow::Result<()> {
    let missing: Vec<D> = merged.iter().filter(|(_, m)| m.id.is_none()).map(|(d, _)| *d).collect();
    if missing.is_empty() {
        return Ok(());
    }
    for (doc, id) in missing.iter().zip(read(&missing)?) {
        if let Some(m) = merged.get_mut(doc) {
            m.id = Some(id);
        }
    }
    Ok(())
}

/// What a merged paper scored, before normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PaperScores {
    /// The query's own BM25 (0 when it matches no term).
    pub bm25: f64,
    /// The first-stage score (the BM25 after a BM25 first stage without favorites), ≥ 0.
    pub first: f64,
    /// The paper's cosine with the query (semantic first stages, a paper with a vector).
    pub dense: Option<f64>,
    /// Its best chunk's cosine, when reranked.
    pub rerank: Option<f64>,
}

/// What a shown hit needs read: the text the evidence is picked from and the rest.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Details {
    pub title: String,
    pub abstract_: String,
    pub authors: Vec<String>,
    pub venue: Option<String>,
    /// Ids it cites, sorted.
    pub references: Vec<String>,
    /// Its best body or caption passage for the query and that passage's
    /// first page, for a paper with full text (`None` otherwise).
    pub passage: Option<(String, u32)>,
}

/// An index as the ranker reads it, for one search.
pub trait Retriever {
    /// The retriever's handle on a paper (a doc id in a store).
    type Doc: Copy + Ord + Hash + Debug;
    /// The citation graph the walk and the weighted graph score go over.
    type Graph: Adjacency;

    /// The first stage, `depth` papers deep (fewer when fewer match).
    fn first_stage(&mut self, depth: usize) -> anyhow::Result<FirstList<Self::Doc>>;

    /// The walk from `seeds`: every paper within `reach.hops` steps with
    /// its distance, by handle where the walk reads handles, else by id,
    /// following at most `reach.fan_out` of one paper's references or citers.
    fn walk(&mut self, seeds: &[String], reach: Reach) -> anyhow::Result<Walk<Self::Doc>>;

    /// The handle and year of each of `ids` that is a paper of the index (repeats allowed).
    fn papers(&mut self, ids: &[&String]) -> anyhow::Result<Papers<Self::Doc>>;

    /// The ids of `docs`, in that order (each a paper of the index).
    fn ids(&mut self, docs: &[Self::Doc]) -> anyhow::Result<Vec<String>>;

    /// Keeps the merged papers that pass the request's filter; all of them by default.
    fn retain(&mut self, _merged: &mut Merged<Self::Doc>) -> anyhow::Result<()> {
        Ok(())
    }

    /// The scores of each of `docs` (merged papers), in that order.
    fn scores(&mut self, docs: &[Self::Doc]) -> anyhow::Result<Vec<PaperScores>>;

    /// The graph of the walk.
    fn graph(&self) -> &Self::Graph;

    /// The graph's lists read so far, lent so that walks over them run on
    /// another thread while this one scores ([`LentLists`]); `None` (the
    /// default): the walks run on the ranking thread.
    fn lend_lists(&mut self) -> Option<LentLists> {
        None
    }

    /// Takes back what [`Retriever::lend_lists`] lent.
    fn take_back_lists(&mut self, _lists: LentLists) {}

    /// The corpus's year range (min, max) over its dated papers.
    fn years(&self) -> (Option<i32>, Option<i32>);

    /// The details of each shown hit, in that order (defaults for a paper
    /// not found), as far as `parts` asks: its best full-text passage only
    /// with snippets (the snippet is built from it), its references only
    /// with [`HitParts::Full`].
    fn details(&mut self, shown: &[(String, Self::Doc)], parts: HitParts) -> anyhow::Result<Vec<Details>>;

    /// The query of the evidence sentences: its terms' idf from the index's statistics.
    fn evidence_query(&mut self, query: &str) -> anyhow::Result<EvidenceQuery>;

    /// The user's marks made ready (favorites, excluded papers); none by default.
    fn feedback(&self) -> Option<&Prepared<'_>> {
        None
    }

    /// What the favorites contributed to paper `id`; `None` without favorites.
    fn feedback_part(&self, _id: &str, _doc: Self::Doc) -> Option<FeedbackPart> {
        None
    }
}

/// The local index: a [`Store`] (and, for a dense or hybrid search, the
/// loaded model and vectors), with the request's filter and marks.
pub struct Local<'a> {
    store: &'a Store,
    request: &'a SearchRequest,
    semantic: Option<&'a SemanticIndex>,
    /// The graph of this search's walks, kept as they read it.
    graph: SearchGraph<'a>,
    years: (Option<i32>, Option<i32>),
    terms: Vec<(String, u32)>,
    /// Every matching paper's own BM25, when the search needs them all.
    own_all: Option<DocScores>,
    /// `own_all` plus the favorites' expansion (with favorites that expand).
    expanded: Option<DocScores>,
    gate: Gate<'a>,
    fb: Prepared<'a>,
    first: Option<FirstStage>,
    /// The query's passage scores, read when a shown hit first needs them.
    passage_scores: Option<DocScores>,
}

impl<'a> Local<'a> {
    /// The local retriever of `request` (a parsed request: its free text and filter).
    ///
    /// Every matching paper's BM25 is needed by a filter (`Gate::best` walks
    /// down the whole list) and by favorites (the expansion is scaled by the
    /// best score and changes which papers lead); otherwise the first stage
    /// asks the store for its top and the merge for its own papers' scores
    /// ([`Lexical`]).
    pub fn new(
        store: &'a Store,
        request: &'a SearchRequest,
        semantic: Option<&'a SemanticIndex>,
    ) -> anyhow::Result<Local<'a>> {
        let all = !request.filter.is_empty() || request.feedback.active();
        Local::scoring(store, request, semantic, all)
    }

    /// [`Local::new`] that scores every matching paper whatever the search
    /// needs: the reference the narrow way is tested against (`super::narrow_tests`).
    #[cfg(test)]
    pub(super) fn exhaustive(
        store: &'a Store,
        request: &'a SearchRequest,
        semantic: Option<&'a SemanticIndex>,
    ) -> anyhow::Result<Local<'a>> {
        Local::scoring(store, request, semantic, true)
    }

    fn scoring(
        store: &'a Store,
        request: &'a SearchRequest,
        semantic: Option<&'a SemanticIndex>,
        all: bool,
    ) -> anyhow::Result<Local<'a>> {
        let meta = store.meta()?;
        let terms = query_terms(meta.analyzer()?, &request.query);
        // Papers with full text: title + abstract BM25 plus their best
        // passage's, weighted (super::fulltext). Only when a passage matches,
        // so an index without full text takes the path it always took.
        let passages = super::fulltext::best_passages(store, &terms)?;
        let own_all = if all || !passages.is_empty() {
            let mut scores = store.bm25_all(&terms)?;
            super::fulltext::combine(&mut scores, &passages, super::fulltext::PASSAGE_WEIGHT);
            Some(scores)
        } else {
            None
        };
        let params = &request.params;
        let fb = Prepared::new(
            store,
            &request.feedback,
            params.hops,
            params.direction,
            own_all.as_ref().unwrap_or(&DocScores::default()),
        )?;
        let expanded = own_all.as_ref().and_then(|own| fb.first_stage(own));
        let gate = Gate::new(store, &request.filter, meta.analyzer()?)?;
        Ok(Local {
            store,
            request,
            semantic,
            graph: SearchGraph::new(store),
            years: (meta.min_year, meta.max_year),
            terms,
            own_all,
            expanded,
            gate,
            fb,
            first: None,
            passage_scores: None,
        })
    }

    /// The first stage's BM25: every score when computed, else the store's narrow calls.
    fn lexical<'b>(
        store: &'b Store,
        terms: &'b [(String, u32)],
        own_all: &'b Option<DocScores>,
        expanded: &'b Option<DocScores>,
    ) -> Lexical<'b> {
        match expanded.as_ref().or(own_all.as_ref()) {
            Some(all) => Lexical::All(all),
            None => Lexical::Lazy { store, terms },
        }
    }

    /// Paper `id`'s best body or caption passage for the query (text and
    /// first page), when it has full text matching a query term.
    fn best_passage(&mut self, id: &str) -> anyhow::Result<Option<(String, u32)>> {
        if self.passage_scores.is_none() {
            let scores = if self.store.passage_stats()?.num_passages == 0 {
                DocScores::default()
            } else {
                self.store.passage_scores(&self.terms)?
            };
            self.passage_scores = Some(scores);
        }
        let scores = self.passage_scores.as_ref().expect("just set");
        if scores.is_empty() {
            return Ok(None);
        }
        let best = self
            .store
            .passages_of_paper(id)?
            .into_iter()
            .filter(|p| p.kind == "body" || p.kind == "caption")
            .filter_map(|p| scores.get(&p.passage).map(|&s| (s, p)))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.passage.cmp(&a.1.passage)));
        Ok(best.map(|(_, p)| (p.text, p.page_first)))
    }

    fn first(&self) -> anyhow::Result<&FirstStage> {
        self.first.as_ref().ok_or_else(|| anyhow::anyhow!("the first stage has not run"))
    }
}

impl<'a> Retriever for Local<'a> {
    type Doc = i64;
    type Graph = SearchGraph<'a>;

    fn first_stage(&mut self, depth: usize) -> anyhow::Result<FirstList<i64>> {
        let lexical = Local::lexical(self.store, &self.terms, &self.own_all, &self.expanded);
        let first = FirstStage::run(self.store, self.request, &lexical, self.semantic, depth, &mut self.gate)?;
        let list = first.list.iter().map(|(id, c)| Listed { id: id.clone(), doc: c.doc, score: c.score }).collect();
        let mode = first.mode;
        self.first = Some(first);
        Ok(FirstList { mode, list })
    }

    fn walk(&mut self, seeds: &[String], reach: Reach) -> anyhow::Result<Walk<i64>> {
        self.graph.walk_papers(seeds, reach)
    }

    /// The first stage's papers from its list (read with their ids), the rest by one statement.
    fn papers(&mut self, ids: &[&String]) -> anyhow::Result<Papers<i64>> {
        let known = &self.first()?.papers;
        let rest: Vec<&String> = ids.iter().copied().filter(|id| !known.contains_key(*id)).collect();
        let mut papers = if rest.is_empty() { Papers::default() } else { self.store.docs_and_years(rest)? };
        papers.extend(ids.iter().filter_map(|id| known.get(*id).map(|&p| ((*id).clone(), p))));
        Ok(papers)
    }

    fn ids(&mut self, docs: &[i64]) -> anyhow::Result<Vec<String>> {
        Ok(self.store.ids_by_doc(docs)?.into_iter().map(|(id, _)| id).collect())
    }

    fn retain(&mut self, merged: &mut Merged<i64>) -> anyhow::Result<()> {
        self.gate.retain_merged(merged)
    }

    /// The query's own BM25 and the first stage's (the same without an
    /// expansion), in one call when not all scored already.
    fn scores(&mut self, docs: &[i64]) -> anyhow::Result<Vec<PaperScores>> {
        let own = match &self.own_all {
            Some(all) => Lexical::All(all).scores_of(docs)?,
            None => {
                // A BM25 list's papers were scored by the first stage, with the
                // same f64 the store gives them here: only the others are read
                // (none without a walk, whose merged set is the pool).
                let first = self.first()?;
                let known: DocScores = match first.mode {
                    Mode::Bm25 => first.list.iter().map(|(_, c)| (c.doc, c.score)).collect(),
                    _ => DocScores::default(),
                };
                let mut rest: Vec<i64> = Vec::with_capacity(docs.len());
                rest.extend(docs.iter().copied().filter(|d| !known.contains_key(d)));
                let mut own = if rest.is_empty() {
                    DocScores::default()
                } else {
                    self.store.bm25_scores_of(&self.terms, &rest)?
                };
                own.reserve(known.len());
                own.extend(known);
                own
            }
        };
        let expanded = self.expanded.as_ref().map(|e| Lexical::All(e).scores_of(docs)).transpose()?;
        let first = self.first()?;
        let scores = expanded.as_ref().unwrap_or(&own);
        let cos = first.cos.as_ref().filter(|_| first.mode != Mode::Bm25);
        Ok(docs
            .iter()
            .map(|doc| {
                let cos = cos.and_then(|c| c.get(*doc)).map(f64::from);
                let bm25_first = scores.get(doc).copied().unwrap_or(0.0);
                PaperScores {
                    bm25: own.get(doc).copied().unwrap_or(0.0),
                    first: first.score(*doc, bm25_first, cos).max(0.0),
                    dense: cos,
                    rerank: first.rerank.get(doc).copied(),
                }
            })
            .collect())
    }

    fn graph(&self) -> &SearchGraph<'a> {
        &self.graph
    }

    fn lend_lists(&mut self) -> Option<LentLists> {
        Some(self.graph.lend())
    }

    fn take_back_lists(&mut self, lists: LentLists) {
        self.graph.take_back(lists);
    }

    fn years(&self) -> (Option<i32>, Option<i32>) {
        self.years
    }

    fn details(&mut self, shown: &[(String, i64)], parts: HitParts) -> anyhow::Result<Vec<Details>> {
        shown
            .iter()
            .map(|(id, doc)| {
                let row = self.store.paper_by_doc(*doc)?;
                Ok(Details {
                    title: row.title,
                    abstract_: row.abstract_,
                    authors: row.authors,
                    venue: row.venue,
                    references: if parts.references() {
                        self.store.linked(id, Direction::References)?
                    } else {
                        Vec::new()
                    },
                    passage: if parts.snippets() { self.best_passage(id)? } else { None },
                })
            })
            .collect()
    }

    fn evidence_query(&mut self, query: &str) -> anyhow::Result<EvidenceQuery> {
        EvidenceQuery::new(self.store, query)
    }

    fn feedback(&self) -> Option<&Prepared<'_>> {
        Some(&self.fb)
    }

    fn feedback_part(&self, id: &str, doc: i64) -> Option<FeedbackPart> {
        self.fb.part(id, doc)
    }
}
