//! The order of a live review: the model retrained on its decisions
//! (oldest first, as they were made) proposes the undecided candidates most
//! likely to be included, each with why; and the review's status, with an
//! estimate of the relevant candidates left and a stopping suggestion.
//!
//! Before the review has both an include and an exclude the model has
//! nothing to separate, and the candidates come in the order they were
//! added (a query's rank order).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::features::{self, Feature, FeatureSet, Weights};
use super::learner::SvmParams;
use super::select::Screener;
use crate::store::Store;

/// One proposed candidate and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposal {
    pub given_id: String,
    pub paper_id: String,
    pub title: String,
    pub year: Option<i32>,
    /// The model's margin (higher: more likely included); `None` before it is trained.
    pub score: Option<f64>,
    /// Which model scored it and why (`select::Choice::describe`); `None` before it is trained.
    pub model: Option<String>,
    /// The terms that raise its score most, with their contribution.
    pub top_terms: Vec<(String, f64)>,
    /// Included candidates it cites.
    pub cites_included: Vec<String>,
    /// Included candidates that cite it.
    pub cited_by_included: Vec<String>,
    /// References it shares with the included candidates (bibliographic coupling).
    pub shared_references: usize,
    /// The highest cosine of its vector to an included candidate's, when both have one.
    pub vector_similarity: Option<f64>,
}

/// A review's candidates, features and trained model.
pub struct Model {
    given: Vec<String>,
    papers: Vec<String>,
    docs: Vec<Option<i64>>,
    decided: Vec<Option<bool>>,
    fs: FeatureSet,
    learner: Option<Screener>,
    /// The decisions the learner was trained on (row, included), oldest first.
    labelled: Vec<(usize, bool)>,
    svm: SvmParams,
    weights: Weights,
    /// The index generation the features were built from.
    generation: i64,
}

/// Passes at most per retrain of a live review (a simulation uses the
/// settings' own).
const LIVE_PASSES: usize = 200;

/// Each candidate's decision, and the decisions in the order they were made.
fn decisions(cands: &[crate::store::CandidateRow]) -> (Vec<Option<bool>>, Vec<(usize, bool)>) {
    let mut order: Vec<(i64, usize, bool)> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        if let Some(d) = &c.decision {
            order.push((d.seq, i, d.included));
        }
    }
    order.sort();
    let decided = cands.iter().map(|c| c.decision.as_ref().map(|d| d.included)).collect();
    (decided, order.iter().map(|&(_, i, y)| (i, y)).collect())
}

/// The review's candidates, by position.
fn candidates(store: &Store, name: &str) -> anyhow::Result<Vec<crate::store::CandidateRow>> {
    anyhow::ensure!(store.screen_review(name)?.is_some(), "no review `{name}`");
    let mut cands = store.screen_candidates(name)?;
    cands.sort_by_key(|c| c.pos);
    Ok(cands)
}

/// Trains the model of review `name` on its decisions, from zero.
pub fn model(store: &Store, name: &str, weights: Weights, svm: SvmParams) -> anyhow::Result<Model> {
    let generation = store.generation()?;
    let cands = candidates(store, name)?;
    let (decided, labelled) = decisions(&cands);
    let mut given = Vec::new();
    let mut papers = Vec::new();
    let mut docs = Vec::new();
    for c in cands {
        let paper = store.resolve(&c.given_id)?.unwrap_or(c.paper_id);
        docs.push(store.doc_of(&paper)?);
        given.push(c.given_id);
        papers.push(paper);
    }
    let fs = features::build(store, &docs, weights)?;
    let svm = SvmParams { max_passes: LIVE_PASSES, ..svm };
    let mut m =
        Model { given, papers, docs, decided, fs, learner: None, labelled: Vec::new(), svm, weights, generation };
    m.fit(labelled);
    Ok(m)
}

impl Model {
    /// Retrains on `labelled`: from the last solution when the decisions
    /// only grew since, else from zero (a decision changed or was undone).
    fn fit(&mut self, labelled: Vec<(usize, bool)>) {
        let grew = labelled.starts_with(&self.labelled);
        let both = labelled.iter().any(|l| l.1) && labelled.iter().any(|l| !l.1);
        self.learner = if both {
            let mut l = match self.learner.take() {
                Some(l) if grew => l,
                _ => Screener::new(&self.fs, self.svm),
            };
            l.fit(&self.fs, &labelled);
            Some(l)
        } else {
            None
        };
        self.labelled = labelled;
    }

    /// Brings a kept model up to the review's decisions; `false` when it
    /// cannot be (another index generation, other candidates, other settings).
    fn refresh(&mut self, store: &Store, name: &str, weights: Weights, svm: SvmParams) -> anyhow::Result<bool> {
        let svm = SvmParams { max_passes: LIVE_PASSES, ..svm };
        if store.generation()? != self.generation || weights != self.weights || svm != self.svm {
            return Ok(false);
        }
        let cands = candidates(store, name)?;
        if cands.len() != self.given.len() || cands.iter().zip(&self.given).any(|(c, g)| c.given_id != *g) {
            return Ok(false);
        }
        let (decided, labelled) = decisions(&cands);
        self.decided = decided;
        self.fit(labelled);
        Ok(true)
    }
}

/// Reviews' models kept between requests by a long-lived process (the page,
/// the MCP server). A review's features are built once per index
/// generation ([`Store::generation`]: a decision does not change it, an
/// ingest does); each request rereads the decisions and retrains from the
/// last solution, as `screen simulate` does, instead of from zero as a
/// `screen next` process must.
#[derive(Default)]
pub struct Models {
    /// By review name, the most recently used last.
    kept: std::sync::Mutex<Vec<(String, Model)>>,
}

