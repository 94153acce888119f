//! 2-fold cross-validation of the `weighted` graph score's defaults.
//!
//! ```text
//! cargo run --release --example cv -- DB QUERIES QRELS
//! ```
//!
//! Folds are by query-id parity (odd / even). For each fold, the grid point
//! with the best mean nDCG@10 + Recall@100 on the *other* fold is evaluated on
//! this one; the held-out figures are those, averaged over all judged queries.
//! The grid point best over all queries is printed too: it is what the mode's
//! defaults are set to, and its all-queries figures are tuned on the queries
//! they are measured on (the held-out figures are the honest estimate).

use std::collections::HashMap;
use std::path::Path;

use litindex::eval::{QueryScores, evaluate, read_qrels, read_queries};
use litindex::graph::Direction;
use litindex::search::{GraphScore, SearchParams, SearchRequest, Weights};
use litindex::store::Store;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(args.len() == 3, "usage: cv DB QUERIES QRELS");
    let store = Store::open(Path::new(&args[0]))?;
    // The grid runs hundreds of evaluations: keep the file in memory.
    store.conn().pragma_update(None, "mmap_size", 1i64 << 30)?;
    store.conn().pragma_update(None, "cache_size", -65536)?;
    let queries = read_queries(Path::new(&args[1]))?;
    let qrels = read_qrels(Path::new(&args[2]))?;
    let fold = |qid: &str| qid.parse::<u64>().map_or(qid.len() % 2, |n| (n % 2) as usize);

    let mut grid: Vec<SearchParams> = Vec::new();
    for top_k in [10, 20, 30, 50, 100] {
        for pool in [100, 200] {
            for hops in [1, 2] {
                for graph in [0.1, 0.2, 0.3, 0.4, 0.5] {
                    for recency in [0.0, 0.05, 0.1] {
                        grid.push(SearchParams {
                            top_k,
                            hops,
                            direction: Direction::Both,
                            weights: Weights { bm25: 1.0 - graph - recency, graph, recency },
                            pool,
                            graph_score: GraphScore::Weighted,
                            ..SearchParams::default()
                        });
                    }
                }
            }
        }
    }
    let bm25_only = SearchParams {
        hops: 0,
        weights: Weights { bm25: 1.0, graph: 0.0, recency: 0.0 },
        pool: 100,
        ..SearchParams::default()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = |p: &SearchParams| -> anyhow::Result<HashMap<String, QueryScores>> {
        let request = SearchRequest { limit: Some(100), ..SearchRequest::new("", *p) };
        Ok(evaluate(&store, &queries, &qrels, &request, None, threads)?
            .per_query
            .into_iter()
            .map(|q| (q.qid.clone(), q))
            .collect())
    };
    let objective = |scores: &HashMap<String, QueryScores>, f: Option<usize>| -> (f64, f64, f64) {
        let sel: Vec<&QueryScores> = scores.values().filter(|q| f.is_none_or(|f| fold(&q.qid) == f)).collect();
        let n = sel.len().max(1) as f64;
        let ndcg = sel.iter().map(|q| q.metrics.ndcg10).sum::<f64>() / n;
        let recall = sel.iter().map(|q| q.metrics.recall100).sum::<f64>() / n;
        (ndcg + recall, ndcg, recall)
    };

    let base = run(&bm25_only)?;
    let (_, bn, br) = objective(&base, None);
    println!("BM25 alone (top 100): nDCG@10 {bn:.4}  Recall@100 {br:.4}  ({} judged queries)", base.len());

    let results: Vec<(SearchParams, HashMap<String, QueryScores>)> =
        grid.iter().map(|p| Ok((*p, run(p)?))).collect::<anyhow::Result<_>>()?;
    let best_on = |f: Option<usize>| {
        results.iter().max_by(|a, b| objective(&a.1, f).0.total_cmp(&objective(&b.1, f).0)).expect("a non-empty grid")
    };
    let mut held_out: Vec<&QueryScores> = Vec::new();
    for test in [0, 1] {
        let (p, _) = best_on(Some(1 - test));
        let (_, scores) = results.iter().find(|(q, _)| q == p).expect("from the grid");
        let (_, n, r) = objective(scores, Some(test));
        println!(
            "fold {test} ({}): tuned on the other fold: top-k {} hops {} pool {} weights {} -> held-out nDCG@10 {n:.4} Recall@100 {r:.4}",
            if test == 0 { "even qids" } else { "odd qids" },
            p.top_k,
            p.hops,
            p.pool,
            p.weights
        );
        held_out.extend(scores.values().filter(|q| fold(&q.qid) == test));
    }
    let n = held_out.len().max(1) as f64;
    let hn = held_out.iter().map(|q| q.metrics.ndcg10).sum::<f64>() / n;
    let hr = held_out.iter().map(|q| q.metrics.recall100).sum::<f64>() / n;
    println!("held-out (both folds): nDCG@10 {hn:.4} ({:+.4} vs BM25)  Recall@100 {hr:.4} ({:+.4})", hn - bn, hr - br);
    let (p, scores) = best_on(None);
    let (_, an, ar) = objective(scores, None);
    println!(
        "best on all queries (the defaults): top-k {} hops {} weights {} pool {} -> nDCG@10 {an:.4} Recall@100 {ar:.4} (tuned on these queries)",
        p.top_k, p.hops, p.weights, p.pool
    );
    Ok(())
}
