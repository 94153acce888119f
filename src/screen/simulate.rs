//! Simulation on a labelled review (SYNERGY's protocol,
//! `../shared/data/synergy/README.md`): the review's works go into a fresh
//! index, the model is given one included and one excluded record, then it
//! proposes the remaining records one at a time, is told each label and
//! retrains. The order it proposed them in (priors first, every labelled id
//! once) is what `screen_eval.py` scores.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::features::{self, FeatureSet, Weights};
use super::labels::LabelledId;
use super::learner::SvmParams;
use super::select::Screener;
use crate::ingest::{IngestOptions, Input, InputFormat};
use crate::store::Store;

/// How the two priors of a seed are chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum Priors {
    /// Drawn at random, one included and one excluded, from the seed
    /// (SplitMix64; the same seed gives the same pair).
    Random,
    /// The first two ids of an order file, `{seed}` in the pattern replaced by
    /// the seed (e.g. the ASReview anchor's orders, so both tools start from
    /// the same two records).
    FromOrders(String),
}

/// The settings of one simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulateOptions {
    pub weights: Weights,
    pub svm: SvmParams,
    pub priors: Priors,
    /// Stop after this many proposals (for timing on large sets); `None`: every record.
    pub max_steps: Option<usize>,
}

impl Default for SimulateOptions {
    fn default() -> SimulateOptions {
        SimulateOptions {
            weights: Weights::default(),
            svm: SvmParams::default(),
            priors: Priors::Random,
            max_steps: None,
        }
    }
}

/// The order of one seed's run.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedOrder {
    pub seed: u64,
    /// Ids as the labels file spells them, priors first.
    pub order: Vec<String>,
    /// The time of each retrain-and-propose step, in order.
    pub step_times: Vec<std::time::Duration>,
}

/// Indexes a review: its works (in `format`, or sniffed when `None`)
/// ingested into a fresh file at `db` (replaced if present). Open it with
/// [`Store::open`] and find the labelled ids with [`docs_of`].
pub fn index_review(works: &Path, format: Option<InputFormat>, db: &Path) -> anyhow::Result<()> {
    if db.exists() {
        std::fs::remove_file(db).with_context(|| format!("cannot replace {}", db.display()))?;
    }
    let inputs = [Input::File { path: works.to_path_buf(), format }];
    crate::ingest::build(db, &inputs, &IngestOptions::default())
        .with_context(|| format!("cannot index the works of {}", works.display()))?;
    Ok(())
}

/// Each labelled id's doc id in `store` (`None` when no paper has that id).
pub fn docs_of(store: &Store, labels: &[LabelledId]) -> anyhow::Result<Vec<Option<i64>>> {
    let mut out = Vec::with_capacity(labels.len());
    for l in labels {
        let doc = match store.resolve(&l.id)? {
            Some(id) => store.doc_of(&id)?,
            None => None,
        };
        out.push(doc);
    }
    Ok(out)
}

/// Runs the protocol for each seed over a review already indexed.
pub fn simulate(
    store: &Store,
    docs: &[Option<i64>],
    labels: &[LabelledId],
    seeds: &[u64],
    opts: &SimulateOptions,
) -> anyhow::Result<Vec<SimulatedOrder>> {
    let fs = features::build(store, docs, opts.weights)?;
    let truth: Vec<bool> = labels.iter().map(|l| l.included).collect();
    let position: HashMap<&str, usize> = labels.iter().enumerate().map(|(i, l)| (l.id.as_str(), i)).collect();
    let mut out = Vec::new();
    for &seed in seeds {
        let priors = match &opts.priors {
            Priors::Random => random_priors(&truth, seed)?,
            Priors::FromOrders(pattern) => priors_from(pattern, seed, &position, &truth)?,
        };
        let (order, step_times) = run(&fs, &truth, priors, opts.svm, opts.max_steps);
        out.push(SimulatedOrder { seed, order: order.into_iter().map(|i| labels[i].id.clone()).collect(), step_times });
    }
    Ok(out)
}

/// One run: the priors, then every other row (or the first `max_steps`) in
/// the order the model proposed; and the time each retrain-and-propose took.
pub fn run(
    fs: &FeatureSet,
    truth: &[bool],
    priors: (usize, usize),
    svm: SvmParams,
    max_steps: Option<usize>,
) -> (Vec<usize>, Vec<std::time::Duration>) {
    let n = truth.len();
    let mut model = Screener::new(fs, svm);
    let mut labelled: Vec<(usize, bool)> = vec![(priors.0, truth[priors.0]), (priors.1, truth[priors.1])];
    let mut done = vec![false; n];
    done[priors.0] = true;
    done[priors.1] = true;
    let mut order = vec![priors.0, priors.1];
    let mut times = Vec::new();
    let last = max_steps.map_or(n, |k| (k + 2).min(n));
    while order.len() < last {
        let started = std::time::Instant::now();
        model.fit(fs, &labelled);
        let mut best: Option<(usize, f64)> = None;
        for i in (0..n).filter(|i| !done[*i]) {
            let m = model.margin(fs, i);
            if best.is_none_or(|(_, b)| m > b) {
                best = Some((i, m));
            }
        }
        let (i, _) = best.expect("an undecided row is left");
        times.push(started.elapsed());
        done[i] = true;
        order.push(i);
        labelled.push((i, truth[i]));
    }
    (order, times)
}

/// One included and one excluded row drawn by a SplitMix64 stream from `seed`.
fn random_priors(truth: &[bool], seed: u64) -> anyhow::Result<(usize, usize)> {
    let inc: Vec<usize> = (0..truth.len()).filter(|i| truth[*i]).collect();
    let exc: Vec<usize> = (0..truth.len()).filter(|i| !truth[*i]).collect();
    anyhow::ensure!(!inc.is_empty() && !exc.is_empty(), "the labels need at least one included and one excluded id");
    let mut state = seed;
    let a = inc[(splitmix(&mut state) % inc.len() as u64) as usize];
    let b = exc[(splitmix(&mut state) % exc.len() as u64) as usize];
    Ok((a, b))
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first two ids of the order file `pattern` names for `seed`: one
/// included, one excluded, both labelled.
fn priors_from(
    pattern: &str,
    seed: u64,
    position: &HashMap<&str, usize>,
    truth: &[bool],
) -> anyhow::Result<(usize, usize)> {
    let path = PathBuf::from(pattern.replace("{seed}", &seed.to_string()));
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read the priors {}", path.display()))?;
    let ids: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).take(2).collect();
    anyhow::ensure!(ids.len() == 2, "{}: needs two ids (the priors) on its first lines", path.display());
    let mut at = Vec::new();
    for (line, id) in ids.iter().enumerate() {
        let id = id.trim_start_matches("https://openalex.org/");
        let i = *position
            .get(id)
            .with_context(|| format!("{}:{}: id {id} is not in the labels", path.display(), line + 1))?;
        at.push(i);
    }
    let (inc, exc) = if truth[at[0]] { (at[0], at[1]) } else { (at[1], at[0]) };
    anyhow::ensure!(
        truth[inc] && !truth[exc],
        "{}: the two priors must be one included and one excluded record",
        path.display()
    );
    Ok((inc, exc))
}
