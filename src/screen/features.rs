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
//!   included". A direct link between two candidates (the node of another
//!   candidate among a candidate's references or citers) weighs
//!   [`Weights::link`] times a shared reference or citer before the row is
//!   normalised: in a row of 40 references a link to an included candidate
//!   was one feature in 40, as weak as a reference shared with it.
//! - **vectors**: the paper's stored dense vector (the newest model), when
//!   the index has one for it.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::store::Store;

/// How much each block weighs (0 leaves it out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub text: f32,
    pub graph: f32,
    pub vectors: f32,
    /// Within the citation block, a direct link to another candidate over
    /// a reference or citer the candidates share (1: alike).
    pub link: f32,
}

impl Default for Weights {
    /// Every weight chosen on the tuning reviews (docs/SCREENING.md).
    fn default() -> Weights {
        Weights { text: 1.0, graph: 1.0, vectors: 0.25, link: 3.0 }
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
        // Terms and bigrams interned as integers (bigrams as a pair of term
        // ids): 10,000 candidates' bags keyed by strings cost seconds of
        // hashing and string sorting.
        let mut terms: HashMap<String, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut term_names: Vec<String> = Vec::new();
        let mut keys: Vec<(u32, u32)> = Vec::new(); // (term, u32::MAX) or (term, next term)
        let mut key_of: HashMap<(u32, u32), u32, foldhash::fast::RandomState> = HashMap::default();
        let mut bags: Vec<Vec<u32>> = Vec::with_capacity(docs.len());
        let mut texts: Vec<Option<String>> = Vec::with_capacity(docs.len());
        for doc in docs {
            texts.push(match doc {
                Some(d) => {
                    let p = store.paper_by_doc(*d)?;
                    Some(crate::analyzer::indexed_text(&p.title, &p.abstract_))
                }
                None => None,
            });
        }
        // Tokenised on all cores (40 % of a profile of a 10,000-candidate build), interned in order.
        let tokens: Vec<Option<Vec<String>>> =
            texts.par_iter().map(|t| t.as_ref().map(|t| analyzer.tokenize(t))).collect();
        drop(texts);
        for toks in tokens {
            let mut bag = Vec::new();
            if let Some(toks) = toks {
                let ids: Vec<u32> = toks
                    .into_iter()
                    .map(|t| match terms.get(&t) {
                        Some(&id) => id,
                        None => {
                            let id = term_names.len() as u32;
                            term_names.push(t.clone());
                            terms.insert(t, id);
                            id
                        }
                    })
                    .collect();
                let mut intern = |k: (u32, u32)| {
                    *key_of.entry(k).or_insert_with(|| {
                        keys.push(k);
                        (keys.len() - 1) as u32
                    })
                };
                bag.extend(ids.iter().map(|&t| intern((t, u32::MAX))));
                bag.extend(ids.windows(2).map(|w| intern((w[0], w[1]))));
            }
            bags.push(bag);
        }
        let name = |k: u32| {
            let (a, b) = keys[k as usize];
            let a = &term_names[a as usize];
            Feature::Term(if b == u32::MAX { a.clone() } else { format!("{a} {}", term_names[b as usize]) })
        };
        let block = weigh(bags, keys.len(), weights.text, name, &mut names, |_, _| 1.0);
        append(&mut rows, block);
    }

