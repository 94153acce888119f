//! Measured relevance: judged queries, the trec_eval metrics, and runs.
//!
//! Metrics follow trec_eval's definitions, over a ranking cut at the given
//! depth (a document is relevant when its grade is above 0):
//!
//! ```text
//! nDCG@k   = DCG@k / IDCG@k,  DCG@k = Σ_{i ≤ k} grade_i / log2(i + 1),
//!            IDCG from the qrels' grades sorted descending (0 when nothing is relevant)
//! Recall@k = |relevant ∩ top k| / |relevant|
//! MRR@k    = 1 / rank of the first relevant document within k, else 0
//! MAP@k    = Σ_{i ≤ k, i relevant} Precision@i / |relevant|
//! ```
//!
//! Averages are over every judged query in the qrels (as BEIR reports): a
//! judged query that is missing from the query file or returns nothing
//! counts 0.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use serde::Serialize;

use crate::embed::SemanticIndex;
use crate::fields::{FieldError, object, req_str};
use crate::search::{Feedback, HitParts, SearchRequest, search};
use crate::store::Store;

/// The metrics `eval` reports, by name.
pub const METRICS: [&str; 4] = ["ndcg@10", "recall@100", "mrr@10", "map@100"];

/// Judgments: query id → document id → grade.
pub type Qrels = BTreeMap<String, HashMap<String, i32>>;

/// One query of a query file.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub id: String,
    pub text: String,
}

/// Reads BEIR `queries.jsonl`: one `{"_id", "text"}` per line (other keys ignored).
pub fn read_queries(path: &Path) -> anyhow::Result<Vec<Query>> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        let parse = || -> Result<Query, FieldError> {
            let v = serde_json::from_str(line).map_err(|e| (None, format!("malformed JSON: {e}")))?;
            let obj = object(v)?;
            let id = match obj.get("_id") {
                Some(serde_json::Value::Number(n)) => n.to_string(),
                _ => req_str(&obj, "_id")?,
            };
            let text = crate::fields::opt_str(&obj, "text")?;
            Ok(Query { id, text })
        };
        let q = parse().map_err(|(field, msg)| match field {
            Some(f) => anyhow::anyhow!("{}:{}: field `{f}`: {msg}", path.display(), i + 1),
            None => anyhow::anyhow!("{}:{}: {msg}", path.display(), i + 1),
        })?;
        out.push(q);
    }
    Ok(out)
}

/// Reads qrels: BEIR TSV `query-id corpus-id score` (header optional) or
/// TREC `qid iter docid rel`, whitespace-separated.
pub fn read_qrels(path: &Path) -> anyhow::Result<Qrels> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut qrels = Qrels::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let (qid, doc, grade) = match fields.as_slice() {
            [q, d, g] => (q, d, g),
            [q, _, d, g] => (q, d, g),
            _ => anyhow::bail!(
                "{}:{}: expected `query-id corpus-id score` or `qid iter docid rel`, got {} fields",
                path.display(),
                i + 1,
                fields.len()
            ),
        };
        let Ok(grade) = grade.parse::<i32>() else {
            if i == 0 {
                continue; // a header
            }
            anyhow::bail!("{}:{}: the relevance grade `{grade}` is not an integer", path.display(), i + 1);
        };
        qrels.entry(qid.to_string()).or_default().insert(doc.to_string(), grade);
    }
    anyhow::ensure!(!qrels.is_empty(), "{} holds no judgments", path.display());
    Ok(qrels)
}

/// nDCG at depth `k` of `ranked` (document ids, best first) against `judged`.
pub fn ndcg(ranked: &[String], judged: &HashMap<String, i32>, k: usize) -> f64 {
    let dcg: f64 = ranked.iter().take(k).enumerate().map(|(i, d)| gain(judged, d) / ((i + 2) as f64).log2()).sum();
    let mut ideal: Vec<f64> = judged.values().filter(|&&g| g > 0).map(|&g| g as f64).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal.iter().take(k).enumerate().map(|(i, g)| g / ((i + 2) as f64).log2()).sum();
    if idcg > 0.0 { dcg / idcg } else { 0.0 }
}

/// Recall at depth `k`.
pub fn recall(ranked: &[String], judged: &HashMap<String, i32>, k: usize) -> f64 {
    let relevant = judged.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    ranked.iter().take(k).filter(|d| gain(judged, d) > 0.0).count() as f64 / relevant as f64
}

