//! Merge, rank, hydrate: from the first stage's list and the walk to the
//! explained hits.
//!
//! The merged set is the seeds plus every reached id that is an indexed
//! paper, plus the first `pool` papers of the first stage (`--pool`, default
//! `--top-k`: then it adds nothing). Each hit explains its rank:
//!
//! ```text
//! bm25_norm     = bm25_score / max bm25_score over the merged set (0 if that max is 0)
//! graph_score   = by-hops: 1, 0.6, 0.3 for distance 0, 1, 2; 0 when not reached
//!                 weighted: see [`GraphScore::Weighted`]
//! recency_score = (year − min_year) / (max_year − min_year) over the corpus's dated
//!                 papers; 1 when min = max; 0 for a paper without a year
//! final_score   = w_bm25·bm25_norm + w_graph·graph_score + w_recency·recency_score
//! ```
//!
//! ordered by `final_score` descending, ties by id. With favorites, the
//! first stage scores `bm25 + β·expansion` and the favorites join the seeds
//! of the walk ([`super::feedback`]); `bm25_score` and `bm25_norm` stay the
//! query's own. Excluded papers are dropped here, before the count. A semantic first stage
//! puts its `fused_score` in `bm25_norm`'s place ([`super::first_stage`]).
//!
//! Ranking needs only each merged paper's doc id and year, so a walk that
//! reaches thousands of papers reads their titles, abstracts and references
//! only for the hits shown (the request's `limit`), and picks their
//! evidence sentences ([`crate::evidence`]) only for them.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use serde::Serialize;

use super::feedback::{FeedbackPart, Prepared};
use super::filter::Gate;
use super::first_stage::FirstStage;
use super::lexical::Lexical;
use super::query::ParsedQuery;
use super::request::{GraphScore, Mode, SearchRequest};
use crate::bm25::query_terms;
use crate::candidate::{Candidate, DocScores};
use crate::embed::SemanticIndex;
use crate::evidence::{self, EvidenceParams, EvidenceQuery};
use crate::graph::{Adjacency, Direction, bfs};
use crate::store::{Store, StoreAdjacency};

/// One ranked paper with the parts of its score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub id: String,
    pub title: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// Where it was published, when a source said.
    pub venue: Option<String>,
    /// The paper's own BM25 score for the query (also for graph hits).
    pub bm25_score: f64,
    pub bm25_norm: f64,
    /// Steps from the nearest seed; `None` when the walk did not reach it.
    pub graph_distance: Option<u32>,
    pub graph_score: f64,
    pub recency_score: f64,
    pub final_score: f64,
    /// Cosine of the paper's vector with the query's (`None` in bm25 mode,
    /// or for a paper without a vector).
    pub dense_score: Option<f64>,
    /// The first-stage score over its maximum in the merged set: what
    /// `bm25_norm` is in bm25 mode (`None` there).
    pub fused_score: Option<f64>,
    /// Cosine of the paper's best-matching chunk with the query (`None` unless reranked).
    pub rerank_score: Option<f64>,
    /// The 1–3 sentences of the abstract that best answer the query, in
    /// abstract order (` … ` between sentences that are not adjacent): see
    /// [`crate::evidence`].
    pub snippet: String,
    /// `[start, end)` byte spans of the query's words in `snippet`.
    pub snippet_spans: Vec<[usize; 2]>,
    /// Ids this paper cites.
    pub references: Vec<String>,
    /// What the favorites contributed (`None` when the search had none).
    pub feedback: Option<FeedbackPart>,
    /// Marked `exclude` (shown only with `show_excluded`).
    pub excluded: bool,
}

/// A ranked list with summary numbers over the whole merged set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrievalResult {
    pub query: String,
    /// The first stage: bm25, dense or hybrid.
    pub mode: Mode,
    /// Size of the merged set (before any display limit).
    pub hit_count: usize,
    /// Mean `final_score` over the merged set (0 when empty).
    pub average_score: f64,
    /// Highest `final_score` (0 when empty).
    pub top_score: f64,
    pub wall_time_ms: f64,
    /// The favorites that fed the ranking (empty without feedback).
    pub favorites: Vec<String>,
    /// Excluded papers the merged set held and that were not shown.
    pub excluded_hidden: usize,
    pub ranked: Vec<Hit>,
    /// The query as the query language read it: the free text scored and the
    /// filter its operators produced (`None`: not told, e.g. a backend's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parsed_query: Option<ParsedQuery>,
}

