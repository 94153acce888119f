//! JSON Lines files of [`Paper`] records.
//!
//! One JSON object per line with the field names of `Paper`. `id` and `title`
//! are required; `abstract` defaults to "", `year` to null, the lists to empty
//! and `source` to "jsonl". Unknown keys are ignored; blank lines are skipped.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use anyhow::Context;
use serde_json::{Map, Value};

use super::{RecordError, Source};
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
        let reader = BufReader::new(file);
        let path = self.path.clone();
        let mut lines = reader.split(b'\n').enumerate();
        Ok(Box::new(std::iter::from_fn(move || loop {
            let (i, line) = lines.next()?;
            let lineno = i + 1;
            let loc = || format!("{}:{}", path.display(), lineno);
            let bytes = match line {
                Ok(b) => b,
                Err(e) => {
                    return Some(Err(RecordError { location: loc(), field: None, message: format!("read error: {e}") }))
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

type FieldError = (Option<String>, String);

/// Parses one line into a Paper, naming the field at fault.
pub(crate) fn parse_line(text: &str) -> Result<Paper, FieldError> {
    let value: Value = serde_json::from_str(text).map_err(|e| (None, format!("malformed JSON: {e}")))?;
    let Value::Object(obj) = value else {
        return Err((None, format!("expected a JSON object, got {}", kind(&value))));
    };
    let id = required_string(&obj, "id")?;
    let title = required_string(&obj, "title")?;
    Ok(Paper {
        id,
        title,
        abstract_: optional_string(&obj, "abstract")?.unwrap_or_default(),
        year: year(&obj)?,
        authors: string_list(&obj, "authors")?,
        references: string_list(&obj, "references")?,
        citations: string_list(&obj, "citations")?,
        source: optional_string(&obj, "source")?.filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "jsonl".into()),
    })
}

fn field_err(field: &str, message: String) -> FieldError {
    (Some(field.to_string()), message)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn required_string(obj: &Map<String, Value>, field: &str) -> Result<String, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Err(field_err(field, "is required".into())),
        Some(Value::String(s)) if s.trim().is_empty() => Err(field_err(field, "must not be empty".into())),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(v) => Err(field_err(field, format!("expected a string, got {}", kind(v)))),
    }
}

fn optional_string(obj: &Map<String, Value>, field: &str) -> Result<Option<String>, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(field_err(field, format!("expected a string, got {}", kind(v)))),
    }
}

/// A year is an integer or a string of digits (as some exports write it).
fn year(obj: &Map<String, Value>) -> Result<Option<i32>, FieldError> {
    let bad = |shown: String| field_err("year", format!("expected an integer year, got {shown}"));
    match obj.get("year") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(y) if (-9999..=9999).contains(&y) => Ok(Some(y as i32)),
            _ => Err(bad(n.to_string())),
        },
        Some(Value::String(s)) => {
            let t = s.trim();
            if !t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit()) {
                Ok(Some(t.parse().expect("at most four ASCII digits")))
            } else {
                Err(bad(format!("{s:?}")))
            }
        }
        Some(v) => Err(bad(kind(v).into())),
    }
}

fn string_list(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                Value::String(_) => Err(field_err(field, format!("item {i} is an empty string"))),
                other => Err(field_err(field, format!("item {i}: expected a string, got {}", kind(other)))),
            })
            .collect(),
        Some(v) => Err(field_err(field, format!("expected an array of strings, got {}", kind(v)))),
    }
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
