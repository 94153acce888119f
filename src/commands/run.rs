//! `litindex run`: every query of a file, as a TREC run or JSON Lines.

use std::io::Write;

use serde_json::json;

use crate::cli::{RunArgs, RunFormat};
use litindex::eval::{ranked_ids, read_queries, strictly_decreasing};
use litindex::store::Store;

pub fn run(args: &RunArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let queries = read_queries(&args.queries)?;
    if args.format == RunFormat::Trec && args.run_tag.chars().any(char::is_whitespace) {
        return Err(super::UsageError(format!("--run-tag `{}` contains whitespace", args.run_tag)).into());
    }
    let index = super::search::load_semantic(&args.search, store)?;
    for q in &queries {
        let ranked =
            ranked_ids(store, &args.search.file_request(&q.text, args.limit, args.query_syntax), index.as_ref())?;
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
                let hits: Vec<_> = ranked
                    .iter()
                    .enumerate()
                    .map(|(i, (id, s))| json!({"id": id, "rank": i + 1, "score": s}))
                    .collect();
                let line = json!({"qid": q.id, "query": q.text, "ranked": hits});
                writeln!(out, "{line}")?;
            }
        }
    }
    Ok(())
}
