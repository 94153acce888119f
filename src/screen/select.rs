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
//! - then, at every [`EVERY`]-th decision, each model is scored by the area
//!   under the ROC curve of its [`FOLDS`]-fold cross-validated margins over
//!   the decisions so far (decision `k` in fold `k mod FOLDS`, each fold's
//!   model trained on the others, from its solution at the last comparison);
//!   the text-only model takes over when its area is strictly larger, else
//!   the full model keeps it.
//!
//! The choice depends only on the first `EVERY · ⌊decisions / EVERY⌋`
//! decisions, so a live review and a simulation of the same decisions
//! choose alike, up to the solver's tolerance (a `screen next` process
//! trains its fold models from zero; the page, MCP and a simulation from
//! their last solution). [`MIN_INCLUDED`] was chosen among 3, 10 and 20 on
//! the three tuning reviews (docs/SCREENING.md).

use super::features::{Feature, FeatureSet, Row};
use super::learner::{Learner, SvmParams};

/// Includes needed among the decisions before the models are compared.
pub const MIN_INCLUDED: usize = 10;
/// The comparison is made again at every this many decisions.
pub const EVERY: usize = 10;
/// Cross-validation folds.
pub const FOLDS: usize = 5;

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
    choice: Choice,
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
            choice: Choice::default(),
        }
    }

    /// Retrains both models on the decisions (`(row, included)`, in the order
    /// made) and compares them when [`EVERY`] more decisions have come in.
    pub fn fit(&mut self, fs: &FeatureSet, labelled: &[(usize, bool)]) {
        self.full.fit(&fs.rows, labelled);
        let Some((rows, learner)) = &mut self.text else { return };
        learner.fit(rows, labelled);
        let upto = labelled.len() / EVERY * EVERY;
        let prefix = &labelled[..upto];
        if upto == self.choice.compared_on || prefix.iter().filter(|l| l.1).count() < MIN_INCLUDED {
            return;
        }
        if self.folds.is_empty() {
            // At most the default passes per fold fit (a live review's models
            // take up to 200): the comparison is the same in `screen next`,
            // on the page and in a simulation, and costs 10 short fits.
            let passes = self.svm.max_passes.min(SvmParams::default().max_passes);
            let (dim, svm) = (fs.dim(), SvmParams { max_passes: passes, ..self.svm });
            self.folds = (0..FOLDS).map(|_| Learner::new(&fs.rows, dim, svm)).collect();
            self.folds.extend((0..FOLDS).map(|_| Learner::new(rows, dim, svm)));
        }
        let (all_folds, text_folds) = self.folds.split_at_mut(FOLDS);
        let auc_all = cross_validated_auc(all_folds, &fs.rows, prefix);
        let auc_text = cross_validated_auc(text_folds, rows, prefix);
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

/// The ROC area of [`FOLDS`]-fold cross-validated margins over `labelled`,
/// fold `f` trained (from its last solution) by `folds[f]`.
fn cross_validated_auc(folds: &mut [Learner], rows: &[Row], labelled: &[(usize, bool)]) -> f64 {
    let mut scored: Vec<(f64, bool)> = Vec::with_capacity(labelled.len());
    for (fold, l) in folds.iter_mut().enumerate() {
        let train: Vec<(usize, bool)> =
            labelled.iter().enumerate().filter(|(k, _)| k % FOLDS != fold).map(|(_, l)| *l).collect();
        l.fit(rows, &train);
        scored.extend(labelled.iter().skip(fold).step_by(FOLDS).map(|&(i, y)| (l.margin(&rows[i]), y)));
    }
    auc(&mut scored)
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
        assert_eq!(s.choice().compared_on, 60);
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
