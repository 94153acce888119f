//! JSON Lines files of [`Paper`] records.
//!
//! One JSON object per line with the field names of `Paper`. `id` and `title`
//! are required; `abstract` defaults to "", `year` to null, the lists to empty
//! and `source` to "jsonl". Unknown keys are ignored; blank lines are skipped.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;

use super::{RecordError, Source};
use crate::fields::{object, opt_str, opt_year, req_str, req_text, str_list, FieldError};
use crate::ingest::formats::{read_line_limited, Line, MAX_LINE};
use crate::paper::Paper;

/// A JSON Lines file of paper records.
#[derive(Debug, Clone)]
pub struct JsonlFile {
    path: PathBuf,
}

impl JsonlFile {
    pub fn new(path: impl Into<PathBuf>) -> JsonlFile {
        JsonlFile { path: path.into() }
    }
}

impl Source for JsonlFile {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn records(&self) -> anyhow::Result<Box<dyn Iterator<Item = Result<Paper, RecordError>> + '_>> {
        let file = File::open(&self.path).with_context(|| format!("cannot read {}", self.path.display()))?;
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            anyhow::bail!("cannot read {}: it is a directory", self.path.display());
        }
        let mut reader = BufReader::new(file);
        let path = self.path.clone();
        let mut lineno = 0usize;
        let mut done = false;
        Ok(Box::new(std::iter::from_fn(move || loop {
            if done {
                return None;
            }
            let line = read_line_limited(&mut reader, MAX_LINE).transpose()?;
            lineno += 1;
            let loc = || format!("{}:{}", path.display(), lineno);
            let bytes = match line.map(Line::bytes) {
                Ok(Ok(b)) => b,
                Ok(Err(too_long)) => return Some(Err(RecordError { location: loc(), field: None, message: too_long })),
                Err(e) => {
                    // Reading on after an I/O error would repeat it.
                    done = true;
                    return Some(Err(RecordError {
                        location: loc(),
                        field: None,
                        message: format!("read error: {e}"),
                    }));
                }
            };
            let text = match std::str::from_utf8(&bytes) {
                Ok(t) => t.trim(),
                Err(e) => {
                    return Some(Err(RecordError {
                        location: loc(),
                        field: None,
                        message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
                    }))
                }
            };
            if text.is_empty() {
                continue;
            }
            return Some(parse_line(text).map_err(|(field, message)| RecordError { location: loc(), field, message }));
        })))
    }
}

/// Parses one line into a Paper, naming the field at fault.
pub(crate) fn parse_line(text: &str) -> Result<Paper, FieldError> {
    let value: Value = serde_json::from_str(text).map_err(|e| (None, format!("malformed JSON: {e}")))?;
    parse_value(value)
}

/// A Paper from one JSON value.
pub(crate) fn parse_value(value: Value) -> Result<Paper, FieldError> {
    let obj = object(value)?;
    let id = req_str(&obj, "id")?;
    // Required, but may be empty: CACM has a paper with an abstract and no title.
    let title = req_text(&obj, "title")?;
    Ok(Paper {
        id,
        title,
        abstract_: opt_str(&obj, "abstract")?,
        year: opt_year(&obj, "year")?,
        authors: str_list(&obj, "authors")?,
        references: str_list(&obj, "references")?,
        citations: str_list(&obj, "citations")?,
        source: Some(opt_str(&obj, "source")?).filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "jsonl".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_record_gets_defaults() {
        let p = parse_line(r#"{"id": "x1", "title": "A title"}"#).unwrap();
        assert_eq!(p.id, "x1");
        assert_eq!(p.abstract_, "");
        assert_eq!(p.year, None);
        assert!(p.authors.is_empty() && p.references.is_empty() && p.citations.is_empty());
        assert_eq!(p.source, "jsonl");
        // A title may be empty, but not missing.
        assert_eq!(parse_line(r#"{"id": "x2", "title": ""}"#).unwrap().title, "");
    }

    #[test]
    fn full_record_and_unknown_keys() {
        let p = parse_line(
            r#"{"id":"a","title":"T","abstract":"A.","year":2019,"authors":["X"],"references":["b"],"citations":["c"],"source":"mine","month":12}"#,
        )
        .unwrap();
        assert_eq!(p.year, Some(2019));
        assert_eq!(p.references, ["b"]);
        assert_eq!(p.citations, ["c"]);
        assert_eq!(p.source, "mine");
        assert_eq!(parse_line(r#"{"id":"a","title":"T","year":"1999"}"#).unwrap().year, Some(1999));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"title":"T"}"#, Some("id"), "is required"),
            (r#"{"id":"","title":"T"}"#, Some("id"), "must not be empty"),
            (r#"{"id":7,"title":"T"}"#, Some("id"), "expected a string, got a number"),
            (r#"{"id":"a"}"#, Some("title"), "is required"),
            (r#"{"id":"a","title":"T","year":"2019a"}"#, Some("year"), "expected an integer year"),
            (r#"{"id":"a","title":"T","year":2019.5}"#, Some("year"), "expected an integer year"),
            (r#"{"id":"a","title":"T","authors":5}"#, Some("authors"), "expected an array of strings"),
            (r#"{"id":"a","title":"T","references":["b",3]}"#, Some("references"), "item 1"),
            (r#"[1,2]"#, None, "expected a JSON object"),
            (r#"{"id":"a","title""#, None, "malformed JSON"),
        ];
        for (line, field, msg) in cases {
            let (f, m) = parse_line(line).unwrap_err();
            assert_eq!(f.as_deref(), field, "{line}");
            assert!(m.contains(msg), "{line}: {m}");
        }
    }
}
