//! The vectors of an index as `embed` and a semantic search use them: the
//! text a paper's vector is made from, and the stored vectors loaded into
//! the dense and chunk indexes (the tables are the store's: `store::vectors`).

use crate::store::{Handle, Store};

use super::chunk::{Chunk, ChunkIndex};
use super::dense::{extend_from_le_bytes, to_le_bytes};
use super::model::ModelInfo;
use crate::store::vectors::{self as table, ChunkBlob, ModelEntry};

pub use crate::store::vectors::StoredModel;
pub(crate) use crate::store::vectors::{existing, models};
pub(crate) use crate::store::vectors::{paper_texts, remove_orphans};

/// Records `info` (or refreshes its directory and time) and returns its id.
pub(crate) fn register(handle: Handle<'_>, info: &ModelInfo) -> anyhow::Result<i64> {
    let dir = info.dir.to_string_lossy();
    let entry = ModelEntry {
        name: &info.name,
        dim: info.dim,
        dir: &dir,
        fingerprint: &info.fingerprint,
        max_seq_len: info.max_seq_len,
    };
    table::register(handle, &entry)
}

/// The text a paper's vector is made from: its title, a space, its abstract.
pub fn doc_text(title: &str, abstract_: &str) -> String {
    format!("{} {}", title.trim(), abstract_.trim()).trim().to_string()
}

/// BLAKE3 of a text, hex (128 bits): tells `embed` that a paper changed.
pub(crate) fn text_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_string()
}

/// Stores a paper's vector (replacing any older one) and, when given, its chunks.
pub(crate) fn put_vector(
    handle: Handle<'_>,
    model_id: i64,
    doc: i64,
    hash: &str,
    vector: &[f32],
    chunks: Option<&[(Chunk, Vec<f32>)]>,
) -> anyhow::Result<()> {
    let blobs = chunks.map(chunk_blobs);
    table::put_vector(handle, model_id, doc, hash, &to_le_bytes(vector), blobs.as_deref())
}

/// Stores a paper's chunks (replacing any older ones) and marks its vector chunked.
pub(crate) fn put_chunks(
    handle: Handle<'_>,
    model_id: i64,
    doc: i64,
    chunks: &[(Chunk, Vec<f32>)],
) -> anyhow::Result<()> {
    table::put_chunks(handle, model_id, doc, &chunk_blobs(chunks))
}

fn chunk_blobs(chunks: &[(Chunk, Vec<f32>)]) -> Vec<ChunkBlob> {
    chunks
        .iter()
        .map(|(c, v)| ChunkBlob { position: c.position, start: c.start, end: c.end, vector: to_le_bytes(v) })
        .collect()
}

/// Every chunk vector of `model_id` whose paper is indexed.
pub(crate) fn load_chunks(store: &Store, model_id: i64, dim: usize) -> anyhow::Result<ChunkIndex> {
    let mut idx = ChunkIndex::new(dim);
    let mut current: Option<i64> = None;
    let mut buf: Vec<f32> = Vec::new();
    store.for_each_chunk(model_id, |doc, bytes| {
        anyhow::ensure!(
            bytes.len() == dim * 4,
            "a stored chunk vector has {} bytes, expected {}",
            bytes.len(),
            dim * 4
        );
        if current != Some(doc) {
            if let Some(d) = current {
                idx.push_paper(d, &buf);
            }
            buf.clear();
            current = Some(doc);
        }
        extend_from_le_bytes(&mut buf, bytes);
        Ok(())
    })?;
    if let Some(d) = current {
        idx.push_paper(d, &buf);
    }
    Ok(idx)
}
