//! `search --backend opensearch://HOST:PORT/INDEX`: litindex's two-pass
//! search with the index on a cluster.
//!
//! 1. First stage: one `bool` query of `term` clauses on `text`, one per
//!    query term (analysed here, by the index's analyzer), boosted by the
//!    term's count in the query, sorted by score then id, `depth` deep
//!    (`max(top_k, pool)`), with `search_type=dfs_query_then_fetch` so N, df
//!    and avgdl are the whole index's whatever the shard count. With
//!    [`Scoring::Exact`] (the default) the cluster's list is deeper and
//!    every score is litindex's own, recomputed ([`super::exact`]); with
//!    [`Scoring::Lucene`] a score is Lucene's times `(k1 + 1)` (Lucene's BM25
//!    leaves that factor out).
//! 2. The walk: [`crate::graph::bfs`] over [`RemoteAdjacency`], one hop at a
//!    time: the references of a frontier are its papers' `references`
//!    (an `ids` query, `_source` filtered to that field), its citations the
//!    papers whose `references` hold one of its ids (a `terms` query); both in
//!    batches of [`BATCH`] ids, pages of [`PAGE`] hits by `search_after`.
//! 3. Merge, score, sort and hydrate: [`crate::search::rank`]'s one ranking,
//!    over this backend's [`Retriever`]: the merged papers' own BM25 scores
//!    and years come from one query per batch (an `ids` filter plus the
//!    same `term` clauses), a paper's handle is its node in the search's
//!    walk, `recency_score` is over the export's year range, and the hits
//!    shown are read with one `ids` query. Their evidence sentences are
//!    picked as locally ([`crate::evidence`]), with the idf of the query's
//!    words from the cluster's N and df ([`super::exact::doc_freqs`]).
//!
//! Not on this backend (each refused with an error that says so): a filter,
//! feedback from marks, and the dense and hybrid first stages.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::{Client, Target};
use super::exact::{Exact, doc_freqs, max_window, window};
use super::mapping::{RemoteMeta, check};
use super::walk::RemoteAdjacency;
use crate::bm25::query_terms;
use crate::evidence::EvidenceQuery;
use crate::graph::{Adjacency, Node, Reach, walk_by_id};
use crate::paper::PaperId;
use crate::search::retriever::{Details, FirstList, Listed, PaperScores, Papers, Retriever, Walk};
use crate::search::{HitParts, rank};
use crate::search::{IndexFacts, Mode, RetrievalResult, SearchRequest};
use anyhow::Context;

/// Ids per `ids` or `terms` query of the walk and the merge.
pub(crate) const BATCH: usize = 1024;
/// Hits per page of a walk query (OpenSearch's default `max_result_window` is 10 000).
pub(crate) const PAGE: usize = 5000;
/// The deepest first-stage window (OpenSearch's default `max_result_window`).
pub(crate) const MAX_WINDOW: usize = 10_000;

/// An index on a cluster, checked to match litindex's scoring.
pub struct Backend {
    client: Client,
    target: Target,
    meta: RemoteMeta,
    scoring: Scoring,
    requests: Cell<u64>,
}

/// Whose BM25 scores a search ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scoring {
    /// litindex's, recomputed from the cluster's exact statistics and term
    /// vectors ([`super::exact`]): the local index's scores.
    #[default]
    Exact,
    /// Lucene's `_score` times (k1 + 1): one request fewer, but document
    /// lengths rounded to Lucene's one-byte norms.
    Lucene,
}

/// A paper's BM25 score (litindex's scale), year and length, as the cluster has them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub bm25: f64,
    pub year: Option<i32>,
    pub doc_len: u32,
}

impl Backend {
    /// Connects to `target` and checks its index definition ([`check`]).
    pub fn open(target: &Target, timeout: Duration) -> anyhow::Result<Backend> {
        let client = Client::new(&target.host, timeout);
        let answer = client.get(&format!("/{}", target.index))?;
        let meta = check(&target.index, &answer)?;
        Ok(Backend { client, target: target.clone(), meta, scoring: Scoring::default(), requests: Cell::new(0) })
    }

