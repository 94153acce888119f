//! `openalex`: OpenAlex Works.
//!
//! Either a whole JSON document — one work (`/works/W…`) or a list page
//! `{"meta": …, "results": [works]}` — or JSON Lines of works (the snapshot),
//! chosen as for `s2`: a first line holding a whole object, followed by more
//! lines, means JSON Lines.
//!
//! Per work: `id` (required; `https://openalex.org/W…`), `doi` and `ids.doi`
//! (DOI URLs, may be null; other `ids` are ignored), `display_name` (else
//! `title`), `publication_year`, `authorships[].author.display_name` in order,
//! `referenced_works` (OpenAlex ids), and the abstract rebuilt from
//! `abstract_inverted_index` (`{word: [positions]}`): the words sorted by
//! position and joined by single spaces, with no placeholder for missing
//! positions.
//!
//! Items are located `file:line` (JSON Lines), `file` (one work) or
//! `file: results[3]` (a list).

use serde_json::{Map, Value};

use super::s2::{split_json_lines, stop_after_file_error};
use super::{
    FieldError, InputFormat, Items, Located, OpenInput, ReadError, collapse_ws, field_err, json_document, json_lines,
    kind, object, opt_str, opt_text_at, opt_year, push_name, record_error, req_str,
};
use crate::paper::PaperId;
use crate::paper::{Item, Record};

pub fn read(input: OpenInput) -> anyhow::Result<Items> {
    let (input, lines) = split_json_lines(input)?;
    if lines {
        let items = json_lines(input, InputFormat::OpenAlex, |value| Ok(vec![Item::Record(work(&object(value)?)?)]));
        return Ok(stop_after_file_error(items));
    }
    let path = input.path.display().to_string();
    let doc = json_document(input, InputFormat::OpenAlex)?;
    let mut out: Vec<Result<Located, ReadError>> = Vec::new();
    let (prefix, works) = match doc {
        Value::Object(obj) if obj.contains_key("id") => {
            out.push(work(&obj).map(|r| (Item::Record(r), path.clone())).map_err(|(f, m)| record_error(&path, f, m)));
            return Ok(Box::new(out.into_iter()));
        }
        Value::Object(mut obj) => match obj.remove("results") {
            Some(Value::Array(works)) => ("results", works),
            Some(other) => anyhow::bail!("{path}: `results` should be an array of works, got {}", kind(&other)),
            None => match obj.get("error").or_else(|| obj.get("message")).and_then(Value::as_str) {
                Some(m) => anyhow::bail!("{path}: OpenAlex returned an error: {m}"),
                None => {
                    anyhow::bail!("{path} is neither an OpenAlex work (no `id`) nor a list of works (no `results`)")
                }
            },
        },
        Value::Array(works) => ("", works),
        other => anyhow::bail!("{path}: expected an OpenAlex work or list of works, got {}", kind(&other)),
    };
    for (i, value) in works.into_iter().enumerate() {
        let loc = format!("{path}: {prefix}[{i}]");
        let result = object(value).and_then(|obj| work(&obj));
        out.push(result.map(|r| (Item::Record(r), loc.clone())).map_err(|(f, m)| record_error(&loc, f, m)));
    }
    Ok(Box::new(out.into_iter()))
}

