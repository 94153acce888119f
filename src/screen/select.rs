//! Which model ranks a review: the one over every feature block (text,
//! citations, vectors) or the one over the text alone, chosen per review by
//! cross-validation on the review's own decisions.
//!
//! Why: the citation block adds 0.11–0.19 WSS@95 on some reviews and costs
//! 0.05 on others (docs/SCREENING.md, the ablation), and which kind a review
//! is shows only in its decisions. So both models are trained after every
//! decision, and the one that separates the decisions made so far better
//! ranks the candidates:
//!
//! - until [`MIN_INCLUDED`] includes are among the decisions, the full model
//!   ranks (too few includes to compare on);
//! - then, for every [`EVERY`]-th decision `c`, each model is scored by the
//!   area under the ROC curve of its [`FOLDS`]-fold cross-validated margins
//!   over the first `c` decisions (decision `k` in fold `k mod FOLDS`, each
//!   fold's model trained on the others, from its solution at the last
//!   comparison); the text-only model takes over when its area is strictly
//!   larger, else the full model keeps it. The comparison's `2 · FOLDS`
//!   fold fits are spread over the decisions `c` to `c + 2 · FOLDS − 1`,
//!   one fit each ([`Comparison`]), and its choice holds from decision
//!   `c + 2 · FOLDS − 1`: no decision waits for ten fits at once (the
//!   simulation's slowest step at 1,000 candidates was 100–239 ms with the
//!   ten in one step, docs/SCREENING.md).
//!
//! The choice depends only on the decisions before the last comparison
//! finished (the first `c`), so a live review and a simulation of the same
//! decisions choose alike, up to the solver's tolerance (a `screen next`
//! process trains its fold models from zero, every fit of its comparisons
//! at once; the page, MCP and a simulation from their last solution).
//! [`MIN_INCLUDED`] was chosen among 3, 10 and 20 on the three tuning
//! reviews (docs/SCREENING.md).

use super::features::{Feature, FeatureSet, Row};
use super::learner::{Learner, SvmParams};

/// Includes needed among the decisions before the models are compared.
pub const MIN_INCLUDED: usize = 10;
/// The comparison is made again at every this many decisions.
pub const EVERY: usize = 10;
/// Cross-validation folds.
pub const FOLDS: usize = 5;
/// The fold fits of one comparison (each model's [`FOLDS`]), one per decision.
const FITS: usize = 2 * FOLDS;
const _: () = assert!(FITS <= EVERY, "a comparison ends before the next begins");

/// Which model ranks, and on what evidence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Choice {
    /// The text-only model ranks (else the one over all features).
    pub text_only: bool,
    /// The decisions the last comparison was made on (0: not compared yet).
    pub compared_on: usize,
    /// That comparison's cross-validated ROC areas: all features, text only.
    pub aucs: Option<(f64, f64)>,
}

impl Choice {
    pub fn model(&self) -> &'static str {
        if self.text_only { "text only" } else { "all features" }
    }

    /// One line for people: which model and why.
    pub fn describe(&self) -> String {
        match self.aucs {
            Some((a, t)) => format!(
                "{} (cross-validated ROC area on the first {} decisions: all features {a:.3}, text only {t:.3})",
                self.model(),
                self.compared_on
            ),
            None => format!("{} (not compared before {MIN_INCLUDED} includes)", self.model()),
        }
    }
}

/// The two models of a review, retrained together, and the one chosen.
#[derive(Debug, Clone)]
pub struct Screener {
    svm: SvmParams,
    full: Learner,
    /// The text-only rows and model; `None` when the features are text only.
    text: Option<(Vec<Row>, Learner)>,
    /// The fold models of the last comparison (all features, then text
    /// only), each warm-started at the next from its own solution: decision
    /// `k` stays in fold `k mod FOLDS`, so a fold's training set only grows.
    folds: Vec<Learner>,
    /// The comparison under way, its fits not all made yet.
    pending: Option<Comparison>,
    /// Fold fits made so far (the tests check at most one per decision coming one at a time).
    #[cfg(test)]
    fold_fits: usize,
    choice: Choice,
}

