//! The page shapes of the Graph API: a single paper object, a search or
//! batch list of them, and `/references` and `/citations` pages.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::paper;
use crate::ingest::formats::{FormatOptions, Located, ReadError, kind, record_error};
use crate::paper::{Item, Link};

/// The items of a whole document.
pub(super) fn document(
    path: &str,
    doc: Value,
    opts: &FormatOptions,
) -> anyhow::Result<Vec<Result<Located, ReadError>>> {
    let skipped = &opts.skipped_nulls;
    let mut out = Vec::new();
    let entries = match doc {
        Value::Array(entries) => {
            papers(path, "", entries, skipped, &mut out);
            return Ok(out);
        }
        Value::Object(obj) if obj.contains_key("paperId") => {
            out.push(
                paper(&obj, skipped)
                    .map(|r| (Item::Record(r), path.to_string()))
                    .map_err(|(f, m)| record_error(path, f, m)),
            );
            return Ok(out);
        }
        Value::Object(mut obj) => match obj.remove("data") {
            Some(Value::Array(entries)) => entries,
            Some(other) => anyhow::bail!("{path}: `data` should be an array of papers, got {}", kind(&other)),
            None => {
                let message = ["error", "message"].iter().find_map(|k| obj.get(*k).and_then(Value::as_str));
                match message {
                    Some(m) => anyhow::bail!("{path}: Semantic Scholar returned an error: {m}"),
                    None => anyhow::bail!(
                        "{path} is neither a Semantic Scholar paper (no `paperId`) nor a page of them (no `data`)"
                    ),
                }
            }
        },
        other => anyhow::bail!("{path}: expected a Semantic Scholar paper or page, got {}", kind(&other)),
    };
    let nested_key = entries.iter().find_map(|e| {
        let obj = e.as_object()?;
        ["citedPaper", "citingPaper"].into_iter().find(|k| obj.contains_key(*k))
    });
    let Some(nested_key) = nested_key else {
        papers(path, "data", entries, skipped, &mut out);
        return Ok(out);
    };
    let page = if nested_key == "citedPaper" { "/references" } else { "/citations" };
    let Some(paper_id) = opts.paper.clone() else {
        anyhow::bail!("{path} is a Semantic Scholar {page} page, which does not name its paper; pass --paper ID");
    };
    for (i, entry) in entries.into_iter().enumerate() {
        let loc = format!("{path}: data[{i}]");
        let nested = match entry {
            Value::Object(mut e) => match e.remove(nested_key) {
                Some(Value::Object(p)) => p,
                None | Some(Value::Null) => {
                    out.push(Err(record_error(&loc, Some(nested_key.into()), "is required".into())));
                    continue;
                }
                Some(other) => {
                    out.push(Err(record_error(
                        &loc,
                        Some(nested_key.into()),
                        format!("expected an object, got {}", kind(&other)),
                    )));
                    continue;
                }
            },
            Value::Null => {
                skipped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            other => {
                out.push(Err(record_error(&loc, None, format!("expected a JSON object, got {}", kind(&other)))));
                continue;
            }
        };
        if nested.get("paperId").is_none_or(Value::is_null) {
            skipped.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let inner_loc = format!("{loc}.{nested_key}");
        let record = match paper(&nested, skipped) {
            Ok(r) => r,
            Err((f, m)) => {
                out.push(Err(record_error(&inner_loc, f, m)));
                continue;
            }
        };
        let link = if nested_key == "citedPaper" {
            Link { citing: paper_id.clone(), cited: record.source_id.clone() }
        } else {
            Link { citing: record.source_id.clone(), cited: paper_id.clone() }
        };
        out.push(Ok((Item::Link(link), loc.clone())));
        if !record.title.is_empty() {
            out.push(Ok((Item::Record(record), loc)));
        }
    }
    Ok(out)
}

/// A list of paper objects at `prefix[i]`; `null` entries are skipped and counted.
fn papers(
    path: &str,
    prefix: &str,
    entries: Vec<Value>,
    skipped: &AtomicU64,
    out: &mut Vec<Result<Located, ReadError>>,
) {
    for (i, entry) in entries.into_iter().enumerate() {
        let loc = format!("{path}: {prefix}[{i}]");
        let result = match entry {
            Value::Null => {
                skipped.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            Value::Object(obj) => paper(&obj, skipped),
            other => Err((None, format!("expected a paper object, got {}", kind(&other)))),
        };
        out.push(result.map(|r| (Item::Record(r), loc.clone())).map_err(|(f, m)| record_error(&loc, f, m)));
    }
}
