//! The two-pass search in-process over an existing index: per query, the
//! time of `bench`'s search (the default `SearchParams`, by-hops, ids and
//! scores of 20 hits) and of the CLI's default search (what `litindex
//! search` resolves for the index: `weighted` on an index with citation
//! links, snippets for 20 hits); p50 and mean of each, and each query's
//! ranking (id and final score of every shown hit) written to OUT so that
//! two builds can be compared with `diff`. Every query runs once untimed
//! first (warm caches), then once timed.
//!
//! ```sh
//! cargo run --release --example search_time -- DB QUERIES.txt OUT [N] [hops|cli]
//! ```
//!
//! The fifth argument times one of the two searches only (for a profile of it).

use std::io::Write;
use std::time::Instant;

use litindex::search::{DEFAULT_LIMIT, HitParts, SearchChoices, SearchParams, SearchRequest, resolve, search};
use litindex::store::Store;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(args.len() >= 3, "usage: search_time DB QUERIES.txt OUT [N] [hops|cli]");
    let only = args.get(4).map(String::as_str);
    anyhow::ensure!(matches!(only, None | Some("hops" | "cli")), "the fifth argument is hops or cli");
    let store = Store::open(std::path::Path::new(&args[0]))?;
    let n: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(usize::MAX);
    let queries: Vec<String> =
        std::fs::read_to_string(&args[1])?.lines().filter(|l| !l.trim().is_empty()).take(n).map(String::from).collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args[2])?);
    let bench = SearchRequest {
        limit: Some(DEFAULT_LIMIT),
        parts: HitParts::Scores,
        ..SearchRequest::new("", SearchParams::default())
    };
    let cli = |q: &str| -> anyhow::Result<SearchRequest> {
        let choices = SearchChoices { limit: Some(DEFAULT_LIMIT), ..SearchChoices::new(q) };
        Ok(resolve(&store, &choices, &litindex::embed::Models::default())?.request)
    };
    for (name, weighted) in [("bench search (by-hops, scores)", false), ("CLI default (snippets)", true)] {
        if only.is_some_and(|o| (o == "cli") != weighted) {
            continue;
        }
        let run = |q: &str| -> anyhow::Result<_> {
            let r = if weighted { cli(q)? } else { SearchRequest { query: q.to_string(), ..bench.clone() } };
            search(&store, &r, None)
        };
        for q in &queries {
            run(q)?;
        }
        let mut times = Vec::new();
        for q in &queries {
            let t = Instant::now();
            let r = run(q)?;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            write!(out, "{name}\t{q}\t{}", r.hit_count)?;
            for h in &r.ranked {
                write!(out, "\t{} {:.12}", h.id, h.final_score)?;
            }
            writeln!(out)?;
        }
        let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
        times.sort_by(f64::total_cmp);
        let p50 = times.get(times.len().saturating_sub(1) / 2).copied().unwrap_or(0.0);
        println!("{name}: {} queries, p50 {p50:.2} ms, mean {mean:.2} ms", times.len());
    }
    Ok(())
}
