//! Every formula of a hit's final score, and the explanation of it that
//! the CLI and the web page print. The ranker ([`super::rank`]) and the
//! feedback ([`super::feedback`]) compute with these functions only.
//!
//! ```text
//! bm25_norm     = bm25_score / max bm25_score over the merged set (0 if that max is 0)
//! fused_score   = first-stage score / its max over the merged set (a dense or hybrid
//!                 first stage, or bm25 + β·expansion with favorites); it is bm25_norm
//!                 when the first stage is the query's own BM25
//! graph_score   = by-hops: 1, 0.6, 0.3 for distance 0, 1, 2; 0 when not reached
//!                 weighted: evidence(p) = Σ over the seeds s that reach p in d ≥ 1 steps
//!                 of fused(s)·by-hops(d), each favorite a seed of strength 1;
//!                 graph_score = ln(1 + evidence(p)) / ln(1 + max evidence)
//! recency_score = (year − min_year) / (max_year − min_year) over the corpus's dated
//!                 papers; 1 when min = max; 0 for a paper without a year
//! feedback      = γ·by-hops(steps from the nearest favorite) (0 without favorites)
//! final_score   = w_bm25·fused_score + w_graph·graph_score + w_recency·recency_score
//!                 + feedback
//! ```
//!
//! [`Explanation`] is the formula a search used, as one line; [`ScoreParts`]
//! is one hit's final score split into its terms.

use std::collections::HashMap;
use std::fmt;

use super::request::{Mode, SearchRequest, Weights};
use crate::graph::{Adjacency, Bfs, Node, NodeMap, Reach, bfs_nodes_into};

/// `graph_score` of the `by-hops` mode for a walk distance: 1 / 0.6 / 0.3 / 0.
pub fn graph_score(distance: Option<u32>) -> f64 {
    match distance {
        Some(0) => 1.0,
        Some(1) => 0.6,
        Some(2) => 0.3,
        _ => 0.0,
    }
}

/// `recency_score`: linear in the year over the corpus's year range.
pub fn recency_score(year: Option<i32>, min_year: Option<i32>, max_year: Option<i32>) -> f64 {
    match (year, min_year, max_year) {
        (Some(y), Some(lo), Some(hi)) if hi > lo => ((y - lo) as f64 / (hi - lo) as f64).clamp(0.0, 1.0),
        (Some(_), Some(_), Some(_)) => 1.0,
        _ => 0.0,
    }
}

/// A score over the merged set's maximum (`bm25_norm`, `fused_score`): 0 when that max is 0.
pub fn normalised(score: f64, max: f64) -> f64 {
    if max > 0.0 { score / max } else { 0.0 }
}

/// The feedback term of the final score: `γ · graph_score(steps from the nearest favorite)`.
pub(crate) fn closeness_bonus(near: f64, favorite_hops: Option<u32>) -> f64 {
    if near == 0.0 { 0.0 } else { near * graph_score(favorite_hops) }
}

/// `final_score`, added in this order (the same f64 everywhere).
pub fn final_score(w: Weights, fused: f64, graph: f64, recency: f64, feedback: f64) -> f64 {
    w.bm25 * fused + w.graph * graph + w.recency * recency + feedback
}

/// The `weighted` graph evidence of every node the seeds (id, first-stage
/// score) reach: each seed's score scaled by `norm` and decayed by
/// distance, summed by node ([`evidence_sums`]). The walk goes over `adj`
/// (the store's edges, or a cluster's); room for `reached` nodes is made
/// at the start (the walk from all the seeds reached that many).
pub(crate) fn seed_evidence(
    adj: &impl Adjacency,
    seeds: &[(String, f64)],
    norm: impl Fn(f64) -> f64,
    reach: Reach,
    reached: usize,
) -> anyhow::Result<NodeMap<f64>> {
    let ids: Vec<String> = seeds.iter().map(|(id, _)| id.clone()).collect();
    let walks = seed_walks(adj, &seed_nodes(adj, &ids)?, reach)?;
    Ok(evidence_sums(seeds, &walks, norm, reached))
}

/// Each seed's walk: the nodes it reaches at 1 step or more, with their
/// distances (`None` for a seed the graph does not know).
pub(crate) type SeedWalk = Option<Vec<(Node, u32)>>;

/// The node of each of `ids` (`None`: not in the graph), in one call.
pub(crate) fn seed_nodes(adj: &impl Adjacency, ids: &[String]) -> anyhow::Result<Vec<Option<Node>>> {
    let node_of: HashMap<String, Node> = adj.nodes_of(ids)?.into_iter().collect();
    Ok(ids.iter().map(|id| node_of.get(id).copied()).collect())
}

