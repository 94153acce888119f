//! `litindex eval-evidence`: Hit@1 / Hit@3 of the evidence sentences on SciFact.

use std::io::Write;

use crate::cli::{EvalEvidenceArgs, Format};
use litindex::embed::Embedder;
use litindex::evidence::{EvidenceParams, SEMANTIC_WEIGHT, eval_evidence};
use litindex::store::Store;

pub fn run(args: &EvalEvidenceArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let d = EvidenceParams::default();
    let params = EvidenceParams {
        k1: args.k1.unwrap_or(d.k1),
        b: args.b.unwrap_or(d.b),
        context: args.context.unwrap_or(d.context),
        position: args.position.unwrap_or(d.position),
        coverage: args.coverage.unwrap_or(d.coverage),
        semantic: args.semantic.unwrap_or(if args.model_dir.is_some() { SEMANTIC_WEIGHT } else { 0.0 }),
        ..d
    };
    let embedder = args.model_dir.as_deref().map(Embedder::load).transpose()?;
    let result = eval_evidence(store, &args.claims, &args.sentences, &params, embedder.as_ref())?;
    match args.format {
        Format::Json => super::write_json(out, &result)?,
        Format::Table => {
            writeln!(out, "triples   {}", result.n)?;
            writeln!(out, "Hit@1     {:.4}", result.hit1)?;
            writeln!(out, "Hit@3     {:.4}", result.hit3)?;
            writeln!(out, "skipped   {} (abstract not indexed, or not the joined sentences)", result.skipped)?;
            writeln!(out, "same sentence count as the original split: {} of {}", result.same_sentence_count, result.n)?;
        }
    }
    Ok(())
}
