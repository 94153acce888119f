//! A tiny random sentence-transformers model, written to a directory, for
//! tests that exercise the whole embedding path without the real weights:
//! one BERT layer of width `dim` with deterministic pseudo-random weights, a
//! WordPiece vocabulary of ASCII letters, digits and punctuation, and a
//! `tokenizer.json` with the same fixed 128-token padding and truncation the
//! real MiniLM file has (which the loader must override). Its vectors mean
//! nothing, but identical texts get identical vectors and different texts
//! different ones.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use candle_core::{Device, Tensor};
use serde_json::json;

/// Writes the model into `dir` (created if needed). `seed` varies the weights
/// (and so the fingerprint); `dim` must be even.
pub fn write_tiny_model(dir: &Path, dim: usize, seed: u64) -> anyhow::Result<()> {
    anyhow::ensure!(dim >= 2 && dim % 2 == 0, "dim must be even");
    std::fs::create_dir_all(dir.join("1_Pooling")).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from).to_vec();
    let singles: Vec<char> = ('a'..='z').chain('0'..='9').chain("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".chars()).collect();
    for c in &singles {
        vocab.push(c.to_string());
    }
    for c in ('a'..='z').chain('0'..='9') {
        vocab.push(format!("##{c}"));
    }
    let vocab_size = vocab.len();
    let (layers, heads, inter, positions) = (1usize, 2usize, dim * 2, 512usize);
    let config = json!({
        "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": dim, "initializer_range": 0.02, "intermediate_size": inter,
        "layer_norm_eps": 1e-12, "max_position_embeddings": positions, "model_type": "bert",
        "num_attention_heads": heads, "num_hidden_layers": layers, "pad_token_id": 0,
        "position_embedding_type": "absolute", "type_vocab_size": 2, "vocab_size": vocab_size,
    });
    std::fs::write(dir.join("config.json"), serde_json::to_string_pretty(&config)?)?;
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        serde_json::to_string_pretty(&json!({
            "word_embedding_dimension": dim, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true,
            "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false,
        }))?,
    )?;
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        serde_json::to_string(&json!({"max_seq_length": 256, "do_lower_case": false}))?,
    )?;

    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x2545_F491_4F6C_DD1D;
    let mut random = |n: usize, scale: f32| -> Vec<f32> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
            })
            .collect()
    };
    let dev = Device::Cpu;
    let mut tensors: HashMap<String, Tensor> = HashMap::new();
    let mut put = |name: &str, shape: &[usize], data: Vec<f32>| -> anyhow::Result<()> {
        tensors.insert(name.to_string(), Tensor::from_vec(data, shape, &dev)?);
        Ok(())
    };
    put("embeddings.word_embeddings.weight", &[vocab_size, dim], random(vocab_size * dim, 1.0))?;
    put("embeddings.position_embeddings.weight", &[positions, dim], random(positions * dim, 0.1))?;
    put("embeddings.token_type_embeddings.weight", &[2, dim], random(2 * dim, 0.1))?;
    put("embeddings.LayerNorm.weight", &[dim], vec![1.0; dim])?;
    put("embeddings.LayerNorm.bias", &[dim], vec![0.0; dim])?;
    for l in 0..layers {
        let p = format!("encoder.layer.{l}");
        for m in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"] {
            put(&format!("{p}.{m}.weight"), &[dim, dim], random(dim * dim, 0.3))?;
            put(&format!("{p}.{m}.bias"), &[dim], random(dim, 0.05))?;
        }
        put(&format!("{p}.intermediate.dense.weight"), &[inter, dim], random(inter * dim, 0.3))?;
        put(&format!("{p}.intermediate.dense.bias"), &[inter], random(inter, 0.05))?;
        put(&format!("{p}.output.dense.weight"), &[dim, inter], random(dim * inter, 0.3))?;
        put(&format!("{p}.output.dense.bias"), &[dim], random(dim, 0.05))?;
        for ln in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(&format!("{p}.{ln}.weight"), &[dim], vec![1.0; dim])?;
            put(&format!("{p}.{ln}.bias"), &[dim], vec![0.0; dim])?;
        }
    }
    candle_core::safetensors::save(&tensors, dir.join("model.safetensors"))?;

    let id = |t: &str| vocab.iter().position(|v| v == t).expect("special token in the vocabulary");
    let added: Vec<_> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .map(|t| {
            json!({"id": id(t), "special": true, "content": t, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false})
        })
        .collect();
    let vocab_map: serde_json::Map<String, serde_json::Value> =
        vocab.iter().enumerate().map(|(i, t)| (t.clone(), json!(i))).collect();
    let tokenizer = json!({
        "version": "1.0",
        "truncation": {"max_length": 128, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 128}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0,
                    "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [id("[CLS]")], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [id("[SEP]")], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab_map},
    });
    std::fs::write(dir.join("tokenizer.json"), serde_json::to_string(&tokenizer)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::model::{Embedder, cosine};

    #[test]
    fn the_tiny_model_loads_and_embeds() {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_model(dir.path(), 16, 1).unwrap();
        let e = Embedder::load(dir.path()).unwrap();
        assert_eq!(e.dim(), 16);
        assert_eq!(e.info().max_seq_len, 256);
        let texts = ["sparse attention", "a much longer text about dense retrieval and graphs", "sparse attention"];
        let v = e.embed(&texts, 2).unwrap();
        assert_eq!(v.len(), 3);
        for x in &v {
            let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4, "unit length: {norm}");
        }
        assert!(cosine(&v[0], &v[2]) > 0.99999, "same text, same vector");
        assert!(cosine(&v[0], &v[1]) < 0.999, "different texts differ");
        // Batch composition and padding do not change a vector.
        let alone = e.embed_one(texts[0]).unwrap();
        assert!(cosine(&alone, &v[0]) > 0.99999);
        // The fixed 128-token truncation of tokenizer.json is replaced by 256.
        let long = "word ".repeat(300);
        assert_eq!(e.token_counts(&[&long, "a"]).unwrap(), vec![256, 3]);
        // Another seed, another fingerprint.
        let other = tempfile::tempdir().unwrap();
        write_tiny_model(other.path(), 16, 2).unwrap();
        assert_ne!(Embedder::load(other.path()).unwrap().info().fingerprint, e.info().fingerprint);
    }
}
