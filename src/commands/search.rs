//! `litindex search`: the ranked, explained list.

use std::io::{IsTerminal, Write};

use super::UsageError;
use crate::cli::{Format, MarkedSearchOpts, SearchArgs, SearchOpts, Switch};
use litindex::api::run_search;
use litindex::evidence::mark;
use litindex::search::{
    Explanation, Feedback, Hit, HitParts, Mode, Resolved, RetrievalResult, SearchChoices, SearchRequest,
};
use litindex::store::Store;

/// Checks the arguments that clap cannot.
pub fn validate(opts: &SearchOpts) -> Result<(), UsageError> {
    if opts.rerank > 0 && !matches!(opts.mode, Some(Mode::Dense | Mode::Hybrid)) {
        return Err(UsageError("--rerank reranks a dense or hybrid list: add --mode dense or --mode hybrid".into()));
    }
    if !(0.0..=1.0).contains(&opts.rerank_weight) {
        return Err(UsageError(format!("--rerank-weight {} is out of range: use 0 to 1", opts.rerank_weight)));
    }
    if opts.mode != Some(Mode::Bm25) && opts.dense_k == 0 {
        return Err(UsageError("--dense-k must be at least 1".into()));
    }
    Ok(())
}

/// The search the flags ask for on `store`, its defaults resolved by the
/// library ([`litindex::search::resolve`]), with the index's marks as `marks`
/// says (excluded papers always; favorites unless `--feedback off`). The
/// library's notes (which first stage, and why) are printed on stderr.
pub(super) fn resolve(
    choices: &SearchChoices,
    marks: Option<&MarkedSearchOpts>,
    store: &Store,
) -> anyhow::Result<Resolved> {
    let mut resolved = litindex::search::resolve(store, choices, super::models())?;
    if let Some(marks) = marks {
        resolved.request.feedback = Feedback::from_marks(store, marks.feedback == Switch::On, marks.show_excluded)?;
        resolved.request.feedback.params = marks.tuning.params();
    }
    for n in &resolved.notes {
        super::print_note(n);
    }
    Ok(resolved)
}

/// The title column: the title, and what the marks did to the hit.
fn title_cell(h: &Hit, max: usize) -> String {
    let mut s = truncate(&h.title, max);
    if h.excluded {
        s.push_str("  [excluded]");
    }
    if let Some(fb) = &h.feedback {
        let hops = fb
            .favorite_hops
            .map_or(String::new(), |d| format!(", {d} hop{} from a favorite", if d == 1 { "" } else { "s" }));
        if fb.expansion_score > 0.0 || !hops.is_empty() {
            s.push_str(&format!("  [feedback: +{:.3} bm25{hops}]", fb.expansion_score));
        }
    }
    s
}

/// The parts of a hit `format` prints: the JSON is every field of a hit,
/// its references too; the table shows none.
pub(super) fn parts_for(format: Format) -> HitParts {
    if format == Format::Json { HitParts::Full } else { HitParts::Snippets }
}

pub fn run(args: &SearchArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let choices = args.search.choices(&args.query, args.limit, args.offset, args.literal);
    let mut resolved = resolve(&choices, Some(&args.marks), store)?;
    resolved.request.parts = parts_for(args.format);
    // The function MCP's `search_papers` and the web page call too.
    let result = run_search(store, &resolved, &args.query)?;
    print(args, &resolved.request, result, out)
}

