//! Semantic recall: sentence vectors of papers and queries.
//!
//! * [`model`]: a sentence-transformers BERT (candle, CPU) that turns text
//!   into unit vectors (mean pooling over the attention mask, L2 norm).
//! * [`vectors`]: the tables that hold them in the index (one vector per paper
//!   and model, plus sentence-window [`chunk`] vectors), and the models
//!   recorded there with their fingerprints.
//! * [`dense`]: exact top-k by cosine over one contiguous buffer.
//! * [`embed_index`]: `litindex embed`, incremental and resumable: papers
//!   without a vector for the model (or whose text changed) are embedded in
//!   batches, each committed on its own.
//! * [`SemanticIndex`]: what a dense or hybrid search loads once per process.
//! * [`passages`]: the full text's passage vectors (`embed --passages`) and
//!   what a dense or hybrid passage search loads.

pub mod chunk;
pub mod dense;
pub mod model;
pub mod models;
pub mod passages;
pub mod quant;
#[cfg(any(test, feature = "test-support"))]
pub mod tiny;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};

pub use chunk::ChunkIndex;
pub use dense::DenseIndex;
pub use model::{Embedder, ModelInfo};
pub use models::Models;
pub use passages::{PassageIndex, PassageReport};
pub use quant::PaperVectors;

use crate::failpoint::failpoint_at;
use crate::store::{Notes, Store, Writable, explain};
use vectors::StoredModel;

/// The environment variable naming the model directory.
pub const MODEL_DIR_ENV: &str = "LITINDEX_MODEL_DIR";

/// Papers per batch (one forward pass and one commit) unless `--batch` says.
pub const DEFAULT_EMBED_BATCH: usize = 32;

/// What `litindex embed` should do.
pub struct EmbedOptions<'a> {
    /// `--model-dir` or `LITINDEX_MODEL_DIR`; `None`: the directory recorded by the last `embed`.
    pub model_dir: Option<PathBuf>,
    /// Papers per forward pass and per commit.
    pub batch: usize,
    /// Also embed each paper's sentence-window chunks (for `--rerank`).
    pub chunks: bool,
    /// Also embed every full-text passage (for `search --passages --mode dense|hybrid`).
    pub passages: bool,
    /// Called after each batch with (papers done, papers to do).
    pub progress: Option<&'a dyn Fn(u64, u64)>,
    /// Told what a user should know (an older index being upgraded).
    pub notes: Option<Notes<'a>>,
}

/// What `litindex embed` did.
#[derive(Debug, Clone)]
pub struct EmbedReport {
    pub model: ModelInfo,
    pub papers: usize,
    /// Papers whose vector was (re)computed.
    pub embedded: usize,
    /// Papers whose chunks were (re)computed, and how many chunks that made.
    pub chunked: usize,
    pub chunks: usize,
    /// Papers that already had a current vector (and chunks, if asked for).
    pub unchanged: usize,
    /// Vectors of papers no longer in the index, removed.
    pub removed: usize,
    /// What `--passages` did (None without it).
    pub passages: Option<PassageReport>,
    /// Tokens run through the model (after truncation).
    pub tokens: usize,
    pub load_secs: f64,
    pub embed_secs: f64,
}

/// The model directory to use: the one given (flag or environment), else the
/// one the index recorded at its last `embed`.
pub(crate) fn resolve_model_dir(given: Option<&Path>, recorded: &[StoredModel]) -> anyhow::Result<PathBuf> {
    if let Some(dir) = given {
        return Ok(dir.to_path_buf());
    }
    match recorded.first() {
        Some(m) => Ok(PathBuf::from(&m.dir)),
        None => bail!(
            "no embedding model given: pass --model-dir DIR or set {MODEL_DIR_ENV} (a sentence-transformers \
             directory such as all-MiniLM-L6-v2; see `Semantic search` in the README)"
        ),
    }
}

/// One paper's pending work.
struct Job {
    doc: i64,
    text: String,
    hash: String,
    title: String,
    abstract_: String,
    vector: bool,
    chunks: bool,
}

