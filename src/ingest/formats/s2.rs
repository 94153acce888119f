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

use std::io::{BufRead, Cursor, Read};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::{
    collapse_ws, field_err, file_fault, json_document, json_lines, kind, object, opt_str, opt_year, record_error,
    FieldError, Format, FormatOptions, Input, Items, Located, ReadError,
};
use crate::ingest::ids::PaperId;
use crate::ingest::record::{Item, Link, Record};

pub fn read(input: Input, opts: &FormatOptions) -> anyhow::Result<Items> {
    let (input, lines) = split_json_lines(input)?;
    let skipped = opts.skipped_nulls.clone();
    if lines {
        return Ok(stop_after_file_error(json_lines(input, Format::S2, move |value| {
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
    let doc = json_document(input, Format::S2)?;
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
pub(super) fn split_json_lines(mut input: Input) -> anyhow::Result<(Input, bool)> {
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

/// The items of a whole document.
fn document(path: &str, doc: Value, opts: &FormatOptions) -> anyhow::Result<Vec<Result<Located, ReadError>>> {
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
        source_id,
    })
}

/// The ids in an `externalIds` object (`ArXiv`, `DOI`, `CorpusId`), in that
/// order. Other keys (MAG, PubMed, DBLP, …) are ignored; null values too.
pub(super) fn external_ids(obj: &Map<String, Value>, field: &str) -> Result<Vec<PaperId>, FieldError> {
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
pub(super) fn corpus_id(value: Option<&Value>, field: &str) -> Result<Option<u64>, FieldError> {
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
pub(super) fn authors(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, FieldError> {
    let items = match obj.get(field) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err(field, format!("expected an array of authors, got {}", kind(v)))),
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::Object(a) => match a.get("name") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => {
                    let name = collapse_ws(s);
                    if !name.is_empty() {
                        out.push(name);
                    }
                }
                Some(v) => {
                    return Err(field_err(field, format!("item {i}: `name`: expected a string, got {}", kind(v))))
                }
            },
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
                ))
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
                return Err(field_err(&format!("{field}[{i}].paperId"), format!("expected a string, got {}", kind(v))))
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

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::super::open_input;
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
    const REF_SHA: &str = "fedcba9876543210fedcba9876543210fedcba98";
    const CITING_SHA: &str = "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ff";
    const ABSTRACT: &str = super::super::SHARED_ABSTRACT;

    fn fixture(name: &str) -> PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest")).join(name)
    }

    fn s2(sha: &str) -> PaperId {
        PaperId::S2(sha.into())
    }

    fn read_path(path: &Path, opts: &FormatOptions) -> anyhow::Result<Vec<Result<Located, ReadError>>> {
        Ok(read(open_input(path)?, opts)?.collect())
    }

    fn temp(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        f
    }

    fn read_text(text: &str, opts: &FormatOptions) -> anyhow::Result<Vec<Result<Located, ReadError>>> {
        let f = temp(text.as_bytes());
        read_path(f.path(), opts)
    }

    fn ok(items: Vec<Result<Located, ReadError>>) -> Vec<Located> {
        items.into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    fn shared_ids() -> Vec<PaperId> {
        vec![
            PaperId::Arxiv("2101.00001".into()),
            PaperId::Doi("10.1234/shared.paper.2021".into()),
            PaperId::CorpusId(215416146),
        ]
    }

    #[test]
    fn single_paper_with_nested_references() {
        let path = fixture("s2_paper.json");
        let opts = FormatOptions::default();
        let items = ok(read_path(&path, &opts).unwrap());
        assert_eq!(
            items,
            vec![(
                Item::Record(Record {
                    source: "s2".into(),
                    source_id: s2(SHA),
                    ids: shared_ids(),
                    title: "Sparse Mixtures of Retrieval Experts".into(),
                    abstract_: ABSTRACT.into(),
                    year: Some(2021),
                    authors: vec!["Ada Lovelace".into(), "Charles Babbage".into()],
                    references: vec![s2(REF_SHA), PaperId::CorpusId(1111)],
                    citations: vec![s2(CITING_SHA)],
                    arxiv_version: None,
                }),
                path.display().to_string()
            )]
        );
        // The third reference has neither a paperId nor an external id.
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn search_page_and_batch_array() {
        let path = fixture("s2_batch.json");
        let items = ok(read_path(&path, &FormatOptions::default()).unwrap());
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].1, format!("{}: data[0]", path.display()));
        assert_eq!(items[1].1, format!("{}: data[1]", path.display()));
        let Item::Record(a) = &items[0].0 else { panic!() };
        assert_eq!(a.source_id, s2(SHA));
        assert_eq!(a.ids, shared_ids());
        assert_eq!(a.title, "Sparse mixtures of retrieval experts");
        assert_eq!(a.abstract_, "");
        let Item::Record(b) = &items[1].0 else { panic!() };
        assert_eq!(
            b,
            &Record {
                source: "s2".into(),
                source_id: s2(REF_SHA),
                ids: vec![PaperId::CorpusId(2222)],
                title: "Okapi at TREC-3".into(),
                year: Some(1994),
                authors: vec!["Stephen E. Robertson".into(), "Steve Walker".into()],
                ..Record::default()
            }
        );

        let path = fixture("s2_batch_array.json");
        let opts = FormatOptions::default();
        let items = ok(read_path(&path, &opts).unwrap());
        let got: Vec<(PaperId, Vec<PaperId>, String)> = items
            .into_iter()
            .map(|(item, loc)| match item {
                Item::Record(r) => (r.source_id, r.ids, loc),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (s2(SHA), vec![PaperId::CorpusId(215416146)], format!("{}: [0]", path.display())),
                (s2(CITING_SHA), vec![PaperId::CorpusId(3333)], format!("{}: [2]", path.display())),
            ]
        );
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn references_page_needs_paper_and_skips_null_ids() {
        let path = fixture("s2_references.json");
        let err = read_path(&path, &FormatOptions::default()).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{} is a Semantic Scholar /references page, which does not name its paper; pass --paper ID",
                path.display()
            )
        );

        let opts = FormatOptions { paper: Some(PaperId::Arxiv("2101.00001".into())), ..FormatOptions::default() };
        let items = ok(read_path(&path, &opts).unwrap());
        let me = PaperId::Arxiv("2101.00001".into());
        let upper = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
        assert_eq!(
            items,
            vec![
                (Item::Link(Link { citing: me.clone(), cited: s2(REF_SHA) }), format!("{}: data[0]", path.display())),
                (
                    Item::Record(Record {
                        source: "s2".into(),
                        source_id: s2(REF_SHA),
                        ids: vec![PaperId::CorpusId(2222)],
                        title: "Okapi at TREC-3".into(),
                        year: Some(1994),
                        ..Record::default()
                    }),
                    format!("{}: data[0]", path.display())
                ),
                // No title: a link only; the sha is normalised to lowercase.
                (Item::Link(Link { citing: me, cited: s2(upper) }), format!("{}: data[2]", path.display())),
            ]
        );
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn citations_page_links_towards_the_paper() {
        let path = fixture("s2_citations.json");
        let err = read_path(&path, &FormatOptions::default()).unwrap_err().to_string();
        assert!(err.contains("/citations page, which does not name its paper; pass --paper ID"), "{err}");
        let me = s2(SHA);
        let opts = FormatOptions { paper: Some(me.clone()), ..FormatOptions::default() };
        let items: Vec<Item> = ok(read_path(&path, &opts).unwrap()).into_iter().map(|(i, _)| i).collect();
        assert_eq!(
            items,
            vec![
                Item::Link(Link { citing: s2(CITING_SHA), cited: me }),
                Item::Record(Record {
                    source: "s2".into(),
                    source_id: s2(CITING_SHA),
                    ids: vec![PaperId::CorpusId(3333)],
                    title: "Routing Queries Revisited".into(),
                    year: Some(2022),
                    authors: vec!["Grace Hopper".into()],
                    ..Record::default()
                }),
            ]
        );
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn json_lines_of_papers() {
        let text = format!(
            "{{\"paperId\":\"{SHA}\",\"title\":\"A\",\"corpusId\":\"215416146\"}}\n\nnull\n{{\"paperId\":\"{REF_SHA}\",\"title\":\"B\",\"year\":\"1994\"}}\n{{\"paperId\":7}}\n"
        );
        let opts = FormatOptions::default();
        let items = read_text(&text, &opts).unwrap();
        assert_eq!(items.len(), 3);
        let (Item::Record(a), loc) = items[0].as_ref().unwrap() else { panic!() };
        assert!(loc.ends_with(":1"), "{loc}");
        assert_eq!(a.ids, [PaperId::CorpusId(215416146)]);
        let (Item::Record(b), loc) = items[1].as_ref().unwrap() else { panic!() };
        assert!(loc.ends_with(":4"), "{loc}");
        assert_eq!(b.year, Some(1994));
        match &items[2] {
            Err(ReadError::Record(e)) => {
                assert!(e.location.ends_with(":5"), "{}", e.location);
                assert_eq!(e.field.as_deref(), Some("paperId"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 1);
        // One object on one line, nothing after it: a document.
        let items = read_text(&format!("\n{{\"paperId\":\"{SHA}\"}}\n\n"), &opts).unwrap();
        assert_eq!(items.len(), 1);
        assert!(!items[0].as_ref().unwrap().1.contains(':'), "{:?}", items[0]);
    }

    #[test]
    fn bad_papers_name_the_field() {
        let cases = [
            (r#"{"paperId":null}"#, "paperId", "is required"),
            (r#"{"paperId":"abc"}"#, "paperId", "40 hex digits"),
            (r#"{"paperId":12}"#, "paperId", "expected a string"),
            (r#"{"paperId":"SHA","year":"20x1"}"#, "year", "expected an integer year"),
            (r#"{"paperId":"SHA","title":5}"#, "title", "expected a string"),
            (r#"{"paperId":"SHA","externalIds":[]}"#, "externalIds", "expected an object"),
            (r#"{"paperId":"SHA","externalIds":{"DOI":"nope"}}"#, "externalIds.DOI", "not a DOI"),
            (r#"{"paperId":"SHA","externalIds":{"ArXiv":"1234"}}"#, "externalIds.ArXiv", "not an arXiv id"),
            (r#"{"paperId":"SHA","externalIds":{"CorpusId":-4}}"#, "externalIds.CorpusId", "expected a corpus id"),
            (r#"{"paperId":"SHA","externalIds":{"CorpusId":"12a"}}"#, "externalIds.CorpusId", "digits"),
            (r#"{"paperId":"SHA","corpusId":true}"#, "corpusId", "expected a corpus id"),
            (r#"{"paperId":"SHA","authors":"Ada"}"#, "authors", "expected an array"),
            (r#"{"paperId":"SHA","authors":[{"name":3}]}"#, "authors", "item 0"),
            (r#"{"paperId":"SHA","references":{}}"#, "references", "expected an array"),
            (r#"{"paperId":"SHA","references":[5]}"#, "references[0]", "expected a paper object"),
            (r#"{"paperId":"SHA","citations":[{"paperId":"x"}]}"#, "citations[0].paperId", "paper id"),
            (
                r#"{"paperId":"SHA","citations":[{"paperId":null,"externalIds":{"DOI":1}}]}"#,
                "citations[0].externalIds.DOI",
                "expected a string",
            ),
        ];
        for (doc, field, msg) in cases {
            let doc = doc.replace("SHA", SHA);
            let path_doc = format!("{{\"data\":[{doc}]}}");
            let items = read_text(&path_doc, &FormatOptions::default()).unwrap();
            assert_eq!(items.len(), 1, "{doc}");
            match &items[0] {
                Err(ReadError::Record(e)) => {
                    assert_eq!(e.field.as_deref(), Some(field), "{doc}");
                    assert!(e.message.contains(msg), "{doc}: {}", e.message);
                    assert!(e.location.ends_with(": data[0]"), "{}", e.location);
                }
                other => panic!("{doc}: expected a record error, got {other:?}"),
            }
        }
        // A bad entry in a references page is located inside the entry.
        let opts = FormatOptions { paper: Some(s2(SHA)), ..FormatOptions::default() };
        let items = read_text(r#"{"data":[{"citedPaper":{"paperId":"zz","title":"T"}},{"citedPaper":5},{},7]}"#, &opts)
            .unwrap();
        let errs: Vec<(String, Option<String>)> = items
            .iter()
            .map(|r| match r {
                Err(ReadError::Record(e)) => (e.location.rsplit(": ").next().unwrap().to_string(), e.field.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            errs,
            vec![
                ("data[0].citedPaper".to_string(), Some("paperId".to_string())),
                ("data[1]".to_string(), Some("citedPaper".to_string())),
                ("data[2]".to_string(), Some("citedPaper".to_string())),
                ("data[3]".to_string(), None),
            ]
        );
    }

    #[test]
    fn wrong_documents_are_errors_of_the_file() {
        let opts = FormatOptions::default();
        for (doc, msg) in [
            (r#"{"title":"no id"}"#, "neither a Semantic Scholar paper"),
            (r#"{"error":"Paper with id 1234 not found"}"#, "Semantic Scholar returned an error: Paper with id 1234"),
            (r#"{"data":{"paperId":"x"}}"#, "`data` should be an array"),
            (r#""just a string""#, "expected a Semantic Scholar paper or page"),
            (r#"{"paperId": "#, "not valid s2 JSON"),
            ("", "not valid s2 JSON"),
        ] {
            let err = read_text(doc, &opts).map(|_| ()).unwrap_err();
            assert!(format!("{err:#}").contains(msg), "{doc}: {err:#}");
        }
        // An empty page is fine, even without --paper.
        assert!(read_text(r#"{"data":[],"offset":0}"#, &opts).unwrap().is_empty());
    }

    #[test]
    fn gzip_copy_reads_identically_and_truncated_gzip_is_a_file_error() {
        let path = fixture("s2_paper.json");
        let plain = std::fs::read(&path).unwrap();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain).unwrap();
        let gz = enc.finish().unwrap();
        let f = temp(&gz);
        let strip =
            |items: Vec<Result<Located, ReadError>>| -> Vec<Item> { ok(items).into_iter().map(|x| x.0).collect() };
        let opts = FormatOptions::default();
        assert_eq!(strip(read_path(f.path(), &opts).unwrap()), strip(read_path(&path, &opts).unwrap()));

        let t = temp(&gz[..gz.len() / 2]);
        let err = read_path(t.path(), &opts).map(|_| ()).unwrap_err();
        assert!(format!("{err:#}").contains("truncated"), "{err:#}");
    }
}
