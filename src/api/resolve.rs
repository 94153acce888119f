//! Papers named by the caller: any id or alias to the canonical id, an id
//! the index does not hold an [`UnknownPaper`], and reading lists (marks).

use super::error::UnknownPaper;
use crate::paper::PaperId;
use crate::store::{Label, Store};

/// The canonical id of the paper `input` names, or an [`UnknownPaper`].
pub fn resolve_one(store: &Store, input: &str) -> anyhow::Result<String> {
    store.resolve(input)?.ok_or_else(|| unknown(store, input).into())
}

/// The canonical id of each of `inputs`, in order, repeats kept (an export lists what it was given).
pub fn resolve_each(store: &Store, inputs: &[String]) -> anyhow::Result<Vec<String>> {
    inputs.iter().map(|input| resolve_one(store, input)).collect()
}

/// The canonical id of each of `inputs`, in order, repeats dropped (a set of seeds).
pub fn resolve_distinct(store: &Store, inputs: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out: Vec<String> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let id = resolve_one(store, input)?;
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

/// A paper by any alias, else an id of the citation graph as written or
/// normalised (a dangling id), else an [`UnknownPaper`].
pub(crate) fn resolve_node(store: &Store, input: &str) -> anyhow::Result<String> {
    if let Some(id) = store.resolve(input)? {
        return Ok(id);
    }
    for id in [input.trim().to_string(), PaperId::parse(input).key()] {
        if store.is_node(&id)? {
            return Ok(id);
        }
    }
    Err(unknown(store, input).into())
}

/// The papers of the index marked `label`, sorted; none is an error saying
/// so (a reading list that selects nothing is not an empty answer).
pub fn marked(store: &Store, label: Label) -> anyhow::Result<Vec<String>> {
    let ids = store.papers_labelled(label)?;
    anyhow::ensure!(
        !ids.is_empty(),
        "no paper of {} is marked `{label}` (mark some with `litindex mark ID {label}`)",
        store.path().display()
    );
    Ok(ids)
}

fn unknown(store: &Store, input: &str) -> UnknownPaper {
    UnknownPaper { input: input.to_string(), index: store.path().to_path_buf() }
}
