//! `s2`: Semantic Scholar Graph API responses.
//!
//! A whole JSON document in one of these shapes:
//!
//! - a paper object (`/paper/{id}`): `paperId`, `corpusId`, `externalIds`,
//!   `title`, `abstract`, `year`, `authors`, `references`, `citations`;
//! - a list of paper objects: `{"data": [...], "total", "offset", "next"}`
//!   (search), or a top-level array (`POST /paper/batch`, where an unknown id
//!   gives `null`);
//! - a `/references` page `{"data": [{"citedPaper": {...}}, ...]}` or a
//!   `/citations` page `{"data": [{"citingPaper": {...}}, ...]}`. Such a page
//!   does not name its paper, so it needs [`FormatOptions::paper`]. Each entry
//!   gives a [`Link`] and, when the nested paper has a title, its [`Record`].
//!
//! A file whose first line is a whole JSON object and which has more lines is
//! read as JSON Lines of paper objects instead (located `file:line`).
//!
//! A paper object's `paperId` must be a sha; its `externalIds` give the other
//! ids (`ArXiv`, `DOI`, `CorpusId`; the rest are ignored) and a top-level
//! `corpusId` another. The `references` and `citations` lists nested in a
//! paper object are reduced to ids: the `paperId` when there is one, else the
//! `DOI`, `ArXiv` or `CorpusId` in its `externalIds`.
//!
//! Entries without any id (`paperId: null` in a page or a nested list, or a
//! `null` in a batch array) are not errors: they are skipped and counted in
//! [`FormatOptions::skipped_nulls`].
//!
//! Items of a document are located by JSON path: `file` for a single paper,
//! `file: data[3]`, `file: [2]`, and errors inside a page entry
//! `file: data[3].citedPaper`.

mod pages;
mod paper_object;
#[cfg(test)]
mod tests;

use std::io::{BufRead, Cursor, Read};
use std::sync::atomic::Ordering;

use serde_json::Value;

use super::{FormatOptions, InputFormat, Items, OpenInput, ReadError, file_fault, json_document, json_lines, object};
use crate::paper::Item;
use pages::document;
use paper_object::paper;
pub(super) use paper_object::{authors, corpus_id, external_ids};

pub fn read(input: OpenInput, opts: &FormatOptions) -> anyhow::Result<Items> {
    let (input, lines) = split_json_lines(input)?;
    let skipped = opts.skipped_nulls.clone();
    if lines {
        return Ok(stop_after_file_error(json_lines(input, InputFormat::S2, move |value| {
            if value.is_null() {
                skipped.fetch_add(1, Ordering::Relaxed);
                return Ok(Vec::new());
            }
            let obj = object(value)?;
            if obj.contains_key("data") && !obj.contains_key("paperId") {
                return Err((None, "expected a paper object on each line, got a page with `data`".into()));
            }
            Ok(vec![Item::Record(paper(&obj, &skipped)?)])
        })));
    }
    let path = input.path.display().to_string();
    let doc = json_document(input, InputFormat::S2)?;
    let items = document(&path, doc, opts)?;
    Ok(Box::new(items.into_iter()))
}

/// Ends `items` after the first [`ReadError::File`]: the shared `json_lines`
/// driver keeps returning the same I/O error (e.g. a truncated gzip stream)
/// on every further call, so a caller that reports it and reads on would
/// never finish.
pub(super) fn stop_after_file_error(items: Items) -> Items {
    let mut done = false;
    Box::new(items.map_while(move |item| {
        if done {
            return None;
        }
        done = matches!(item, Err(ReadError::File(_)));
        Some(item)
    }))
}

/// Peeks at the first non-blank line: when it is a whole JSON object and more
/// non-blank text follows, the file is JSON Lines (`true`). The bytes read
/// are put back in front of the input either way.
pub(super) fn split_json_lines(mut input: OpenInput) -> anyhow::Result<(OpenInput, bool)> {
    let mut head = Vec::new();
    let mut first_line = Vec::new();
    loop {
        first_line.clear();
        // Bounded: a huge single-line document is refused by `json_document`, not buffered here.
        let n = (&mut input.reader)
            .take(super::MAX_JSON_DOCUMENT + 1)
            .read_until(b'\n', &mut first_line)
            .map_err(|e| file_fault(&input.path, e))?;
        head.extend_from_slice(&first_line);
        if n == 0 || !first_line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&first_line);
    let text = text.trim_start_matches('\u{feff}').trim();
    let whole_object = text.starts_with('{') && matches!(serde_json::from_str::<Value>(text), Ok(Value::Object(_)));
    let mut more = false;
    if whole_object {
        // Is there anything but whitespace after it?
        loop {
            let buf = input.reader.fill_buf().map_err(|e| file_fault(&input.path, e))?;
            if buf.is_empty() {
                break;
            }
            match buf.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(_) => {
                    more = true;
                    break;
                }
                None => {
                    let n = buf.len();
                    head.extend_from_slice(buf);
                    input.reader.consume(n);
                }
            }
        }
    }
    let rest = std::mem::replace(&mut input.reader, Box::new(Cursor::new(Vec::new())));
    input.reader = Box::new(Cursor::new(head).chain(rest));
    Ok((input, more))
}