fn work(obj: &Map<String, Value>) -> Result<Record, FieldError> {
    let raw_id = req_str(obj, "id")?;
    let source_id = PaperId::parse_openalex(&raw_id).ok_or_else(|| {
        field_err("id", format!("expected an OpenAlex work id (https://openalex.org/W…), got {raw_id:?}"))
    })?;

    let mut ids = Vec::new();
    let doi_ids = match obj.get("ids") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(v) => return Err(field_err("ids", format!("expected an object, got {}", kind(v)))),
    };
    for (map, field, name) in [(Some(obj), "doi", "doi"), (doi_ids, "doi", "ids.doi")] {
        let Some(map) = map else { continue };
        match map.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.trim().is_empty() => {}
            Some(Value::String(s)) => {
                let id = PaperId::parse_doi(s).ok_or_else(|| field_err(name, format!("not a DOI: {s:?}")))?;
                if id != source_id && !ids.contains(&id) {
                    ids.push(id);
                }
            }
            Some(v) => return Err(field_err(name, format!("expected a string, got {}", kind(v)))),
        }
    }

    let title = match obj.get("display_name") {
        Some(Value::String(s)) if !s.trim().is_empty() => collapse_ws(s),
        None | Some(Value::Null) | Some(Value::String(_)) => collapse_ws(&opt_str(obj, "title")?),
        Some(v) => return Err(field_err("display_name", format!("expected a string, got {}", kind(v)))),
    };

    Ok(Record {
        source: "openalex".into(),
        ids,
        title,
        abstract_: rebuild_abstract(obj)?,
        year: opt_year(obj, "publication_year")?,
        authors: authorships(obj)?,
        references: referenced_works(obj)?,
        citations: Vec::new(),
        arxiv_version: None,
        venue: opt_text_at(obj, &["primary_location", "source", "display_name"])?,
        source_id,
    })
}

/// `authorships[].author.display_name`, in order; missing names are dropped.
fn authorships(obj: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    const F: &str = "authorships";
    let items = match obj.get(F) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err(F, format!("expected an array, got {}", kind(v)))),
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Value::Object(a) = item else {
            return Err(field_err(F, format!("item {i}: expected an object, got {}", kind(item))));
        };
        let author = match a.get("author") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(author)) => author,
            Some(v) => return Err(field_err(F, format!("item {i}: `author`: expected an object, got {}", kind(v)))),
        };
        push_name(&mut out, author.get("display_name"), F, &format!("item {i}: `author.display_name`"))?;
    }
    Ok(out)
}

/// `referenced_works` as OpenAlex ids.
fn referenced_works(obj: &Map<String, Value>) -> Result<Vec<PaperId>, FieldError> {
    const F: &str = "referenced_works";
    let items = match obj.get(F) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err(F, format!("expected an array of work ids, got {}", kind(v)))),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::String(s) = item else {
            return Err(field_err(F, format!("item {i}: expected a string, got {}", kind(item))));
        };
        let id = PaperId::parse_openalex(s)
            .ok_or_else(|| field_err(F, format!("item {i}: not an OpenAlex work id: {s:?}")))?;
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

