//! `litindex verify-citations`: every `[n]` of an answer checked against its pack.
//! Exits 1 when a citation points outside the pack; weak citations are
//! reported, not fatal.

use std::io::Write;

use anyhow::Context;

use super::UsageError;
use crate::cli::{Format, VerifyCitationsArgs};
use litindex::context::{SupportParams, parse_pack, verify};
use litindex::store::Store;

/// The error that makes `main` exit 1 after the report is printed.
#[derive(Debug)]
pub struct OutsidePack(pub usize);

impl std::fmt::Display for OutsidePack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} citation(s) point outside the pack", self.0)
    }
}

impl std::error::Error for OutsidePack {}

pub fn run(args: &VerifyCitationsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut params = SupportParams::default();
    if let Some(t) = args.threshold {
        if !t.is_finite() {
            return Err(UsageError(format!("--threshold {t} is not a number")).into());
        }
        params.threshold = t;
    }
    let read = |p: &std::path::Path| std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()));
    let answer = read(&args.answer)?;
    let pack = parse_pack(&read(&args.context)?, &args.context.display().to_string())?;
    let v = verify(store, &answer, &pack, &params).with_context(|| args.answer.display().to_string())?;
    match args.format {
        Format::Json => super::write_json(out, &v)?,
        Format::Table => {
            for c in &v.checks {
                let id = c.id.as_deref().unwrap_or("-");
                let score = c.support.as_ref().map_or("-".to_string(), |s| format!("{:.3}", s.score));
                writeln!(out, "line {:<4} [{}] {:<10} {:>6}  {}", c.line, c.number, c.judgment.name(), score, id)?;
                writeln!(out, "      claim: {}", one_line(&c.sentence))?;
                match (&c.reason, c.support.as_ref().and_then(|s| s.best_sentence.as_ref())) {
                    (Some(reason), _) => writeln!(out, "      {reason}")?,
                    (None, Some(best)) => writeln!(out, "      best:  {}", one_line(best))?,
                    (None, None) => writeln!(out, "      best:  (no sentence of the paper shares a term)")?,
                }
            }
            writeln!(
                out,
                "{} citing sentence(s): {} supported, {} weak, {} not found (supported: score ≥ {})",
                v.citing_sentences, v.supported, v.weak, v.not_found, v.threshold
            )?;
        }
    }
    if v.outside_pack > 0 {
        return Err(OutsidePack(v.outside_pack).into());
    }
    Ok(())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
