//! `litindex search`: the ranked, explained list.

use std::io::Write;

use super::UsageError;
use crate::cli::{Format, SearchArgs, SearchOpts};
use crate::search::{search, MAX_SEARCH_HOPS};
use crate::store::Store;

/// Checks the arguments that clap cannot.
pub fn validate(opts: &SearchOpts) -> Result<(), UsageError> {
    let hops = opts.params().hops;
    if hops > MAX_SEARCH_HOPS {
        return Err(UsageError(format!(
            "--hops {hops} is out of range for search: use 0 to {MAX_SEARCH_HOPS} (`litindex neighbors` walks further)"
        )));
    }
    Ok(())
}

pub fn run(args: &SearchArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let params = args.search.params();
    let mut result = search(store, &args.query, &params)?;
    result.ranked.truncate(args.limit);
    match args.format {
        Format::Json => {
            super::write_json(out, &result)?;
        }
        Format::Table => {
            writeln!(
                out,
                "{:>4}  {:<12} {:>6} {:>7} {:>3} {:>7} {:>4}  title",
                "rank", "id", "final", "bm25", "hop", "recency", "year"
            )?;
            for (i, h) in result.ranked.iter().enumerate() {
                let hop = h.graph_distance.map_or("-".to_string(), |d| d.to_string());
                let year = h.year.map_or("-".to_string(), |y| y.to_string());
                writeln!(
                    out,
                    "{:>4}  {:<12} {:>6.3} {:>7.3} {:>3} {:>7.3} {:>4}  {}",
                    i + 1,
                    h.id,
                    h.final_score,
                    h.bm25_score,
                    hop,
                    h.recency_score,
                    year,
                    truncate(&h.title, 70)
                )?;
            }
            let w = params.weights;
            writeln!(
                out,
                "{} hits (showing {}), top {:.3}, average {:.3}, {:.1} ms; final = {}·bm25_norm + {}·graph + {}·recency; hop = citation steps from a BM25 seed",
                result.hit_count,
                result.ranked.len(),
                result.top_score,
                result.average_score,
                result.wall_time_ms,
                w.bm25,
                w.graph,
                w.recency
            )?;
        }
    }
    Ok(())
}

/// Cuts `s` to at most `max` characters, marking the cut with `…`.
pub(super) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