/// The walk from each of `nodes` alone ([`SeedWalk`]), in order, through one walker.
pub(crate) fn seed_walks(adj: &impl Adjacency, nodes: &[Option<Node>], reach: Reach) -> anyhow::Result<Vec<SeedWalk>> {
    let mut walk = Bfs::default();
    let mut walks = Vec::with_capacity(nodes.len());
    for node in nodes {
        walks.push(match node {
            Some(node) => {
                bfs_nodes_into(adj, &[*node], reach, &mut walk)?;
                // A seed is no evidence for itself: its own score is already in the final score.
                Some(walk.dist.iter().filter(|&(_, &d)| d > 0).map(|(&n, &d)| (n, d)).collect())
            }
            None => None,
        });
    }
    Ok(walks)
}

/// [`seed_evidence`] from the seeds' walks (`walks[i]` is `seeds[i]`'s):
/// the sums by node, in seed order.
pub(crate) fn evidence_sums(
    seeds: &[(String, f64)],
    walks: &[SeedWalk],
    norm: impl Fn(f64) -> f64,
    reached: usize,
) -> NodeMap<f64> {
    let mut by_node: NodeMap<f64> = NodeMap::with_capacity_and_hasher(reached, Default::default());
    for ((_, score), walk) in seeds.iter().zip(walks) {
        let Some(walk) = walk else { continue };
        let strength = norm(*score);
        for &(n, d) in walk {
            *by_node.entry(n).or_default() += strength * graph_score(Some(d));
        }
    }
    by_node
}

/// `graph_score` of the `weighted` mode: a merged paper's evidence (`None`:
/// no seed reaches it) log-scaled by the largest in the merged set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WeightedScale {
    /// `ln(1 + max evidence)`; `None` when that max is not positive (then
    /// the score is the evidence itself).
    scale: Option<f64>,
}

impl WeightedScale {
    /// The scale of a merged set whose largest evidence is `max`.
    pub(crate) fn new(max: f64) -> WeightedScale {
        WeightedScale { scale: (max > 0.0).then(|| (1.0 + max).ln()) }
    }

    /// The graph score of a paper with `evidence`: `ln(1 + e) / ln(1 + max)`, 0 without any.
    pub(crate) fn score(self, evidence: Option<f64>) -> f64 {
        match (evidence, self.scale) {
            (None, _) => 0.0,
            (Some(e), Some(scale)) => (1.0 + e).ln() / scale,
            (Some(e), None) => e,
        }
    }
}

/// The formula a search ranked by, as one line:
/// `final = 0.5·bm25_norm + 0.3·graph + 0.2·recency; hop = citation steps from a BM25 seed`
/// (the first term is `fused (dense)`, `fused (hybrid rrf + rerank 20)`, …
/// after a semantic first stage).
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub weights: Weights,
    /// What the first term weighs: `bm25_norm`, or `fused (…)`.
    pub first: String,
    /// What a walk distance counts from.
    pub seed: &'static str,
}

impl Explanation {
    /// The formula of `request` whose first stage ran as `mode` (a result's
    /// `mode`: a query of filters only runs a BM25-mode list whatever was asked).
    pub fn new(request: &SearchRequest, mode: Mode) -> Explanation {
        let weights = request.params.weights;
        if mode == Mode::Bm25 {
            return Explanation { weights, first: "bm25_norm".to_string(), seed: "a BM25 seed" };
        }
        let s = request.semantic;
        let name = match s.mode {
            Mode::Hybrid => format!("hybrid {}", s.fusion.name()),
            m => m.name().to_string(),
        };
        let rerank = if s.rerank > 0 { format!(" + rerank {}", s.rerank) } else { String::new() };
        Explanation { weights, first: format!("fused ({name}{rerank})"), seed: "a first-stage seed" }
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.weights;
        write!(
            f,
            "final = {}·{} + {}·graph + {}·recency; hop = citation steps from {}",
            w.bm25, self.first, w.graph, w.recency, self.seed
        )
    }
}

/// One hit's final score split into its terms (each weighted): what the
/// web page's score bar draws. `Display`: `0.812 = bm25 0.450 + graph 0.180
/// + recency 0.060` (and `+ feedback 0.240` when the favorites added some).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreParts {
    /// `w_bm25 · fused_score` (`bm25_norm` after a BM25 first stage).
    pub first: f64,
    /// `w_graph · graph_score`.
    pub graph: f64,
    /// `w_recency · recency_score`.
    pub recency: f64,
    /// The favorites' closeness bonus (0 without favorites).
    pub feedback: f64,
    /// The final score.
    pub total: f64,
}

impl ScoreParts {
    /// The parts of a hit scored with `w`: its normalised first-stage score,
    /// graph and recency scores, feedback bonus and final score.
    pub fn new(w: Weights, fused: f64, graph: f64, recency: f64, feedback: f64, total: f64) -> ScoreParts {
        ScoreParts { first: w.bm25 * fused, graph: w.graph * graph, recency: w.recency * recency, feedback, total }
    }

