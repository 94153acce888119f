//! `litindex run`: every query of a file, as a TREC run or JSON Lines.

use std::io::Write;

use serde_json::json;

use crate::cli::{RunArgs, RunFormat};
use litindex::eval::{Query, rank_each, read_queries, strictly_decreasing};
use litindex::search::{Resolved, SearchRequest};
use litindex::store::Store;

/// `store` is `None` with `--backend` (the queries go to the backend instead).
pub fn run(args: &RunArgs, store: Option<&Store>, out: &mut dyn Write) -> anyhow::Result<()> {
    let queries = read_queries(&args.queries)?;
    if args.format == RunFormat::Trec && args.run_tag.chars().any(char::is_whitespace) {
        return Err(super::UsageError(format!("--run-tag `{}` contains whitespace", args.run_tag)).into());
    }
    // Each query is free text unless `--query-syntax`; the pool covers `--limit` (100).
    let choices = args.search.choices("", args.limit, 0, !args.query_syntax);
    match (store, &args.backend.backend) {
        (_, Some(_)) if args.threads.is_some() => Err(super::UsageError(
            "--threads ranks on connections to a local index; with --backend the queries go one at a time".into(),
        )
        .into()),
        (_, Some(target)) => {
            let backend = super::opensearch::open(&args.backend, target)?;
            let request = choices.request_for(backend.index_facts()?);
            write_run(args, &queries, &request, super::opensearch::ranker(&backend), out)
        }
        (Some(store), None) => {
            let Resolved { request, semantic, .. } = super::search::resolve(&choices, None, store)?;
            rank_each(store, &queries, &request, semantic.as_ref(), threads(args.threads), |q, ranked| {
                write_query(args, q, &ranked, out)
            })
        }
        (None, None) => anyhow::bail!("`run` needs an index or --backend"),
    }
}

/// `--threads` of `run` and `eval`: the number given, else the machine's cores.
pub(super) fn threads(given: Option<u16>) -> usize {
    given.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), usize::from)
}

/// Writes the run of every query, each ranked by `rank`.
fn write_run(
    args: &RunArgs,
    queries: &[Query],
    request: &SearchRequest,
    rank: impl Fn(&SearchRequest) -> anyhow::Result<Vec<(String, f64)>>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    for q in queries {
        write_query(args, q, &rank(&SearchRequest { query: q.text.clone(), ..request.clone() })?, out)?;
    }
    Ok(())
}

/// Writes one query's ranking in the run's format.
fn write_query(args: &RunArgs, q: &Query, ranked: &[(String, f64)], out: &mut dyn Write) -> anyhow::Result<()> {
    match args.format {
        RunFormat::Trec => {
            if q.id.chars().any(char::is_whitespace) {
                anyhow::bail!("query id `{}` contains whitespace, which a TREC run cannot hold", q.id);
            }
            let mut scores: Vec<f64> = ranked.iter().map(|(_, s)| *s).collect();
            strictly_decreasing(&mut scores);
            for (i, ((id, _), score)) in ranked.iter().zip(&scores).enumerate() {
                if id.chars().any(char::is_whitespace) {
                    anyhow::bail!("document id `{id}` contains whitespace, which a TREC run cannot hold");
                }
                writeln!(out, "{} Q0 {} {} {} {}", q.id, id, i + 1, score, args.run_tag)?;
            }
        }
        RunFormat::Jsonl => {
            let hits: Vec<_> =
                ranked.iter().enumerate().map(|(i, (id, s))| json!({"id": id, "rank": i + 1, "score": s})).collect();
            let line = json!({"qid": q.id, "query": q.text, "ranked": hits});
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}
