//! `ris`: RIS, the tagged reference format of Zotero, Mendeley, EndNote
//! and most publishers: `TAG  - value` lines, a record from `TY` to `ER`,
//! streamed line by line.
//!
//! Per record: `ID` (the citation key), `TI` or `T1` (required), `AU` /
//! `A1` (one `Last, First` name each), `PY`, `Y1` or `DA` (the year),
//! `DO`, `UR` (each URL that names an id), `AN` when it reads `arXiv:ID`,
//! `AB` or `N2`, the venue (`JO`, else `JF`, `T2`, `JA`); other tags are ignored, and a line without a tag continues
//! the value before it. A record without `ID` takes its strongest id as its
//! own. Records are located `file:LINE` at their `TY`.

use std::io::BufRead;
use std::path::PathBuf;

use super::library::{LibraryEntry, arxiv_prefixed, year_in};
use super::{
    FieldError, Items, Line, MAX_LINE, OpenInput, ReadError, field_err, file_fault, read_line_limited, record_error,
};
use crate::cite::name_parts;
use crate::paper::Item;

pub fn read(input: OpenInput) -> Items {
    let mut reader = Reader { path: input.path, reader: input.reader, line: 0, open: None, done: false };
    Box::new(std::iter::from_fn(move || reader.next()))
}

/// A record being read: the line of its `TY` and its tags so far.
struct Open {
    line: usize,
    tags: Vec<(String, String)>,
}

struct Reader {
    path: PathBuf,
    reader: Box<dyn BufRead>,
    line: usize,
    open: Option<Open>,
    done: bool,
}

impl Reader {
    fn loc(&self, line: usize) -> String {
        format!("{}:{line}", self.path.display())
    }

    fn next(&mut self) -> Option<Result<(Item, String), ReadError>> {
        while !self.done {
            let line = match read_line_limited(&mut self.reader, MAX_LINE) {
                Ok(Some(line)) => line,
                Ok(None) => {
                    self.done = true;
                    let open = self.open.take()?;
                    return Some(Err(record_error(&self.loc(open.line), None, "the record has no `ER` line".into())));
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(ReadError::File(file_fault(&self.path, e))));
                }
            };
            self.line += 1;
            let loc = self.loc(self.line);
            let bytes = match line {
                Line::Text(b) => b,
                too_long @ Line::TooLong(_) => {
                    return Some(Err(record_error(&loc, None, too_long.bytes().err().unwrap_or_default())));
                }
            };
            let Ok(text) = String::from_utf8(bytes) else {
                return Some(Err(record_error(&loc, None, "invalid UTF-8".into())));
            };
            let text = text.trim_start_matches('\u{feff}').trim_end();
            if text.trim().is_empty() {
                continue;
            }
            match tagged(text) {
                Some(("TY", _)) => {
                    let unclosed = self.open.replace(Open { line: self.line, tags: Vec::new() });
                    if let Some(prev) = unclosed {
                        let message = format!("the record has no `ER` line before the `TY` at line {}", self.line);
                        return Some(Err(record_error(&self.loc(prev.line), None, message)));
                    }
                }
                Some(("ER", _)) => {
                    let Some(open) = self.open.take() else {
                        return Some(Err(record_error(&loc, Some("ER".into()), "`ER` with no `TY` before it".into())));
                    };
                    let loc = self.loc(open.line);
                    let record = entry(&open.tags).and_then(|e| e.into_record("ris", "ID"));
                    return Some(
                        record.map(|r| (Item::Record(r), loc.clone())).map_err(|(f, m)| record_error(&loc, f, m)),
                    );
                }
                Some((tag, value)) => match &mut self.open {
                    Some(open) => open.tags.push((tag.to_string(), value.to_string())),
                    None => {
                        return Some(Err(record_error(
                            &loc,
                            Some(tag.into()),
                            format!("`{tag}` outside a record (no `TY` before it)"),
                        )));
                    }
                },
                None => match self.open.as_mut().and_then(|o| o.tags.last_mut()) {
                    // A wrapped value goes on.
                    Some((_, value)) => {
                        value.push(' ');
                        value.push_str(text.trim());
                    }
                    None => {
                        return Some(Err(record_error(
                            &loc,
                            None,
                            format!("not an RIS line (`TAG  - value`): {text:?}"),
                        )));
                    }
                },
            }
        }
        None
    }
}

/// `TAG  - value` (two uppercase letters or a letter and a digit; the
/// value may be empty, as on `ER  -`).
fn tagged(line: &str) -> Option<(&str, &str)> {
    let b = line.as_bytes();
    let tag_ok = b.len() >= 5
        && b[0].is_ascii_uppercase()
        && (b[1].is_ascii_uppercase() || b[1].is_ascii_digit())
        && &b[2..4] == b"  "
        && b[4] == b'-';
    tag_ok.then(|| (&line[..2], line[5..].trim()))
}

fn entry(tags: &[(String, String)]) -> Result<LibraryEntry, FieldError> {
    let first = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| tags.iter().find(|(t, v)| t == n && !v.is_empty()))
            .map(|(t, v)| (t.as_str(), v.as_str()))
    };
    let all = |name: &'static str| tags.iter().filter(move |(t, _)| t == name).map(|(_, v)| v.as_str());
    let mut e = LibraryEntry { key: first(&["ID"]).map(|(_, v)| v.to_string()), ..LibraryEntry::default() };
    e.title = first(&["TI", "T1"]).map(|(_, v)| v.to_string()).ok_or_else(|| field_err("TI", "is required"))?;
    e.abstract_ = first(&["AB", "N2"]).map(|(_, v)| v.to_string()).unwrap_or_default();
    e.venue = first(&["JO", "JF", "T2", "JA"]).map(|(_, v)| v.to_string());
    e.authors = all("AU").chain(all("A1")).map(name_parts::from_written).filter(|n| !n.is_empty()).collect();
    if let Some((tag, value)) = first(&["PY", "Y1", "DA"]) {
        e.year = year_in(tag, value)?;
    }
    for doi in all("DO") {
        e.add_doi("DO", doi)?;
    }
    for url in all("UR") {
        e.add_url(url);
    }
    for an in all("AN") {
        if let Some(id) = arxiv_prefixed(an) {
            e.add_id(id);
        }
    }
    Ok(e)
}
