//! `--backend opensearch://…` for `search`, `run` and `eval`, and
//! `export --format opensearch`: the binary's side of
//! [`litindex::opensearch`].

use std::io::Write;
use std::time::Duration;

use super::UsageError;
use crate::cli::{BackendOpts, EvalArgs, ExportArgs, SearchArgs};
use litindex::eval::{EvalReport, Qrels, Query, evaluate_with};
use litindex::opensearch::{self, Backend, Client, Target};
use litindex::search::{HitParts, Mode, SearchRequest};
use litindex::store::Store;

/// Connects to the backend `opts` names and checks its index.
pub fn open(opts: &BackendOpts, target: &Target) -> anyhow::Result<Backend> {
    Ok(Backend::open(target, Duration::from_secs(opts.backend_timeout.max(1)))?.with_scoring(opts.backend_scores))
}

/// The search flags the backend cannot honour, as a usage error.
fn refuse_flags(mode: Option<Mode>, rerank: usize) -> Result<(), UsageError> {
    if mode.is_some_and(|m| m != Mode::Bm25) || rerank > 0 {
        return Err(UsageError("--backend opensearch runs the BM25 first stage only: drop --mode and --rerank".into()));
    }
    Ok(())
}

/// `search --backend`: the marks of a local index do not apply (there is none).
pub fn search(args: &SearchArgs, target: &Target, out: &mut dyn Write) -> anyhow::Result<()> {
    refuse_flags(args.search.mode, args.search.rerank)?;
    // The backend's defaults, from what the cluster holds (a BM25 first stage;
    // weighted when its papers have references); the query is read by the library.
    let backend = open(&args.backend, target)?;
    let choices = args.search.choices(&args.query, args.limit, args.offset, args.literal);
    let request =
        SearchRequest { parts: super::search::parts_for(args.format), ..choices.request_for(backend.index_facts()?) };
    let result = backend.search(&request)?;
    super::search::print(args, &request, result, out)
}

/// `run --backend`: the ranked ids and final scores of one query.
pub fn ranker(backend: &Backend) -> impl Fn(&SearchRequest) -> anyhow::Result<Vec<(String, f64)>> + '_ {
    // Ids and scores only: no request for the hits' sources nor the evidence's idf.
    |request| {
        let request = SearchRequest { parts: HitParts::Scores, ..request.clone() };
        Ok(backend.search(&request)?.ranked.into_iter().map(|h| (h.id, h.final_score)).collect())
    }
}

/// `eval --backend`: every judged query through the backend, judged ids
/// resolved through its aliases.
pub fn evaluate(
    args: &EvalArgs,
    target: &Target,
    queries: &[Query],
    qrels: &Qrels,
    request: &SearchRequest,
) -> anyhow::Result<EvalReport> {
    refuse_flags(args.search.mode, args.search.rerank)?;
    let backend = open(&args.backend, target)?;
    let rank = ranker(&backend);
    evaluate_with(queries, qrels, &|d| backend.resolve(d), |text| {
        let mut r = request.clone();
        r.query = text.to_string();
        Ok(rank(&r)?.into_iter().map(|(id, _)| id).collect())
    })
}

/// `export --format opensearch -o DIR [--upload HOST:PORT]`.
pub fn export(args: &ExportArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let Some(dir) = &args.output else {
        return Err(UsageError("--format opensearch writes a directory: name it with -o DIR".into()).into());
    };
    if args.query.is_some() || !args.ids.is_empty() || args.marks.is_some() {
        return Err(UsageError(
            "--format opensearch exports the whole index: drop the ids, --query and --marks".into(),
        )
        .into());
    }
    let o = &args.opensearch;
    let summary = opensearch::export(store, &o.index, dir, o.bulk_mib * 1024 * 1024, o.shards)?;
    writeln!(
        out,
        "wrote {} papers as index `{}` to {}: index.json, manifest.json and {} bulk file(s), {} bytes",
        summary.papers,
        summary.index,
        dir.display(),
        summary.files.len(),
        summary.bytes
    )?;
    if let Some(host) = &o.upload {
        let client = Client::new(host, Duration::from_secs(120));
        let loaded = opensearch::load(&client, dir)?;
        writeln!(
            out,
            "loaded {} papers ({} bytes) into {host}/{} in {:.2} s ({:.0} papers/s)",
            loaded.papers,
            loaded.bytes,
            loaded.index,
            loaded.seconds,
            loaded.papers as f64 / loaded.seconds.max(1e-9)
        )?;
    }
    Ok(())
}
