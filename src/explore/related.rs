//! `related`: papers like a seed paper, or like a set of them taken as one.
//!
//! With `C(x)` the ids citing `x`, `R(x)` the ids `x` cites, and for a seed
//! set `S`: `C(S) = ∪ C(s)`, `R(S) = ∪ R(s)`, Salton's cosine:
//!
//! ```text
//! cocitation(c) = |C(S) ∩ C(c)| / sqrt(|C(S)|·|C(c)|)       (0 when either is empty)
//! coupling(c)   = |R(S) ∩ R(c)| / sqrt(|R(S)|·|R(c)|)
//! text(c)       = BM25 of c for the query made of the seeds' top TEXT_TERMS terms
//!                 by tf·idf (tf over the seeds' titles and abstracts, idf the
//!                 index's), each counted once
//! cosine(c)     = cos(v(c), mean of the seeds' v), v the stored paper vectors of the
//!                 most recently updated model that has any (no model needed)
//! text_norm     = text / max text                          without vectors
//!                 (text / max text + max(cosine, 0)) / 2     with them
//! both          = cocitation + coupling + text_norm
//! ```
//!
//! Candidates are the indexed papers other than the seeds: for the graph
//! methods the ones that share a neighbour with a seed (read outwards from
//! the seeds through the adjacency lists, by node), for `text` the ones matching a
//! term, for `both` the union; those scoring 0 are left out. Ties go by
//! doc id (index order).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::embed::PaperVectors;
use crate::embed::quant::Estimates;
use crate::graph::{Adjacency, Node, NodeMap};
use crate::search::bm25_term_scores;
use crate::store::{Shared, Store, StoreAdjacency};

/// How many of the seeds' terms the more-like-this query takes.
pub(crate) const TEXT_TERMS: usize = 25;
/// How many shared ids a result lists.
pub(crate) const SAMPLE: usize = 5;

/// How `related` measures likeness (`related --method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Cited together with the seeds by the same papers (Salton's cosine)
    Cocitation,
    /// Citing the same papers as the seeds (Salton's cosine)
    Coupling,
    /// Co-citation, coupling and text combined
    Both,
    /// BM25 more-like-this from the seeds' own title and abstract
    Text,
}

impl Method {
    fn uses_graph(self) -> bool {
        self != Method::Text
    }
    fn uses_text(self) -> bool {
        matches!(self, Method::Text | Method::Both)
    }
}

/// One related paper, explained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Related {
    pub id: String,
    pub title: String,
    pub year: Option<i32>,
    /// What the method ranks by (see the module's formulas).
    pub score: f64,
    pub cocitation: f64,
    pub coupling: f64,
    /// Papers citing both a seed and this one: how many, and the first few.
    pub shared_citers: usize,
    pub shared_citers_sample: Vec<String>,
    /// Ids cited by both a seed and this one.
    pub shared_references: usize,
    pub shared_references_sample: Vec<String>,
    /// The more-like-this BM25 score (`text` and `both`).
    pub text_score: f64,
    /// Cosine of its stored vector with the seeds' mean (`None` without vectors).
    pub cosine: Option<f64>,
    /// The text part of the score (see the module's formulas).
    pub text_norm: f64,
}

/// What `related` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelatedResult {
    /// The seeds' canonical ids.
    pub seeds: Vec<String>,
    pub method: Method,
    /// The more-like-this query's terms (empty for the graph methods).
    pub terms: Vec<String>,
    /// The model whose stored vectors gave `cosine`, if any.
    pub vectors: Option<String>,
    pub related: Vec<Related>,
}

/// A candidate's score parts, before its row is read.
struct Row {
    score: f64,
    /// The score's upper end while the cosine is an estimate.
    upper: f64,
    doc: i64,
    cocitation: f64,
    coupling: f64,
    text_score: f64,
}

/// The neighbours one candidate shares with the seeds, by node, ascending.
#[derive(Default)]
struct Sharing {
    citers: Vec<Node>,
    references: Vec<Node>,
}

