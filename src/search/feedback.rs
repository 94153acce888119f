//! What the user's marks do to a search: favorites feed the ranking,
//! excluded papers are not shown.
//!
//! **Favorites** (`Feedback::favorites`) are evidence twice:
//!
//! ```text
//! expansion   the favorites' title and abstract, analyzed, give each term t
//!             w(t) = Σ_f tf(t, f) / |f| · idf(t); the `terms` best terms (by w) make an
//!             expansion query, each weighted w(t) / max w:
//!             exp(p)   = Σ_t w(t) / max w · BM25(t, p)
//!             first(p) = bm25(p) + β · exp(p) · max bm25 / max exp
//!             (max over every paper scored; exp alone when the query matches nothing)
//!             first(p) takes the place of the query's BM25 in the first stage, so
//!             the seeds, the pool and the final score see it (Rocchio / RM3 style);
//!             the favorites themselves get no expansion (a favorite matches its own
//!             terms best, which says nothing of the query)
//! seeds       the favorites join the walk's seeds: a paper's graph distance is
//!             its distance from the nearest seed or favorite (by-hops), and in the
//!             weighted graph score each favorite counts as a seed of full strength
//! ```
//!
//! **Only where the query reaches** (issue 27): the closeness term
//! `γ · by-hops(steps from the nearest favorite)` goes only to a paper with
//! its own evidence for the query (its BM25 for the query's terms, or a
//! cosine in a semantic first stage) or within the walk's hops of a seed
//! that has its own; one favorite no longer lifts itself, or its neighbours,
//! above the query's matches when the query does not reach them.
//!
//! `Hit::feedback` says, per hit, how much the expansion added to its
//! first-stage score (`expansion_score`, in BM25 units, before
//! normalisation) and how far it is from the nearest favorite.
//!
//! **Excluded** papers (`Feedback::excluded`) are dropped where the ranked
//! hits are selected: after scoring, before the count, averages and limit.
//! The walk still passes through them. `show_excluded` keeps them, flagged
//! (`Hit::excluded`).
//!
//! The parameters (`FeedbackParams::default`) were chosen on CACM's
//! odd-numbered queries (docs/EVALUATION.md, "Feedback").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bm25::query_terms;
use crate::candidate::DocScores;
use crate::graph::{Direction, bfs};
use crate::store::{Label, Store, StoreAdjacency};

use super::request::{Feedback, FeedbackParams};
use super::score::closeness_bonus;

impl Feedback {
    /// The marks of the index: its favorites when `use_favorites`, its
    /// excluded papers always.
    pub fn from_marks(store: &Store, use_favorites: bool, show_excluded: bool) -> anyhow::Result<Feedback> {
        Ok(Feedback {
            favorites: if use_favorites { store.papers_labelled(Label::Favorite)? } else { Vec::new() },
            excluded: store.excluded()?,
            show_excluded,
            params: FeedbackParams::default(),
        })
    }

    /// Only favorites, with the default parameters (what `eval --feedback` simulates).
    pub fn favorites(favorites: Vec<String>) -> Feedback {
        Feedback { favorites, ..Feedback::default() }
    }

    /// Whether the ranking uses favorites at all.
    pub fn active(&self) -> bool {
        !self.favorites.is_empty()
    }
}

/// What feedback contributed to one hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedbackPart {
    /// β-weighted, rescaled expansion score added to the paper's BM25 (0 when
    /// none of the expansion terms occurs in it).
    pub expansion_score: f64,
    /// Citation steps from the nearest favorite (`None`: not reached from one).
    pub favorite_hops: Option<u32>,
    /// γ · graph_score(favorite_hops), added to the final score.
    pub closeness_bonus: f64,
}

/// A search's feedback, made ready: the expansion scores and the walk from the favorites.
pub(crate) struct Prepared<'r> {
    feedback: &'r Feedback,
    /// The expansion's addition to each paper's first-stage BM25.
    added: DocScores,
    /// Papers within the walk's reach of a favorite, by distance.
    pub hops: BTreeMap<String, u32>,
}

