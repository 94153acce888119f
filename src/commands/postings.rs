//! `litindex postings TERM`: a term's postings blocks and what they decode
//! to, with paper ids (a view cannot decode the blocks' blobs).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::UsageError;
use crate::cli::{Format, PostingsArgs};
use litindex::bench::read_queries;
use litindex::bm25::query_terms;
use litindex::store::{BlockInfo, Store};

#[derive(Serialize)]
struct Shown {
    term: String,
    df: u64,
    blocks: Vec<BlockInfo>,
    /// How many postings the term has; `postings` lists the first `--limit`.
    posting_count: usize,
    postings: Vec<Row>,
}

#[derive(Serialize)]
struct Row {
    paper_id: String,
    doc: i64,
    tf: u32,
    doc_len: u32,
}

pub fn run(args: &PostingsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    if let Some(path) = &args.decoded_for {
        return decoded(path, args, store, out);
    }
    let analyzer = store.meta()?.analyzer()?;
    let asked = args.term.as_deref().unwrap_or_default();
    let tokens = analyzer.tokenize(asked);
    let [term] = tokens.as_slice() else {
        return Err(UsageError(format!(
            "TERM {asked:?} is {} tokens for the {} analyzer; give one word",
            tokens.len(),
            analyzer.name()
        ))
        .into());
    };
    let found = store.term_blocks(term)?;
    let (df, blocks, postings) = found.map_or((0, Vec::new(), Vec::new()), |t| (t.df, t.blocks, t.postings));
    let limit = if args.limit == 0 { postings.len() } else { args.limit.min(postings.len()) };
    let rows = postings[..limit]
        .iter()
        .map(|p| Ok(Row { paper_id: store.paper_by_doc(p.doc)?.id, doc: p.doc, tf: p.tf, doc_len: p.doc_len }))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let shown = Shown { term: term.clone(), df, blocks, posting_count: postings.len(), postings: rows };
    match args.format {
        Format::Json => super::write_json(out, &shown)?,
        Format::Table => table(&shown, out)?,
    }
    Ok(())
}

fn table(s: &Shown, out: &mut dyn Write) -> anyhow::Result<()> {
    let bytes: usize = s.blocks.iter().map(|b| b.bytes).sum();
    let blocks = if s.blocks.len() == 1 { "block" } else { "blocks" };
    let (df, n, count) = (s.df, s.posting_count, s.blocks.len());
    writeln!(out, "term {:?}: df {df}, {n} postings in {count} {blocks} ({bytes} bytes)", s.term)?;
    if s.blocks.is_empty() {
        return Ok(());
    }
    writeln!(out, "block  last_doc      n  max_tf  min_len  bytes")?;
    for (i, b) in s.blocks.iter().enumerate() {
        writeln!(
            out,
            "{:>5}  {:>8}  {:>5}  {:>6}  {:>7}  {:>5}",
            i + 1,
            b.last_doc,
            b.n,
            b.max_tf,
            b.min_len,
            b.bytes
        )?;
    }
    writeln!(out, "paper_id              doc     tf  doc_len")?;
    for r in &s.postings {
        writeln!(out, "{:<18}  {:>6}  {:>5}  {:>7}", r.paper_id, r.doc, r.tf, r.doc_len)?;
    }
    writeln!(out, "{} postings (showing {})", s.posting_count, s.postings.len())?;
    Ok(())
}

#[derive(Serialize)]
struct Decoded {
    queries: usize,
    k: usize,
    decoded: u64,
    total: u64,
    per_query: Vec<QueryDecoded>,
}

#[derive(Serialize)]
struct QueryDecoded {
    query: String,
    decoded: u64,
    total: u64,
}

/// `--decoded-for FILE`: the postings each query's top-k search decoded.
fn decoded(path: &Path, args: &PostingsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.k == 0 {
        return Err(UsageError("--k must be at least 1".to_string()).into());
    }
    let analyzer = store.meta()?.analyzer()?;
    let mut per_query = Vec::new();
    for query in read_queries(path)? {
        let (_, count) = store.bm25_top_k_counted(&query_terms(analyzer, &query), args.k)?;
        per_query.push(QueryDecoded { query, decoded: count.decoded, total: count.total });
    }
    let decoded = per_query.iter().map(|q| q.decoded).sum();
    let total = per_query.iter().map(|q| q.total).sum();
    let report = Decoded { queries: per_query.len(), k: args.k, decoded, total, per_query };
    match args.format {
        Format::Json => super::write_json(out, &report)?,
        Format::Table => writeln!(
            out,
            "{} queries, top-{}: {} of {} postings decoded ({:.1} %)",
            report.queries,
            report.k,
            report.decoded,
            report.total,
            100.0 * report.decoded as f64 / report.total.max(1) as f64
        )?,
    }
    Ok(())
}
