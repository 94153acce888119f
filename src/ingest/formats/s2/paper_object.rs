//! A Graph API paper object and its parts (`externalIds`, `corpusId`,
//! `authors`, nested `references` and `citations`).

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use crate::ingest::formats::{FieldError, collapse_ws, field_err, kind, opt_str, opt_text_at, opt_year, push_name};
use crate::paper::PaperId;
use crate::paper::Record;

/// A paper object.
pub(super) fn paper(obj: &Map<String, Value>, skipped: &AtomicU64) -> Result<Record, FieldError> {
    let source_id = match obj.get("paperId") {
        None | Some(Value::Null) => return Err(field_err("paperId", "is required")),
        Some(Value::String(s)) => PaperId::parse_s2(s).ok_or_else(|| {
            field_err("paperId", format!("expected a Semantic Scholar paper id (40 hex digits), got {s:?}"))
        })?,
        Some(v) => return Err(field_err("paperId", format!("expected a string, got {}", kind(v)))),
    };
    let mut ids = Vec::new();
    let mut push = |id: PaperId| {
        if id != source_id && !ids.contains(&id) {
            ids.push(id);
        }
    };
    for id in external_ids(obj, "externalIds")? {
        push(id);
    }
    if let Some(n) = corpus_id(obj.get("corpusId"), "corpusId")? {
        push(PaperId::CorpusId(n));
    }
    Ok(Record {
        source: "s2".into(),
        ids,
        title: collapse_ws(&opt_str(obj, "title")?),
        abstract_: opt_str(obj, "abstract")?.trim().to_string(),
        year: opt_year(obj, "year")?,
        authors: authors(obj, "authors")?,
        references: nested_ids(obj, "references", skipped)?,
        citations: nested_ids(obj, "citations", skipped)?,
        arxiv_version: None,
        venue: match opt_text_at(obj, &["venue"])? {
            Some(v) => Some(v),
            None => opt_text_at(obj, &["journal", "name"])?,
        },
        source_id,
    })
}

/// The ids in an `externalIds` object (`ArXiv`, `DOI`, `CorpusId`), in that
/// order. Other keys (MAG, PubMed, DBLP, …) are ignored; null values too.
pub(in crate::ingest::formats) fn external_ids(
    obj: &Map<String, Value>,
    field: &str,
) -> Result<Vec<PaperId>, FieldError> {
    let ext = match obj.get(field) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(m)) => m,
        Some(v) => return Err(field_err(field, format!("expected an object, got {}", kind(v)))),
    };
    let mut ids = Vec::new();
    let string = |key: &str| -> Result<Option<String>, FieldError> {
        match ext.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(v) => Err(field_err(&format!("{field}.{key}"), format!("expected a string, got {}", kind(v)))),
        }
    };
    if let Some(s) = string("ArXiv")? {
        let (id, _) = PaperId::parse_arxiv(&s)
            .ok_or_else(|| field_err(&format!("{field}.ArXiv"), format!("not an arXiv id: {s:?}")))?;
        ids.push(id);
    }
    if let Some(s) = string("DOI")? {
        let id =
            PaperId::parse_doi(&s).ok_or_else(|| field_err(&format!("{field}.DOI"), format!("not a DOI: {s:?}")))?;
        ids.push(id);
    }
    if let Some(n) = corpus_id(ext.get("CorpusId"), &format!("{field}.CorpusId"))? {
        ids.push(PaperId::CorpusId(n));
    }
    Ok(ids)
}

/// A corpus id: a non-negative integer or a string of digits.
pub(in crate::ingest::formats) fn corpus_id(value: Option<&Value>, field: &str) -> Result<Option<u64>, FieldError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            n.as_u64().map(Some).ok_or_else(|| field_err(field, format!("expected a corpus id (an integer), got {n}")))
        }
        Some(Value::String(s)) => {
            let t = s.trim();
            if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse().map(Some).map_err(|_| field_err(field, format!("corpus id out of range: {s:?}")))
            } else {
                Err(field_err(field, format!("expected a corpus id (digits), got {s:?}")))
            }
        }
        Some(v) => Err(field_err(field, format!("expected a corpus id, got {}", kind(v)))),
    }
}

/// Author names from `[{"authorId", "name"}]`; authors without a name are dropped.
pub(in crate::ingest::formats) fn authors(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, FieldError> {
    let items = match obj.get(field) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err(field, format!("expected an array of authors, got {}", kind(v)))),
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::Object(a) => push_name(&mut out, a.get("name"), field, &format!("item {i}: `name`"))?,
            Value::String(s) if !s.trim().is_empty() => out.push(collapse_ws(s)),
            other => return Err(field_err(field, format!("item {i}: expected an author object, got {}", kind(other)))),
        }
    }
    Ok(out)
}

/// The ids of the paper objects listed in `field` (`references`, `citations`).
fn nested_ids(obj: &Map<String, Value>, field: &str, skipped: &AtomicU64) -> Result<Vec<PaperId>, FieldError> {
    let items = match obj.get(field) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err(field, format!("expected an array of papers, got {}", kind(v)))),
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = match item {
            Value::Object(p) => p,
            Value::Null => {
                skipped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            other => {
                return Err(field_err(
                    &format!("{field}[{i}]"),
                    format!("expected a paper object, got {}", kind(other)),
                ));
            }
        };
        let id = match p.get("paperId") {
            None | Some(Value::Null) => external_ids(p, "externalIds")
                .map_err(|(f, m)| (f.map(|f| format!("{field}[{i}].{f}")), m))?
                .into_iter()
                // DOI first, then ArXiv, then CorpusId.
                .min_by_key(|id| match id {
                    PaperId::Doi(_) => 0,
                    PaperId::Arxiv(_) => 1,
                    _ => 2,
                }),
            Some(Value::String(s)) => Some(PaperId::parse_s2(s).ok_or_else(|| {
                field_err(&format!("{field}[{i}].paperId"), format!("expected a Semantic Scholar paper id, got {s:?}"))
            })?),
            Some(v) => {
                return Err(field_err(&format!("{field}[{i}].paperId"), format!("expected a string, got {}", kind(v))));
            }
        };
        match id {
            Some(id) if !out.contains(&id) => out.push(id),
            Some(_) => {}
            None => {
                skipped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    Ok(out)
}
