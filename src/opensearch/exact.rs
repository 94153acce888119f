//! Exact BM25 on the cluster's data: litindex's own scores, not Lucene's.
//!
//! Lucene keeps a document's length as a one-byte norm (`SmallFloat.intToByte4`:
//! exact up to 40 terms, then 3 bits of mantissa, so off by up to ~12 %),
//! and computes in f32. Its ranking of a query's papers is therefore close
//! to litindex's but not the same. [`Exact`] rescores a candidate set with
//! exact integers read from the cluster:
//!
//! ```text
//! N       hits of match_all (track_total_hits)       avgdl  Σ doc_len / N (a sum aggregation
//! df(t)   a filters aggregation, one term filter       on the stored doc_len, litindex's own)
//!         per query term (global, whatever the shards)
//! tf      _mtermvectors of the candidates' `text` (the index's analyzer, per document)
//! score   Σ over query terms, in query order, of Bm25::weight(N, avgdl, df, count).score(tf, dl)
//! ```
//!
//! — the same function and the same order of additions as the local
//! [`crate::store::Store::bm25_all`], so an index whose analysis agrees gives
//! the same f64. The first stage asks the cluster for a window deeper than
//! the list it keeps ([`window`]) and rescores it. Lucene's norm rounds a
//! length down, so its score (× (k1 + 1)) is never below the exact one: a
//! paper outside the window scores exactly at most the window's last Lucene
//! score. When the list's `depth`-th exact score is not above that, the
//! window is doubled and read again, up to [`max_window`]: up to there the
//! list is provably the exact top `depth`; past it (papers within a few
//! percent of each other all the way down) it is the exact ranking of the
//! `max_window` papers Lucene ranks best, which on SciFact and CACM is the
//! local index's for every query (docs/DISTRIBUTED.md).

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Value, json};

use super::backend::{BATCH, Backend};
use crate::bm25::Bm25;

/// How deep the cluster's list is at first for a first stage that keeps `depth` papers.
pub fn window(depth: usize) -> usize {
    depth.saturating_mul(2).saturating_add(50)
}

/// The deepest it is read when the exact list is not yet proven complete:
/// where many papers score within a few percent of each other, the proof
/// would need thousands of papers' term vectors per query, so it stops at
/// four times the first window (and OpenSearch's `max_result_window`).
pub(crate) fn max_window(depth: usize) -> usize {
    window(depth).saturating_mul(4).min(super::backend::MAX_WINDOW)
}

/// The index's N and the document frequency of each of `terms` (global,
/// whatever the shards), in one request (none for no terms): what
/// [`crate::evidence::EvidenceQuery::with_stats`] needs.
pub(crate) fn doc_freqs(backend: &Backend, terms: &[String]) -> anyhow::Result<(u64, HashMap<String, u64>)> {
    if terms.is_empty() {
        return Ok((0, HashMap::new()));
    }
    let filters: serde_json::Map<String, Value> =
        terms.iter().enumerate().map(|(i, t)| (format!("t{i}"), json!({"term": {"text": t}}))).collect();
    let body = json!({"size": 0, "track_total_hits": true, "aggs": {"df": {"filters": {"filters": filters}}}});
    let answer = backend.search_answer(&body)?;
    let num_docs = answer["hits"]["total"]["value"].as_u64().unwrap_or(0);
    let buckets = &answer["aggregations"]["df"]["buckets"];
    let df = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), buckets[format!("t{i}")]["doc_count"].as_u64().unwrap_or(0)))
        .collect();
    Ok((num_docs, df))
}

/// The global statistics of one query's terms.
pub struct Exact {
    bm25: Bm25,
    num_docs: u64,
    avgdl: f64,
    /// (term, count in the query, df), in query order.
    terms: Vec<(String, u32, u64)>,
    /// Scores computed so far in this search (the pool is scored twice).
    known: RefCell<HashMap<String, f64>>,
}

impl Exact {
    /// Reads N, Σ doc_len and each term's df in one request.
    pub fn new(backend: &Backend, terms: &[(String, u32)]) -> anyhow::Result<Exact> {
        let filters: serde_json::Map<String, Value> =
            terms.iter().enumerate().map(|(i, (t, _))| (format!("t{i}"), json!({"term": {"text": t}}))).collect();
        let mut aggs = json!({"len": {"sum": {"field": "doc_len"}}});
        if !filters.is_empty() {
            aggs["df"] = json!({"filters": {"filters": filters}});
        }
        let answer = backend.search_answer(&json!({"size": 0, "track_total_hits": true, "aggs": aggs}))?;
        let num_docs = answer["hits"]["total"]["value"].as_u64().unwrap_or(0);
        let total_len = answer["aggregations"]["len"]["value"].as_f64().unwrap_or(0.0);
        let avgdl = if num_docs == 0 { 0.0 } else { total_len / num_docs as f64 };
        let buckets = &answer["aggregations"]["df"]["buckets"];
        let terms = terms
            .iter()
            .enumerate()
            .map(|(i, (t, c))| (t.clone(), *c, buckets[format!("t{i}")]["doc_count"].as_u64().unwrap_or(0)))
            .collect();
        let meta = backend.meta();
        Ok(Exact { bm25: Bm25 { k1: meta.k1, b: meta.b }, num_docs, avgdl, terms, known: RefCell::default() })
    }

    /// The exact score of each of `docs` (id → stored doc_len), from their term vectors.
    pub fn scores(&self, backend: &Backend, docs: &[(String, u32)]) -> anyhow::Result<HashMap<String, f64>> {
        let weights: Vec<_> = self
            .terms
            .iter()
            .map(|(t, count, df)| (t.as_str(), self.bm25.weight(self.num_docs, self.avgdl, *df, *count)))
            .collect();
        let mut out = HashMap::with_capacity(docs.len());
        let known = self.known.borrow();
        let docs: Vec<(String, u32)> = docs
            .iter()
            .filter(|(id, _)| match known.get(id) {
                Some(&s) => {
                    out.insert(id.clone(), s);
                    false
                }
                None => true,
            })
            .cloned()
            .collect();
        drop(known);
        for batch in docs.chunks(BATCH) {
            let ids: Vec<&str> = batch.iter().map(|(id, _)| id.as_str()).collect();
            let body = json!({"ids": ids, "parameters": {"fields": ["text"], "positions": false, "offsets": false,
                "payloads": false, "term_statistics": false, "field_statistics": false}});
            let answer = backend.post(&format!("/{}/_mtermvectors", backend.index()), &body)?;
            let vectors: HashMap<&str, &Value> = answer["docs"]
                .as_array()
                .map(|d| {
                    d.iter().filter_map(|v| Some((v["_id"].as_str()?, &v["term_vectors"]["text"]["terms"]))).collect()
                })
                .unwrap_or_default();
            for (id, doc_len) in batch {
                let Some(tv) = vectors.get(id.as_str()) else { continue };
                let mut score = 0.0;
                for (term, weight) in &weights {
                    if let Some(tf) = tv[*term]["term_freq"].as_u64() {
                        score += weight.score(u32::try_from(tf).unwrap_or(u32::MAX), *doc_len);
                    }
                }
                out.insert(id.clone(), score);
                self.known.borrow_mut().insert(id.clone(), score);
            }
        }
        Ok(out)
    }
}