/// The reviews a [`Models`] keeps at once (the least recently used goes).
const KEPT_REVIEWS: usize = 4;

impl Models {
    /// `f` on review `name`'s model, up to date with its decisions.
    pub fn with<T>(
        &self,
        store: &Store,
        name: &str,
        weights: Weights,
        svm: SvmParams,
        f: impl FnOnce(&Model) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        // A panic while a model was being updated leaves it half done: start over.
        let mut kept = self.kept.lock().unwrap_or_else(|poisoned| {
            let mut k = poisoned.into_inner();
            k.clear();
            k
        });
        let at = kept.iter().position(|(n, _)| n == name);
        let fresh = match at.map(|i| kept.remove(i).1) {
            Some(mut m) => {
                if m.refresh(store, name, weights, svm)? {
                    m
                } else {
                    model(store, name, weights, svm)?
                }
            }
            None => model(store, name, weights, svm)?,
        };
        if kept.len() >= KEPT_REVIEWS {
            kept.remove(0);
        }
        let out = f(&fresh);
        kept.push((name.to_string(), fresh));
        out
    }
}

impl Model {
    /// The `n` undecided candidates the model ranks highest, with why.
    pub fn next(&self, store: &Store, n: usize) -> anyhow::Result<Vec<Proposal>> {
        let mut open: Vec<(usize, Option<f64>)> = (0..self.given.len())
            .filter(|i| self.decided[*i].is_none())
            .map(|i| (i, self.learner.as_ref().map(|l| l.margin(&self.fs, i))))
            .collect();
        if self.learner.is_some() {
            open.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
        }
        open.truncate(n);
        let included: Vec<usize> = (0..self.given.len()).filter(|i| self.decided[*i] == Some(true)).collect();
        let inc_papers: HashMap<i64, String> =
            included.iter().filter_map(|&i| self.docs[i].map(|d| (d, self.papers[i].clone()))).collect();
        let inc_docs: Vec<i64> = inc_papers.keys().copied().collect();
        let inc_hoods = store.neighbourhoods(&inc_docs)?;
        let inc_nodes: HashMap<i64, String> =
            inc_docs.iter().zip(&inc_hoods).filter_map(|(d, h)| h.node.map(|n| (n, inc_papers[d].clone()))).collect();
        let inc_refs: HashSet<i64> = inc_hoods.iter().flat_map(|h| h.references.iter().copied()).collect();
        let mut out = Vec::new();
        for (i, score) in open {
            let p = match self.docs[i] {
                Some(d) => Some(store.paper_by_doc(d)?),
                None => None,
            };
            let hood = match self.docs[i] {
                Some(d) => store.neighbourhoods(&[d])?.pop().unwrap_or_default(),
                None => Default::default(),
            };
            let names = |v: &[i64]| -> Vec<String> {
                let mut s: Vec<String> = v.iter().filter_map(|n| inc_nodes.get(n).cloned()).collect();
                s.sort();
                s.dedup();
                s
            };
            out.push(Proposal {
                given_id: self.given[i].clone(),
                paper_id: self.papers[i].clone(),
                title: p.as_ref().map(|p| p.title.clone()).unwrap_or_default(),
                year: p.as_ref().and_then(|p| p.year),
                score,
                model: self.learner.as_ref().map(|l| l.choice().describe()),
                top_terms: self.top_terms(i, 5),
                cites_included: names(&hood.references),
                cited_by_included: names(&hood.citers),
                shared_references: hood.references.iter().filter(|r| inc_refs.contains(r)).count(),
                vector_similarity: self.vector_similarity(i, &included),
            });
        }
        Ok(out)
    }

    /// The text features that add most to candidate `i`'s score.
    fn top_terms(&self, i: usize, k: usize) -> Vec<(String, f64)> {
        let Some(l) = &self.learner else { return Vec::new() };
        let mut terms: Vec<(String, f64)> = self.fs.rows[i]
            .iter()
            .filter_map(|&(j, v)| match &self.fs.names[j as usize] {
                Feature::Term(t) => Some((t.clone(), l.weight(&self.fs, j) * v as f64)),
                _ => None,
            })
            .filter(|(_, c)| *c > 0.0)
            .collect();
        terms.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
        terms.truncate(k);
        terms
    }

    fn vector_similarity(&self, i: usize, included: &[usize]) -> Option<f64> {
        let dense = |r: usize| -> Vec<(u32, f32)> {
            self.fs.rows[r]
                .iter()
                .copied()
                .filter(|(j, _)| matches!(self.fs.names[*j as usize], Feature::Dim(_)))
                .collect()
        };
        let a = dense(i);
        if a.is_empty() {
            return None;
        }
        let norm = |v: &[(u32, f32)]| v.iter().map(|(_, x)| (*x as f64).powi(2)).sum::<f64>().sqrt();
        included
            .iter()
            .filter_map(|&o| {
                let b = dense(o);
                if b.is_empty() {
                    return None;
                }
                let dot: f64 = a.iter().zip(&b).map(|(x, y)| x.1 as f64 * y.1 as f64).sum();
                Some(dot / (norm(&a) * norm(&b)).max(1e-12))
            })
            .fold(None, |m: Option<f64>, c| Some(m.map_or(c, |m| m.max(c))))
    }
}