/// `litindex embed`: embeds every paper of the index at `db` that has no
/// current vector for the model, `batch` papers per transaction, so a killed
/// run keeps what it committed and a rerun finishes the rest.
pub fn embed_index(db: &Path, opts: &EmbedOptions) -> anyhow::Result<EmbedReport> {
    let mut index = Writable::open(db, opts.notes.unwrap_or(&|_| {}))?;
    let recorded = vectors::models(index.handle())?;
    let dir = resolve_model_dir(opts.model_dir.as_deref(), &recorded)?;
    let loading = Instant::now();
    let embedder = Embedder::load(&dir)?;
    let load_secs = loading.elapsed().as_secs_f64();
    let info = embedder.info().clone();
    let (model_id, removed) = index
        .write(|tx| Ok((vectors::register(tx, &info)?, vectors::remove_orphans(tx)?)))
        .map_err(|e| explain(e, db))?;

    let papers = vectors::paper_texts(index.handle())?;
    let existing = vectors::existing(index.handle(), model_id)?;
    let mut jobs: Vec<Job> = Vec::new();
    let mut unchanged = 0;
    for p in papers.iter() {
        let text = vectors::doc_text(&p.title, &p.abstract_);
        let hash = vectors::text_hash(&text);
        let (vector, chunks) = match existing.get(&p.doc) {
            Some((h, chunked)) if *h == hash => (false, opts.chunks && !chunked),
            _ => (true, opts.chunks),
        };
        if !vector && !chunks {
            unchanged += 1;
            continue;
        }
        jobs.push(Job {
            doc: p.doc,
            text,
            hash,
            title: p.title.clone(),
            abstract_: p.abstract_.clone(),
            vector,
            chunks,
        });
    }
    // Longest first: similar lengths share a batch, so little is padding.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.text.len()));

    let todo = jobs.len() as u64;
    let mut done = 0u64;
    let started = Instant::now();
    let mut report = EmbedReport {
        model: info,
        papers: papers.len(),
        embedded: 0,
        chunked: 0,
        chunks: 0,
        unchanged,
        removed,
        passages: None,
        tokens: 0,
        load_secs,
        embed_secs: 0.0,
    };
    let batch = opts.batch.max(1);
    for (n, group) in jobs.chunks(batch).enumerate() {
        let result = embed_batch(&embedder, group, batch)?;
        index
            .write(|tx| {
                for (job, (vector, chunks)) in group.iter().zip(&result.rows) {
                    match vector {
                        Some(v) => vectors::put_vector(tx, model_id, job.doc, &job.hash, v, chunks.as_deref())?,
                        None => vectors::put_chunks(tx, model_id, job.doc, chunks.as_deref().unwrap_or(&[]))?,
                    }
                }
                Ok(())
            })
            .map_err(|e| explain(e, db))?;
        report.embedded += group.iter().filter(|j| j.vector).count();
        report.chunked += group.iter().filter(|j| j.chunks).count();
        report.chunks += result.rows.iter().map(|(_, c)| c.as_ref().map_or(0, |c| c.len())).sum::<usize>();
        report.tokens += result.tokens;
        done += group.len() as u64;
        if let Some(report) = opts.progress {
            report(done, todo);
        }
        failpoint_at("embed-batch", n as u64 + 1);
    }
    if opts.passages {
        let p = passages::embed_passages(&mut index, db, &embedder, model_id, batch, opts.progress)?;
        report.tokens += p.tokens;
        report.passages = Some(p);
    }
    report.embed_secs = started.elapsed().as_secs_f64();
    Ok(report)
}

/// A paper's chunks with their vectors.
type ChunkVectors = Vec<(chunk::Chunk, Vec<f32>)>;

/// Vectors for one batch of jobs.
struct BatchResult {
    /// Per job: its vector (when asked) and its chunks (when asked).
    rows: Vec<(Option<Vec<f32>>, Option<ChunkVectors>)>,
    tokens: usize,
}

/// Where a job's texts sit in the batch: its paper text, and each chunk with
/// its text (`None`: the chunk is the whole abstract and reuses the paper's vector).
type Plan = (Option<usize>, Vec<(chunk::Chunk, Option<usize>)>);

