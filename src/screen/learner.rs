//! The screening model: a linear support vector machine (L2-regularised,
//! hinge loss, bias as a constant feature), trained by dual coordinate
//! descent (Hsieh et al. 2008, the solver of LIBLINEAR) with class weights,
//! warm-started from the previous decision's solution so that retraining
//! after each decision costs a few passes over the labelled rows.
//!
//! Why this learner: ASReview's default (ELAS u4) is TF-IDF + a linear SVM,
//! which is strong on these reviews; the gain here is meant to come from
//! the features the index has and ASReview lacks (citations, vectors), so the
//! learner stays the one known to work, and the comparison says what the
//! features add. Class weighting stands in for ASReview's balanced sampling:
//! the few included rows weigh `min(n_excluded / n_included, max_ratio)`
//! times an excluded one.
//!
//! Dual: minimise ½‖w‖² + Σ Cᵢ max(0, 1 − yᵢ w·xᵢ); with αᵢ ∈ [0, Cᵢ],
//! w = Σ αᵢ yᵢ xᵢ; each step sets one αᵢ to its optimum given the rest:
//! αᵢ ← clip(αᵢ − (yᵢ w·xᵢ − 1) / ‖xᵢ‖², 0, Cᵢ).

use super::features::Row;

/// The learner's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvmParams {
    /// The cost of a margin violation by an excluded row.
    pub c: f64,
    /// The cap of the included rows' weight over the excluded's.
    pub max_ratio: f64,
    /// Passes over the labelled rows at most per retrain.
    pub max_passes: usize,
    /// Stop when no α moved by more than this in a pass.
    pub tolerance: f64,
}

impl Default for SvmParams {
    fn default() -> SvmParams {
        SvmParams { c: 0.1, max_ratio: 10.0, max_passes: 30, tolerance: 1e-3 }
    }
}

/// A model that learns from one decision after another.
#[derive(Debug, Clone)]
pub struct Learner {
    params: SvmParams,
    /// The weights, the bias last.
    w: Vec<f64>,
    /// α of each row, by row index (0 for rows not labelled).
    alpha: Vec<f64>,
    /// ‖xᵢ‖² + 1 (the bias feature) of each row.
    sq: Vec<f64>,
}

impl Learner {
    /// A learner over `rows` features of `dim` dimensions.
    pub fn new(rows: &[Row], dim: usize, params: SvmParams) -> Learner {
        let sq = rows.iter().map(|r| r.iter().map(|(_, v)| (*v as f64).powi(2)).sum::<f64>() + 1.0).collect();
        Learner { params, w: vec![0.0; dim + 1], alpha: vec![0.0; rows.len()], sq }
    }

    /// Retrains on the labelled rows (`(row, included)`), starting from the
    /// last solution.
    pub fn fit(&mut self, rows: &[Row], labelled: &[(usize, bool)]) {
        let pos = labelled.iter().filter(|(_, y)| *y).count();
        let neg = labelled.len() - pos;
        let ratio =
            if pos == 0 || neg == 0 { 1.0 } else { (neg as f64 / pos as f64).clamp(1.0, self.params.max_ratio) };
        let cost = |y: bool| if y { self.params.c * ratio } else { self.params.c };
        // The bounds moved with the class ratio: clip, then rebuild w from α.
        let bias = self.w.len() - 1;
        self.w.iter_mut().for_each(|x| *x = 0.0);
        for &(i, y) in labelled {
            self.alpha[i] = self.alpha[i].min(cost(y));
            let s = if y { self.alpha[i] } else { -self.alpha[i] };
            if s != 0.0 {
                for &(j, v) in &rows[i] {
                    self.w[j as usize] += s * v as f64;
                }
                self.w[bias] += s;
            }
        }
        // Passes in a fixed order that mixes the classes (newest first: the
        // new row is the one most likely to be off its optimum).
        for _ in 0..self.params.max_passes {
            let mut moved: f64 = 0.0;
            for &(i, y) in labelled.iter().rev() {
                let yv = if y { 1.0 } else { -1.0 };
                let g = yv * self.margin(&rows[i]) - 1.0;
                let old = self.alpha[i];
                let new = (old - g / self.sq[i]).clamp(0.0, cost(y));
                if new != old {
                    let d = (new - old) * yv;
                    for &(j, v) in &rows[i] {
                        self.w[j as usize] += d * v as f64;
                    }
                    self.w[bias] += d;
                    self.alpha[i] = new;
                    moved = moved.max((new - old).abs());
                }
            }
            if moved < self.params.tolerance {
                break;
            }
        }
    }

    /// w·x + b.
    pub fn margin(&self, row: &Row) -> f64 {
        let bias = self.w.len() - 1;
        row.iter().map(|&(j, v)| self.w[j as usize] * v as f64).sum::<f64>() + self.w[bias]
    }

    /// The weight of feature `j`.
    pub fn weight(&self, j: u32) -> f64 {
        self.w[j as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separates_two_groups_and_ranks_the_unlabelled_by_them() {
        // Features 0/1 mark two topics; rows 0-2 topic A (included), 3-5 topic B.
        let rows: Vec<Row> = vec![
            vec![(0, 1.0)],
            vec![(0, 0.9), (2, 0.1)],
            vec![(0, 0.8), (2, 0.2)],
            vec![(1, 1.0)],
            vec![(1, 0.9), (2, 0.1)],
            vec![(1, 0.7), (2, 0.3)],
        ];
        let mut l = Learner::new(&rows, 3, SvmParams::default());
        l.fit(&rows, &[(0, true), (3, false)]);
        assert!(l.margin(&rows[1]) > l.margin(&rows[4]));
        assert!(l.margin(&rows[2]) > l.margin(&rows[5]));
        l.fit(&rows, &[(0, true), (3, false), (1, true), (4, false)]);
        assert!(l.margin(&rows[2]) > 0.0 && l.margin(&rows[5]) < 0.0);
    }
}
