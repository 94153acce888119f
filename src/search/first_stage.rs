//! The first stage: the ranked list whose head seeds the walk and whose
//! first `pool` papers join the merge, and a first-stage score for any paper.
//!
//! **BM25** (`--mode bm25`, the default): every paper matching a query term
//! gets `Σ over the query's terms of BM25(term, paper)` ([`bm25_scores`]);
//! the list is the papers with a positive score, best first, equal scores
//! by paper id. Only the list's papers are scored when nothing needs every
//! score ([`super::lexical`]).
//!
//! **Semantic first stages** (`--mode dense|hybrid`, [`SemanticParams`]):
//!
//! ```text
//! dense          the top K papers by cosine of their stored vector with the query's
//!                (K = --dense-k, at least the pool), exact, over every stored vector
//! hybrid rrf     BM25 top K ∪ dense top K, by Σ 1/(60 + rank) over the two lists
//! hybrid minmax  BM25 top K ∪ dense top K, by 0.5·(bm25 − min)/(max − min)
//!                + 0.5·(cos − min)/(max − min), min and max over that union
//! rerank N       the first N of that list rescored: (1 − λ)·first/max first + λ·(best chunk
//!                cosine); papers below N get the lowest chunk cosine of the N
//! ```
//!
//! and `fused_score` = that first-stage score / its max over the merged set
//! takes the place of `bm25_norm` in `final_score` (a paper the walk reaches
//! gets its own first-stage score: its cosine, its min-max blend, or 0 in RRF
//! when it is in neither list). `bm25_score` is still each paper's BM25, and
//! `dense_score` its cosine. Ties in a semantic list go by doc id.

use super::filter::Gate;
use super::lexical::Lexical;
use super::request::{Fusion, Mode, RRF_K, SearchRequest, SemanticParams};
use crate::bm25::query_terms;
use crate::candidate::{Candidate, DocScores, top_k};
use crate::embed::SemanticIndex;
use crate::embed::quant::Estimates;
use crate::store::Store;

/// Papers by id: their doc id and year.
type DocsAndYears = std::collections::HashMap<String, (i64, Option<i32>)>;

/// BM25 scores of every paper that matches at least one query term, by doc id.
pub fn bm25_scores(store: &Store, query: &str) -> anyhow::Result<DocScores> {
    let analyzer = store.meta()?.analyzer()?;
    bm25_term_scores(store, &query_terms(analyzer, query))
}

/// [`bm25_scores`] for terms already analysed, each with its query count
/// (`related --method text` builds its query from a paper's top terms).
pub(crate) fn bm25_term_scores(store: &Store, terms: &[(String, u32)]) -> anyhow::Result<DocScores> {
    store.bm25_all(terms)
}

/// The first stage's result: a ranked list and a score for any paper.
pub(super) struct FirstStage {
    pub mode: Mode,
    /// Best first: (paper id, candidate), at least the pool's depth when there are that many.
    pub list: Vec<(String, Candidate)>,
    /// First-stage scores of the papers a semantic stage scored (the list and beyond).
    scores: DocScores,
    /// How a paper outside `scores` is scored (semantic modes).
    outside: Outside,
    /// Best-chunk cosine of the reranked papers.
    pub rerank: DocScores,
    /// Every indexed paper's cosine (semantic modes): exact for the papers
    /// the dense list, the fusion and the rerank scored, else estimated
    /// from its int8 codes.
    pub cos: Option<Estimates>,
    /// The doc id and year of every paper whose id the list read (the
    /// list's and a few tied at its cut), so the merge need not look them up by id.
    pub papers: DocsAndYears,
}

/// The first-stage score of a paper no list holds.
enum Outside {
    /// Its BM25 score (bm25 mode).
    Bm25,
    /// Its cosine (dense mode), blended when reranked.
    Dense { rerank: Option<(f64, f64, f64)> },
    /// 0 (RRF: in neither list), blended when reranked.
    Zero { rerank: Option<(f64, f64, f64)> },
    /// Its min-max blend with the union's ranges, clamped to [0, 1], blended when reranked.
    Minmax { bm25: (f64, f64), cos: (f64, f64), rerank: Option<(f64, f64, f64)> },
}

