//! Merge, rank, hydrate: from the first stage's list and the walk to the
//! explained hits, one generic function ([`rank`]) over any [`Retriever`]
//! (the local store's, [`Local`], or the OpenSearch backend's).
//!
//! The merged set is the seeds plus every reached id that is an indexed
//! paper, plus the first `pool` papers of the first stage (`--pool`, default
//! `--top-k`: then it adds nothing). Each hit explains its rank with the
//! parts of its final score ([`super::score`] has every formula), ordered
//! by `final_score` descending, ties by id. With favorites, the first
//! stage scores `bm25 + β·expansion` and the favorites join the seeds of
//! the walk ([`super::feedback`]); `bm25_score` and `bm25_norm` stay the
//! query's own. Excluded papers are dropped here, before the count. A
//! semantic first stage puts its `fused_score` in `bm25_norm`'s place
//! ([`super::first_stage`]).
//!
//! Ranking needs only each merged paper's handle (a doc id) and year, so a
//! walk that reaches thousands of papers reads their ids only for the hits
//! up to the page's end and the ties at its boundary (all of them when the
//! search has marks, which name papers by id), their titles, abstracts and
//! references only for the hits shown (after the request's `offset`, up to
//! its `limit`), and picks their evidence sentences ([`crate::evidence`])
//! only for them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::Hash;
use std::time::Instant;

use anyhow::Context;

use serde::Serialize;

use super::feedback::{FeedbackPart, gated, own_evidence, query_reach};
use super::query::ParsedQuery;
use super::request::{GraphScore, HitParts, Mode, SearchRequest, Weights};
use super::retriever::{Details, Local, Merged, MergedPaper, PaperScores, Papers, Retriever, fill_ids};
use super::score::{
    ScoreParts, SeedWalk, WeightedScale, evidence_sums, final_score, graph_score, normalised, recency_score,
    seed_evidence, seed_nodes, seed_walks,
};
use crate::embed::SemanticIndex;
use crate::evidence::{self, Evidence, EvidenceParams, EvidenceQuery};
use crate::graph::{Adjacency, Cut, Direction, FanOut, Node, NodeMap, Reach};
use crate::store::Store;

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
    /// When the walk first reached it through a list cut to the fan-out
    /// (a hub's citers or references): that list. Left out of the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_via: Option<GraphVia>,
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
    /// The page of the snippet when it comes from the paper's full text
    /// (its best passage matches more of the query's words than the
    /// abstract's evidence); left out of the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet_page: Option<u32>,
    /// Ids this paper cites, sorted; read only when the request's parts
    /// are [`crate::search::HitParts::Full`] (empty otherwise).
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

/// A hit the walk reached as one of a paper's references or citers that it
/// followed only in part (`--fan-out`): "reached via 1 of 4,213 citers of ID".
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GraphVia {
    /// The paper whose list was cut.
    pub paper: String,
    /// `citations`: the hit cites that paper; `references`: that paper cites the hit.
    pub direction: Direction,
    /// How many of the list the walk followed, and how many it held.
    pub followed: usize,
    pub total: usize,
}

