//! `litindex screen …`: reviews, decisions, the active-learning order and
//! the simulation on a labelled review.

use std::io::Write;

use anyhow::Context;

use super::Db;
use crate::cli::{ScreenAction, ScreenArgs, SimulateArgs};
use litindex::screen::simulate::{index_review, simulate};
use litindex::screen::{Priors, SimulateOptions, SvmParams, Weights, read_labels};

pub fn run(args: &ScreenArgs, _db: &Db, out: &mut dyn Write) -> anyhow::Result<()> {
    match &args.action {
        ScreenAction::Simulate(a) => run_simulate(a, out),
    }
}

/// Parses `1..5` (inclusive) or `1,2,7`.
pub(super) fn parse_seeds(s: &str) -> anyhow::Result<Vec<u64>> {
    let bad = || format!("--seeds `{s}`: give a range `1..5` or a list `1,2,3`");
    if let Some((a, b)) = s.split_once("..") {
        let a: u64 = a.trim().parse().with_context(bad)?;
        let b: u64 = b.trim().parse().with_context(bad)?;
        anyhow::ensure!(a <= b, bad());
        return Ok((a..=b).collect());
    }
    s.split(',').map(|x| x.trim().parse::<u64>().with_context(bad)).collect()
}

fn run_simulate(a: &SimulateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let seeds = parse_seeds(&a.seeds)?;
    let labels = read_labels(&a.labels)?;
    let name = match &a.name {
        Some(n) => n.clone(),
        None => a
            .labels
            .canonicalize()?
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "review".into()),
    };
    std::fs::create_dir_all(&a.out).with_context(|| format!("cannot create {}", a.out.display()))?;
    let db = a.out.join(format!("{name}.db"));
    let (store, docs) = index_review(&a.works, &db, &labels)?;
    let missing = docs.iter().filter(|d| d.is_none()).count();
    if missing > 0 {
        eprintln!("note: {missing} labelled id(s) are not in the index of the works; they stay featureless");
    }
    let opts = SimulateOptions {
        weights: Weights { text: a.text_weight, graph: a.graph_weight, vectors: a.vector_weight },
        svm: SvmParams { c: a.c, max_ratio: a.max_ratio, ..SvmParams::default() },
        priors: a.priors_from.clone().map_or(Priors::Random, Priors::FromOrders),
    };
    for run in simulate(&store, &docs, &labels, &seeds, &opts)? {
        let path = a.out.join(format!("{name}_s{}.txt", run.seed));
        let mut text = run.order.join("\n");
        text.push('\n');
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(out, "{}", path.display())?;
    }
    Ok(())
}
