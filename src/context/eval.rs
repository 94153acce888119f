//! `eval-citations`: the citation check measured on SciFact claims.
//!
//! Each claim with evidence becomes a one-sentence answer `CLAIM [1]`,
//! checked by [`verify`] against a one-source pack citing, in turn,
//! (a) its gold abstract (the evidence document with the smallest id),
//! (b) the highest-ranked BM25 hit for the claim (`search`, no walk) that
//! is neither an evidence document nor one the claim cites — a topically
//! close wrong citation — and (c) a random abstract of the sentence file
//! other than those (SplitMix64 seeded by `seed` and the claim id). The
//! result is the share of each judged *supported*.
//!
//! `tune` chooses the weights on the given claims instead: over a grid of
//! the four weights summing to 1 (step 0.1), the threshold is the highest at which
//! at least `target_gold` of (a) are supported; the weights with the
//! fewest (b), then (c), supported win (`threshold_only`: the given weights,
//! the threshold alone chosen so).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::{PackSource, SupportParams, verify};
use crate::evidence::for_each_line;
use crate::search::{HitParts, SearchParams, SearchRequest, search};
use crate::store::Store;

/// How `eval-citations` runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CitationEvalOptions {
    pub params: SupportParams,
    /// Choose the weights and threshold on these claims instead of using `params`'.
    pub tune: bool,
    /// With `tune`: keep `params`' weights and choose the threshold only.
    pub threshold_only: bool,
    /// The share of (a) the tuned threshold keeps supported.
    pub target_gold: f64,
    pub seed: u64,
}

/// The result of `eval-citations`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitationEval {
    /// Claims measured (with evidence, gold abstract in the index).
    pub claims: usize,
    /// Claims with evidence left out (gold abstract not in the index, or no wrong hit).
    pub skipped: usize,
    /// The parameters the shares were measured with (tuned or given).
    pub params: SupportParams,
    pub tuned: bool,
    /// Share of (a) gold citations judged supported.
    pub gold_supported: f64,
    /// Share of (b) top non-gold BM25 hits judged supported.
    pub neighbour_supported: f64,
    /// Share of (c) random abstracts judged supported.
    pub random_supported: f64,
}