/// `graph_score` of the `by-hops` mode for a walk distance: 1 / 0.6 / 0.3 / 0.
pub fn graph_score(distance: Option<u32>) -> f64 {
    match distance {
        Some(0) => 1.0,
        Some(1) => 0.6,
        Some(2) => 0.3,
        _ => 0.0,
    }
}

/// `recency_score`: linear in the year over the corpus's year range.
pub fn recency_score(year: Option<i32>, min_year: Option<i32>, max_year: Option<i32>) -> f64 {
    match (year, min_year, max_year) {
        (Some(y), Some(lo), Some(hi)) if hi > lo => ((y - lo) as f64 / (hi - lo) as f64).clamp(0.0, 1.0),
        (Some(_), Some(_), Some(_)) => 1.0,
        _ => 0.0,
    }
}

/// One merged paper's score parts, before its details are read.
struct Scored {
    id: String,
    doc: i64,
    year: Option<i32>,
    bm25_score: f64,
    bm25_norm: f64,
    distance: Option<u32>,
    graph_score: f64,
    recency_score: f64,
    final_score: f64,
    fused: f64,
    excluded: bool,
}

/// [`super::search`] inside its read snapshot.
pub(super) fn search_in(
    store: &Store,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
) -> anyhow::Result<RetrievalResult> {
    search_scoring(store, request, semantic, Scoring::Narrow)
}

/// How [`search_scoring`] gets the query's BM25.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scoring {
    /// Every matching paper's score only where the search needs it (a
    /// filter, favorites), else the store's top-k and scores-of calls.
    Narrow,
    /// Every matching paper's score, always: the reference the narrow way
    /// is tested against (`super::narrow_tests`).
    #[cfg_attr(not(test), allow(dead_code))]
    Exhaustive,
}