impl FirstStage {
    /// The first stage `request` asks for, `depth` papers deep (at least,
    /// when there are that many). `bm25` gives the papers' BM25 scores; a
    /// dense or hybrid stage needs the loaded `semantic` index. Only papers
    /// through `gate` (the request's filter) are listed; a filtered query
    /// without free text lists the newest papers that pass, in any mode.
    pub fn run(
        store: &Store,
        request: &SearchRequest,
        bm25: &Lexical,
        semantic: Option<&SemanticIndex>,
        depth: usize,
        gate: &mut Gate,
    ) -> anyhow::Result<FirstStage> {
        let only_filters = !gate.is_open() && query_terms(store.meta()?.analyzer()?, &request.query).is_empty();
        if request.semantic.mode == Mode::Bm25 || only_filters {
            let (list, papers) = if only_filters {
                with_ids(store, &gate.newest(depth)?)?
            } else {
                bm25_list(store, bm25, depth, gate)?
            };
            return Ok(FirstStage {
                mode: Mode::Bm25,
                list,
                scores: DocScores::default(),
                outside: Outside::Bm25,
                rerank: DocScores::default(),
                papers,
                cos: None,
            });
        }
        let index = semantic.ok_or_else(|| {
            anyhow::anyhow!("--mode {} needs the model and vectors loaded", request.semantic.mode.name())
        })?;
        semantic_stage(store, &request.query, bm25, &request.semantic, index, depth, gate)
    }

    /// The first-stage score of `doc` (its BM25 in bm25 mode).
    pub fn score(&self, doc: i64, bm25: f64, cos: Option<f64>) -> f64 {
        if let Some(&s) = self.scores.get(&doc) {
            return s;
        }
        let (raw, rerank) = match &self.outside {
            Outside::Bm25 => return bm25,
            Outside::Dense { rerank } => (cos.unwrap_or(0.0), rerank),
            Outside::Zero { rerank } => (0.0, rerank),
            Outside::Minmax { bm25: b, cos: c, rerank } => {
                ((0.5 * min_max(bm25, *b) + 0.5 * min_max(cos.unwrap_or(0.0), *c)).clamp(0.0, 1.0), rerank)
            }
        };
        match rerank {
            // (max first-stage score, λ, lowest chunk cosine of the reranked papers)
            Some((max, weight, floor)) => (1.0 - weight) * (raw / max) + weight * floor,
            None => raw,
        }
    }
}

/// The `k` best papers with a positive BM25 score, best first, equal scores
/// by paper id (not doc id: the order a reader sees). The ids are read for
/// every paper scoring at least the `k`-th best ([`Lexical::top`]), not for
/// every match. With a filter, of the papers through `gate`.
fn bm25_list(store: &Store, bm25: &Lexical, k: usize, gate: &mut Gate) -> anyhow::Result<(IdList, DocsAndYears)> {
    let (mut top, papers) = with_ids(store, &bm25.top_through(k, gate)?)?;
    top.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.0.cmp(&b.0)));
    top.truncate(k);
    Ok((top, papers))
}

/// `(x − lo) / (hi − lo)`; 1 when the range is empty (every value equal).
fn min_max(x: f64, (lo, hi): (f64, f64)) -> f64 {
    if hi > lo { (x - lo) / (hi - lo) } else { 1.0 }
}

/// A first-stage list with its papers' ids, best first.
type IdList = Vec<(String, Candidate)>;

/// Reads the paper ids of a list (one statement, ids and years only), in
/// its order; and each of its papers' doc id and year by id.
fn with_ids(store: &Store, list: &[Candidate]) -> anyhow::Result<(IdList, DocsAndYears)> {
    let docs: Vec<i64> = list.iter().map(|c| c.doc).collect();
    let rows = store.ids_by_doc(&docs)?;
    let papers = rows.iter().zip(list).map(|((id, year), c)| (id.clone(), (c.doc, *year))).collect();
    Ok((rows.into_iter().map(|(id, _)| id).zip(list.iter().copied()).collect(), papers))
}

/// All of `list`, in rank order (score descending, ties by doc id).
fn ranked(list: Vec<Candidate>) -> Vec<Candidate> {
    let n = list.len();
    top_k(list, n)
}

/// Two ranked lists fused: the union's fused scores (unsorted), and with
/// min-max the (BM25, cosine) ranges they were normalised by.
pub(crate) struct Fused {
    pub list: Vec<Candidate>,
    pub ranges: Option<((f64, f64), (f64, f64))>,
}