/// `search --passages`: passages of the full text, best first
/// ([`litindex::api::search_passages`]): by BM25 unless `--mode dense|hybrid`
/// asks for the passage vectors (`embed --passages`).
pub fn run_passages(args: &SearchArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.search.rerank > 0 {
        return Err(UsageError("--rerank reranks papers by their chunks; it does not go with --passages".into()).into());
    }
    let page = litindex::api::Page { offset: args.offset, size: args.limit.max(1) };
    let mut request = litindex::api::PassageSearch::new(args.query.clone(), page);
    request.mode = args.search.mode.unwrap_or(Mode::Bm25);
    request.fusion = args.search.fusion;
    request.dense_k = args.search.dense_k;
    request.model_dir = args.search.model_dir.clone();
    let result = litindex::api::search_passages(store, &request)?;
    match args.format {
        Format::Json => super::write_json(out, &result)?,
        Format::Table => {
            let bold = emphasis();
            for (i, h) in result.hits.iter().enumerate() {
                let pages = if h.page_first == h.page_last {
                    format!("p. {}", h.page_first)
                } else {
                    format!("pp. {}-{}", h.page_first, h.page_last)
                };
                let section = match (h.kind.as_str(), h.section.as_str()) {
                    ("caption", _) => "caption".to_string(),
                    ("abstract", _) => "abstract".to_string(),
                    (_, "") => "(before the first heading)".to_string(),
                    (_, s) => truncate(s, 40),
                };
                writeln!(
                    out,
                    "{:>4}  {:<12} {:>7.3}  {pages}  {section}  {}",
                    args.offset + i + 1,
                    h.paper_id.as_deref().unwrap_or("-"),
                    h.score,
                    truncate(h.title.as_deref().unwrap_or("-"), 60)
                )?;
                writeln!(out, "      {}", mark(&h.text, &h.spans, bold.0, bold.1))?;
            }
            let how = if request.mode == Mode::Bm25 { "matched" } else { "ranked" };
            writeln!(out, "{} passages {how} (showing {})", result.total, result.hits.len())?;
        }
    }
    Ok(())
}

/// Prints a search's result as `args.format` says (the local index's or a backend's).
pub(super) fn print(
    args: &SearchArgs,
    request: &SearchRequest,
    mut result: RetrievalResult,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // The query as typed, operators and all.
    result.query = args.query.clone();
    let semantic_mode = result.mode != Mode::Bm25;
    // What the query's operators did, so that nothing is excluded unseen.
    let echoed = result.parsed_query.as_ref().filter(|q| !q.filter.is_empty() && args.format == Format::Table);
    if let Some(q) = echoed {
        eprintln!("query: {q}");
    }
    match args.format {
        Format::Json => {
            super::write_json(out, &result)?;
        }
        Format::Table => {
            let bold = emphasis();
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
                        title_cell(h, 60)
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
                        title_cell(h, 70)
                    )?;
                }
                if !h.snippet.is_empty() {
                    let page = h.snippet_page.map_or(String::new(), |p| format!("(p. {p}) "));
                    writeln!(out, "      {page}{}", mark(&h.snippet, &h.snippet_spans, bold.0, bold.1))?;
                }
                if let Some(via) = &h.graph_via {
                    writeln!(out, "      {via}")?;
                }
            }
            if !request.filter.is_empty() {
                writeln!(out, "filter: {} (hits, top and average are over the papers that pass)", request.filter)?;
            }
            writeln!(
                out,
                "{} hits (showing {}), top {:.3}, average {:.3}, {:.1} ms; {}",
                result.hit_count,
                result.ranked.len(),
                result.top_score,
                result.average_score,
                result.wall_time_ms,
                Explanation::new(request, result.mode)
            )?;
            if !request.feedback.favorites.is_empty() {
                writeln!(
                    out,
                    "feedback from {} favorite{} (`marks --label favorite`): their {} best terms expand the query (β {}){}, and final += {}·closeness to a favorite; --feedback off to search without",
                    request.feedback.favorites.len(),
                    if request.feedback.favorites.len() == 1 { "" } else { "s" },
                    request.feedback.params.terms,
                    request.feedback.params.beta,
                    if request.feedback.params.seed { ", they seed the citation walk" } else { "" },
                    request.feedback.params.near
                )?;
            }
            if result.excluded_hidden > 0 {
                writeln!(out, "{} excluded papers not shown (--show-excluded shows them)", result.excluded_hidden)?;
            }
        }
    }
    Ok(())
}

/// How a snippet marks the query's words: bold on a terminal (unless
/// `NO_COLOR` is set), `**word**` otherwise.
pub(super) fn emphasis() -> (&'static str, &'static str) {
    if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("**", "**")
    }
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