    /// Ranks by `scoring` (default [`Scoring::Exact`]).
    pub fn with_scoring(mut self, scoring: Scoring) -> Backend {
        self.scoring = scoring;
        self
    }

    /// The index's name.
    pub fn index(&self) -> &str {
        &self.target.index
    }

    /// What the index's `_meta` says.
    pub fn meta(&self) -> &RemoteMeta {
        &self.meta
    }

    /// What a search's defaults depend on ([`crate::search::resolve`] reads
    /// the same from a local index): whether any paper on the cluster has a
    /// `references` entry (then the `weighted` graph score is the default),
    /// and the BM25 first stage (the only one the backend runs).
    pub fn index_facts(&self) -> anyhow::Result<IndexFacts> {
        let body = json!({"size": 0, "track_total_hits": 1, "query": {"exists": {"field": "references"}}});
        let answer = self.post(&format!("/{}/_search", self.target.index), &body)?;
        let linked = answer["hits"]["total"]["value"].as_u64().unwrap_or(0);
        Ok(IndexFacts { citations: linked > 0, mode: Mode::Bm25 })
    }

    /// Search requests sent so far (the walk's cost is counted in them).
    pub fn requests(&self) -> u64 {
        self.requests.get()
    }

    /// `POST path` with a JSON body, counted in [`Backend::requests`].
    pub(crate) fn post(&self, path: &str, body: &Value) -> anyhow::Result<Value> {
        self.requests.set(self.requests.get() + 1);
        self.client.json("POST", path, body)
    }

    /// A `_search` of the index (`dfs_query_then_fetch`: global statistics), the whole answer.
    pub(crate) fn search_answer(&self, body: &Value) -> anyhow::Result<Value> {
        self.post(&format!("/{}/_search?search_type=dfs_query_then_fetch", self.target.index), body)
    }

    fn search_raw(&self, body: &Value) -> anyhow::Result<Vec<Value>> {
        let answer = self.search_answer(body)?;
        Ok(answer["hits"]["hits"].as_array().cloned().unwrap_or_default())
    }

    /// `scored` with the exact score in place of Lucene's (papers matching no term keep 0).
    fn rescore(&self, exact: Option<&Exact>, scored: &mut HashMap<String, Scored>) -> anyhow::Result<()> {
        let Some(exact) = exact else { return Ok(()) };
        let docs: Vec<(String, u32)> =
            scored.iter().filter(|(_, s)| s.bm25 > 0.0).map(|(id, s)| (id.clone(), s.doc_len)).collect();
        let scores = exact.scores(self, &docs)?;
        for (id, s) in scored.iter_mut() {
            if s.bm25 > 0.0 {
                s.bm25 = scores.get(id).copied().unwrap_or(0.0);
            }
        }
        Ok(())
    }

    /// Every hit of `query`, `fields` of `_source` (none: `_source` off),
    /// paged by `search_after` on the id.
    pub(crate) fn search_all(&self, query: Value, fields: &[&str]) -> anyhow::Result<Vec<Value>> {
        let source = if fields.is_empty() { json!(false) } else { json!(fields) };
        let mut out = Vec::new();
        let mut after: Option<Value> = None;
        loop {
            let mut body = json!({"query": query, "_source": source, "size": PAGE, "sort": [{"id": "asc"}],
                                  "track_total_hits": false});
            if let Some(a) = &after {
                body["search_after"] = a.clone();
            }
            let hits = self.search_raw(&body)?;
            let n = hits.len();
            after = hits.last().map(|h| h["sort"].clone());
            out.extend(hits);
            if n < PAGE {
                return Ok(out);
            }
        }
    }

    /// The `should` clauses of a query's terms.
    fn term_clauses(terms: &[(String, u32)]) -> Vec<Value> {
        terms.iter().map(|(t, c)| json!({"term": {"text": {"value": t, "boost": c}}})).collect()
    }