fn embed_batch(embedder: &Embedder, jobs: &[Job], batch: usize) -> anyhow::Result<BatchResult> {
    // Every text of the batch goes through the model together (sorted by length inside).
    let mut texts: Vec<String> = Vec::new();
    let mut plan: Vec<Plan> = Vec::new();
    for j in jobs {
        let all = if j.chunks { chunk::chunks(&j.abstract_) } else { Vec::new() };
        let whole = all.len() == 1 && chunk::chunk_text(&j.title, &j.abstract_, &all[0]) == j.text;
        // The paper's own text: when its vector is due, or its one chunk is the whole text.
        let doc_at = if j.vector || whole {
            texts.push(j.text.clone());
            Some(texts.len() - 1)
        } else {
            None
        };
        let mut cs = Vec::new();
        if j.chunks {
            for c in all {
                if whole {
                    cs.push((c, None));
                } else {
                    texts.push(chunk::chunk_text(&j.title, &j.abstract_, &c));
                    cs.push((c, Some(texts.len() - 1)));
                }
            }
        }
        plan.push((doc_at, cs));
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokens = embedder.token_counts(&refs)?.iter().sum();
    let vecs = embedder.embed(&refs, batch)?;
    let rows = jobs
        .iter()
        .zip(plan)
        .map(|(j, (doc_at, cs))| {
            let doc_vec = doc_at.map(|i| vecs[i].clone());
            let vector = if j.vector { doc_vec.clone() } else { None };
            let chunks = j.chunks.then(|| {
                cs.into_iter()
                    .map(|(c, at)| {
                        let v = match at {
                            Some(i) => vecs[i].clone(),
                            None => doc_vec.clone().expect("the paper's own vector was computed"),
                        };
                        (c, v)
                    })
                    .collect()
            });
            (vector, chunks)
        })
        .collect();
    Ok(BatchResult { rows, tokens })
}

/// What a dense or hybrid search needs, loaded once per process: the query
/// model, the matching stored model, and its vectors (and chunks, to rerank).
#[derive(Debug)]
pub struct SemanticIndex {
    pub embedder: std::sync::Arc<Embedder>,
    pub stored: StoredModel,
    /// The papers' vectors, scanned from their codes at each query.
    pub docs: PaperVectors,
    pub chunks: Option<ChunkIndex>,
}

impl SemanticIndex {
    /// Loads the model (`model_dir`, else the recorded directory; the one
    /// `models` holds when its files are unchanged) and the index's vectors
    /// for it. Refuses a model the index was not embedded with. `note` is
    /// told how many papers have no vector yet.
    pub fn open(
        store: &Store,
        model_dir: Option<&Path>,
        with_chunks: bool,
        note: Notes,
        models: &Models,
    ) -> anyhow::Result<SemanticIndex> {
        let db = store.path().display();
        let recorded = store.vector_models()?;
        let (any_vectors, papers) = store.vector_totals()?;
        if recorded.is_empty() || any_vectors == 0 {
            bail!("{db} has no vectors; run `litindex --db {db} embed` first (--mode dense and hybrid need them)");
        }
        let dir = resolve_model_dir(model_dir, &recorded)?;
        let embedder = models.load(&dir)?;
        let info = embedder.info();
        let Some(stored) = recorded.iter().find(|m| m.fingerprint == info.fingerprint).cloned() else {
            let known = recorded
                .iter()
                .map(|m| format!("{} ({}-d, fingerprint {}, from {})", m.name, m.dim, m.fingerprint, m.dir))
                .collect::<Vec<_>>()
                .join("; ");
            if recorded.iter().all(|m| m.dim != info.dim) {
                bail!(
                    "the model at {} makes {}-dimensional vectors, but {db} was embedded with {known}; use that \
                     model, or run `litindex embed --model-dir {}` to embed the index with this one",
                    info.dir.display(),
                    info.dim,
                    info.dir.display()
                );
            }
            bail!(
                "the model at {} (fingerprint {}) is not the one {db} was embedded with: {known}; use that model, \
                 or run `litindex embed --model-dir {}` to embed the index with this one",
                info.dir.display(),
                info.fingerprint,
                info.dir.display()
            );
        };
        let docs = PaperVectors::open(store, stored.model_id, stored.dim)
            .with_context(|| format!("cannot read the vectors of {db}"))?;
        if docs.is_empty() {
            bail!("{db} has no vectors for {}; run `litindex --db {db} embed` first", stored.name);
        }
        if (docs.len() as u64) < papers {
            note(&format!(
                "{} of {papers} papers have no vector for {} yet and are found by BM25 and the graph only; run \
                 `litindex embed`",
                papers - docs.len() as u64,
                stored.name
            ));
        }
        let chunks = if with_chunks {
            let c = vectors::load_chunks(store, stored.model_id, stored.dim)?;
            if c.is_empty() {
                bail!("--rerank needs chunk vectors and {db} has none; run `litindex --db {db} embed --chunks`");
            }
            Some(c)
        } else {
            None
        };
        Ok(SemanticIndex { embedder, stored, docs, chunks })
    }

    /// The query's unit vector.
    pub(crate) fn embed_query(&self, query: &str) -> anyhow::Result<Vec<f32>> {
        self.embedder.embed_one(query)
    }
}