/// The abstract from `abstract_inverted_index`: words ordered by position,
/// joined with single spaces ("" when null or absent).
fn rebuild_abstract(obj: &Map<String, Value>) -> Result<String, FieldError> {
    const F: &str = "abstract_inverted_index";
    let index = match obj.get(F) {
        None | Some(Value::Null) => return Ok(String::new()),
        Some(Value::Object(m)) => m,
        Some(v) => return Err(field_err(F, format!("expected an object {{word: [positions]}}, got {}", kind(v)))),
    };
    let mut placed: Vec<(u64, &str)> = Vec::new();
    for (word, positions) in index {
        let Value::Array(positions) = positions else {
            return Err(field_err(F, format!("{word:?}: expected an array of positions, got {}", kind(positions))));
        };
        for p in positions {
            let pos = p
                .as_u64()
                .ok_or_else(|| field_err(F, format!("{word:?}: expected a position (an integer ≥ 0), got {p}")))?;
            placed.push((pos, word.as_str()));
        }
    }
    placed.sort();
    let words: Vec<&str> = placed.iter().map(|(_, w)| w.trim()).filter(|w| !w.is_empty()).collect();
    Ok(words.join(" "))
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::super::open_input;
    use super::*;

    const SPARSE_ABSTRACT: &str = "We route each query to a sparse mixture of retrieval experts. Each expert is a \
                                   lexical or dense retriever, and a learned gate selects two experts per query. On \
                                   five benchmarks the mixture matches a dense retriever ten times its size.";

    fn fixture(name: &str) -> PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest")).join(name)
    }

    fn read_path(path: &Path) -> anyhow::Result<Vec<Result<Located, ReadError>>> {
        Ok(read(open_input(path)?)?.collect())
    }

    fn temp(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        f
    }

    fn ok(items: Vec<Result<Located, ReadError>>) -> Vec<Located> {
        items.into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    #[test]
    fn venue_is_the_primary_location_source() {
        let work_of = |v: serde_json::Value| work(v.as_object().unwrap());
        let w = |loc: serde_json::Value| serde_json::json!({"id": "https://openalex.org/W1", "display_name": "T", "primary_location": loc});
        let venue = work_of(w(serde_json::json!({"source": {"display_name": "Nature"}}))).unwrap().venue;
        assert_eq!(venue.as_deref(), Some("Nature"));
        assert_eq!(work_of(w(serde_json::json!({"source": null}))).unwrap().venue, None);
        assert_eq!(work_of(w(serde_json::Value::Null)).unwrap().venue, None);
        let (field, _) = work_of(w(serde_json::json!({"source": "Nature"}))).unwrap_err();
        assert_eq!(field.as_deref(), Some("primary_location.source"));
    }

    fn shared(title: &str) -> Record {
        Record {
            source: "openalex".into(),
            source_id: PaperId::OpenAlex("W3000000001".into()),
            ids: vec![PaperId::Doi("10.1234/shared.paper.2021".into())],
            title: title.into(),
            abstract_: SPARSE_ABSTRACT.into(),
            year: Some(2021),
            authors: vec!["Ada Lovelace".into(), "Charles Babbage".into()],
            references: vec![PaperId::OpenAlex("W2000000002".into()), PaperId::OpenAlex("W2000000003".into())],
            citations: vec![],
            arxiv_version: None,
            venue: None,
        }
    }

    fn other() -> Record {
        Record {
            source: "openalex".into(),
            source_id: PaperId::OpenAlex("W2000000002".into()),
            title: "Relevance weighting of search terms".into(),
            year: Some(1976),
            authors: vec!["Stephen E. Robertson".into(), "Karen Spärck Jones".into()],
            ..Record::default()
        }
    }

    #[test]
    fn single_work() {
        let path = fixture("openalex_work.json");
        let items = ok(read_path(&path).unwrap());
        assert_eq!(
            items,
            vec![(Item::Record(shared("Sparse Mixtures of Retrieval Experts")), path.display().to_string())]
        );
    }

    #[test]
    fn list_page() {
        let path = fixture("openalex_list.json");
        let items = ok(read_path(&path).unwrap());
        assert_eq!(
            items,
            vec![
                (
                    Item::Record(shared("Sparse Mixtures of Retrieval Experts")),
                    format!("{}: results[0]", path.display())
                ),
                (Item::Record(other()), format!("{}: results[1]", path.display())),
            ]
        );
    }

    #[test]
    fn snapshot_lines() {
        let path = fixture("openalex_works.jsonl");
        let items = ok(read_path(&path).unwrap());
        assert_eq!(
            items,
            vec![
                (Item::Record(shared("Sparse mixtures of retrieval experts")), format!("{}:1", path.display())),
                (Item::Record(other()), format!("{}:2", path.display())),
            ]
        );
    }

    #[test]
    fn abstract_is_rebuilt_in_position_order() {
        let obj =
            object(serde_json::json!({"abstract_inverted_index": {"c": [7], "a": [0, 5], "b": [2], "": [3]}})).unwrap();
        assert_eq!(rebuild_abstract(&obj).unwrap(), "a b a c");
        let obj = object(serde_json::json!({"abstract_inverted_index": {}})).unwrap();
        assert_eq!(rebuild_abstract(&obj).unwrap(), "");
    }

    #[test]
    fn bad_works_name_the_field() {
        let cases = [
            (r#"{"id":null}"#, "id", "is required"),
            (r#"{"id":"https://openalex.org/A123"}"#, "id", "expected an OpenAlex work id"),
            (r#"{"id":"W1","doi":"https://doi.org/"}"#, "doi", "not a DOI"),
            (r#"{"id":"W1","doi":7}"#, "doi", "expected a string"),
            (r#"{"id":"W1","ids":{"doi":"x"}}"#, "ids.doi", "not a DOI"),
            (r#"{"id":"W1","ids":[]}"#, "ids", "expected an object"),
            (r#"{"id":"W1","display_name":["T"]}"#, "display_name", "expected a string"),
            (r#"{"id":"W1","title":1}"#, "title", "expected a string"),
            (r#"{"id":"W1","publication_year":"MMXXI"}"#, "publication_year", "expected an integer year"),
            (r#"{"id":"W1","authorships":{}}"#, "authorships", "expected an array"),
            (r#"{"id":"W1","authorships":[{"author":{"display_name":5}}]}"#, "authorships", "item 0"),
            (r#"{"id":"W1","referenced_works":["W2","nope"]}"#, "referenced_works", "item 1"),
            (r#"{"id":"W1","abstract_inverted_index":[]}"#, "abstract_inverted_index", "expected an object"),
            (r#"{"id":"W1","abstract_inverted_index":{"a":[-1]}}"#, "abstract_inverted_index", "position"),
            (r#"{"id":"W1","abstract_inverted_index":{"a":3}}"#, "abstract_inverted_index", "array of positions"),
        ];
        for (work, field, msg) in cases {
            let f = temp(format!("{{\"results\":[{work}]}}").as_bytes());
            let items = read_path(f.path()).unwrap();
            assert_eq!(items.len(), 1, "{work}");
            match &items[0] {
                Err(ReadError::Record(e)) => {
                    assert_eq!(e.field.as_deref(), Some(field), "{work}");
                    assert!(e.message.contains(msg), "{work}: {}", e.message);
                    assert!(e.location.ends_with(": results[0]"), "{}", e.location);
                }
                other => panic!("{work}: expected a record error, got {other:?}"),
            }
            // The same work as a JSON Lines snapshot (two lines) is located by line.
            let f = temp(format!("{{\"id\":\"W5\"}}\n{work}\n").as_bytes());
            let items = read_path(f.path()).unwrap();
            match &items[1] {
                Err(ReadError::Record(e)) => assert!(e.location.ends_with(":2"), "{}", e.location),
                other => panic!("{work}: expected a record error, got {other:?}"),
            }
        }
    }

    #[test]
    fn wrong_documents_are_errors_of_the_file() {
        for (doc, msg) in [
            (r#"{"display_name":"no id"}"#, "neither an OpenAlex work (no `id`)"),
            (r#"{"error":"Invalid query parameters error.","message":"bad filter"}"#, "OpenAlex returned an error"),
            (r#"{"meta":{},"results":{}}"#, "`results` should be an array"),
            ("42", "expected an OpenAlex work"),
            ("{\n\"id\": ", "not valid openalex JSON"),
        ] {
            let f = temp(doc.as_bytes());
            let err = read_path(f.path()).map(|_| ()).unwrap_err();
            assert!(format!("{err:#}").contains(msg), "{doc}: {err:#}");
        }
    }

    #[test]
    fn gzip_copy_reads_identically_and_truncated_gzip_is_a_file_error() {
        for name in ["openalex_work.json", "openalex_works.jsonl"] {
            let path = fixture(name);
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(&std::fs::read(&path).unwrap()).unwrap();
            let gz = enc.finish().unwrap();
            let f = temp(&gz);
            let a: Vec<Item> = ok(read_path(f.path()).unwrap()).into_iter().map(|x| x.0).collect();
            let b: Vec<Item> = ok(read_path(&path).unwrap()).into_iter().map(|x| x.0).collect();
            assert_eq!(a, b, "{name}");

            let t = temp(&gz[..gz.len() * 2 / 3]);
            let failed = match read_path(t.path()) {
                Err(e) => format!("{e:#}").contains("truncated"),
                Ok(items) => items.iter().any(|r| matches!(r, Err(ReadError::File(_)))),
            };
            assert!(failed, "{name}");
        }
    }
}
