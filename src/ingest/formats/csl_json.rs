//! `csl-json`: CSL-JSON, the items of a reference library as Zotero,
//! Mendeley, Pandoc and citeproc write them: one JSON array of items (or
//! one item), read whole (at most [`MAX_JSON_DOCUMENT`] bytes).
//!
//! The file's encoding is detected or forced (`library::decode_text`).
//! Per item: `citation-key`, else `id` (the citation key; a string or a
//! number; a key used by a different work earlier in the file is made
//! unique, `library::Keys`), `title` (may be absent: the paper is untitled), `author` (`family`, `given`, particles,
//! `suffix`, or `literal`), `issued` (`date-parts`, `raw` or `literal`),
//! `DOI`, `URL`, `number` when it reads `arXiv:ID` (Zotero's preprints),
//! `abstract`, `container-title` (the venue); other fields are ignored. Each item is located `file:LINE`,
//! the line where it starts.

use serde_json::{Map, Value};

use super::library::{Keys, LibraryEntry, arxiv_prefixed, read_whole, year_in};
use super::{
    FieldError, FormatOptions, Items, Located, OpenInput, ReadError, collapse_ws, field_err, kind, object, opt_str,
    record_error,
};
use crate::cite::name_parts;
use crate::paper::Item;

pub fn read(input: OpenInput, opts: &FormatOptions) -> anyhow::Result<Items> {
    let (path, text) = read_whole(input, "CSL-JSON", opts)?;
    let text = text.as_str();
    let not_csl = |e: serde_json::Error| {
        anyhow::anyhow!("{path}: not valid csl-json JSON at line {}, column {}: {e}", e.line(), e.column())
    };
    let doc: Value = serde_json::from_str(text).map_err(not_csl)?;
    let (items, starts) = match doc {
        Value::Array(items) => (items, element_starts(text)),
        item => (vec![item], vec![text.len() - text.trim_start().len()]),
    };
    let mut out: Vec<Result<Located, ReadError>> = Vec::with_capacity(items.len());
    // Lines counted on from one item to the next: the text is counted once.
    let (mut counted, mut line) = (0usize, 1usize);
    let mut keys = Keys::default();
    for (i, value) in items.into_iter().enumerate() {
        let offset = starts.get(i).copied().unwrap_or(counted).max(counted);
        line += text[counted..offset].bytes().filter(|&b| b == b'\n').count();
        counted = offset;
        let loc = format!("{path}:{line}");
        let result = object(value).and_then(|obj| item(&obj)).and_then(|mut e| {
            e.tell(&loc, opts);
            if let Some(key) = e.key.take() {
                e.key = Some(keys.unique(&key, &e.title, e.year, &loc, opts));
            }
            e.into_record("csl-json", "id")
        });
        out.push(result.map(|r| (Item::Record(r), loc.clone())).map_err(|(f, m)| record_error(&loc, f, m)));
    }
    Ok(Box::new(out.into_iter()))
}

/// The byte offsets where the elements of the top-level array of `text`
/// (valid JSON) start: after `[` or a `,` at depth 1, outside strings.
fn element_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut expecting) = (0usize, false, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if expecting && !b.is_ascii_whitespace() && b != b']' {
            starts.push(i);
            expecting = false;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                expecting = depth == 1;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    starts
}

fn item(obj: &Map<String, Value>) -> Result<LibraryEntry, FieldError> {
    let key = match (obj.get("citation-key"), obj.get("id")) {
        (Some(Value::String(k)), _) if !k.trim().is_empty() => Some(k.clone()),
        (_, Some(Value::String(k))) => Some(k.clone()),
        (_, Some(Value::Number(n))) => Some(n.to_string()),
        (_, None | Some(Value::Null)) => None,
        (_, Some(v)) => return Err(field_err("id", format!("expected a string or a number, got {}", kind(v)))),
    };
    let title = match obj.get("title") {
        Some(Value::String(s)) => collapse_ws(s),
        None | Some(Value::Null) => String::new(),
        Some(v) => return Err(field_err("title", format!("expected a string, got {}", kind(v)))),
    };
    let mut e = LibraryEntry {
        key,
        title,
        abstract_: collapse_ws(&opt_str(obj, "abstract")?),
        authors: authors(obj)?,
        year: None,
        ids: Vec::new(),
        venue: Some(collapse_ws(&opt_str(obj, "container-title")?)),
        notes: Vec::new(),
    };
    // A date without a year (`{"literal": "13th century"}`, `in press`) leaves the item without one.
    match issued(obj) {
        Ok(y) => e.year = y,
        Err((_, m)) => e.notes.push(format!("field `issued`: {m}; stored without a year")),
    }
    e.add_doi("DOI", &opt_str(obj, "DOI")?)?;
    e.add_url(&opt_str(obj, "URL")?);
    if let Some(id) = obj.get("number").and_then(Value::as_str).and_then(arxiv_prefixed) {
        e.add_id(id);
    }
    Ok(e)
}

/// `author[]` as display names: `given dropping-particle non-dropping-particle family suffix`, or `literal`.
fn authors(obj: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    const F: &str = "author";
    let items = match obj.get(F) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err(F, format!("expected an array of names, got {}", kind(v)))),
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Value::Object(name) = item else {
            return Err(field_err(F, format!("item {i}: expected an object, got {}", kind(item))));
        };
        let part = |k: &str| -> Result<String, FieldError> {
            match name.get(k) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(collapse_ws(s)),
                Some(v) => Err(field_err(F, format!("item {i}: `{k}`: expected a string, got {}", kind(v)))),
            }
        };
        let literal = part("literal")?;
        let family: Vec<String> = ["dropping-particle", "non-dropping-particle", "family", "suffix"]
            .iter()
            .map(|k| part(k))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let display =
            if literal.is_empty() { name_parts::display(&family.join(" "), &part("given")?) } else { literal };
        if !display.is_empty() {
            out.push(display);
        }
    }
    Ok(out)
}

/// The year of `issued`: `date-parts[0][0]` (a number or a string), else `raw` or `literal`.
fn issued(obj: &Map<String, Value>) -> Result<Option<i32>, FieldError> {
    const F: &str = "issued";
    let date = match obj.get(F) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(d)) => d,
        Some(Value::String(s)) => return year_in(F, s),
        Some(v) => return Err(field_err(F, format!("expected a date object, got {}", kind(v)))),
    };
    if let Some(parts) = date.get("date-parts") {
        let first = parts.as_array().and_then(|p| p.first()).and_then(Value::as_array).and_then(|p| p.first());
        return match first {
            Some(Value::Number(n)) => match n.as_i64().and_then(|y| i32::try_from(y).ok()) {
                Some(y) => Ok(Some(y)),
                None => Err(field_err(F, format!("`date-parts`: expected an integer year, got {n}"))),
            },
            Some(Value::String(s)) => year_in(F, s),
            None => Ok(None),
            Some(v) => Err(field_err(F, format!("`date-parts`: expected a year, got {}", kind(v)))),
        };
    }
    for k in ["raw", "literal"] {
        if let Some(Value::String(s)) = date.get(k) {
            return year_in(F, s);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_elements_are_located() {
        let text = "[\n  {\"a\": \"x,]\\\"\"},\n  {\"b\": [1, 2]}\n, 3]";
        let starts = element_starts(text);
        assert_eq!(starts.iter().map(|&i| &text[i..i + 1]).collect::<Vec<_>>(), ["{", "{", "3"]);
        assert!(element_starts("[]").is_empty());
    }
}