    /// The parts by name (`bm25`, `graph`, `recency`, `feedback`), in the final score's order.
    pub fn named(&self) -> [(&'static str, f64); 4] {
        [("bm25", self.first), ("graph", self.graph), ("recency", self.recency), ("feedback", self.feedback)]
    }
}

impl fmt::Display for ScoreParts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} =", self.total)?;
        let mut sep = " ";
        for (name, v) in self.named() {
            if v > 0.0 || name != "feedback" {
                write!(f, "{sep}{name} {v:.3}")?;
                sep = " + ";
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Fusion, SearchParams, SemanticParams};

    #[test]
    fn graph_scores_follow_the_spec() {
        assert_eq!([Some(0), Some(1), Some(2), Some(3), None].map(graph_score), [1.0, 0.6, 0.3, 0.0, 0.0]);
    }

    #[test]
    fn weighted_scores_are_the_log_of_the_evidence_over_the_largest() {
        let s = WeightedScale::new(3.0);
        assert_eq!(s.score(Some(3.0)), 1.0);
        assert_eq!(s.score(Some(1.0)), 2f64.ln() / 4f64.ln());
        assert_eq!(s.score(Some(0.0)), 0.0);
        assert_eq!(s.score(None), 0.0);
        // No positive evidence anywhere: the evidence itself.
        assert_eq!(WeightedScale::new(0.0).score(Some(0.0)), 0.0);
        assert_eq!(WeightedScale::new(0.0).score(None), 0.0);
    }

    #[test]
    fn recency_is_linear_over_the_year_range() {
        assert_eq!(recency_score(Some(2015), Some(2015), Some(2025)), 0.0);
        assert_eq!(recency_score(Some(2025), Some(2015), Some(2025)), 1.0);
        assert!((recency_score(Some(2020), Some(2015), Some(2025)) - 0.5).abs() < 1e-12);
        assert_eq!(recency_score(Some(2020), Some(2020), Some(2020)), 1.0);
        assert_eq!(recency_score(None, Some(2015), Some(2025)), 0.0);
        assert_eq!(recency_score(Some(2020), None, None), 0.0);
    }

    #[test]
    fn normalised_and_closeness_and_final() {
        assert_eq!(normalised(3.0, 4.0), 0.75);
        assert_eq!(normalised(3.0, 0.0), 0.0);
        assert_eq!(closeness_bonus(0.4, Some(1)), 0.4 * 0.6);
        assert_eq!(closeness_bonus(0.4, None), 0.0);
        assert_eq!(closeness_bonus(0.0, Some(0)), 0.0);
        let w = Weights { bm25: 0.5, graph: 0.3, recency: 0.2 };
        assert_eq!(final_score(w, 1.0, 0.6, 0.5, 0.1), 0.5 + 0.3 * 0.6 + 0.2 * 0.5 + 0.1);
    }

    #[test]
    fn the_explanation_is_the_line_the_cli_prints() {
        let request = SearchRequest::new("q", SearchParams::default());
        assert_eq!(
            Explanation::new(&request, Mode::Bm25).to_string(),
            "final = 0.5·bm25_norm + 0.3·graph + 0.2·recency; hop = citation steps from a BM25 seed"
        );
        let mut hybrid = request.clone();
        hybrid.semantic =
            SemanticParams { mode: Mode::Hybrid, fusion: Fusion::Rrf, rerank: 20, ..SemanticParams::default() };
        hybrid.params.weights = Weights { bm25: 1.0, graph: 0.0, recency: 0.0 };
        assert_eq!(
            Explanation::new(&hybrid, Mode::Hybrid).to_string(),
            "final = 1·fused (hybrid rrf + rerank 20) + 0·graph + 0·recency; hop = citation steps from a first-stage seed"
        );
        // A query of filters only ran a BM25-mode list: the line says so.
        assert!(Explanation::new(&hybrid, Mode::Bm25).to_string().contains("1·bm25_norm"));
    }

    #[test]
    fn score_parts_show_the_feedback_only_when_there_is_some() {
        let w = Weights { bm25: 0.5, graph: 0.3, recency: 0.2 };
        let p = ScoreParts::new(w, 0.9, 0.6, 0.3, 0.0, 0.69);
        assert_eq!(p.to_string(), "0.690 = bm25 0.450 + graph 0.180 + recency 0.060");
        let p = ScoreParts::new(w, 0.9, 0.6, 0.3, 0.24, 0.93);
        assert_eq!(p.to_string(), "0.930 = bm25 0.450 + graph 0.180 + recency 0.060 + feedback 0.240");
    }
}