/// A comparison of the two models on the first `upto` decisions, fit by fit.
#[derive(Debug, Clone)]
struct Comparison {
    upto: usize,
    /// The decisions it is made on (a live review's may change meanwhile).
    prefix: Vec<(usize, bool)>,
    /// Fits made: fit `k` is fold `k / 2` of the full model (even `k`) or
    /// of the text-only one (odd `k`).
    made: usize,
    /// Each model's held-out margins so far: all features, text only.
    scored: [Vec<(f64, bool)>; 2],
}

impl Screener {
    pub fn new(fs: &FeatureSet, svm: SvmParams) -> Screener {
        let text_rows = text_only(fs);
        let differs = text_rows.iter().zip(&fs.rows).any(|(t, r)| t.len() != r.len());
        let text = differs.then(|| {
            let l = Learner::new(&text_rows, fs.dim(), svm);
            (text_rows, l)
        });
        Screener {
            svm,
            full: Learner::new(&fs.rows, fs.dim(), svm),
            text,
            folds: Vec::new(),
            pending: None,
            #[cfg(test)]
            fold_fits: 0,
            choice: Choice::default(),
        }
    }

    /// Retrains both models on the decisions (`(row, included)`, in the order
    /// made) and makes the fits of the comparisons due by now: the one on the
    /// first `c` decisions (`c` a multiple of [`EVERY`], with at least
    /// [`MIN_INCLUDED`] includes among them) makes its fit `k` when the
    /// `c + k`-th decision comes in, and decides at the last.
    pub fn fit(&mut self, fs: &FeatureSet, labelled: &[(usize, bool)]) {
        self.full.fit(&fs.rows, labelled);
        let Some((rows, learner)) = &mut self.text else { return };
        learner.fit(rows, labelled);
        let n = labelled.len();
        let comparable =
            |upto: usize| upto > 0 && upto <= n && labelled[..upto].iter().filter(|l| l.1).count() >= MIN_INCLUDED;
        // The comparison whose choice holds now, then the one under way.
        let now = n / EVERY * EVERY;
        let decided = if n + 1 >= now + FITS { now } else { now.saturating_sub(EVERY) };
        if comparable(decided) && self.choice.compared_on != decided {
            self.compare(fs, labelled, decided, FITS);
        }
        if now != decided && comparable(now) {
            self.compare(fs, labelled, now, n + 1 - now);
        }
    }

    /// Makes the comparison on the first `upto` decisions up to its fit
    /// `due` (all [`FITS`]: it decides), going on with the one under way
    /// when it is on the same decisions.
    fn compare(&mut self, fs: &FeatureSet, labelled: &[(usize, bool)], upto: usize, due: usize) {
        let Some((rows, _)) = &self.text else { return };
        if self.folds.is_empty() {
            // At most the default passes per fold fit (a live review's models
            // take up to 200): the comparison is the same in `screen next`,
            // on the page and in a simulation, and costs 10 short fits.
            let passes = self.svm.max_passes.min(SvmParams::default().max_passes);
            let (dim, svm) = (fs.dim(), SvmParams { max_passes: passes, ..self.svm });
            self.folds = (0..FOLDS).map(|_| Learner::new(&fs.rows, dim, svm)).collect();
            self.folds.extend((0..FOLDS).map(|_| Learner::new(rows, dim, svm)));
        }
        let prefix = &labelled[..upto];
        let mut c = match self.pending.take() {
            Some(c) if c.upto == upto && c.prefix == prefix => c,
            _ => Comparison { upto, prefix: prefix.to_vec(), made: 0, scored: [Vec::new(), Vec::new()] },
        };
        while c.made < due.min(FITS) {
            let (model, fold) = (c.made % 2, c.made / 2);
            let rows = if model == 0 { &fs.rows } else { rows };
            let scored = fold_margins(&mut self.folds[model * FOLDS + fold], rows, &c.prefix, fold);
            c.scored[model].extend(scored);
            c.made += 1;
            #[cfg(test)]
            {
                self.fold_fits += 1;
            }
        }
        if c.made < FITS {
            self.pending = Some(c);
            return;
        }
        let [mut all, mut text] = c.scored;
        let (auc_all, auc_text) = (auc(&mut all), auc(&mut text));
        self.choice = Choice { text_only: auc_text > auc_all, compared_on: upto, aucs: Some((auc_all, auc_text)) };
    }