    /// A hit's score on litindex's scale: Lucene's times (k1 + 1).
    fn bm25_of(&self, hit: &Value) -> f64 {
        hit["_score"].as_f64().unwrap_or(0.0) * (self.meta.k1 + 1.0)
    }

    /// The `depth` best papers for `terms`, best first, ties by id. With
    /// `exact`, the cluster's best [`window`]`(depth)` rescored exactly.
    pub fn first_stage(
        &self,
        terms: &[(String, u32)],
        depth: usize,
        exact: Option<&Exact>,
    ) -> anyhow::Result<Vec<(String, Scored)>> {
        if terms.is_empty() || depth == 0 {
            return Ok(Vec::new());
        }
        let mut size = if exact.is_some() { window(depth) } else { depth };
        loop {
            let body = json!({
                "query": {"bool": {"should": Self::term_clauses(terms)}},
                "_source": ["year", "doc_len"], "size": size, "track_total_hits": false,
                "sort": [{"_score": "desc"}, {"id": "asc"}]
            });
            let hits = self.search_raw(&body)?;
            let more = hits.len() == size;
            let floor = hits.last().map_or(0.0, |h| self.bm25_of(h));
            let mut scored: HashMap<String, Scored> = hits.iter().map(|h| self.scored(h, true)).collect();
            self.rescore(exact, &mut scored)?;
            let mut list: Vec<(String, Scored)> = scored.into_iter().collect();
            list.sort_by(|a, b| b.1.bm25.total_cmp(&a.1.bm25).then_with(|| a.0.cmp(&b.0)));
            if exact.is_some() && more && size < max_window(depth) && !proven(&list, depth, floor) {
                size = size.saturating_mul(2).min(max_window(depth));
                continue;
            }
            list.truncate(depth);
            return Ok(list);
        }
    }

    /// A hit's id and parts (its score only when it matched a term).
    fn scored(&self, hit: &Value, matched: bool) -> (String, Scored) {
        let doc_len = hit["_source"]["doc_len"].as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
        let bm25 = if matched { self.bm25_of(hit) } else { 0.0 };
        (hit_id(hit), Scored { bm25, year: year_of(hit), doc_len })
    }

    /// The BM25 score (0 when it matches no term) and year of each of `ids`
    /// that is a paper of the index.
    pub fn scores_of(
        &self,
        terms: &[(String, u32)],
        ids: &[String],
        exact: Option<&Exact>,
    ) -> anyhow::Result<HashMap<String, Scored>> {
        let mut out = HashMap::with_capacity(ids.len());
        for batch in ids.chunks(BATCH) {
            let body = json!({
                "query": {"bool": {"filter": {"ids": {"values": batch}}, "should": Self::term_clauses(terms)}},
                "_source": ["year", "doc_len"], "size": batch.len(), "track_total_hits": false
            });
            out.extend(self.search_raw(&body)?.iter().map(|h| self.scored(h, !terms.is_empty())));
        }
        self.rescore(exact, &mut out)?;
        Ok(out)
    }

    /// The `_source` of each of `ids` (those in the index), by id.
    pub(crate) fn sources(&self, ids: &[String], fields: &[&str]) -> anyhow::Result<HashMap<String, Value>> {
        let mut out = HashMap::new();
        for batch in ids.chunks(BATCH) {
            for h in self.search_all(json!({"ids": {"values": batch}}), fields)? {
                out.insert(hit_id(&h), h["_source"].clone());
            }
        }
        Ok(out)
    }

    /// Runs `request` against the index: see the module doc.
    pub fn search(&self, request: &SearchRequest) -> anyhow::Result<RetrievalResult> {
        let started = Instant::now();
        // A query in the query language: its free text (a filter in it is refused below).
        let (parsed, query) = request.parsed_with_query()?;
        refuse_unsupported(&parsed, &self.target)?;
        let mut remote = Remote::new(self, &parsed)?;
        let mut result = rank::rank(&mut remote, &parsed, &request.query, started)?;
        result.parsed_query = Some(query);
        Ok(result)
    }