/// Papers related to `seeds` (canonical ids of indexed papers), best first, at most `limit`.
pub fn related(store: &Store, seeds: &[String], method: Method, limit: usize) -> anyhow::Result<RelatedResult> {
    store.snapshot(|| related_in(store, seeds, method, limit))
}

fn related_in(store: &Store, seeds: &[String], method: Method, limit: usize) -> anyhow::Result<RelatedResult> {
    let graph = StoreAdjacency(store);
    let mut sharing: NodeMap<Sharing> = NodeMap::default();
    let (mut seed_citers, mut seed_refs) = (0usize, 0usize);
    if method.uses_graph() {
        let seed_nodes: Vec<Node> = graph.nodes_of(seeds)?.into_iter().map(|(_, n)| n).collect();
        let seed_set: HashSet<Node> = seed_nodes.iter().copied().collect();
        for shared in [Shared::Citers, Shared::References] {
            // Sorted by (other, sharer), distinct: each other's sharers ascend.
            let pairs = store.shared_nodes(&seed_nodes, shared)?;
            let sharers: HashSet<Node> = pairs.iter().map(|&(_, s)| s).collect();
            match shared {
                Shared::Citers => seed_citers = sharers.len(),
                Shared::References => seed_refs = sharers.len(),
            }
            for &(other, sharer) in &pairs {
                if seed_set.contains(&other) {
                    continue;
                }
                let entry = sharing.entry(other).or_default();
                match shared {
                    Shared::Citers => entry.citers.push(sharer),
                    Shared::References => entry.references.push(sharer),
                };
            }
        }
    }
    let seed_docs: Vec<i64> = store.docs_and_years(seeds)?.values().map(|&(doc, _)| doc).collect();
    let others: Vec<Node> = sharing.keys().copied().collect();
    let graph_docs = store.docs_of_nodes(&others)?;
    let (terms, text, vectors) = if method.uses_text() {
        let graph: Vec<i64> = graph_docs.iter().map(|&(_, doc)| doc).collect();
        text_scores(store, seeds, &seed_docs, &graph, limit)?
    } else {
        Default::default()
    };
    let seed_docs: HashSet<i64> = seed_docs.into_iter().collect();
    let mut cosines = vectors;
    // The candidates by doc id: graph ones (indexed papers only) with their
    // nodes, text ones whose ids are read only if shown.
    let mut candidates: BTreeMap<i64, Option<Node>> = BTreeMap::new();
    for (node, doc) in graph_docs {
        candidates.insert(doc, Some(node));
    }
    for doc in text.keys().copied().chain(cosines.iter().flat_map(|c| c.scores.docs())) {
        candidates.entry(doc).or_insert(None);
    }
    candidates.retain(|doc, _| !seed_docs.contains(doc));
    let max_text = candidates.keys().filter_map(|d| text.get(d)).copied().fold(0.0, f64::max);
    let bm25_norm = |t: f64| if max_text > 0.0 { t / max_text } else { 0.0 };
    let with_vectors = cosines.is_some();
    let norm = |cos: Option<f64>, t: f64| match with_vectors {
        false => bm25_norm(t),
        true => (bm25_norm(t) + cos.unwrap_or(0.0).max(0.0)) / 2.0,
    };
    let score_of = |row: &Row, cos: Option<f64>| match method {
        Method::Cocitation => row.cocitation,
        Method::Coupling => row.coupling,
        Method::Text => norm(cos, row.text_score),
        Method::Both => row.cocitation + row.coupling + norm(cos, row.text_score),
    };
    let graph_nodes: Vec<Node> = candidates.values().flatten().copied().collect();
    // (references, citers) of each graph candidate.
    let degrees = store.node_degrees(&graph_nodes)?;
    let cosine = |shared: usize, a: usize, b: Option<u64>| match b {
        Some(b) if a > 0 && b > 0 => shared as f64 / ((a as f64) * (b as f64)).sqrt(),
        _ => 0.0,
    };
    let empty = Sharing::default();
    // Each candidate's score from the ends of its cosine's range (the
    // cosine is estimated from the codes, within a bound): the lower end
    // is `score`, the upper `upper`.
    let mut scored: Vec<Row> = Vec::new();
    for (&doc, node) in &candidates {
        let s = node.and_then(|n| sharing.get(&n)).unwrap_or(&empty);
        let (refs, citers) = match node.and_then(|n| degrees.get(&n)) {
            Some(&(r, c)) => (Some(r), Some(c)),
            None => (None, None),
        };
        let mut row = Row {
            score: 0.0,
            upper: 0.0,
            doc,
            cocitation: cosine(s.citers.len(), seed_citers, citers),
            coupling: cosine(s.references.len(), seed_refs, refs),
            text_score: text.get(&doc).copied().unwrap_or(0.0),
        };
        let (low, high) = match cosines.as_ref().and_then(|c| c.range(doc)) {
            Some((low, high)) => (Some(low), Some(high)),
            None => (None, None),
        };
        (row.score, row.upper) = (score_of(&row, low), score_of(&row, high));
        if row.upper > 0.0 {
            scored.push(row);
        }
    }
    if let Some(c) = cosines.as_mut() {
        // Only a candidate whose upper end reaches the `limit`-th best lower
        // end can be shown: those are scored with their f32 vectors (as a
        // scan of every f32 vector scored them all), the others dropped.
        let floor = match limit {
            0 => f64::INFINITY,
            _ if scored.len() < limit => f64::NEG_INFINITY,
            _ => {
                let mut lows: Vec<f64> = scored.iter().map(|r| r.score).collect();
                *lows.select_nth_unstable_by(limit - 1, |a, b| b.total_cmp(a)).1
            }
        };
        scored.retain(|r| r.upper >= floor);
        c.vectors.rescore(store, &c.mean, &mut c.scores, scored.iter().map(|r| r.doc))?;
        for row in &mut scored {
            row.score = score_of(row, c.get(row.doc));
        }
        scored.retain(|r| r.score > 0.0);
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    scored.truncate(limit);
    let mut related = Vec::with_capacity(scored.len());
    for r in scored {
        let row = store.paper_by_doc(r.doc)?;
        let s = candidates.get(&r.doc).copied().flatten().and_then(|n| sharing.get(&n)).unwrap_or(&empty);
        let cos = cosines.as_ref().and_then(|c| c.get(r.doc));
        related.push(Related {
            id: row.id,
            title: row.title,
            year: row.year,
            score: r.score,
            cocitation: r.cocitation,
            coupling: r.coupling,
            shared_citers: s.citers.len(),
            shared_citers_sample: sample(&graph, &s.citers)?,
            shared_references: s.references.len(),
            shared_references_sample: sample(&graph, &s.references)?,
            text_score: r.text_score,
            cosine: cos,
            text_norm: norm(cos, r.text_score),
        });
    }
    let vectors = cosines.map(|c| c.model);
    Ok(RelatedResult { seeds: seeds.to_vec(), method, terms, vectors, related })
}

/// The first [`SAMPLE`] ids of `nodes` in id order (the ids of all of
/// them read: a shown paper's sharers only).
fn sample(graph: &StoreAdjacency<'_>, nodes: &[Node]) -> anyhow::Result<Vec<String>> {
    if nodes.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids: Vec<String> = graph.ids_of(nodes)?.into_iter().map(|(_, id)| id).collect();
    ids.sort_unstable();
    ids.truncate(SAMPLE);
    Ok(ids)
}

/// Every paper's cosine with the seeds' mean vector: estimated from the
/// papers' int8 codes (a scan that reads a quarter of the f32 vectors'
/// bytes and keeps no matrix), exact once rescored.
struct SeedCosines {
    /// The model's name.
    model: String,
    vectors: PaperVectors,
    mean: Vec<f32>,
    scores: Estimates,
}

impl SeedCosines {
    /// `doc`'s cosine, exact once rescored; `None` without a vector.
    fn get(&self, doc: i64) -> Option<f64> {
        self.scores.get(doc).map(f64::from)
    }

    /// The range `doc`'s exact cosine lies in (one value once rescored).
    fn range(&self, doc: i64) -> Option<(f64, f64)> {
        let (s, e) = self.scores.with_error(doc)?;
        Some((f64::from(s) - f64::from(e), f64::from(s) + f64::from(e)))
    }
}

type Cosines = Option<SeedCosines>;

/// The more-like-this query's terms, the BM25 for it of the papers that can
/// rank, and the cosines when the index holds vectors. With vectors every
/// paper can rank (its cosine may lift it), so every matching paper is
/// scored; without, a paper ranks by its text part (plus, for `both`, a
/// graph part only the `graph` candidates have), so the best
/// `limit + seeds` by BM25 and the graph candidates' scores decide the
/// first `limit` exactly: any other paper scores below `limit` non-seed
/// papers of that top, and the best non-seed text score, the norm's
/// divisor, is in it.
fn text_scores(
    store: &Store,
    seeds: &[String],
    seed_docs: &[i64],
    graph: &[i64],
    limit: usize,
) -> anyhow::Result<(Vec<String>, HashMap<i64, f64>, Cosines)> {
    let meta = store.meta()?;
    let analyzer = meta.analyzer()?;
    let mut text = String::new();
    for id in seeds {
        if let Some(p) = store.paper(id)? {
            text.push_str(&crate::analyzer::indexed_text(&p.title, &p.abstract_));
            text.push(' ');
        }
    }
    let terms = more_like_this_terms(store, analyzer, &text, meta.num_docs)?;
    let query: Vec<(String, u32)> = terms.iter().map(|t| (t.clone(), 1)).collect();
    let cosines = vector_cosines(store, seed_docs)?;
    let scores: HashMap<i64, f64> = if cosines.is_some() {
        bm25_term_scores(store, &query)?.into_iter().collect()
    } else {
        let k = limit.max(1).saturating_add(seed_docs.len());
        let mut scores: HashMap<i64, f64> = store.bm25_scores_of(&query, graph)?.into_iter().collect();
        scores.extend(store.bm25_top_k(&query, k)?.into_iter().map(|c| (c.doc, c.score)));
        scores
    };
    Ok((terms, scores, cosines))
}

/// The cosine of every stored vector with the normalised mean of the seeds'
/// vectors, for the most recently updated model with vectors for a seed.
fn vector_cosines(store: &Store, seed_docs: &[i64]) -> anyhow::Result<Cosines> {
    for model in store.vector_models()? {
        if !store.model_has_vectors(model.model_id)? {
            continue;
        }
        let vectors = PaperVectors::open(store, model.model_id, model.dim)?;
        let mut mean = vec![0f32; model.dim];
        for &doc in seed_docs {
            if let Some(v) = vectors.vector(store, doc)? {
                mean.iter_mut().zip(v).for_each(|(m, x)| *m += x);
            }
        }
        let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 {
            continue;
        }
        mean.iter_mut().for_each(|m| *m /= norm);
        let scores = vectors.estimates(store, &mean)?;
        return Ok(Some(SeedCosines { model: model.name, vectors, mean, scores }));
    }
    Ok(None)
}

/// The `TEXT_TERMS` terms of `text` with the highest tf·idf (idf from the
/// index; terms the index lacks are left out), ties by term.
pub(crate) fn more_like_this_terms(
    store: &Store,
    analyzer: Analyzer,
    text: &str,
    num_docs: u64,
) -> anyhow::Result<Vec<String>> {
    let mut tf: HashMap<String, u32> = HashMap::new();
    for t in analyzer.tokenize(text) {
        *tf.entry(t).or_default() += 1;
    }
    let all: Vec<String> = tf.keys().cloned().collect();
    let df = store.doc_freqs(&all)?;
    let mut weighted: Vec<(f64, String)> =
        tf.into_iter().filter_map(|(t, f)| df.get(&t).map(|&d| (f as f64 * Bm25::idf(num_docs, d), t))).collect();
    weighted.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(weighted.into_iter().take(TEXT_TERMS).map(|(_, t)| t).collect())
}