/// [`search_in`] with its BM25 scored as `scoring` says; both ways give the same result.
pub(super) fn search_scoring(
    store: &Store,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
    scoring: Scoring,
) -> anyhow::Result<RetrievalResult> {
    let started = Instant::now();
    let asked = request.query.clone();
    let parsed;
    let request = if request.query_syntax {
        parsed = request.parsed()?;
        &parsed
    } else {
        request
    };
    let params = &request.params;
    let meta = store.meta()?;
    let terms = query_terms(meta.analyzer()?, &request.query);
    // Every matching paper's BM25 is needed by a filter (`Gate::best` walks
    // down the whole list) and by favorites (the expansion is scaled by the
    // best score and changes which papers lead); otherwise the first stage
    // asks for its top and the merge for its own papers' scores.
    let exhaustive = scoring == Scoring::Exhaustive || !request.filter.is_empty() || request.feedback.active();
    let own_all = if exhaustive { Some(store.bm25_all(&terms)?) } else { None };
    let fb = Prepared::new(store, request, own_all.as_ref().unwrap_or(&DocScores::default()))?;
    let expanded = own_all.as_ref().and_then(|own| fb.first_stage(own));
    let lexical = match expanded.as_ref().or(own_all.as_ref()) {
        Some(all) => Lexical::All(all),
        None => Lexical::Lazy { store, terms: &terms },
    };
    let depth = params.top_k.max(params.pool);
    let mut gate = Gate::new(store, &request.filter, meta.analyzer()?)?;
    let first = FirstStage::run(store, request, &lexical, semantic, depth, &mut gate)?;
    let dense = semantic.map(|s| &s.docs).filter(|_| first.mode != Mode::Bm25);
    let pool = &first.list;
    let seeds = &pool[..params.top_k.min(pool.len())];
    let seed_ids: Vec<String> = seeds.iter().map(|(id, _)| id.clone()).collect();
    let (mut reached, mut papers) = store.walk_papers(&seed_ids, params.hops, params.direction)?;
    fb.join_walk(&mut reached);

    // Merge: seeds ∪ reached ids that are papers ∪ the first-stage pool, by
    // id; the walk brought the doc ids and years of the papers it reached,
    // the rest (pool, favorites) come from one statement.
    let rest: Vec<&String> =
        reached.keys().chain(pool.iter().map(|(id, _)| id)).filter(|id| !papers.contains_key(*id)).collect();
    papers.extend(store.docs_and_years(rest)?);
    let mut merged: BTreeMap<String, (i64, Option<u32>)> = BTreeMap::new();
    for (id, distance) in reached {
        if let Some(&(doc, _)) = papers.get(&id) {
            merged.insert(id, (doc, Some(distance)));
        }
    }
    for (id, c) in pool {
        merged.entry(id.clone()).or_insert((c.doc, None));
    }
    // The filter: only papers that pass are ranked and shown (the walk above
    // went through the others).
    gate.retain_merged(&mut merged, |id| papers.get(id).map(|&(_, year)| year))?;
    // The merged papers' BM25, the query's own and the first stage's (the
    // same without an expansion), in one call when not all scored already.
    let merged_docs: Vec<i64> = merged.values().map(|&(doc, _)| doc).collect();
    let own = match &own_all {
        Some(all) => Lexical::All(all).scores_of(&merged_docs)?,
        None => store.bm25_scores_of(&terms, &merged_docs)?,
    };
    let expanded_merged = expanded.as_ref().map(|e| Lexical::All(e).scores_of(&merged_docs)).transpose()?;
    let scores = expanded_merged.as_ref().unwrap_or(&own);
    let bm25_of = |doc: &i64| scores.get(doc).copied().unwrap_or(0.0);
    let cos_of = |doc: i64| dense.and_then(|d| d.score(doc, &first.query_vector)).map(f64::from);
    let first_of = |doc: i64| first.score(doc, bm25_of(&doc), cos_of(doc)).max(0.0);
    let max_own = merged.values().map(|(doc, _)| own.get(doc).copied().unwrap_or(0.0)).fold(0.0, f64::max);
    let bm25_norm_of = |s: f64| if max_own > 0.0 { s / max_own } else { 0.0 };
    let max_first = merged.values().map(|(doc, _)| first_of(*doc)).fold(0.0, f64::max);
    let norm = |s: f64| if max_first > 0.0 { s / max_first } else { 0.0 };
    let evidence = match params.graph_score {
        GraphScore::ByHops => None,
        GraphScore::Weighted => {
            let seeds = fb.evidence_seeds(seeds, |id| merged.get(id).map(|&(doc, _)| doc), max_first);
            Some(seed_evidence(&StoreAdjacency(store), &seeds, norm, params.hops, params.direction, &merged)?)
        }
    };
    let w = params.weights;
    let semantic_mode = first.mode != Mode::Bm25;
    let mut scored = Vec::with_capacity(merged.len());
    let mut excluded_hidden = 0;
    for (id, (doc, distance)) in merged {
        let (excluded, dropped) = fb.exclusion(&id);
        if dropped {
            excluded_hidden += 1;
            continue;
        }
        let year = papers.get(&id).and_then(|&(_, year)| year);
        let bm25_score = own.get(&doc).copied().unwrap_or(0.0);
        let bm25_norm = bm25_norm_of(bm25_score);
        let fused = norm(first_of(doc));
        let graph_score = match &evidence {
            None => graph_score(distance),
            Some(e) => e.get(&id).copied().unwrap_or(0.0),
        };
        let recency_score = recency_score(year, meta.min_year, meta.max_year);
        let final_score = w.bm25 * fused + w.graph * graph_score + w.recency * recency_score + fb.closeness_bonus(&id);
        scored.push(Scored {
            id,
            doc,
            year,
            bm25_score,
            bm25_norm,
            distance,
            graph_score,
            recency_score,
            final_score,
            fused,
            excluded,
        });
    }
    scored.sort_by(|a, b| b.final_score.total_cmp(&a.final_score).then_with(|| a.id.cmp(&b.id)));
    let hit_count = scored.len();
    let top_score = scored.first().map_or(0.0, |h| h.final_score);
    let average_score =
        if hit_count == 0 { 0.0 } else { scored.iter().map(|h| h.final_score).sum::<f64>() / hit_count as f64 };
    scored.drain(..request.offset.min(scored.len()));
    scored.truncate(request.limit.unwrap_or(usize::MAX));
    let mut ranked = Vec::with_capacity(scored.len());
    let evidence_query = if scored.is_empty() { None } else { Some(EvidenceQuery::new(store, &request.query)?) };
    for h in scored {
        let row = store.paper_by_doc(h.doc)?;
        let snippet =
            evidence_query.as_ref().map(|q| evidence::evidence(&row.abstract_, q, &EvidenceParams::default(), None));
        let snippet = snippet.unwrap_or_default();
        ranked.push(Hit {
            feedback: fb.part(&h.id, h.doc),
            references: store.linked(&h.id, Direction::References)?,
            id: h.id,
            title: row.title,
            year: h.year,
            authors: row.authors,
            venue: row.venue,
            bm25_score: h.bm25_score,
            bm25_norm: h.bm25_norm,
            graph_distance: h.distance,
            graph_score: h.graph_score,
            recency_score: h.recency_score,
            final_score: h.final_score,
            dense_score: if semantic_mode { cos_of(h.doc) } else { None },
            fused_score: semantic_mode.then_some(h.fused),
            rerank_score: first.rerank.get(&h.doc).copied(),
            snippet: snippet.text,
            snippet_spans: snippet.spans,
            excluded: h.excluded,
        });
    }
    Ok(RetrievalResult {
        query: asked,
        mode: first.mode,
        hit_count,
        average_score,
        top_score,
        wall_time_ms: started.elapsed().as_secs_f64() * 1000.0,
        favorites: request.feedback.favorites.clone(),
        excluded_hidden,
        ranked,
        parsed_query: None,
    })
}

