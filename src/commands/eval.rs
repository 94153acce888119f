//! `litindex eval`: the trec_eval metrics of `search` over judged queries.

use std::io::Write;

use serde_json::{Map, Value, json};

use super::UsageError;
use crate::cli::{EvalArgs, EvalFeedback, Format};
use litindex::eval::{EvalReport, METRICS, evaluate, evaluate_feedback, read_qrels, read_queries};
use litindex::search::{Mode, Resolved, SearchRequest};
use litindex::store::Store;

/// `store` is `None` with `--backend` (the queries go to the backend instead).
pub fn run(args: &EvalArgs, store: Option<&Store>, out: &mut dyn Write) -> anyhow::Result<()> {
    let metrics: Vec<String> = if args.metrics.is_empty() {
        METRICS.iter().map(|m| m.to_string()).collect()
    } else {
        args.metrics.iter().map(|m| m.trim().to_lowercase()).collect()
    };
    if let Some(bad) = metrics.iter().find(|m| !METRICS.contains(&m.as_str())) {
        return Err(UsageError(format!("unknown metric `{bad}` (known: {})", METRICS.join(", "))).into());
    }
    let queries = read_queries(&args.queries)?;
    let qrels = read_qrels(&args.qrels)?;
    // Each query is free text unless `--query-syntax`; the pool covers `--limit` (100).
    let choices = args.search.choices("", args.limit, 0, !args.query_syntax);
    let store = match (store, &args.backend.backend) {
        (_, Some(_)) if args.threads.is_some() => {
            return Err(UsageError(
                "--threads ranks on connections to a local index; with --backend the queries go one at a time".into(),
            )
            .into());
        }
        (_, Some(target)) => {
            if args.feedback != EvalFeedback::Off {
                return Err(UsageError("--feedback needs the local index's marks: drop --backend".into()).into());
            }
            // The defaults of what the cluster holds (weighted when its papers have references).
            let facts = super::opensearch::open(&args.backend, target)?.index_facts()?;
            let request = choices.request_for(facts);
            let report = super::opensearch::evaluate(args, target, &queries, &qrels, &request)?;
            return print(args, &metrics, &request, report, None, out);
        }
        (Some(store), None) => store,
        (None, None) => anyhow::bail!("`eval` needs an index or --backend"),
    };
    let Resolved { mut request, semantic: index, .. } = super::search::resolve(&choices, None, store)?;
    let threads = super::run::threads(args.threads);
    // With simulated feedback the figures are residual ones; `no_feedback` holds them without.
    let (report, no_feedback) = match args.feedback {
        EvalFeedback::Off => (evaluate(store, &queries, &qrels, &request, index.as_ref(), threads)?, None),
        EvalFeedback::FirstRelevant => {
            request.feedback.params = args.feedback_tuning.params();
            let r = evaluate_feedback(store, &queries, &qrels, &request, index.as_ref(), threads)?;
            (r.with, Some((r.without, r.marked)))
        }
    };
    print(args, &metrics, &request, report, no_feedback, out)
}

