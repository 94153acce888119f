//! Passage vectors: `embed --passages` gives every abstract, body and
//! caption passage of the full text its own vector (the passage's text
//! alone, through the same model as the papers'), and [`PassageIndex`]
//! holds them for `search --passages --mode dense|hybrid`.
//!
//! Incremental as the papers' vectors are: a passage whose vector for the
//! model was made from its current text (`text_hash`) is left alone; a
//! re-ingested PDF's new passages have none, and its old passages' vectors
//! were deleted with them.

use std::path::Path;

use anyhow::{Context, bail};

use super::dense::{DenseIndex, to_le_bytes};
use super::vectors::{StoredModel, text_hash};
use super::{Embedder, resolve_model_dir};
use crate::store::passage_vectors as table;
use crate::store::{Store, Writable, explain};

/// What `embed --passages` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassageReport {
    /// Passages of an embedded kind (abstract, body, caption).
    pub passages: usize,
    /// Passages whose vector was (re)computed.
    pub embedded: usize,
    /// Passages whose vector was already current.
    pub unchanged: usize,
    /// Vectors of passages no longer stored, removed.
    pub removed: usize,
    /// Tokens run through the model (after truncation).
    pub tokens: usize,
}

/// Embeds every passage without a current vector for `model_id`, `batch`
/// passages per forward pass and per transaction (a killed run keeps what
/// it committed). `progress` is told (passages done, passages to do).
pub(super) fn embed_passages(
    index: &mut Writable,
    db: &Path,
    embedder: &Embedder,
    model_id: i64,
    batch: usize,
    progress: Option<&dyn Fn(u64, u64)>,
) -> anyhow::Result<PassageReport> {
    let removed = index.write(table::remove_orphans).map_err(|e| explain(e, db))?;
    let passages = table::passage_texts(index.handle())?;
    let existing = table::existing(index.handle(), model_id)?;
    let mut report = PassageReport { passages: passages.len(), removed, ..PassageReport::default() };
    let mut jobs: Vec<(i64, String, &str)> = Vec::new();
    for p in &passages {
        let hash = text_hash(&p.text);
        if existing.get(&p.passage) == Some(&hash) {
            report.unchanged += 1;
        } else {
            jobs.push((p.passage, hash, p.text.as_str()));
        }
    }
    // Longest first: similar lengths share a batch, so little is padding.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.2.len()));
    let todo = jobs.len() as u64;
    let batch = batch.max(1);
    for group in jobs.chunks(batch) {
        let texts: Vec<&str> = group.iter().map(|j| j.2).collect();
        report.tokens += embedder.token_counts(&texts)?.iter().sum::<usize>();
        let vecs = embedder.embed(&texts, batch)?;
        index
            .write(|tx| {
                for ((passage, hash, _), v) in group.iter().zip(&vecs) {
                    table::put(tx, model_id, *passage, hash, &to_le_bytes(v))?;
                }
                Ok(())
            })
            .map_err(|e| explain(e, db))?;
        report.embedded += group.len();
        if let Some(progress) = progress {
            progress(report.embedded as u64, todo);
        }
    }
    Ok(report)
}

/// What a dense or hybrid passage search needs: the query model, the stored
/// model it matches, and every passage vector of that model.
#[derive(Debug)]
pub struct PassageIndex {
    pub embedder: Embedder,
    pub stored: StoredModel,
    pub vectors: DenseIndex,
}

impl PassageIndex {
    /// Loads the model (`model_dir`, else the recorded directory) and the
    /// index's passage vectors for it. Without any, a clear error naming the
    /// command that makes them.
    pub fn open(store: &Store, model_dir: Option<&Path>) -> anyhow::Result<PassageIndex> {
        let db = store.path().display();
        let recorded = store.vector_models()?;
        if recorded.is_empty() || store.passage_vector_total()? == 0 {
            bail!(
                "{db} has no passage vectors; run `litindex --db {db} embed --passages` first (search --passages \
                 --mode dense and hybrid need them)"
            );
        }
        let dir = resolve_model_dir(model_dir, &recorded)?;
        let embedder = Embedder::load(&dir)?;
        let info = embedder.info();
        let Some(stored) = recorded.iter().find(|m| m.fingerprint == info.fingerprint).cloned() else {
            bail!(
                "the model at {} (fingerprint {}) is not one {db} was embedded with; use that model, or run \
                 `litindex embed --passages --model-dir {}` to embed the passages with this one",
                info.dir.display(),
                info.fingerprint,
                info.dir.display()
            );
        };
        let mut vectors = DenseIndex::new(stored.dim);
        store
            .for_each_passage_vector(stored.model_id, |passage, bytes| vectors.push_le_bytes(passage, bytes))
            .with_context(|| format!("cannot read the passage vectors of {db}"))?;
        if vectors.is_empty() {
            bail!("{db} has no passage vectors for {}; run `litindex --db {db} embed --passages` first", stored.name);
        }
        Ok(PassageIndex { embedder, stored, vectors })
    }

