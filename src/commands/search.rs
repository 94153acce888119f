//! `litindex search`: the ranked, explained list.

use std::io::Write;

use super::UsageError;
use crate::cli::{Format, SearchArgs, SearchOpts};
use litindex::embed::SemanticIndex;
use litindex::search::{Mode, search};
use litindex::store::Store;

/// Checks the arguments that clap cannot.
pub fn validate(opts: &SearchOpts) -> Result<(), UsageError> {
    if opts.rerank > 0 && opts.mode == Mode::Bm25 {
        return Err(UsageError("--rerank reranks a dense or hybrid list: add --mode dense or --mode hybrid".into()));
    }
    if !(0.0..=1.0).contains(&opts.rerank_weight) {
        return Err(UsageError(format!("--rerank-weight {} is out of range: use 0 to 1", opts.rerank_weight)));
    }
    if opts.mode != Mode::Bm25 && opts.dense_k == 0 {
        return Err(UsageError("--dense-k must be at least 1".into()));
    }
    Ok(())
}

/// Loads the model and vectors a dense or hybrid search needs (`None` for bm25).
pub(super) fn load_semantic(opts: &SearchOpts, store: &Store) -> anyhow::Result<Option<SemanticIndex>> {
    if opts.mode == Mode::Bm25 {
        return Ok(None);
    }
    Ok(Some(SemanticIndex::open(store, opts.model_dir.as_deref(), opts.rerank > 0, &super::print_note)?))
}

pub fn run(args: &SearchArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let request = args.search.parsed_request(&args.query, args.limit)?;
    let params = request.params;
    let index = load_semantic(&args.search, store)?;
    let mut result = search(store, &request, index.as_ref())?;
    // The query as typed, operators and all.
    result.query = args.query.clone();
    let semantic_mode = result.mode != Mode::Bm25;
    match args.format {
        Format::Json => {
            super::write_json(out, &result)?;
        }
        Format::Table => {
            if semantic_mode {
                writeln!(
                    out,
                    "{:>4}  {:<12} {:>6} {:>6} {:>6} {:>7} {:>3} {:>7} {:>4}  title",
                    "rank", "id", "final", "fused", "dense", "bm25", "hop", "recency", "year"
                )?;
            } else {
                writeln!(
                    out,
                    "{:>4}  {:<12} {:>6} {:>7} {:>3} {:>7} {:>4}  title",
                    "rank", "id", "final", "bm25", "hop", "recency", "year"
                )?;
            }
            for (i, h) in result.ranked.iter().enumerate() {
                let hop = h.graph_distance.map_or("-".to_string(), |d| d.to_string());
                let year = h.year.map_or("-".to_string(), |y| y.to_string());
                if semantic_mode {
                    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
                    writeln!(
                        out,
                        "{:>4}  {:<12} {:>6.3} {:>6} {:>6} {:>7.3} {:>3} {:>7.3} {:>4}  {}",
                        i + 1,
                        h.id,
                        h.final_score,
                        opt(h.fused_score),
                        opt(h.dense_score),
                        h.bm25_score,
                        hop,
                        h.recency_score,
                        year,
                        truncate(&h.title, 60)
                    )?;
                } else {
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
            }
            let w = params.weights;
            let (first, seed) = if semantic_mode {
                let s = request.semantic;
                let name = match s.mode {
                    Mode::Hybrid => format!("hybrid {}", s.fusion.name()),
                    m => m.name().to_string(),
                };
                let rerank = if s.rerank > 0 { format!(" + rerank {}", s.rerank) } else { String::new() };
                (format!("fused ({name}{rerank})"), "a first-stage seed")
            } else {
                ("bm25_norm".to_string(), "a BM25 seed")
            };
            if !request.filter.is_empty() {
                writeln!(out, "filter: {} (hits, top and average are over the papers that pass)", request.filter)?;
            }
            writeln!(
                out,
                "{} hits (showing {}), top {:.3}, average {:.3}, {:.1} ms; final = {}·{first} + {}·graph + {}·recency; hop = citation steps from {seed}",
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
