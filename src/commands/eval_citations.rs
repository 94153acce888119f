//! `litindex eval-citations`: the citation check measured on SciFact claims.

use std::io::Write;

use super::UsageError;
use crate::cli::{EvalCitationsArgs, Format};
use litindex::context::{CitationEvalOptions, SupportParams, eval_citations};
use litindex::store::Store;

pub fn run(args: &EvalCitationsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let d = SupportParams::default();
    let params = SupportParams {
        w_ratio: args.w_ratio.unwrap_or(d.w_ratio),
        w_sentence: args.w_sentence.unwrap_or(d.w_sentence),
        w_paper: args.w_paper.unwrap_or(d.w_paper),
        w_bigram: args.w_bigram.unwrap_or(d.w_bigram),
        threshold: args.threshold.unwrap_or(d.threshold),
        ..d
    };
    if ![params.w_ratio, params.w_sentence, params.w_paper, params.w_bigram, params.threshold]
        .iter()
        .all(|v| v.is_finite())
    {
        return Err(UsageError("weights and --threshold must be numbers".into()).into());
    }
    if !(0.0..=1.0).contains(&args.target_gold) {
        return Err(UsageError(format!("--target-gold {} is out of range: use 0 to 1", args.target_gold)).into());
    }
    let options = CitationEvalOptions {
        params,
        tune: args.tune,
        threshold_only: args.only_given_weights,
        target_gold: args.target_gold,
        seed: args.seed,
    };
    let r = eval_citations(store, &args.claims, &args.sentences, &options)?;
    match args.format {
        Format::Json => super::write_json(out, &r)?,
        Format::Table => {
            let p = r.params;
            writeln!(out, "claims     {} (skipped {})", r.claims, r.skipped)?;
            writeln!(
                out,
                "supported  (a) gold {:.3}   (b) top wrong BM25 hit {:.3}   (c) random {:.3}",
                r.gold_supported, r.neighbour_supported, r.random_supported
            )?;
            writeln!(
                out,
                "{} score = {}·ratio + {}·sentence + {}·paper + {}·bigram, supported at ≥ {:.4}",
                if r.tuned { "tuned:" } else { "given:" },
                p.w_ratio,
                p.w_sentence,
                p.w_paper,
                p.w_bigram,
                p.threshold
            )?;
        }
    }
    Ok(())
}