    /// The index's id of a paper named by `input`: its id or any alias, tried
    /// as given, normalised ([`PaperId::parse`]) and as a citation key, as
    /// [`crate::store::Store::resolve`] does; an id match wins over an alias.
    pub fn resolve(&self, input: &str) -> anyhow::Result<Option<String>> {
        let input = input.trim();
        let candidates = [input.to_string(), PaperId::parse(input).key(), PaperId::Citekey(input.to_string()).key()];
        let query = json!({"bool": {"should": [{"ids": {"values": candidates}}, {"terms": {"aliases": candidates}}]}});
        let hits = self.search_all(query, &[])?;
        let ids: Vec<String> = hits.iter().map(hit_id).collect();
        Ok(candidates.iter().find(|c| ids.contains(c)).cloned().or_else(|| ids.into_iter().next()))
    }
}

/// Whether the exact list `list` (best first) surely holds the true best `depth`:
/// every paper outside the window scores at most `floor` (the window's last
/// Lucene score × (k1 + 1)) exactly, since Lucene's rounded-down lengths only
/// ever raise a score; so the list is final when its `depth`-th exact score
/// is above `floor` (with room for Lucene's f32 rounding).
fn proven(list: &[(String, Scored)], depth: usize, floor: f64) -> bool {
    list.get(depth.saturating_sub(1)).is_some_and(|(_, s)| s.bm25 > floor * (1.0 + 1e-5))
}

/// The parts of a search this backend does not do, as errors.
fn refuse_unsupported(request: &SearchRequest, target: &Target) -> anyhow::Result<()> {
    let no = |what: &str| {
        anyhow::anyhow!("{what} is not supported with --backend {target} (only the BM25 two-pass search is)")
    };
    if request.semantic.mode != Mode::Bm25 {
        return Err(no(&format!("--mode {}", request.semantic.mode.name())));
    }
    if !request.filter.is_empty() {
        return Err(no(&format!("the filter `{}`", request.filter)));
    }
    if !request.feedback.favorites.is_empty() || !request.feedback.excluded.is_empty() {
        return Err(no("feedback from marks"));
    }
    Ok(())
}

pub(crate) fn hit_id(hit: &Value) -> String {
    hit["_id"].as_str().unwrap_or_default().to_string()
}

fn year_of(hit: &Value) -> Option<i32> {
    hit["_source"]["year"].as_i64().and_then(|y| i32::try_from(y).ok())
}

/// The cluster as the ranker reads it, for one search: a paper's handle
/// is its node in the search's walk (the ids [`RemoteAdjacency`] interns).
struct Remote<'a> {
    backend: &'a Backend,
    terms: Vec<(String, u32)>,
    exact: Option<Exact>,
    graph: RemoteAdjacency<'a>,
    /// The merged papers' BM25 and years, by handle.
    scored: HashMap<Node, Scored>,
}

impl<'a> Remote<'a> {
    /// The retriever of `request` (parsed, and refused if it needs what this backend lacks).
    fn new(backend: &'a Backend, request: &SearchRequest) -> anyhow::Result<Remote<'a>> {
        let terms = query_terms(backend.meta.analyzer, &request.query);
        let exact = match backend.scoring {
            Scoring::Exact if !terms.is_empty() => Some(Exact::new(backend, &terms)?),
            _ => None,
        };
        Ok(Remote { backend, terms, exact, graph: RemoteAdjacency::new(backend), scored: HashMap::new() })
    }
}

impl<'a> Retriever for Remote<'a> {
    type Doc = Node;
    type Graph = RemoteAdjacency<'a>;