impl fmt::Display for GraphVia {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.direction == Direction::References { "references" } else { "citers" };
        let total = self.total.to_string();
        // Digits in threes: 4,213.
        let mut grouped = String::new();
        for (i, c) in total.chars().enumerate() {
            if i > 0 && (total.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        write!(f, "reached via 1 of {grouped} {what} of {} (the walk follows {} per paper)", self.paper, self.followed)
    }
}

impl Hit {
    /// The terms of its final score under the weights `w` it was ranked
    /// with (what the web page's score bar draws; `Display` prints them).
    pub fn parts(&self, w: Weights) -> ScoreParts {
        let feedback = self.feedback.as_ref().map_or(0.0, |f| f.closeness_bonus);
        let first = self.fused_score.unwrap_or(self.bm25_norm);
        ScoreParts::new(w, first, self.graph_score, self.recency_score, feedback, self.final_score)
    }
}

/// One merged paper's score parts, before its details are read.
struct Scored<D> {
    /// Its id, when read already (see [`MergedPaper`]).
    id: Option<String>,
    doc: D,
    year: Option<i32>,
    bm25_score: f64,
    bm25_norm: f64,
    distance: Option<u32>,
    graph_score: f64,
    recency_score: f64,
    final_score: f64,
    fused: f64,
    dense: Option<f64>,
    rerank: Option<f64>,
    excluded: bool,
    /// Whether the query reaches the paper (else feedback adds no closeness to it).
    reached: bool,
}

/// [`super::search`] inside its read snapshot: the local retriever ranked.
pub(super) fn search_in(
    store: &Store,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
) -> anyhow::Result<RetrievalResult> {
    let started = Instant::now();
    let parsed = parsed(request)?;
    let mut local = Local::new(store, &parsed, semantic)?;
    rank(&mut local, &parsed, &request.query, started)
}

/// The request a retriever is built for: a query in the query language
/// as its free text and filter, any other as it is.
pub(crate) fn parsed(request: &SearchRequest) -> anyhow::Result<Cow<'_, SearchRequest>> {
    Ok(if request.query_syntax { Cow::Owned(request.parsed()?) } else { Cow::Borrowed(request) })
}