/// Reciprocal rank of the first relevant document within `k`.
pub fn mrr(ranked: &[String], judged: &HashMap<String, i32>, k: usize) -> f64 {
    ranked.iter().take(k).position(|d| gain(judged, d) > 0.0).map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Average precision at depth `k`.
pub(crate) fn average_precision(ranked: &[String], judged: &HashMap<String, i32>, k: usize) -> f64 {
    let relevant = judged.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let mut hits = 0;
    let mut sum = 0.0;
    for (i, d) in ranked.iter().take(k).enumerate() {
        if gain(judged, d) > 0.0 {
            hits += 1;
            sum += hits as f64 / (i + 1) as f64;
        }
    }
    sum / relevant as f64
}

fn gain(judged: &HashMap<String, i32>, doc: &str) -> f64 {
    judged.get(doc).map_or(0.0, |&g| g.max(0) as f64)
}

/// The four figures `eval` reports, for one query or averaged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Metrics {
    #[serde(rename = "ndcg@10")]
    pub ndcg10: f64,
    #[serde(rename = "recall@100")]
    pub recall100: f64,
    #[serde(rename = "mrr@10")]
    pub mrr10: f64,
    #[serde(rename = "map@100")]
    pub map100: f64,
}

impl Metrics {
    /// The figures of one ranking against its judgments.
    pub fn of(ranked: &[String], judged: &HashMap<String, i32>) -> Metrics {
        Metrics {
            ndcg10: ndcg(ranked, judged, 10),
            recall100: recall(ranked, judged, 100),
            mrr10: mrr(ranked, judged, 10),
            map100: average_precision(ranked, judged, 100),
        }
    }

    /// The mean of each figure (all zero for no queries).
    pub fn mean<'a>(all: impl IntoIterator<Item = &'a Metrics>) -> Metrics {
        let (mut sum, mut n) = (Metrics::default(), 0usize);
        for m in all {
            sum.ndcg10 += m.ndcg10;
            sum.recall100 += m.recall100;
            sum.mrr10 += m.mrr10;
            sum.map100 += m.map100;
            n += 1;
        }
        let n = n.max(1) as f64;
        Metrics { ndcg10: sum.ndcg10 / n, recall100: sum.recall100 / n, mrr10: sum.mrr10 / n, map100: sum.map100 / n }
    }
}

/// One judged query's figures.
#[derive(Debug, Clone, Serialize)]
pub struct QueryScores {
    pub qid: String,
    #[serde(flatten)]
    pub metrics: Metrics,
    /// Judged relevant documents, and how many results the search returned.
    pub relevant: usize,
    pub retrieved: usize,
}

/// The averages over every judged query.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// Judged queries (the denominator of every average).
    pub queries: usize,
    /// Queries in the file without judgments (not run).
    pub unjudged: usize,
    /// Judged queries missing from the query file (counted as 0).
    pub missing: usize,
    #[serde(flatten)]
    pub metrics: Metrics,
    pub wall_time_s: f64,
    #[serde(skip)]
    pub per_query: Vec<QueryScores>,
}

/// Ranked document ids with their final scores for one search, cut at the
/// request's limit: the ids and scores only are computed ([`HitParts::Scores`]:
/// no paper's details read, no snippet built).
pub fn ranked_ids(
    store: &Store,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
) -> anyhow::Result<Vec<(String, f64)>> {
    let r = search(store, &SearchRequest { parts: HitParts::Scores, ..request.clone() }, semantic)?;
    Ok(r.ranked.into_iter().map(|h| (h.id, h.final_score)).collect())
}