/// Fuses a lexical list and a dense list (each best first) as `fusion` says
/// (the module's table: RRF by rank, or min-max over their union). `lexical_of`
/// gives the lexical scores of the union's members (missing: 0), `cos` one
/// member's cosine. The papers' hybrid first stage and the passages' hybrid
/// search (`search::fulltext`) both fuse here; a list's `doc` is whatever
/// key its caller ranks (a paper's doc id, a passage id).
pub(crate) fn fuse(
    fusion: Fusion,
    lexical: &[Candidate],
    dense: &[Candidate],
    lexical_of: impl FnOnce(&[i64]) -> anyhow::Result<DocScores>,
    cos: impl Fn(i64) -> anyhow::Result<Option<f64>>,
) -> anyhow::Result<Fused> {
    match fusion {
        Fusion::Rrf => {
            let mut fused = DocScores::default();
            for l in [lexical, dense] {
                for (rank, c) in l.iter().enumerate() {
                    *fused.entry(c.doc).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
                }
            }
            let list = fused.into_iter().map(|(doc, score)| Candidate { doc, score }).collect();
            Ok(Fused { list, ranges: None })
        }
        Fusion::Minmax => {
            let mut union: Vec<i64> = lexical.iter().chain(dense).map(|c| c.doc).collect();
            union.sort_unstable();
            union.dedup();
            let scores = lexical_of(&union)?;
            let pairs: Vec<(i64, f64, f64)> = union
                .iter()
                .map(|&d| Ok((d, scores.get(&d).copied().unwrap_or(0.0), cos(d)?.unwrap_or(0.0))))
                .collect::<anyhow::Result<_>>()?;
            let range = |f: fn(&(i64, f64, f64)) -> f64| {
                pairs.iter().map(f).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
            };
            let (b, c) = (range(|t| t.1), range(|t| t.2));
            let list = pairs
                .iter()
                .map(|&(doc, x, y)| Candidate { doc, score: 0.5 * min_max(x, b) + 0.5 * min_max(y, c) })
                .collect();
            Ok(Fused { list, ranges: Some((b, c)) })
        }
    }
}

/// The semantic first stage: dense or hybrid, then the optional rerank.
fn semantic_stage(
    store: &Store,
    query: &str,
    bm25: &Lexical,
    p: &SemanticParams,
    index: &SemanticIndex,
    depth: usize,
    gate: &mut Gate,
) -> anyhow::Result<FirstStage> {
    let qv = index.embed_query(query)?;
    let k = p.dense_k.max(depth);
    let (dense, estimates) = index.docs.search(store, &qv, k)?;
    // The scan scored the dense list's papers exactly, and estimated every
    // other's; a paper the fusion or the rerank asks for is read exactly.
    let estimates = std::cell::RefCell::new(estimates);
    let cos = |doc: i64| -> anyhow::Result<Option<f64>> {
        if estimates.borrow().is_exact(doc) {
            return Ok(estimates.borrow().get(doc).map(f64::from));
        }
        let exact = index.docs.score(store, doc, &qv)?;
        if let Some(s) = exact {
            estimates.borrow_mut().insert_exact(doc, s);
        }
        Ok(exact.map(f64::from))
    };
    let (list, mut outside): (Vec<Candidate>, Outside) = match p.mode {
        Mode::Bm25 => unreachable!("bm25 has no semantic stage"),
        Mode::Dense => (dense, Outside::Dense { rerank: None }),
        Mode::Hybrid => {
            let lexical = bm25.best(k)?;
            let fused = fuse(p.fusion, &lexical, &dense, |union| bm25.scores_of(union), cos)?;
            let outside = match fused.ranges {
                None => Outside::Zero { rerank: None },
                Some((b, c)) => Outside::Minmax { bm25: b, cos: c, rerank: None },
            };
            (fused.list, outside)
        }
    };
    let mut list = ranked(list);
    let mut rerank = DocScores::default();
    if p.rerank > 0 && !list.is_empty() {
        let chunks = index.chunks.as_ref().ok_or_else(|| anyhow::anyhow!("--rerank needs the chunk vectors loaded"))?;
        let max = list[0].score;
        let max = if max > 0.0 { max } else { 1.0 };
        let n = p.rerank.min(list.len());
        for c in &list[..n] {
            // A paper without chunks (one sentence, or none) is its own best chunk.
            let best = match chunks.best(c.doc, &qv) {
                Some((_, s)) => f64::from(s),
                None => cos(c.doc)?.unwrap_or(0.0),
            };
            rerank.insert(c.doc, best);
        }
        let floor = rerank.values().copied().fold(f64::INFINITY, f64::min);
        let w = p.rerank_weight;
        for c in list.iter_mut() {
            let best = rerank.get(&c.doc).copied().unwrap_or(floor);
            c.score = (1.0 - w) * (c.score / max) + w * best;
        }
        let blend = Some((max, w, floor));
        match &mut outside {
            Outside::Dense { rerank } | Outside::Zero { rerank } | Outside::Minmax { rerank, .. } => *rerank = blend,
            Outside::Bm25 => {}
        }
        list = ranked(list);
    }
    let scores: DocScores = list.iter().map(|c| (c.doc, c.score)).collect();
    // The filter applies to the fused list (so a narrow filter may leave fewer than `depth`).
    gate.retain(&mut list, |c| c.doc)?;
    list.truncate(depth);
    let (list, papers) = with_ids(store, &list)?;
    let cos = Some(estimates.into_inner());
    Ok(FirstStage { mode: p.mode, list, scores, outside, rerank, papers, cos })
}
