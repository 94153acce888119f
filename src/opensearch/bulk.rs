//! `export --format opensearch`: the index definition and every paper as
//! `_bulk` NDJSON files, and [`load`], which puts such a directory on a
//! cluster.
//!
//! A directory holds `index.json` (the `PUT /INDEX` body,
//! [`super::mapping::index_definition`]), `manifest.json` (the index name,
//! the paper count, the files) and `bulk-00001.ndjson`, … each at most
//! `max_bytes` long (one paper is never split): pairs of lines
//! `{"index":{"_index":NAME,"_id":ID}}` and the paper's document
//! `{id, title, abstract, text, year, doc_len, authors, venue, aliases,
//! references, cited_by}`, where `text` is `title + " " + abstract` (what
//! litindex indexes) and `references` / `cited_by` are the paper's stored
//! edges as the local walk follows them (dangling ids included). The files
//! also load with plain `curl`: `curl -XPUT HOST/NAME -H 'content-type:
//! application/json' --data-binary @index.json`, then
//! `curl -XPOST HOST/_bulk -H 'content-type: application/x-ndjson'
//! --data-binary @bulk-00001.ndjson` for each file.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;
use serde_json::{Value, json};

use super::client::{Client, check_index_name};
use super::mapping::index_definition;
use crate::analyzer::indexed_text;
use crate::graph::Direction;
use crate::store::{PaperRow, Store};

/// What [`export`] wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportSummary {
    pub index: String,
    pub papers: u64,
    /// The bulk files, in order (names inside the directory).
    pub files: Vec<String>,
    /// Bytes of all bulk files.
    pub bytes: u64,
}

/// What [`load`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadSummary {
    pub index: String,
    pub papers: u64,
    pub bytes: u64,
    /// Wall time of the bulk requests and the refresh.
    pub seconds: f64,
}

/// The `_bulk` document of one paper.
fn document(store: &Store, p: &PaperRow) -> anyhow::Result<Value> {
    let aliases: Vec<String> = store.aliases_of(&p.id)?.iter().map(|a| a.to_string()).collect();
    Ok(json!({
        "id": p.id,
        "title": p.title,
        "abstract": p.abstract_,
        "text": indexed_text(&p.title, &p.abstract_),
        "year": p.year,
        "doc_len": p.doc_len,
        "authors": p.authors,
        "venue": p.venue,
        "aliases": aliases,
        "references": store.linked(&p.id, Direction::References)?,
        "cited_by": store.linked(&p.id, Direction::Citations)?,
    }))
}

/// Writes the whole index as OpenSearch files into `dir` (created; it must
/// not exist or be empty). The files are written into a temporary directory
/// beside it and renamed into place at the end, so a failure leaves no
/// half-written export.
pub fn export(store: &Store, index: &str, dir: &Path, max_bytes: u64, shards: u32) -> anyhow::Result<ExportSummary> {
    check_index_name(index)?;
    if dir.exists() && fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?.next().is_some() {
        anyhow::bail!("{} is not empty: name a new or empty directory for the OpenSearch export", dir.display());
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".litindex-opensearch-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    let meta = store.meta()?;
    let definition = index_definition(&meta, shards, 0)?;
    write_json(&tmp.path().join("index.json"), &definition)?;
    let mut summary = ExportSummary { index: index.to_string(), papers: 0, files: Vec::new(), bytes: 0 };
    let mut buf: Vec<u8> = Vec::new();
    let flush = |buf: &mut Vec<u8>, summary: &mut ExportSummary| -> anyhow::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let name = format!("bulk-{:05}.ndjson", summary.files.len() + 1);
        let path = tmp.path().join(&name);
        fs::write(&path, &buf).with_context(|| format!("cannot write {}", path.display()))?;
        summary.bytes += buf.len() as u64;
        summary.files.push(name);
        buf.clear();
        Ok(())
    };
    store.for_each_paper(|p| {
        let mut pair = serde_json::to_vec(&json!({"index": {"_index": index, "_id": p.id}}))?;
        pair.push(b'\n');
        serde_json::to_writer(&mut pair, &document(store, &p)?)?;
        pair.push(b'\n');
        if !buf.is_empty() && (buf.len() + pair.len()) as u64 > max_bytes {
            flush(&mut buf, &mut summary)?;
        }
        buf.extend_from_slice(&pair);
        summary.papers += 1;
        Ok(())
    })?;
    flush(&mut buf, &mut summary)?;
    write_json(&tmp.path().join("manifest.json"), &serde_json::to_value(&summary)?)?;
    if dir.exists() {
        fs::remove_dir(dir).with_context(|| format!("cannot replace the empty directory {}", dir.display()))?;
    }
    let kept = tmp.keep();
    fs::rename(&kept, dir).with_context(|| format!("cannot rename {} to {}", kept.display(), dir.display()))?;
    Ok(summary)
}

fn write_json(path: &Path, value: &Value) -> anyhow::Result<()> {
    let mut f = fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    serde_json::to_writer_pretty(&mut f, value)?;
    f.write_all(b"\n")?;
    Ok(())
}

fn read_json(path: &Path) -> anyhow::Result<Value> {
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

/// Creates the index of the export in `dir` on the cluster (it must not
/// exist there) and sends every bulk file, then refreshes it so searches see
/// every paper. A bulk item that fails is an error naming its id and the
/// server's reason.
pub fn load(client: &Client, dir: &Path) -> anyhow::Result<LoadSummary> {
    let manifest = read_json(&dir.join("manifest.json"))?;
    let index = manifest["index"]
        .as_str()
        .with_context(|| format!("{}: no `index`", dir.join("manifest.json").display()))?
        .to_string();
    check_index_name(&index)?;
    let definition = read_json(&dir.join("index.json"))?;
    client.json("PUT", &format!("/{index}"), &definition)?;
    let started = Instant::now();
    let mut bytes = 0;
    let files = manifest["files"].as_array().cloned().unwrap_or_default();
    for name in files.iter().filter_map(Value::as_str) {
        let path = dir.join(name);
        let body = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        bytes += body.len() as u64;
        let answer = client.ndjson("/_bulk", &body)?;
        if answer["errors"].as_bool() != Some(false) {
            let first = answer["items"]
                .as_array()
                .and_then(|items| items.iter().find(|i| i["index"]["error"].is_object()))
                .map(|i| format!("`{}`: {}", i["index"]["_id"].as_str().unwrap_or("?"), i["index"]["error"]["reason"]))
                .unwrap_or_else(|| "no item error given".into());
            anyhow::bail!("OpenSearch rejected papers of {}: first {first}", path.display());
        }
    }
    client.json("POST", &format!("/{index}/_refresh"), &json!({}))?;
    let papers = manifest["papers"].as_u64().unwrap_or(0);
    Ok(LoadSummary { index, papers, bytes, seconds: started.elapsed().as_secs_f64() })
}