/// [`ranked_ids`] of each of `queries` (each one's text as `request`'s
/// query), handed to `each` in the queries' order. With `threads` above 1
/// that many queries are ranked at once, each thread past the first on its
/// own connection to `store`'s file; the rankings are the ones a single
/// thread gives.
pub fn rank_each(
    store: &Store,
    queries: &[Query],
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
    threads: usize,
    each: impl FnMut(&Query, Vec<(String, f64)>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let rank = |store: &Store, q: &Query| ranked_ids(store, &request.with_query(&q.text), semantic);
    on_threads(store, queries, threads, rank, each)
}

/// `work` on each of `items` with `threads` threads, each past the first on
/// its own connection to `store`'s file, the results handed to `each` in the
/// items' order (the first error in that order ends it).
fn on_threads<T: Sync, R: Send>(
    store: &Store,
    items: &[T],
    threads: usize,
    work: impl Fn(&Store, &T) -> anyhow::Result<R> + Sync,
    mut each: impl FnMut(&T, R) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    // No more threads than batches of work.
    let threads = threads.clamp(1, items.len().div_ceil(crate::in_order::BATCH).max(1));
    if threads == 1 {
        return items.iter().try_for_each(|item| each(item, work(store, item)?));
    }
    let others = (1..threads).map(|_| Store::open(store.path())).collect::<anyhow::Result<Vec<_>>>()?;
    crate::in_order::map_in_order(items, |item| work(store, item), others, |own, item| work(own, item), each)
}

/// Runs every judged query through [`search`] as `request` says (its query
/// replaced by each judged query's text; its limit is the ranking's depth)
/// and scores it. `threads` queries are ranked at once, as in
/// [`rank_each`]; the report is the same whatever the number.
pub fn evaluate(
    store: &Store,
    queries: &[Query],
    qrels: &Qrels,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
    threads: usize,
) -> anyhow::Result<EvalReport> {
    let rank = |store: &Store, (text, judged): &(&str, &Judged)| -> anyhow::Result<Runs> {
        let ranked = ranked_ids(store, &request.with_query(*text), semantic)?.into_iter().map(|(id, _)| id).collect();
        Ok(vec![(ranked, (*judged).clone())])
    };
    let rank_all = |work: &[(&str, &Judged)], sink: &mut dyn FnMut(Runs) -> anyhow::Result<()>| {
        on_threads(store, work, threads, rank, |_, runs| sink(runs))
    };
    let reports = score_queries(&|d| store.resolve(d), queries, qrels, 1, rank_all)?;
    let [report] = <[EvalReport; 1]>::try_from(reports).expect("one variant");
    Ok(report)
}

/// [`evaluate`] over any ranking: `resolve` maps a judged id to the
/// index's id (an alias lookup), `rank` answers a query's text with ids
/// best first (another backend's search, such as [`crate::opensearch`]).
pub fn evaluate_with(
    queries: &[Query],
    qrels: &Qrels,
    resolve: &dyn Fn(&str) -> anyhow::Result<Option<String>>,
    mut rank: impl FnMut(&str) -> anyhow::Result<Vec<String>>,
) -> anyhow::Result<EvalReport> {
    let rank_all = |work: &[(&str, &Judged)], sink: &mut dyn FnMut(Runs) -> anyhow::Result<()>| {
        work.iter().try_for_each(|(text, judged)| sink(vec![(rank(text)?, (*judged).clone())]))
    };
    let [report] =
        <[EvalReport; 1]>::try_from(score_queries(resolve, queries, qrels, 1, rank_all)?).expect("one variant");
    Ok(report)
}

/// One query's judgments, by the index's ids.
type Judged = HashMap<String, i32>;

/// A query's ranking in each variant, with the judgments to score it against.
type Runs = Vec<(Vec<String>, Judged)>;

/// The residual rankings of `eval --feedback first-relevant`, with and without feedback.
#[derive(Debug, Clone, Serialize)]
pub struct FeedbackReport {
    /// With the marked paper as a favorite.
    pub with: EvalReport,
    /// Without feedback (the same residual collection).
    pub without: EvalReport,
    /// Queries with a relevant paper in their top 10, which got a favorite.
    pub marked: usize,
}

/// Simulated feedback, scored the standard way: for each judged query, the
/// highest-ranked relevant paper of the top 10 (of the search without
/// feedback) becomes the one favorite of a second search; both rankings are
/// scored as *residual* rankings, that paper removed from the ranking and the
/// judgments. A query with no relevant paper in its top 10 keeps its ranking
/// in both. `request.feedback.params` says how the favorite is used; each
/// ranking is cut at the request's limit after the removal. `threads` as in
/// [`evaluate`].
pub fn evaluate_feedback(
    store: &Store,
    queries: &[Query],
    qrels: &Qrels,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
    threads: usize,
) -> anyhow::Result<FeedbackReport> {
    let limit = request.limit.unwrap_or(usize::MAX);
    let marked = AtomicUsize::new(0);
    let rank = |store: &Store, (text, judged): &(&str, &Judged)| -> anyhow::Result<Runs> {
        let deeper = SearchRequest { limit: Some(limit.saturating_add(1)), ..request.with_query(*text) };
        let ids = |r: &SearchRequest| -> anyhow::Result<Vec<String>> {
            Ok(ranked_ids(store, r, semantic)?.into_iter().map(|(id, _)| id).collect())
        };
        let without = ids(&SearchRequest { feedback: Default::default(), ..deeper.clone() })?;
        let first = without.iter().take(10).find(|id| judged.get(*id).is_some_and(|&g| g > 0)).cloned();
        let Some(favorite) = first else {
            let cut: Vec<String> = without.into_iter().take(limit).collect();
            return Ok(vec![(cut.clone(), (*judged).clone()), (cut, (*judged).clone())]);
        };
        marked.fetch_add(1, Ordering::Relaxed);
        let mut with_request = deeper;
        with_request.feedback = Feedback { favorites: vec![favorite.clone()], ..request.feedback.clone() };
        let with = ids(&with_request)?;
        let residual =
            |r: Vec<String>| -> Vec<String> { r.into_iter().filter(|id| id != &favorite).take(limit).collect() };
        let mut rest = (*judged).clone();
        rest.remove(&favorite);
        Ok(vec![(residual(with), rest.clone()), (residual(without), rest)])
    };
    let rank_all = |work: &[(&str, &Judged)], sink: &mut dyn FnMut(Runs) -> anyhow::Result<()>| {
        on_threads(store, work, threads, rank, |_, runs| sink(runs))
    };
    let reports = score_queries(&|d| store.resolve(d), queries, qrels, 2, rank_all)?;
    let [with, without] = <[EvalReport; 2]>::try_from(reports).expect("two variants");
    Ok(FeedbackReport { with, without, marked: marked.into_inner() })
}

/// Scores `variants` rankings per judged query: `rank_all` hands to its
/// sink, for each judged query in the query file (its text and its
/// judgments by the index's ids, in the judgments' order) and in that
/// order, each variant's ranking and the judgments to score it against;
/// each is scored as it comes, so no ranking is kept. A judged query
/// missing from the query file scores 0 in every variant.
fn score_queries(
    resolve: &dyn Fn(&str) -> anyhow::Result<Option<String>>,
    queries: &[Query],
    qrels: &Qrels,
    variants: usize,
    rank_all: impl FnOnce(&[(&str, &Judged)], &mut dyn FnMut(Runs) -> anyhow::Result<()>) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<EvalReport>> {
    let started = std::time::Instant::now();
    let texts: HashMap<&str, &str> = queries.iter().map(|q| (q.id.as_str(), q.text.as_str())).collect();
    let unjudged = queries.iter().filter(|q| !qrels.contains_key(&q.id)).count();
    // Judged document ids may be aliases of what the index calls them.
    let judged: Vec<(&String, Judged)> = qrels
        .iter()
        .map(|(qid, judged)| {
            let judged = judged
                .iter()
                .map(|(d, &g)| Ok((resolve(d)?.unwrap_or_else(|| d.clone()), g)))
                .collect::<anyhow::Result<_>>()?;
            Ok((qid, judged))
        })
        .collect::<anyhow::Result<_>>()?;
    let (places, work): (Vec<usize>, Vec<(&str, &Judged)>) =
        judged.iter().enumerate().filter_map(|(place, (qid, j))| Some((place, (*texts.get(qid.as_str())?, j)))).unzip();
    let figures = |qid: &String, runs: Runs| -> Vec<QueryScores> {
        runs.into_iter()
            .map(|(ranked, judged)| QueryScores {
                qid: qid.clone(),
                metrics: Metrics::of(&ranked, &judged),
                relevant: judged.values().filter(|&&g| g > 0).count(),
                retrieved: ranked.len(),
            })
            .collect()
    };
    // Each judged query's figures in each variant, by its place in `judged`.
    let mut scored: Vec<Option<Vec<QueryScores>>> = vec![None; judged.len()];
    let mut handed = 0;
    rank_all(&work, &mut |runs| {
        let place = *places.get(handed).context("more rankings than judged queries")?;
        handed += 1;
        scored[place] = Some(figures(judged[place].0, runs));
        Ok(())
    })?;
    anyhow::ensure!(handed == work.len(), "{handed} rankings for {} judged queries", work.len());
    let mut per_query: Vec<Vec<QueryScores>> = vec![Vec::with_capacity(qrels.len()); variants];
    let mut missing = 0;
    for ((qid, judged), figures_of) in judged.iter().zip(scored) {
        let each = figures_of.unwrap_or_else(|| {
            missing += 1;
            figures(qid, vec![(Vec::new(), judged.clone()); variants])
        });
        for (scores, q) in per_query.iter_mut().zip(each) {
            scores.push(q);
        }
    }
    let wall_time_s = started.elapsed().as_secs_f64();
    Ok(per_query
        .into_iter()
        .map(|per_query| EvalReport {
            queries: per_query.len(),
            unjudged,
            missing,
            metrics: Metrics::mean(per_query.iter().map(|q| &q.metrics)),
            wall_time_s,
            per_query,
        })
        .collect())
}

/// Scores strictly decreasing in ranking order, as TREC tools need: a score
/// not below its predecessor becomes the next float below it.
pub fn strictly_decreasing(scores: &mut [f64]) {
    for i in 1..scores.len() {
        if scores[i] >= scores[i - 1] {
            scores[i] = scores[i - 1].next_down();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn judged(v: &[(&str, i32)]) -> HashMap<String, i32> {
        v.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    #[test]
    fn perfect_ranking_scores_one() {
        let j = judged(&[("a", 2), ("b", 1)]);
        let r = ids(&["a", "b", "c"]);
        assert!((ndcg(&r, &j, 10) - 1.0).abs() < 1e-12);
        assert_eq!(recall(&r, &j, 100), 1.0);
        assert_eq!(mrr(&r, &j, 10), 1.0);
        assert_eq!(average_precision(&r, &j, 100), 1.0);
    }

    #[test]
    fn nothing_relevant_scores_zero() {
        let j = judged(&[("x", 1), ("n", 0)]);
        let r = ids(&["a", "b", "n"]);
        assert_eq!((ndcg(&r, &j, 10), recall(&r, &j, 100), mrr(&r, &j, 10)), (0.0, 0.0, 0.0));
        assert_eq!(average_precision(&r, &j, 100), 0.0);
        // No relevant document judged at all: 0, not NaN.
        let none = judged(&[("n", 0)]);
        assert_eq!(ndcg(&r, &none, 10), 0.0);
        assert_eq!(recall(&r, &none, 100), 0.0);
    }

    #[test]
    fn hand_computed_partial_case() {
        // Relevant: a (grade 3), c (grade 1), e (grade 2, not retrieved).
        let j = judged(&[("a", 3), ("c", 1), ("e", 2), ("b", 0)]);
        let r = ids(&["b", "a", "d", "c"]);
        // DCG = 3/log2(3) + 1/log2(5); IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4).
        let dcg = 3.0 / 3f64.log2() + 1.0 / 5f64.log2();
        let idcg = 3.0 + 2.0 / 3f64.log2() + 0.5;
        assert!((ndcg(&r, &j, 10) - dcg / idcg).abs() < 1e-12);
        assert!((ndcg(&r, &j, 10) - 0.48793).abs() < 1e-5, "{}", ndcg(&r, &j, 10));
        assert!((recall(&r, &j, 100) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(mrr(&r, &j, 10), 0.5);
        // AP = (1/2 + 2/4) / 3.
        assert!((average_precision(&r, &j, 100) - 1.0 / 3.0).abs() < 1e-12);
        // Depth cuts: at depth 1 nothing is found.
        assert_eq!(mrr(&r, &j, 1), 0.0);
        assert_eq!(recall(&r, &j, 1), 0.0);
    }

    #[test]
    fn ties_are_nudged_apart_in_ranking_order() {
        let mut s = vec![0.9, 0.5, 0.5, 0.5, 0.2, 0.2];
        strictly_decreasing(&mut s);
        assert!(s.windows(2).all(|w| w[0] > w[1]), "{s:?}");
        assert_eq!(s[0], 0.9);
        assert_eq!(s[1], 0.5);
        assert!(s[2] < 0.5 && s[2] > 0.4999999);
    }

    #[test]
    fn qrels_with_and_without_header_and_trec_form() {
        let dir = tempfile::tempdir().unwrap();
        let beir = dir.path().join("q.tsv");
        std::fs::write(&beir, "query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t2\n2\td3\t0\n").unwrap();
        let q = read_qrels(&beir).unwrap();
        assert_eq!(q.len(), 2);
        assert_eq!(q["1"]["d2"], 2);
        let trec = dir.path().join("t.txt");
        std::fs::write(&trec, "1 0 d1 1\n1 0 d2 2\n").unwrap();
        assert_eq!(read_qrels(&trec).unwrap()["1"].len(), 2);
        let bad = dir.path().join("b.tsv");
        std::fs::write(&bad, "1\td1\t1\n1\td2\tx\n").unwrap();
        let e = read_qrels(&bad).unwrap_err().to_string();
        assert!(e.contains("b.tsv:2"), "{e}");
    }
}