    fn first_stage(&mut self, depth: usize) -> anyhow::Result<FirstList<Node>> {
        let list = self.backend.first_stage(&self.terms, depth, self.exact.as_ref())?;
        let ids: Vec<String> = list.iter().map(|(id, _)| id.clone()).collect();
        let nodes = self.graph.nodes_of(&ids)?;
        let list = list.into_iter().zip(nodes).map(|((id, s), (_, doc))| Listed { id, doc, score: s.bm25 }).collect();
        Ok(FirstList { mode: Mode::Bm25, list })
    }

    /// The walk reads ids only: its papers are told from its other ids by `papers`.
    fn walk(&mut self, seeds: &[String], reach: Reach) -> anyhow::Result<Walk<Node>> {
        let (walk, mut ids) = walk_by_id(&self.graph, seeds, reach)?;
        let nodes: Vec<Node> = walk.dist.keys().copied().collect();
        for (node, id) in self.graph.ids_of(&nodes)? {
            ids.insert(id, walk.dist[&node]);
        }
        Ok(Walk { ids: ids.into_iter().collect(), via: walk.via, ..Walk::default() })
    }

    /// A handle is the node this search gave the id.
    fn ids(&mut self, docs: &[Node]) -> anyhow::Result<Vec<String>> {
        let ids: HashMap<Node, String> = self.graph.ids_of(docs)?.into_iter().collect();
        docs.iter().map(|d| ids.get(d).cloned().with_context(|| format!("no id for node {d}"))).collect()
    }

    fn papers(&mut self, ids: &[&String]) -> anyhow::Result<Papers<Node>> {
        let mut wanted: Vec<String> = ids.iter().map(|id| (*id).clone()).collect();
        wanted.sort();
        wanted.dedup();
        let scored = self.backend.scores_of(&self.terms, &wanted, self.exact.as_ref())?;
        let found: Vec<String> = scored.keys().cloned().collect();
        let mut out = Papers::default();
        for (id, doc) in self.graph.nodes_of(&found)? {
            let s = scored[&id];
            out.insert(id, (doc, s.year));
            self.scored.insert(doc, s);
        }
        Ok(out)
    }

    fn scores(&mut self, docs: &[Node]) -> anyhow::Result<Vec<PaperScores>> {
        Ok(docs
            .iter()
            .map(|doc| {
                let bm25 = self.scored.get(doc).map_or(0.0, |s| s.bm25);
                PaperScores { bm25, first: bm25, dense: None, rerank: None }
            })
            .collect())
    }

    fn graph(&self) -> &RemoteAdjacency<'a> {
        &self.graph
    }

    fn years(&self) -> (Option<i32>, Option<i32>) {
        (self.backend.meta.min_year, self.backend.meta.max_year)
    }

    /// One `ids` query per batch of the hits shown.
    fn details(&mut self, shown: &[(String, Node)], parts: HitParts) -> anyhow::Result<Vec<Details>> {
        let ids: Vec<String> = shown.iter().map(|(id, _)| id.clone()).collect();
        let fields: &[&str] = if parts.references() {
            &["title", "abstract", "authors", "venue", "references"]
        } else {
            &["title", "abstract", "authors", "venue"]
        };
        let sources = self.backend.sources(&ids, fields)?;
        let strings = |v: &Value| -> Vec<String> {
            v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
        };
        Ok(ids
            .iter()
            .map(|id| {
                let Some(s) = sources.get(id) else { return Details::default() };
                let mut references = strings(&s["references"]);
                references.sort();
                Details {
                    title: s["title"].as_str().unwrap_or_default().to_string(),
                    abstract_: s["abstract"].as_str().unwrap_or_default().to_string(),
                    authors: strings(&s["authors"]),
                    venue: s["venue"].as_str().map(str::to_string),
                    references,
                    passage: None,
                }
            })
            .collect())
    }

    /// The idf of the query's words from the cluster's N and df (one request).
    fn evidence_query(&mut self, query: &str) -> anyhow::Result<EvidenceQuery> {
        let backend = self.backend;
        EvidenceQuery::with_stats(backend.meta.analyzer, query, |terms| doc_freqs(backend, terms))
    }
}