/// The `weighted` graph score of every merged paper: the first-stage
/// evidence of the seeds that reach it, decayed by distance, over its maximum.
/// The walk goes over `adj` (the store's edges, or another backend's).
pub(crate) fn seed_evidence(
    adj: &impl Adjacency,
    seeds: &[(String, Candidate)],
    norm: impl Fn(f64) -> f64,
    hops: u32,
    direction: Direction,
    merged: &BTreeMap<String, (i64, Option<u32>)>,
) -> anyhow::Result<HashMap<String, f64>> {
    let mut evidence: HashMap<String, f64> = HashMap::new();
    for (id, seed) in seeds {
        let strength = norm(seed.score);
        for (node, d) in bfs(adj, std::slice::from_ref(id), hops, direction)? {
            // A seed is no evidence for itself: its own score is already in the final score.
            if d > 0 && merged.contains_key(&node) {
                *evidence.entry(node).or_default() += strength * graph_score(Some(d));
            }
        }
    }
    let max = evidence.values().copied().fold(0.0, f64::max);
    if max > 0.0 {
        let scale = (1.0 + max).ln();
        for v in evidence.values_mut() {
            *v = (1.0 + *v).ln() / scale;
        }
    }
    Ok(evidence)
}

/// The first `n` sentences of `text`: a sentence ends at `.`, `!` or `?`
/// followed by whitespace or the end of the text.
pub fn snippet(text: &str, n: usize) -> String {
    let text = text.trim();
    let mut count = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') {
            let at_end = chars.peek().is_none_or(|&(_, next)| next.is_whitespace());
            if at_end {
                count += 1;
                if count == n {
                    return text[..i + c.len_utf8()].to_string();
                }
            }
        }
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_scores_follow_the_spec() {
        assert_eq!([Some(0), Some(1), Some(2), Some(3), None].map(graph_score), [1.0, 0.6, 0.3, 0.0, 0.0]);
    }

    #[test]
    fn recency_is_linear_over_the_year_range() {
        assert_eq!(recency_score(Some(2015), Some(2015), Some(2025)), 0.0);
        assert_eq!(recency_score(Some(2025), Some(2015), Some(2025)), 1.0);
        assert!((recency_score(Some(2020), Some(2015), Some(2025)) - 0.5).abs() < 1e-12);
        assert_eq!(recency_score(Some(2020), Some(2020), Some(2020)), 1.0);
        assert_eq!(recency_score(None, Some(2015), Some(2025)), 0.0);
        assert_eq!(recency_score(Some(2020), None, None), 0.0);
    }

    #[test]
    fn snippet_takes_three_sentences() {
        let a = "One. Two has 3.5 points! Three? Four.";
        assert_eq!(snippet(a, 3), "One. Two has 3.5 points! Three?");
        assert_eq!(snippet("No terminator", 3), "No terminator");
        assert_eq!(snippet("", 3), "");
        assert_eq!(snippet("A. B.", 3), "A. B.");
    }
}