impl<'r> Prepared<'r> {
    /// Prepares a search's `feedback`, whose walk goes `hops` steps in
    /// `direction`; `own` is the query's BM25.
    pub(super) fn new(
        store: &Store,
        feedback: &'r Feedback,
        hops: u32,
        direction: Direction,
        own: &DocScores,
    ) -> anyhow::Result<Prepared<'r>> {
        let mut out = Prepared { feedback, added: DocScores::default(), hops: BTreeMap::new() };
        if !feedback.active() {
            return Ok(out);
        }
        let p = feedback.params;
        if p.terms > 0 && p.beta > 0.0 {
            let exp = expansion_scores(store, &feedback.favorites, p.terms)?;
            let max_exp = exp.values().copied().fold(0.0, f64::max);
            let max_own = own.values().copied().fold(0.0, f64::max);
            if max_exp > 0.0 {
                let scale = if max_own > 0.0 { p.beta * max_own / max_exp } else { 1.0 };
                // A favorite matches its own terms best: that is no evidence
                // for the query, so the favorites themselves get no expansion.
                let own_docs: Vec<i64> =
                    store.docs_and_years(&feedback.favorites)?.into_values().map(|(doc, _)| doc).collect();
                out.added = exp
                    .into_iter()
                    .filter(|(doc, _)| !own_docs.contains(doc))
                    .map(|(doc, s)| (doc, s * scale))
                    .collect();
            }
        }
        if p.seed {
            out.hops = bfs(&StoreAdjacency(store), &feedback.favorites, hops, direction)?;
        }
        Ok(out)
    }

    /// The first stage's BM25: the query's own plus the expansion.
    pub(super) fn first_stage(&self, own: &DocScores) -> Option<DocScores> {
        if self.added.is_empty() {
            return None;
        }
        let mut scores = own.clone();
        for (&doc, &s) in &self.added {
            *scores.entry(doc).or_default() += s;
        }
        Some(scores)
    }

    /// Whether the marks name papers the ranking must know by id: favorites, or excluded papers.
    pub(super) fn needs_ids(&self) -> bool {
        self.feedback.active() || !self.feedback.excluded.is_empty()
    }

    /// Whether the favorites may lift papers (the closeness term is on).
    pub(super) fn lifts(&self) -> bool {
        self.feedback.active() && self.feedback.params.near > 0.0
    }

    /// Joins the walk from the favorites into the seeds' walk: each paper at its nearest distance.
    pub(super) fn join_walk(&self, reached: &mut super::retriever::Reached) {
        for (id, &d) in &self.hops {
            reached.entry(id.clone()).and_modify(|e| *e = (*e).min(d)).or_insert(d);
        }
    }

    /// Adds the favorites the merge holds (`in_merge`) to the seeds (id,
    /// first-stage score) of the weighted graph score, each at `full` (the
    /// top first-stage score): a favorite is a seed of full strength.
    pub(super) fn add_evidence_seeds(
        &self,
        seeds: &mut Vec<(String, f64)>,
        in_merge: impl Fn(&str) -> bool,
        full: f64,
    ) {
        if self.feedback.params.seed {
            let n = seeds.len();
            for f in &self.feedback.favorites {
                if !seeds[..n].iter().any(|(id, _)| id == f) && in_merge(f) {
                    seeds.push((f.clone(), full));
                }
            }
        }
    }

    /// The final score's feedback term for paper `id` ([`closeness_bonus`]).
    pub(super) fn closeness_bonus(&self, id: &str) -> f64 {
        closeness_bonus(self.feedback.params.near, self.hops.get(id).copied())
    }

    /// Whether paper `id` is excluded, and whether it is to be dropped.
    pub(super) fn exclusion(&self, id: &str) -> (bool, bool) {
        let excluded = self.feedback.excluded.contains(id);
        (excluded, excluded && !self.feedback.show_excluded)
    }

    /// What feedback contributed to paper `id` (doc id `doc`); `None` without favorites.
    pub(super) fn part(&self, id: &str, doc: i64) -> Option<FeedbackPart> {
        self.feedback.active().then(|| FeedbackPart {
            expansion_score: self.added.get(&doc).copied().unwrap_or(0.0),
            favorite_hops: self.hops.get(id).copied(),
            closeness_bonus: self.closeness_bonus(id),
        })
    }
}

/// Whether a paper has its own evidence for the query: its BM25 for the
/// query's terms, or (a semantic first stage) a cosine with the query.
pub(super) fn own_evidence(s: &super::retriever::PaperScores) -> bool {
    s.bm25 > 0.0 || s.dense.is_some_and(|d| d > 0.0)
}

/// The papers within `hops` of `own_seeds` (the seeds with their own
/// evidence for the query): those the query reaches through the graph.
pub(super) fn query_reach(
    adj: &impl crate::graph::Adjacency,
    own_seeds: &[String],
    hops: u32,
    direction: Direction,
) -> anyhow::Result<std::collections::BTreeSet<String>> {
    Ok(bfs(adj, own_seeds, hops, direction)?.into_keys().collect())
}

/// A hit's feedback part as it was applied: no closeness where the query
/// does not reach the paper.
pub(super) fn gated(mut part: FeedbackPart, reached: bool) -> FeedbackPart {
    if !reached {
        part.closeness_bonus = 0.0;
    }
    part
}

/// `exp(p)` of the module doc: the favorites' best `n` terms as a weighted BM25 query.
fn expansion_scores(store: &Store, favorites: &[String], n: usize) -> anyhow::Result<DocScores> {
    let meta = store.meta()?;
    let analyzer = meta.analyzer()?;
    let bm25 = meta.bm25();
    let mut weights: BTreeMap<String, f64> = BTreeMap::new();
    for id in favorites {
        let Some(row) = store.paper(id)? else { continue };
        let terms = query_terms(analyzer, &format!("{}\n{}", row.title, row.abstract_));
        let len: u32 = terms.iter().map(|(_, c)| c).sum();
        for (term, count) in terms {
            *weights.entry(term).or_default() += f64::from(count) / f64::from(len.max(1));
        }
    }
    let mut ranked = Vec::with_capacity(weights.len());
    for (term, tf) in weights {
        if let Some(df) = store.doc_freq(&term)? {
            ranked.push((tf * crate::bm25::Bm25::idf(meta.num_docs, df), term));
        }
    }
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked.truncate(n);
    let max = ranked.first().map_or(0.0, |(w, _)| *w);
    let mut scores = DocScores::default();
    if max <= 0.0 {
        return Ok(scores);
    }
    for (w, term) in ranked {
        if let Some((df, postings)) = store.postings(&term)? {
            let weight = bm25.weight(meta.num_docs, meta.avgdl, df, 1);
            for p in postings {
                *scores.entry(p.doc).or_default() += w / max * weight.score(p.tf, p.doc_len);
            }
        }
    }
    Ok(scores)
}