    /// The query's unit vector.
    pub(crate) fn embed_query(&self, query: &str) -> anyhow::Result<Vec<f32>> {
        self.embedder.embed_one(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::tiny::write_tiny_model;
    use crate::embed::{EmbedOptions, embed_index};
    use crate::ingest::pdf::test_support::{document, file, mock_index};
    use crate::search::fulltext::{PassageSemantic, passage_search};
    use crate::search::{Fusion, Mode};

    fn embed(db: &Path, model: &Path) -> PassageReport {
        let opts = EmbedOptions {
            model_dir: Some(model.to_path_buf()),
            batch: 4,
            chunks: false,
            passages: true,
            progress: None,
            notes: None,
        };
        embed_index(db, &opts).unwrap().passages.unwrap()
    }

    #[test]
    fn passages_are_embedded_once_and_searched_by_cosine_and_by_fusion() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        let model = dir.path().join("tiny");
        write_tiny_model(&model, 16, 3).unwrap();
        let store = Store::open(&db).unwrap();
        assert!(PassageIndex::open(&store, Some(&model)).unwrap_err().to_string().contains("embed --passages"));
        let body = ["Koalas sleep most of the day.", "The quokka smiles at visitors.", "Wombats dig burrows."];
        file(&db, &[("/pdfs/x.pdf", &document("Notes On Marsupials", None, &body))]);
        let first = embed(&db, &model);
        // The abstract, three body passages and the caption.
        assert_eq!((first.passages, first.embedded, first.unchanged), (5, 5, 0));
        assert_eq!(embed(&db, &model), PassageReport { passages: 5, unchanged: 5, ..PassageReport::default() });

        let store = Store::open(&db).unwrap();
        let index = PassageIndex::open(&store, Some(&model)).unwrap();
        assert_eq!(index.vectors.len(), 5);
        let query = "quokka smiles";
        let qv = index.embed_query(query).unwrap();
        let dense = PassageSemantic { index: &index, mode: Mode::Dense, fusion: Fusion::Minmax, dense_k: 100 };
        let (hits, total) = passage_search(&store, query, 0, 10, Some(&dense)).unwrap();
        assert_eq!((hits.len(), total), (5, 5));
        for h in &hits {
            // The score is the cosine of the passage's own text with the query.
            let v = index.embedder.embed_one(&h.text).unwrap();
            assert!((h.score - super::super::model::cosine(&v, &qv)).abs() < 1e-5, "{h:?}");
        }
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        // Hybrid min-max: BM25's only match holds the best lexical score (1 after
        // normalising), so it ranks first unless another passage's cosine is far higher.
        let hybrid = PassageSemantic { mode: Mode::Hybrid, ..dense };
        let (fused, total) = passage_search(&store, query, 0, 10, Some(&hybrid)).unwrap();
        assert_eq!(total, 5, "the union of the BM25 list (1) and the dense list (5)");
        let quokka = fused.iter().find(|h| h.text.contains("quokka")).unwrap();
        let cos = |h: &crate::search::fulltext::PassageHit| hits.iter().find(|d| d.passage == h.passage).unwrap().score;
        let (lo, hi) =
            hits.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), h| (l.min(h.score), u.max(h.score)));
        let norm = |c: f64| if hi > lo { (c - lo) / (hi - lo) } else { 1.0 };
        assert!((quokka.score - (0.5 + 0.5 * norm(cos(quokka)))).abs() < 1e-6, "{fused:?}");
        for h in fused.iter().filter(|h| h.passage != quokka.passage) {
            assert!((h.score - 0.5 * norm(cos(h))).abs() < 1e-6, "{h:?}");
        }
        // RRF: the BM25 hit is first of one list and somewhere in the other.
        let rrf = PassageSemantic { fusion: Fusion::Rrf, ..hybrid };
        let (r, _) = passage_search(&store, query, 0, 10, Some(&rrf)).unwrap();
        assert_eq!(r[0].passage, quokka.passage, "{r:?}");

        // A changed document: its passages and their vectors are replaced.
        let body = ["Koalas sleep most of the day.", "Echidnas lay eggs."];
        file(&db, &[("/pdfs/x.pdf", &document("Notes On Marsupials", None, &body))]);
        let store = Store::open(&db).unwrap();
        assert_eq!(store.passage_vector_total().unwrap(), 0, "the old passages' vectors went with them");
        assert!(store.check().violated().next().is_none());
        let again = embed(&db, &model);
        assert_eq!((again.passages, again.embedded), (4, 4));
    }
}