/// Prints an evaluation (of the local index or a backend) as `args.format` says.
fn print(
    args: &EvalArgs,
    metrics: &[String],
    request: &SearchRequest,
    report: EvalReport,
    no_feedback: Option<(EvalReport, usize)>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (params, sp) = (request.params, request.semantic);
    let metrics = metrics.to_vec();
    let first_stage = match sp.mode {
        Mode::Bm25 => "bm25".to_string(),
        Mode::Dense => format!("dense (k {})", sp.dense_k),
        Mode::Hybrid => format!("hybrid {} (k {})", sp.fusion.name(), sp.dense_k),
    } + &if sp.mode != Mode::Bm25 && sp.rerank > 0 {
        format!(" + rerank {} (weight {})", sp.rerank, sp.rerank_weight)
    } else {
        String::new()
    };
    let full = serde_json::to_value(&report)?;
    let pick = |v: &Value| -> Map<String, Value> {
        let mut m = Map::new();
        for k in &metrics {
            m.insert(k.clone(), v[k.as_str()].clone());
        }
        m
    };
    match args.format {
        Format::Json => {
            let mut obj = Map::new();
            obj.insert("queries".into(), json!(report.queries));
            obj.insert("unjudged".into(), json!(report.unjudged));
            obj.insert("missing".into(), json!(report.missing));
            obj.extend(pick(&full));
            obj.insert(
                "params".into(),
                json!({
                    "top_k": params.top_k, "hops": params.hops, "direction": params.direction.name(),
                    "weights": [params.weights.bm25, params.weights.graph, params.weights.recency],
                    "pool": params.pool, "graph_score": params.graph_score.name(), "limit": args.limit,
                    "mode": sp.mode.name(), "dense_k": sp.dense_k, "fusion": sp.fusion.name(),
                    "rerank": sp.rerank, "rerank_weight": sp.rerank_weight,
                }),
            );
            if let Some((without, marked)) = &no_feedback {
                obj.insert("no_feedback".into(), Value::Object(pick(&serde_json::to_value(without)?)));
                let fp = request.feedback.params;
                obj.insert(
                    "feedback".into(),
                    json!({"simulated": "first-relevant", "marked_queries": marked,
                           "terms": fp.terms, "beta": fp.beta, "walk": fp.seed}),
                );
            }
            obj.insert("wall_time_s".into(), json!(report.wall_time_s));
            if args.per_query {
                let rows: Vec<Value> = report
                    .per_query
                    .iter()
                    .map(|q| {
                        let v = serde_json::to_value(q).expect("plain data serialises");
                        let mut m = Map::new();
                        m.insert("qid".into(), v["qid"].clone());
                        m.extend(pick(&v));
                        m.insert("relevant".into(), v["relevant"].clone());
                        m.insert("retrieved".into(), v["retrieved"].clone());
                        Value::Object(m)
                    })
                    .collect();
                obj.insert("per_query".into(), Value::Array(rows));
            }
            super::write_json(out, &Value::Object(obj))?;
        }
        Format::Table => {
            if args.per_query {
                write!(out, "{:<12}", "qid")?;
                for m in &metrics {
                    write!(out, " {m:>10}")?;
                }
                writeln!(out)?;
                for q in &report.per_query {
                    let v = serde_json::to_value(q)?;
                    write!(out, "{:<12}", q.qid)?;
                    for m in &metrics {
                        write!(out, " {:>10.4}", v[m.as_str()].as_f64().unwrap_or(0.0))?;
                    }
                    writeln!(out)?;
                }
                writeln!(out)?;
            }
            let without = no_feedback.as_ref().map(|(w, _)| serde_json::to_value(w)).transpose()?;
            if let (Some(w), Some((_, marked))) = (&without, &no_feedback) {
                writeln!(out, "{:<12} {:>10} {:>12}", "residual", "feedback", "no feedback")?;
                for m in &metrics {
                    let (a, b) = (full[m.as_str()].as_f64().unwrap_or(0.0), w[m.as_str()].as_f64().unwrap_or(0.0));
                    writeln!(out, "{m:<12} {a:>10.4} {b:>12.4}")?;
                }
                writeln!(
                    out,
                    "simulated feedback: the best-ranked relevant paper of the top 10 marked favorite in {marked} queries, then removed from both rankings and the judgments"
                )?;
            } else {
                for m in &metrics {
                    writeln!(out, "{m:<12} {:.4}", full[m.as_str()].as_f64().unwrap_or(0.0))?;
                }
            }
            writeln!(
                out,
                "{} judged queries ({} missing from the query file), {} unjudged not run; {:.2} s; \
                 top-k {} hops {} pool {} weights {} graph-score {}; first stage {}",
                report.queries,
                report.missing,
                report.unjudged,
                report.wall_time_s,
                params.top_k,
                params.hops,
                params.pool,
                params.weights,
                params.graph_score.name(),
                first_stage
            )?;
        }
    }
    Ok(())
}
