//! Reading fields of JSON records with errors that name the field.
//!
//! Shared by every JSON input format, so that a bad record is reported the
//! same way everywhere: `file:line: field `year`: expected an integer year, got "2019a"`.

use serde_json::{Map, Value};

/// A field-level problem: which field (if one is to blame), and what is wrong.
pub type FieldError = (Option<String>, String);

pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn field_err(field: &str, message: impl Into<String>) -> FieldError {
    (Some(field.to_string()), message.into())
}

/// A JSON object, or the error naming what it was instead.
pub fn object(v: Value) -> Result<Map<String, Value>, FieldError> {
    match v {
        Value::Object(m) => Ok(m),
        other => Err((None, format!("expected a JSON object, got {}", kind(&other)))),
    }
}

/// A required non-empty string field, trimmed.
pub(crate) fn req_str(obj: &Map<String, Value>, field: &str) -> Result<String, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Err(field_err(field, "is required")),
        Some(Value::String(s)) if s.trim().is_empty() => Err(field_err(field, "must not be empty")),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(v) => Err(field_err(field, format!("expected a string, got {}", kind(v)))),
    }
}

/// A required string field that may be empty (a real paper can lack a title).
pub(crate) fn req_text(obj: &Map<String, Value>, field: &str) -> Result<String, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Err(field_err(field, "is required")),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(v) => Err(field_err(field, format!("expected a string, got {}", kind(v)))),
    }
}

/// An optional string field ("" when absent or null).
pub(crate) fn opt_str(obj: &Map<String, Value>, field: &str) -> Result<String, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(field_err(field, format!("expected a string, got {}", kind(v)))),
    }
}

/// An optional string found by following `path` through nested objects
/// (`["journal", "name"]`), whitespace collapsed; `None` when a step is
/// missing or null or the text is empty. A step that is not an object, or an
/// end that is not a string, is an error naming the dotted path.
pub(crate) fn opt_text_at(obj: &Map<String, Value>, path: &[&str]) -> Result<Option<String>, FieldError> {
    let mut here = obj;
    for (i, step) in path.iter().enumerate() {
        let name = path[..=i].join(".");
        match here.get(*step) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(m)) if i + 1 < path.len() => here = m,
            Some(Value::String(s)) if i + 1 == path.len() => {
                let text = s.split_whitespace().collect::<Vec<_>>().join(" ");
                return Ok(Some(text).filter(|t| !t.is_empty()));
            }
            Some(v) => {
                let want = if i + 1 < path.len() { "an object" } else { "a string" };
                return Err(field_err(&name, format!("expected {want}, got {}", kind(v))));
            }
        }
    }
    Ok(None)
}

/// An optional year: an integer, or a string of one to four digits.
pub(crate) fn opt_year(obj: &Map<String, Value>, field: &str) -> Result<Option<i32>, FieldError> {
    let bad = |shown: String| field_err(field, format!("expected an integer year, got {shown}"));
    match obj.get(field) {
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

/// An optional list of non-empty strings.
pub(crate) fn str_list(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, FieldError> {
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