    if weights.graph > 0.0 {
        let hoods = store.neighbourhoods(&known)?;
        let mut by_doc: HashMap<i64, &crate::store::Neighbourhood> = HashMap::new();
        for (d, h) in known.iter().zip(&hoods) {
            by_doc.insert(*d, h);
        }
        let own: std::collections::HashSet<i64> = hoods.iter().filter_map(|h| h.node).collect();
        let mut node_key: HashMap<i64, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut nodes: Vec<i64> = Vec::new();
        // Each candidate's keys, and (sorted) those that are direct links.
        let (bags, links): (Vec<Vec<u32>>, Vec<Vec<u32>>) = docs
            .iter()
            .map(|d| {
                let (mut bag, mut linked) = (Vec::new(), Vec::new());
                if let Some(h) = d.and_then(|d| by_doc.get(&d)) {
                    for &n in h.node.iter().chain(&h.references).chain(&h.citers) {
                        let k = *node_key.entry(n).or_insert_with(|| {
                            nodes.push(n);
                            (nodes.len() - 1) as u32
                        });
                        bag.push(k);
                        if Some(n) != h.node && own.contains(&n) {
                            linked.push(k);
                        }
                    }
                    // Binary: a node once, however it is reached.
                    bag.sort_unstable();
                    bag.dedup();
                    linked.sort_unstable();
                    linked.dedup();
                }
                (bag, linked)
            })
            .unzip();
        let boost = |i: usize, k: u32| if links[i].binary_search(&k).is_ok() { weights.link } else { 1.0 };
        let block = weigh(bags, nodes.len(), weights.graph, |k| Feature::Node(nodes[k as usize]), &mut names, boost);
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

/// TF-IDF rows of one block from each candidate's keys (numbers below
/// `n_keys`, repeated as often as they occur), features in ≥ 2 candidates,
/// each value times `boost(candidate, key)`, L2-normalised and scaled by
/// `weight`; the features are numbered after
/// `names`, in a deterministic order (by first appearance: candidate by
/// candidate, a candidate's keys in key order).
fn weigh(
    mut bags: Vec<Vec<u32>>,
    n_keys: usize,
    weight: f32,
    name: impl Fn(u32) -> Feature,
    names: &mut Vec<Feature>,
    boost: impl Fn(usize, u32) -> f32,
) -> Vec<Row> {
    // Each bag as (key, count), by key.
    let counted: Vec<Vec<(u32, u32)>> = bags
        .iter_mut()
        .map(|bag| {
            bag.sort_unstable();
            let mut out: Vec<(u32, u32)> = Vec::new();
            for &k in bag.iter() {
                match out.last_mut() {
                    Some((last, c)) if *last == k => *c += 1,
                    _ => out.push((k, 1)),
                }
            }
            out
        })
        .collect();
    let mut df = vec![0u32; n_keys];
    for bag in &counted {
        for &(k, _) in bag {
            df[k as usize] += 1;
        }
    }
    let n = counted.len() as f64;
    let mut index = vec![u32::MAX; n_keys];
    let mut rows = Vec::with_capacity(counted.len());
    for (i, bag) in counted.into_iter().enumerate() {
        let mut row: Row = Vec::with_capacity(bag.len());
        for (k, tf) in bag {
            let d = df[k as usize];
            if d < 2 {
                continue;
            }
            let j = &mut index[k as usize];
            if *j == u32::MAX {
                names.push(name(k));
                *j = (names.len() - 1) as u32;
            }
            let idf = ((1.0 + n) / (1.0 + d as f64)).ln() + 1.0;
            row.push((*j, ((1.0 + (tf as f64).ln()) * idf) as f32 * boost(i, k)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{IngestOptions, Input, build as ingest};

    /// On the demo corpus (papers citing each other), the link weight
    /// multiplies exactly the citation features that are another
    /// candidate's own node, before each row is normalised.
    #[test]
    fn a_direct_link_weighs_the_link_weight_times_a_shared_neighbour() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("demo.db");
        ingest(&db, &[Input::Mock], &IngestOptions::default()).unwrap();
        let store = Store::open(&db).unwrap();
        let all = store.all_docs().unwrap();
        let docs: Vec<Option<i64>> = all.iter().map(|d| Some(*d)).collect();
        let own: Vec<Option<i64>> = store.neighbourhoods(&all).unwrap().iter().map(|h| h.node).collect();
        let only_graph = |link| Weights { text: 0.0, graph: 1.0, vectors: 0.0, link };
        let plain = build(&store, &docs, only_graph(1.0)).unwrap();
        let linked = build(&store, &docs, only_graph(3.0)).unwrap();
        assert_eq!(plain.names, linked.names);
        let value = |row: &Row, j: u32| row.iter().find(|(k, _)| *k == j).map(|(_, v)| *v);
        let (mut links, mut others) = (0, 0);
        for (i, (p, l)) in plain.rows.iter().zip(&linked.rows).enumerate() {
            // The row's scale between the two builds, from its first feature.
            let Some(&(j0, _)) = p.first() else { continue };
            let is_link = |j: u32| match plain.names[j as usize] {
                Feature::Node(n) => Some(n) != own[i] && own.contains(&Some(n)),
                _ => false,
            };
            let base = value(l, j0).unwrap() / value(p, j0).unwrap() / if is_link(j0) { 3.0 } else { 1.0 };
            for &(j, v) in p {
                let ratio = value(l, j).unwrap() / v / base;
                let want = if is_link(j) { 3.0 } else { 1.0 };
                assert!((ratio - want).abs() < 1e-4, "row {i} feature {j}: {ratio} against {want}");
                if is_link(j) { links += 1 } else { others += 1 }
            }
        }
        assert!(links > 0 && others > 0, "{links} link features, {others} others");
    }
}
