//! The CSL-JSON writer: one JSON array of items (`type` `article`, or
//! `article-journal` with the venue as `container-title`, `id` and
//! `citation-key` the key, `title` unless untitled, `author` as `family`/`given`, `issued` as
//! `date-parts`, `DOI`, `URL`, an arXiv id as `number` `arXiv:ID` with
//! `publisher` `arXiv`, as Zotero writes preprints), written item by item.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::{Entry, name_parts};

pub(super) fn write(out: &mut dyn Write, e: &Entry, first: bool) -> io::Result<()> {
    out.write_all(if first { b"[\n" } else { b",\n" })?;
    let mut item = Map::new();
    item.insert("id".into(), json!(e.key));
    item.insert("citation-key".into(), json!(e.key));
    item.insert("type".into(), json!(if e.venue.is_some() { "article-journal" } else { "article" }));
    if !e.title.trim().is_empty() {
        item.insert("title".into(), json!(e.title));
    }
    if let Some(venue) = &e.venue {
        item.insert("container-title".into(), json!(venue));
    }
    if !e.authors.is_empty() {
        let authors: Vec<Value> = e
            .authors
            .iter()
            .map(|a| {
                let n = name_parts::split(a);
                if a == crate::names::ET_AL {
                    // CSL has no "and others" in its data: a literal name, as citation-js writes it.
                    json!({"literal": a})
                } else if n.given.is_empty() {
                    json!({"family": n.family})
                } else {
                    json!({"family": n.family, "given": n.given})
                }
            })
            .collect();
        item.insert("author".into(), Value::Array(authors));
    }
    if let Some(y) = e.year {
        item.insert("issued".into(), json!({"date-parts": [[y]]}));
    }
    if let Some(doi) = &e.doi {
        item.insert("DOI".into(), json!(doi));
    }
    if let Some(arxiv) = &e.arxiv {
        item.insert("number".into(), json!(format!("arXiv:{arxiv}")));
        item.insert("publisher".into(), json!("arXiv"));
    }
    if let Some(url) = &e.url {
        item.insert("URL".into(), json!(url));
    }
    if !e.abstract_.is_empty() {
        item.insert("abstract".into(), json!(e.abstract_));
    }
    let text = serde_json::to_string_pretty(&Value::Object(item)).map_err(io::Error::other)?;
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        write!(out, "  {line}")?;
    }
    Ok(())
}

/// Closes the array (an empty one when nothing was written).
pub(super) fn finish(out: &mut dyn Write, empty: bool) -> io::Result<()> {
    out.write_all(if empty { b"[]\n" } else { b"\n]\n" })
}
