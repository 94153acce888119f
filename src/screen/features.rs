//! The features a screening model learns from, built from the index alone
//! for one candidate set: three blocks of one sparse row per candidate,
//! each block L2-normalised and then scaled by its weight ([`Weights`]).
//!
//! - **text**: TF-IDF over title + abstract, tokenised by the index's own
//!   analyzer, unigrams and bigrams of consecutive terms; `(1 + ln tf) ·
//!   (ln((1 + n) / (1 + df)) + 1)` (sublinear tf, smoothed idf as
//!   scikit-learn's `TfidfVectorizer`, which ASReview uses), df counted over
//!   the candidates, terms in fewer than two candidates dropped (a weight
//!   on a term only one candidate has never reaches another).
//! - **graph**: the candidate's own graph node, its references (also those
//!   outside the index) and its citers, one binary feature each, idf-weighted
//!   the same way, nodes held by fewer than two candidates dropped. Two
//!   candidates then share a feature when one cites the other (the cited
//!   one's own node), when they cite the same paper (bibliographic coupling)
//!   and when the same paper cites both (co-citation), so a linear model
//!   over them learns "cites / is cited by / shares references with the
//!   included".
//! - **vectors**: the paper's stored dense vector (the newest model), when
//!   the index has one for it.

use std::collections::HashMap;

use crate::store::Store;

/// How much each block weighs (0 leaves it out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub text: f32,
    pub graph: f32,
    pub vectors: f32,
}

impl Default for Weights {
    /// Text and citation weights chosen on the tuning reviews; the vector
    /// weight is untuned (docs/SCREENING.md).
    fn default() -> Weights {
        Weights { text: 1.0, graph: 1.0, vectors: 0.5 }
    }
}

/// What a feature stands for, for explanations.
#[derive(Debug, Clone, PartialEq)]
pub enum Feature {
    /// An analyzer term or a bigram of two (`"a b"`).
    Term(String),
    /// A graph node (by its index node id).
    Node(i64),
    /// A dimension of the dense vector.
    Dim(usize),
}

/// One candidate's features, sorted by index.
pub type Row = Vec<(u32, f32)>;

/// The feature rows of a candidate set.
#[derive(Debug, Clone)]
pub struct FeatureSet {
    pub rows: Vec<Row>,
    /// `names[j]` is what feature `j` stands for.
    pub names: Vec<Feature>,
    /// Whether any candidate had a vector.
    pub has_vectors: bool,
}

impl FeatureSet {
    pub fn dim(&self) -> usize {
        self.names.len()
    }
}

/// Builds the features of `docs` (one per candidate; `None` for a candidate
/// the index does not hold, whose row stays empty).
pub fn build(store: &Store, docs: &[Option<i64>], weights: Weights) -> anyhow::Result<FeatureSet> {
    let analyzer = store.meta()?.analyzer()?;
    let known: Vec<i64> = docs.iter().flatten().copied().collect();
    let mut names: Vec<Feature> = Vec::new();
    let mut rows: Vec<Row> = vec![Vec::new(); docs.len()];

    if weights.text > 0.0 {
        let mut bags: Vec<HashMap<String, u32>> = Vec::with_capacity(docs.len());
        for doc in docs {
            let mut bag = HashMap::new();
            if let Some(doc) = doc {
                let p = store.paper_by_doc(*doc)?;
                let terms = analyzer.tokenize(&crate::analyzer::indexed_text(&p.title, &p.abstract_));
                for t in &terms {
                    *bag.entry(t.clone()).or_insert(0) += 1;
                }
                for w in terms.windows(2) {
                    *bag.entry(format!("{} {}", w[0], w[1])).or_insert(0) += 1;
                }
            }
            bags.push(bag);
        }
        let block = weigh(&bags, weights.text, |t: &String| Feature::Term(t.clone()), &mut names);
        append(&mut rows, block);
    }

    if weights.graph > 0.0 {
        let hoods = store.neighbourhoods(&known)?;
        let mut by_doc: HashMap<i64, &crate::store::Neighbourhood> = HashMap::new();
        for (d, h) in known.iter().zip(&hoods) {
            by_doc.insert(*d, h);
        }
        let bags: Vec<HashMap<i64, u32>> = docs
            .iter()
            .map(|d| {
                let mut bag = HashMap::new();
                if let Some(h) = d.and_then(|d| by_doc.get(&d)) {
                    for n in h.node.iter().chain(&h.references).chain(&h.citers) {
                        bag.insert(*n, 1);
                    }
                }
                bag
            })
            .collect();
        let block = weigh(&bags, weights.graph, |n: &i64| Feature::Node(*n), &mut names);
        append(&mut rows, block);
    }

    let mut has_vectors = false;
    if weights.vectors > 0.0 {
        if let Some(model) = store.vector_models()?.into_iter().next() {
            let mut want: HashMap<i64, Vec<usize>> = HashMap::new();
            for (i, d) in docs.iter().enumerate() {
                if let Some(d) = d {
                    want.entry(*d).or_default().push(i);
                }
            }
            let base = names.len() as u32;
            let dim = model.dim;
            names.extend((0..dim).map(Feature::Dim));
            let mut block: Vec<Row> = vec![Vec::new(); docs.len()];
            store.for_each_vector(model.model_id, |doc, blob| {
                if let Some(at) = want.get(&doc) {
                    let v: Vec<f32> =
                        blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    if norm > 0.0 && v.len() == dim {
                        let row: Row =
                            v.iter().enumerate().map(|(j, x)| (base + j as u32, weights.vectors * x / norm)).collect();
                        for &i in at {
                            block[i] = row.clone();
                        }
                    }
                }
                Ok(())
            })?;
            has_vectors = block.iter().any(|r| !r.is_empty());
            for (r, b) in rows.iter_mut().zip(block) {
                r.extend(b);
            }
        }
    }
    Ok(FeatureSet { rows, names, has_vectors })
}

/// TF-IDF rows of one block (features in ≥ 2 candidates), L2-normalised and
/// scaled by `weight`; new features are numbered after `names`, in a
/// deterministic order (by first appearance).
fn weigh<K: std::hash::Hash + Eq + Clone + Ord>(
    bags: &[HashMap<K, u32>],
    weight: f32,
    name: impl Fn(&K) -> Feature,
    names: &mut Vec<Feature>,
) -> Vec<Row> {
    let mut df: HashMap<&K, u32> = HashMap::new();
    for bag in bags {
        for k in bag.keys() {
            *df.entry(k).or_insert(0) += 1;
        }
    }
    let n = bags.len() as f64;
    let mut index: HashMap<&K, u32> = HashMap::new();
    let mut rows = Vec::with_capacity(bags.len());
    for bag in bags {
        let mut keys: Vec<&K> = bag.keys().filter(|k| df[k] >= 2).collect();
        keys.sort();
        let mut row: Row = Vec::with_capacity(keys.len());
        for k in keys {
            let j = *index.entry(k).or_insert_with(|| {
                names.push(name(k));
                (names.len() - 1) as u32
            });
            let tf = bag[k] as f64;
            let idf = ((1.0 + n) / (1.0 + df[k] as f64)).ln() + 1.0;
            row.push((j, ((1.0 + tf.ln()) * idf) as f32));
        }
        let norm = row.iter().map(|(_, v)| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, v) in &mut row {
                *v *= weight / norm;
            }
        }
        row.sort_by_key(|(j, _)| *j);
        rows.push(row);
    }
    rows
}

fn append(rows: &mut [Row], block: Vec<Row>) {
    for (r, b) in rows.iter_mut().zip(block) {
        r.extend(b);
    }
}