    /// The model that ranks, with the rows it reads.
    fn chosen<'a>(&'a self, fs: &'a FeatureSet) -> (&'a Learner, &'a [Row]) {
        match &self.text {
            Some((rows, l)) if self.choice.text_only => (l, rows),
            _ => (&self.full, &fs.rows),
        }
    }

    /// The chosen model's margin for row `i` (higher: more likely included).
    pub fn margin(&self, fs: &FeatureSet, i: usize) -> f64 {
        let (l, rows) = self.chosen(fs);
        l.margin(&rows[i])
    }

    /// The chosen model's weight of feature `j` (0 for a non-text feature
    /// when the text-only model ranks).
    pub fn weight(&self, fs: &FeatureSet, j: u32) -> f64 {
        self.chosen(fs).0.weight(j)
    }

    pub fn choice(&self) -> &Choice {
        &self.choice
    }
}

/// Each row with its text features only (same feature numbers).
fn text_only(fs: &FeatureSet) -> Vec<Row> {
    fs.rows
        .iter()
        .map(|r| r.iter().copied().filter(|(j, _)| matches!(fs.names[*j as usize], Feature::Term(_))).collect())
        .collect()
}

/// Fold `fold` of a cross-validation over `labelled`: `learner` trained
/// (from its last solution) on the other folds, and its margins of the
/// fold's own decisions.
fn fold_margins(learner: &mut Learner, rows: &[Row], labelled: &[(usize, bool)], fold: usize) -> Vec<(f64, bool)> {
    let train: Vec<(usize, bool)> =
        labelled.iter().enumerate().filter(|(k, _)| k % FOLDS != fold).map(|(_, l)| *l).collect();
    learner.fit(rows, &train);
    labelled.iter().skip(fold).step_by(FOLDS).map(|&(i, y)| (learner.margin(&rows[i]), y)).collect()
}