#[derive(Deserialize)]
struct Claim {
    id: u64,
    claim: String,
    #[serde(default)]
    evidence: HashMap<String, serde_json::Value>,
    #[serde(default)]
    cited_doc_ids: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct DocId {
    doc_id: serde_json::Value,
}

/// The four features of one citation.
type Features = [f64; 4];

/// Measures (or tunes) the citation check on `claims` over `store` (an index of the SciFact corpus).
pub fn eval_citations(
    store: &Store,
    claims: &Path,
    sentences: &Path,
    options: &CitationEvalOptions,
) -> anyhow::Result<CitationEval> {
    let mut pool: Vec<String> = Vec::new();
    for_each_line(sentences, |line, at| {
        let d: DocId = serde_json::from_str(line).with_context(|| format!("{at}: no doc_id"))?;
        pool.push(id_text(&d.doc_id));
        Ok(())
    })?;
    if pool.is_empty() {
        anyhow::bail!("{}: no abstracts", sentences.display());
    }
    let mut triples: Vec<[Features; 3]> = Vec::new();
    let mut skipped = 0;
    for_each_line(claims, |line, at| {
        let claim: Claim = serde_json::from_str(line).with_context(|| format!("{at}: not a claim"))?;
        if claim.evidence.is_empty() {
            return Ok(());
        }
        match claim_triple(store, &claim, &pool, options)? {
            Some(t) => triples.push(t),
            None => skipped += 1,
        }
        Ok(())
    })?;
    let params = if options.tune { tune(&triples, options) } else { options.params };
    let share = |k: usize| {
        let n = triples.iter().filter(|t| params.score(t[k]) >= params.threshold).count();
        if triples.is_empty() { 0.0 } else { n as f64 / triples.len() as f64 }
    };
    Ok(CitationEval {
        claims: triples.len(),
        skipped,
        params,
        tuned: options.tune,
        gold_supported: share(0),
        neighbour_supported: share(1),
        random_supported: share(2),
    })
}

/// The features of the claim citing (a), (b) and (c); `None` when one cannot be had.
fn claim_triple(
    store: &Store,
    claim: &Claim,
    pool: &[String],
    options: &CitationEvalOptions,
) -> anyhow::Result<Option<[Features; 3]>> {
    let mut gold: Vec<&String> = claim.evidence.keys().collect();
    gold.sort_by_key(|d| (d.len(), d.as_str()));
    let Some(gold_id) = store.resolve(gold[0])? else { return Ok(None) };
    let mut avoid: HashSet<String> = HashSet::new();
    for d in claim.evidence.keys().cloned().chain(claim.cited_doc_ids.iter().map(id_text)) {
        avoid.insert(store.resolve(&d)?.unwrap_or(d));
    }
    let params = SearchParams { hops: 0, ..SearchParams::default() };
    let request =
        SearchRequest { limit: Some(20), parts: HitParts::Scores, ..SearchRequest::new(claim.claim.as_str(), params) };
    let result = search(store, &request, None)?;
    let Some(neighbour) = result.ranked.into_iter().map(|h| h.id).find(|id| !avoid.contains(id)) else {
        return Ok(None);
    };
    let mut state = options.seed ^ claim.id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let random = loop {
        let pick = &pool[(splitmix64(&mut state) % pool.len() as u64) as usize];
        let id = store.resolve(pick)?.unwrap_or_else(|| pick.clone());
        if !avoid.contains(&id) {
            break id;
        }
    };
    let mut out = [[0.0; 4]; 3];
    for (slot, id) in out.iter_mut().zip([gold_id, neighbour, random]) {
        let answer = format!("{} [1]", claim.claim);
        let v = verify(store, &answer, &[PackSource { number: 1, id }], &options.params)?;
        if let Some(s) = v.checks.first().and_then(|c| c.support.as_ref()) {
            *slot = [s.ratio, s.sentence_coverage, s.paper_coverage, s.bigram_coverage];
        }
    }
    Ok(Some(out))
}

/// The weights and threshold that keep `target_gold` of (a) supported with the fewest (b), then (c).
fn tune(triples: &[[Features; 3]], options: &CitationEvalOptions) -> SupportParams {
    let mut best: Option<(usize, usize, SupportParams)> = None;
    let w = |n: usize| n as f64 / 10.0;
    let grid = (0..=10).flat_map(|i| (0..=10 - i).flat_map(move |j| (0..=10 - i - j).map(move |k| (i, j, k))));
    let candidates: Vec<SupportParams> = if options.threshold_only {
        vec![options.params]
    } else {
        grid.map(|(i, j, k)| SupportParams {
            w_ratio: w(i),
            w_sentence: w(j),
            w_paper: w(k),
            w_bigram: w(10 - i - j - k),
            ..options.params
        })
        .collect()
    };
    for mut p in candidates {
        let weights = p;
        let score = |f: &Features| weights.score(*f);
        let mut gold: Vec<f64> = triples.iter().map(|t| score(&t[0])).collect();
        gold.sort_by(|a, b| b.total_cmp(a));
        let keep = ((options.target_gold * gold.len() as f64).ceil() as usize).clamp(1, gold.len().max(1));
        p.threshold = gold.get(keep - 1).copied().unwrap_or(0.0);
        let count = |k: usize| triples.iter().filter(|t| score(&t[k]) >= p.threshold).count();
        let (b, c) = (count(1), count(2));
        if best.as_ref().is_none_or(|&(bb, bc, _)| (b, c) < (bb, bc)) {
            best = Some((b, c, p));
        }
    }
    best.map_or(options.params, |(_, _, p)| p)
}

/// A JSON id (number or string) as text.
fn id_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// SplitMix64: the next value of a seeded stream.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_keeps_the_gold_share_and_minimises_the_wrong_ones() {
        // Feature 0 separates gold from neighbours; feature 2 does not.
        let t = |g: f64, n: f64| [[g, 0.0, 0.9, 0.5], [n, 0.0, 0.9, 0.5], [0.0, 0.0, 0.1, 0.0]];
        let triples: Vec<_> = (0..10).map(|i| t(0.6 + i as f64 / 50.0, 0.3)).collect();
        let options = CitationEvalOptions {
            params: SupportParams::default(),
            tune: true,
            threshold_only: false,
            target_gold: 0.85,
            seed: 1,
        };
        let p = tune(&triples, &options);
        let supported = |k: usize| triples.iter().filter(|t| p.score(t[k]) >= p.threshold).count();
        assert_eq!((supported(0), supported(1), supported(2)), (9, 0, 0), "{p:?}");
        assert!(p.w_ratio > 0.0, "{p:?}");
    }

    #[test]
    fn splitmix_is_seeded() {
        let (mut a, mut b) = (7, 7);
        assert_eq!(splitmix64(&mut a), splitmix64(&mut b));
        assert_ne!(splitmix64(&mut a), splitmix64(&mut 8));
    }
}