/// Ranks `request` (already [`parsed`]) over `r`: the first stage, the
/// walk from its seeds, the merge, the scores, the sort, the request's
/// `offset` and `limit`, and the shown hits' details and evidence.
/// `asked` is the query as typed (the result's `query`); `started`, when
/// the search began (its `wall_time_ms`).
pub(crate) fn rank<R: Retriever>(
    r: &mut R,
    request: &SearchRequest,
    asked: &str,
    started: Instant,
) -> anyhow::Result<RetrievalResult> {
    let params = &request.params;
    let first = r.first_stage(params.top_k.max(params.pool))?;
    let pool = &first.list;
    let seeds = &pool[..params.top_k.min(pool.len())];
    let seed_ids: Vec<String> = seeds.iter().map(|s| s.id.clone()).collect();
    let walk = r.walk(&seed_ids, params.reach())?;
    let mut by_id = walk.ids;
    if let Some(fb) = r.feedback() {
        fb.join_walk(&mut by_id);
    }

    // Merge: seeds ∪ reached papers ∪ the first-stage pool, by handle. The
    // walk brought the handles and years of the papers it reached; those
    // reached by id (favorites, unknown seeds) and the pool's come from one
    // call. A reached paper's id is read only if it is needed below.
    let rest: Vec<&String> = by_id.keys().chain(pool.iter().map(|s| &s.id)).collect();
    let papers = r.papers(&rest)?;
    // (By hash: the order is the sort's below, by score then id.)
    let mut merged: Merged<R::Doc> = Merged::default();
    merged.reserve(walk.papers.len() + pool.len());
    for &(doc, distance, year) in &walk.papers {
        merged.insert(doc, MergedPaper { id: None, distance: Some(distance), year, evidence: None });
    }
    for (id, &distance) in &by_id {
        if let Some(&(doc, year)) = papers.get(id) {
            let m =
                merged.entry(doc).or_insert(MergedPaper { id: None, distance: Some(distance), year, evidence: None });
            m.distance = Some(m.distance.map_or(distance, |d| d.min(distance)));
            m.id = Some(id.clone());
        }
    }
    for s in pool {
        let year = papers.get(&s.id).and_then(|&(_, year)| year);
        let m = merged.entry(s.doc).or_insert(MergedPaper { id: None, distance: None, year, evidence: None });
        m.id.get_or_insert_with(|| s.id.clone());
    }
    // The filter: only papers that pass are ranked and shown (the walk above
    // went through the others).
    r.retain(&mut merged)?;
    // Marks name papers by id: every merged paper's is read when there are some.
    if r.feedback().is_some_and(|fb| fb.needs_ids()) {
        fill_ids(&mut merged, |docs| r.ids(docs))?;
    }
    let docs: Vec<R::Doc> = merged.keys().copied().collect();
    // The weighted graph score walks from each seed alone, over lists the
    // walk above read: on another thread while this one scores the merged set.
    let (scores, walked) = match params.graph_score {
        GraphScore::Weighted => scores_beside_walks(r, &seed_ids, &docs, params.reach())?,
        GraphScore::ByHops => (r.scores(&docs)?, None),
    };
    let max_own = scores.iter().map(|s| s.bm25).fold(0.0, f64::max);
    let max_first = scores.iter().map(|s| s.first).fold(0.0, f64::max);
    // The weighted graph score: each merged paper's evidence, summed by node
    // and written into the merge; its scale, from the largest.
    let scale = match params.graph_score {
        GraphScore::ByHops => None,
        GraphScore::Weighted => {
            let mut seeds: Vec<(String, f64)> = seeds.iter().map(|s| (s.id.clone(), s.score)).collect();
            let in_merge = |id: &str| papers.get(id).is_some_and(|(doc, _)| merged.contains_key(doc));
            if let Some(fb) = r.feedback() {
                fb.add_evidence_seeds(&mut seeds, in_merge, max_first);
            }
            let norm = |s: f64| normalised(s, max_first);
            let graph = r.graph();
            let sums = match walked {
                Some(mut walks) => {
                    // The favorites' seeds (after the query's) walked here.
                    let more: Vec<String> = seeds[walks.len()..].iter().map(|(id, _)| id.clone()).collect();
                    walks.extend(seed_walks(graph, &seed_nodes(graph, &more)?, params.reach())?);
                    evidence_sums(&seeds, &walks, norm, walk.handles.len())
                }
                None => seed_evidence(graph, &seeds, norm, params.reach(), walk.handles.len())?,
            };
            Some(WeightedScale::new(evidence_into_merge(graph, &sums, &walk.handles, &papers, &mut merged)?))
        }
    };
    // A favorite lifts only the papers this query reaches (issue 27): the
    // closeness term goes to a paper with its own evidence for the query or
    // within the walk from the seeds that have theirs.
    let reach = match r.feedback() {
        Some(fb) if fb.lifts() => {
            let own: HashMap<&str, bool> = merged
                .values()
                .map(|m| m.id.as_deref().unwrap_or_default())
                .zip(scores.iter().map(own_evidence))
                .collect();
            let own_seeds: Vec<String> =
                seed_ids.iter().filter(|id| own.get(id.as_str()).copied().unwrap_or(false)).cloned().collect();
            Some(query_reach(r.graph(), &own_seeds, params.hops, params.direction)?)
        }
        _ => None,
    };
    let w = params.weights;
    let (min_year, max_year) = r.years();
    // One merged paper's score parts, its id not taken (`None`: marks drop
    // it). Every paper's final score is kept; the parts are made again only
    // for the hits that may be shown (a list of every paper's parts would be
    // megabytes written for a page of twenty).
    let fb_all = r.feedback();
    let parts_of = |doc: R::Doc, m: &MergedPaper, s: &PaperScores| -> Option<Scored<R::Doc>> {
        // With marks, every id was read above; without, none is needed here.
        let fb = fb_all.zip(m.id.as_deref());
        let (excluded, dropped) = fb.map_or((false, false), |(fb, id)| fb.exclusion(id));
        if dropped {
            return None;
        }
        let fused = normalised(s.first, max_first);
        let graph_score = match scale {
            None => graph_score(m.distance),
            Some(scale) => scale.score(m.evidence),
        };
        let recency_score = recency_score(m.year, min_year, max_year);
        let reached = own_evidence(s) || reach.as_ref().is_none_or(|q| m.id.as_ref().is_some_and(|id| q.contains(id)));
        let bonus = if reached { fb.map_or(0.0, |(fb, id)| fb.closeness_bonus(id)) } else { 0.0 };
        Some(Scored {
            final_score: final_score(w, fused, graph_score, recency_score, bonus),
            id: None,
            doc,
            year: m.year,
            bm25_score: s.bm25,
            bm25_norm: normalised(s.bm25, max_own),
            distance: m.distance,
            graph_score,
            recency_score,
            fused,
            dense: s.dense,
            rerank: s.rerank,
            excluded,
            reached,
        })
    };
    // Each kept paper's final score and its place in the merge's order.
    let mut finals: Vec<(f64, usize)> = Vec::with_capacity(merged.len());
    for (at, ((&doc, m), s)) in merged.iter().zip(&scores).enumerate() {
        if let Some(h) = parts_of(doc, m, s) {
            finals.push((h.final_score, at));
        }
    }
    let excluded_hidden = merged.len() - finals.len();
    let hit_count = finals.len();
    let top_score = finals.iter().map(|&(f, _)| f).max_by(f64::total_cmp).unwrap_or(0.0);
    let average_score =
        if hit_count == 0 { 0.0 } else { finals.iter().map(|&(f, _)| f).sum::<f64>() / hit_count as f64 };
    let end = request.limit.map_or(hit_count, |l| request.offset.saturating_add(l)).min(hit_count);
    keep_contenders(&mut finals, end, |&(f, _)| f);
    let mut wanted: Vec<usize> = finals.into_iter().map(|(_, at)| at).collect();
    wanted.sort_unstable();
    let mut wanted = wanted.into_iter().peekable();
    let mut contenders = Vec::with_capacity(wanted.len());
    for (at, ((doc, m), s)) in merged.into_iter().zip(&scores).enumerate() {
        if wanted.peek().is_none() {
            break;
        }
        if wanted.next_if_eq(&at).is_some()
            && let Some(h) = parts_of(doc, &m, s)
        {
            contenders.push(Scored { id: m.id, ..h });
        }
    }
    let scored = page(r, contenders, end, request.offset)?;
    let via = graph_via(r.graph(), &walk.handles, &walk.via, &scored, params.fan_out)?;

    // Hydrate the hits shown, as far as the request asks: their details,
    // then their evidence sentences through `evidence` (those of
    // `parts_for` only, when it names some).
    let parts = request.parts;
    let shown: Vec<(String, R::Doc)> = scored.iter().map(|(id, h)| (id.clone(), h.doc)).collect();
    let rich = request.parts_for.clone().unwrap_or(0..shown.len());
    let rich = rich.start.min(shown.len())..rich.end.clamp(rich.start.min(shown.len()), shown.len());
    let details = if parts.details() {
        let plain = parts.min(HitParts::Details);
        let mut d = if rich.start > 0 { r.details(&shown[..rich.start], plain)? } else { Vec::new() };
        if !rich.is_empty() {
            d.extend(r.details(&shown[rich.clone()], parts)?);
        }
        if rich.end < shown.len() {
            d.extend(r.details(&shown[rich.end..], plain)?);
        }
        d
    } else {
        vec![Details::default(); shown.len()]
    };
    let evidence_query =
        if rich.is_empty() || !parts.snippets() { None } else { Some(r.evidence_query(&request.query)?) };
    let semantic_mode = first.mode != Mode::Bm25;
    let mut ranked = Vec::with_capacity(scored.len());
    for (at, (((id, h), d), graph_via)) in scored.into_iter().zip(details).zip(via).enumerate() {
        let (snippet, snippet_page) = match &evidence_query {
            Some(q) if rich.contains(&at) => snippet(&d, q),
            _ => (Evidence::default(), None),
        };
        ranked.push(Hit {
            feedback: r.feedback_part(&id, h.doc).map(|p| gated(p, h.reached)),
            references: d.references,
            id,
            title: d.title,
            year: h.year,
            authors: d.authors,
            venue: d.venue,
            bm25_score: h.bm25_score,
            bm25_norm: h.bm25_norm,
            graph_distance: h.distance,
            graph_via,
            graph_score: h.graph_score,
            recency_score: h.recency_score,
            final_score: h.final_score,
            dense_score: if semantic_mode { h.dense } else { None },
            fused_score: semantic_mode.then_some(h.fused),
            rerank_score: h.rerank,
            snippet: snippet.text,
            snippet_spans: snippet.spans,
            snippet_page,
            excluded: h.excluded,
        });
    }
    Ok(RetrievalResult {
        query: asked.to_string(),
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

/// The merged set's scores ([`Retriever::scores`]) and, computed at the
/// same time on another thread, the walk from each of the query's seeds
/// alone over the lists the retriever lends (`None` when it lends none, or
/// when a walk needs a list it did not read: the caller walks them then).
fn scores_beside_walks<R: Retriever>(
    r: &mut R,
    seed_ids: &[String],
    docs: &[R::Doc],
    reach: Reach,
) -> anyhow::Result<(Vec<PaperScores>, Option<Vec<SeedWalk>>)> {
    let nodes = seed_nodes(r.graph(), seed_ids)?;
    let Some(lists) = r.lend_lists() else { return Ok((r.scores(docs)?, None)) };
    let (walks, scores) = std::thread::scope(|s| {
        // A thread that cannot start (or a walk that fails) leaves the walks to the caller.
        let walks = std::thread::Builder::new().spawn_scoped(s, || seed_walks(&lists, &nodes, reach));
        let scores = r.scores(docs);
        (walks.ok().and_then(|w| w.join().ok()).and_then(Result::ok), scores)
    });
    r.take_back_lists(lists);
    Ok((scores?, walks))
}

/// The hits of a page: best first, ties by id (unique in the merge: a
/// total order), from `offset` to `end`. Only the hits up to `end` and
/// those tied with the `end`-th are sorted, and only they need their ids:
/// the rest are only counted.
fn page<R: Retriever>(
    r: &mut R,
    mut scored: Vec<Scored<R::Doc>>,
    end: usize,
    offset: usize,
) -> anyhow::Result<Vec<(String, Scored<R::Doc>)>> {
    keep_contenders(&mut scored, end, |h| h.final_score);
    let unread: Vec<R::Doc> = scored.iter().filter(|h| h.id.is_none()).map(|h| h.doc).collect();
    let mut read = if unread.is_empty() { Vec::new() } else { r.ids(&unread)? }.into_iter();
    let mut hits: Vec<(String, Scored<R::Doc>)> = Vec::with_capacity(scored.len());
    for mut h in scored {
        let id = h.id.take().or_else(|| read.next()).with_context(|| format!("no id for the paper {:?}", h.doc))?;
        hits.push((id, h));
    }
    hits.sort_unstable_by(|(a_id, a), (b_id, b)| b.final_score.total_cmp(&a.final_score).then_with(|| a_id.cmp(b_id)));
    hits.truncate(end);
    hits.drain(..offset.min(hits.len()));
    Ok(hits)
}

/// Keeps of `list` the items up to `end` by `score` (best first) and those
/// tied with the `end`-th, in no order: the only ones a page to `end` can
/// show once ties are broken by id.
fn keep_contenders<T>(list: &mut Vec<T>, end: usize, score: impl Fn(&T) -> f64) {
    if end >= list.len() {
        return;
    }
    if end == 0 {
        list.clear();
        return;
    }
    list.select_nth_unstable_by(end - 1, |a, b| score(b).total_cmp(&score(a)));
    let last = score(&list[end - 1]);
    list.retain(|h| score(h).total_cmp(&last).is_ge());
}

#[cfg(test)]
#[path = "page_tests.rs"]
mod page_tests;

#[cfg(test)]
#[path = "join_tests.rs"]
mod join_tests;

/// Each shown hit's [`GraphVia`]: its node from the walk's `handles` (by
/// id for a walk that read none), its cut from the walk's `via`, the cut
/// papers' ids read in one call.
fn graph_via<D: Copy + Hash + Eq>(
    graph: &impl Adjacency,
    handles: &[(Node, Option<D>)],
    via: &NodeMap<Cut>,
    shown: &[(String, Scored<D>)],
    fan_out: FanOut,
) -> anyhow::Result<Vec<Option<GraphVia>>> {
    if via.is_empty() {
        return Ok(vec![None; shown.len()]);
    }
    let node_of: HashMap<D, Node> = if handles.is_empty() {
        let ids: Vec<String> = shown.iter().map(|(id, _)| id.clone()).collect();
        let nodes: HashMap<String, Node> = graph.nodes_of(&ids)?.into_iter().collect();
        shown.iter().filter_map(|(id, h)| Some((h.doc, *nodes.get(id)?))).collect()
    } else {
        let docs: HashSet<D> = shown.iter().map(|(_, h)| h.doc).collect();
        handles.iter().filter_map(|&(n, d)| d.filter(|d| docs.contains(d)).map(|d| (d, n))).collect()
    };
    let cuts: Vec<Option<Cut>> =
        shown.iter().map(|(_, h)| node_of.get(&h.doc).and_then(|n| via.get(n)).copied()).collect();
    let nodes: Vec<Node> = cuts.iter().flatten().map(|c| c.node).collect();
    let ids: NodeMap<String> =
        if nodes.is_empty() { NodeMap::default() } else { graph.ids_of(&nodes)?.into_iter().collect() };
    Ok(cuts
        .into_iter()
        .map(|c| {
            let c = c?;
            Some(GraphVia {
                paper: ids.get(&c.node)?.clone(),
                direction: c.direction,
                followed: fan_out.unwrap_or(c.total),
                total: c.total,
            })
        })
        .collect())
}

/// Writes each merged paper's sum of `sums` (each reached node's graph
/// evidence) into its `evidence`, and gives the largest: the merged papers
/// found through the walk's handles (in node order) where it read them,
/// else by id.
fn evidence_into_merge<D: Copy + Hash + Eq>(
    graph: &impl Adjacency,
    sums: &NodeMap<f64>,
    handles: &[(Node, Option<D>)],
    papers: &Papers<D>,
    merged: &mut Merged<D>,
) -> anyhow::Result<f64> {
    let mut max = 0.0;
    let mut put = |doc: &D, sum: f64| {
        if let Some(m) = merged.get_mut(doc) {
            m.evidence = Some(sum);
            max = f64::max(max, sum);
        }
    };
    let mut read = 0;
    for (node, doc) in handles {
        if let Some(&sum) = sums.get(node) {
            read += 1;
            if let Some(doc) = doc {
                put(doc, sum);
            }
        }
    }
    // Nodes whose handles the walk did not read (reached from a favorite
    // only, or every node of a walk that reads ids): by id.
    if read < sums.len() {
        let unread: Vec<Node> =
            sums.keys().copied().filter(|n| handles.binary_search_by_key(n, |&(h, _)| h).is_err()).collect();
        for (node, id) in graph.ids_of(&unread)? {
            if let Some((doc, _)) = papers.get(&id) {
                put(doc, sums[&node]);
            }
        }
    }
    Ok(max)
}

/// A shown hit's snippet: the evidence sentences of its abstract, or of its
/// best full-text passage (with that passage's page) when the passage
/// matches more of the query's words.
fn snippet(d: &Details, q: &EvidenceQuery) -> (Evidence, Option<u32>) {
    let snippet = evidence::evidence(&d.abstract_, q, &EvidenceParams::default(), None);
    if let Some((text, page)) = &d.passage {
        let body = evidence::evidence(text, q, &EvidenceParams::default(), None);
        if body.spans.len() > snippet.spans.len() {
            return (body, Some(*page));
        }
    }
    (snippet, None)
}