/// The area under the ROC curve (Mann–Whitney, ties counted half); 0.5
/// when a class is missing.
fn auc(scored: &mut [(f64, bool)]) -> f64 {
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    let pos = scored.iter().filter(|s| s.1).count() as f64;
    let neg = scored.len() as f64 - pos;
    if pos == 0.0 || neg == 0.0 {
        return 0.5;
    }
    // Sum of the positives' ranks (1-based, ties given their mean rank).
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < scored.len() {
        let mut j = i;
        while j < scored.len() && scored[j].0 == scored[i].0 {
            j += 1;
        }
        let mean_rank = (i + 1 + j) as f64 / 2.0;
        rank_sum += mean_rank * scored[i..j].iter().filter(|s| s.1).count() as f64;
        i = j;
    }
    (rank_sum - pos * (pos + 1.0) / 2.0) / (pos * neg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_counts_pairs_and_halves_ties() {
        assert_eq!(auc(&mut [(1.0, false), (2.0, true)]), 1.0);
        assert_eq!(auc(&mut [(2.0, false), (1.0, true)]), 0.0);
        assert_eq!(auc(&mut [(1.0, false), (1.0, true)]), 0.5);
        // 2 positives, 2 negatives: pairs (p > n) = 3 of 4.
        assert_eq!(auc(&mut [(0.1, false), (0.3, true), (0.35, false), (0.8, true)]), 0.75);
        assert_eq!(auc(&mut [(0.1, true)]), 0.5);
    }

    /// Text feature 0 marks the included rows, with a few rows mislabelled
    /// by it. Graph features either tie rows 2k and 2k+1 (one shared node
    /// each, the pairs mixing includes and excludes: links that say nothing
    /// of the label, which the full model fits and then carries to the
    /// held-out fold) or mark the included rows. The text-only model is
    /// chosen in the first case once enough includes are decided, the full
    /// model in the second.
    #[test]
    fn the_model_that_separates_the_decisions_better_is_chosen() {
        let make = |graph_marks_included: bool| -> (FeatureSet, Vec<(usize, bool)>) {
            let mut names = vec![Feature::Term("a".into()), Feature::Term("b".into())];
            let mut rows = Vec::new();
            let mut labelled = Vec::new();
            for i in 0..60usize {
                let inc = i % 3 == 0;
                let text_says = if i % 15 == 0 || i % 15 == 7 { !inc } else { inc };
                let mut r: Row = vec![(0, if text_says { 1.0 } else { 0.0 }), (1, 0.5)];
                let node = if graph_marks_included { usize::from(inc) } else { i / 2 };
                let j = names.iter().position(|n| *n == Feature::Node(node as i64)).unwrap_or_else(|| {
                    names.push(Feature::Node(node as i64));
                    names.len() - 1
                });
                r.push((j as u32, 1.0));
                rows.push(r);
                labelled.push((i, inc));
            }
            (FeatureSet { rows, names, has_vectors: false }, labelled)
        };
        let (fs, labelled) = make(false);
        let mut s = Screener::new(&fs, SvmParams::default());
        s.fit(&fs, &labelled[..9]);
        assert_eq!(s.choice().compared_on, 0, "3 includes: not compared yet");
        assert_eq!(s.choice().model(), "all features");
        assert!(s.choice().describe().starts_with("all features (not compared before 10 includes)"));
        s.fit(&fs, &labelled);
        // The comparison on 60 decisions decides at the 69th: 50's holds.
        assert_eq!(s.choice().compared_on, 50);
        assert_eq!(s.choice().model(), "text only", "{:?}", s.choice());
        assert_eq!(s.weight(&fs, 2), 0.0);
        let (a, b) = s.choice().aucs.unwrap();
        assert!(b > a && b < 1.0, "{a} {b}");

        let (fs, labelled) = make(true);
        let mut s = Screener::new(&fs, SvmParams::default());
        s.fit(&fs, &labelled);
        assert_eq!(s.choice().model(), "all features", "{:?}", s.choice());
        assert!(s.margin(&fs, 3) > s.margin(&fs, 1));
    }

    /// Decisions coming one at a time: each call makes at most one fold
    /// fit, a comparison decides at its last, and the choice at every count
    /// is the one a model fitted from zero on the same decisions makes.
    #[test]
    fn a_comparison_is_spread_over_the_decisions_after_it() {
        // 100 rows: text feature 0 marks the includes (every 3rd row), with
        // some rows mislabelled by it; a graph feature pairs rows.
        let mut names = vec![Feature::Term("a".into())];
        let (mut rows, mut labelled) = (Vec::new(), Vec::new());
        for i in 0..100usize {
            let inc = i % 3 == 0;
            let text_says = if i % 15 == 0 || i % 15 == 7 { !inc } else { inc };
            names.push(Feature::Node(i as i64 / 2));
            rows.push(vec![(0, if text_says { 1.0 } else { 0.0 }), (i as u32 / 2 + 1, 1.0)]);
            labelled.push((i, inc));
        }
        names.truncate(51);
        let fs = FeatureSet { rows, names, has_vectors: false };
        // The comparison that holds at n decisions, worked out apart: the
        // last multiple of EVERY with MIN_INCLUDED includes before it whose
        // FITS fits were due by n.
        let holds = |n: usize| {
            (1..=n / EVERY)
                .map(|k| k * EVERY)
                .filter(|&c| labelled[..c].iter().filter(|l| l.1).count() >= MIN_INCLUDED && c + FITS - 1 <= n)
                .max()
                .unwrap_or(0)
        };
        let mut s = Screener::new(&fs, SvmParams::default());
        let mut made = 0;
        for n in 2..=100 {
            s.fit(&fs, &labelled[..n]);
            assert_eq!(s.choice().compared_on, holds(n), "at {n}");
            // Fits made so far: the decided comparisons' and the one under way's.
            assert!(s.fold_fits <= made + 1, "at {n}: {made} fold fits before, {} after", s.fold_fits);
            made = s.fold_fits;
            let fresh = {
                let mut f = Screener::new(&fs, SvmParams::default());
                f.fit(&fs, &labelled[..n]);
                f
            };
            assert_eq!(fresh.choice().compared_on, s.choice().compared_on, "at {n}");
            assert_eq!(fresh.choice().text_only, s.choice().text_only, "at {n}");
        }
        // At 100 the comparison on 90 holds, the one on 100 has made its first fit.
        assert_eq!((holds(100), s.pending.as_ref().map(|c| (c.upto, c.made))), (90, Some((100, 1))));
    }

    #[test]
    fn text_only_features_have_one_model() {
        let fs = FeatureSet {
            rows: vec![vec![(0, 1.0)], vec![(0, 0.2)]],
            names: vec![Feature::Term("a".into())],
            has_vectors: false,
        };
        let mut s = Screener::new(&fs, SvmParams::default());
        s.fit(&fs, &[(0, true), (1, false)]);
        assert!(s.text.is_none());
        assert!(s.margin(&fs, 0) > s.margin(&fs, 1));
    }
}
