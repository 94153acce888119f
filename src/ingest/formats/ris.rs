//! `ris`: RIS, the tagged reference format of Zotero, Mendeley, EndNote
//! and most publishers: `TAG  - value` lines, a record from `TY` to `ER`.
//! The file is read whole (at most [`MAX_JSON_DOCUMENT`] bytes; its encoding
//! detected or forced, `library::decode_text`).
//!
//! Per record: `ID` (the citation key), `TI` or `T1` (may be absent: the
//! paper is untitled), `AU` / `A1` (one `Last, First` name each, in order),
//! `PY`, `Y1` or `DA` (the year), `DO`, `UR` (each URL that names an id),
//! `AN` when it reads `arXiv:ID`, `AB` or `N2`, the venue (`JO`, else `JF`,
//! `T2`, `JA`); other tags are ignored, a repeated tag keeps every value in
//! order, and a line without a tag continues the value before it. Lines
//! between records that are not tags (EndNote's `1.`, `Record #1 of 2`,
//! export headers) are skipped. A record without `ID` takes its strongest id
//! as its own, else one derived from its title, first author and year
//! (`library::derived_key`, `ris-…`). Records are located `file:LINE` at
//! their `TY`.

use super::library::{Keys, LibraryEntry, arxiv_prefixed, derived_key, read_whole};
use super::{FieldError, FormatOptions, Items, Located, OpenInput, ReadError, field_err, record_error};
use crate::cite::name_parts;
use crate::paper::Item;

pub fn read(input: OpenInput, opts: &FormatOptions) -> anyhow::Result<Items> {
    let (path, text) = read_whole(input, "RIS", opts)?;
    let loc = |line: usize| format!("{path}:{line}");
    let mut out: Vec<Result<Located, ReadError>> = Vec::new();
    let mut open: Option<(usize, Vec<(String, String)>)> = None;
    let mut keys = Keys::default();
    let mut records = 0usize;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let line = line.trim_start_matches('\u{feff}').trim_end();
        if line.trim().is_empty() {
            continue;
        }
        match tagged(line) {
            Some(("TY", _)) => {
                records += 1;
                if let Some((prev, _)) = open.replace((n, Vec::new())) {
                    let message = format!("the record has no `ER` line before the `TY` at line {n}");
                    out.push(Err(record_error(&loc(prev), None, message)));
                }
            }
            Some(("ER", _)) => {
                let Some((start, tags)) = open.take() else {
                    out.push(Err(record_error(&loc(n), Some("ER".into()), "`ER` with no `TY` before it".into())));
                    continue;
                };
                let at = loc(start);
                let record = entry(&tags).and_then(|mut e| {
                    e.tell(&at, opts);
                    if let Some(key) = e.key.take() {
                        e.key = Some(keys.unique(&key, &e.title, e.year, &at, opts));
                    }
                    e.into_record("ris", "ID")
                });
                out.push(record.map(|r| (Item::Record(r), at.clone())).map_err(|(f, m)| record_error(&at, f, m)));
            }
            Some((tag, value)) => match &mut open {
                Some((_, tags)) => tags.push((tag.to_string(), value.to_string())),
                None => out.push(Err(record_error(
                    &loc(n),
                    Some(tag.into()),
                    format!("`{tag}` outside a record (no `TY` before it)"),
                ))),
            },
            // A wrapped value goes on; outside a record, a line that is no
            // tag is not part of any record (`1.`, `Record #1 of 2`).
            None => {
                if let Some((_, value)) = open.as_mut().and_then(|(_, tags)| tags.last_mut()) {
                    value.push(' ');
                    value.push_str(line.trim());
                }
            }
        }
    }
    if let Some((start, _)) = open {
        out.push(Err(record_error(&loc(start), None, "the record has no `ER` line".into())));
    }
    anyhow::ensure!(
        records > 0 || !out.is_empty() || text.trim().is_empty(),
        "{path}: no RIS record (`TY  - ` line) in it"
    );
    Ok(Box::new(out.into_iter()))
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
    e.title = first(&["TI", "T1"]).map(|(_, v)| v.to_string()).unwrap_or_default();
    e.abstract_ = first(&["AB", "N2"]).map(|(_, v)| v.to_string()).unwrap_or_default();
    e.venue = first(&["JO", "JF", "T2", "JA"]).map(|(_, v)| v.to_string());
    let mut et_al = false;
    for a in all("AU").chain(all("A1")) {
        let (a, written) = crate::names::strip_et_al(a);
        et_al |= written;
        let name = name_parts::from_written(a);
        if !name.is_empty() {
            e.authors.push(name);
        }
    }
    if et_al {
        e.authors.push(crate::names::ET_AL.to_string());
    }
    if let Some((tag, value)) = first(&["PY", "Y1", "DA"]) {
        e.set_year(tag, value);
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
    if e.key.is_none() && e.ids.is_empty() {
        if tags.iter().all(|(t, v)| t == "TY" || v.is_empty()) {
            return Err(field_err("TI", "the record is empty (no title, author, year or id)"));
        }
        let rest: Vec<String> = tags.iter().map(|(t, v)| format!("{t}  - {v}")).collect();
        e.key = Some(derived_key("ris", &e.title, e.authors.first().map(String::as_str), e.year, &rest.join("\n")));
    }
    Ok(e)
}
