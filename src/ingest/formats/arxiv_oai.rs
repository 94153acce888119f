//! `arxiv-oai`: the arXiv metadata snapshot (Kaggle / OAI-PMH export), one
//! JSON object per line with keys `id`, `title`, `abstract`, `authors`,
//! `authors_parsed`, `versions`, `update_date`, `doi`, … (others ignored).
//!
//! - `id` must be a JSON string (the snapshot's `0704.0001` would lose its
//!   leading zero as a number) holding an arXiv id.
//! - `title` and `abstract` have their whitespace collapsed (the snapshot
//!   keeps the submitter's hard line breaks).
//! - `year` is the year of the first listed version's `created` date
//!   (`Mon, 2 Apr 2007 19:18:42 GMT`), else of `update_date`.
//! - `authors` come from `authors_parsed` (`[last, first, suffix]` →
//!   `first last suffix`), else from splitting the `authors` string on `,`
//!   and ` and `.
//! - `arxiv_version` is the highest `vN` in `versions`.
//! - `venue` is `journal-ref` (whitespace collapsed), when present.
//! - `ids` are the DOIs in `doi` (which may list several, separated by
//!   spaces, commas or semicolons). The field is free text typed by the
//!   submitter, so a token that is not a DOI is ignored rather than making
//!   the whole record invalid.

use serde_json::{Map, Value};

use super::s2::stop_after_file_error;
use super::{
    FieldError, InputFormat, Items, OpenInput, collapse_ws, field_err, json_lines, kind, object, opt_str, opt_text_at,
};
use crate::paper::PaperId;
use crate::paper::{Item, Record};

pub fn read(input: OpenInput) -> Items {
    stop_after_file_error(json_lines(input, InputFormat::ArxivOai, |value| Ok(vec![Item::Record(parse(value)?)])))
}

fn parse(value: Value) -> Result<Record, FieldError> {
    let obj = object(value)?;
    let raw_id = match obj.get("id") {
        None | Some(Value::Null) => return Err(field_err("id", "is required")),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => {
            return Err(field_err("id", format!("expected a string, got the number {n}: arXiv ids must be strings")));
        }
        Some(v) => return Err(field_err("id", format!("expected a string, got {}", kind(v)))),
    };
    let (source_id, id_version) =
        PaperId::parse_arxiv(&raw_id).ok_or_else(|| field_err("id", format!("not an arXiv id: {raw_id:?}")))?;

    let versions = versions(&obj)?;
    let arxiv_version = versions.iter().filter_map(|(v, _)| *v).chain(id_version).max();
    let year = match versions.first().and_then(|(_, created)| year_token(created)) {
        Some(y) => Some(y),
        None => update_year(&obj)?,
    };

    let mut ids: Vec<PaperId> = Vec::new();
    for token in opt_str(&obj, "doi")?.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        if let Some(id) = PaperId::parse_doi(token) {
            if id != source_id && !ids.contains(&id) {
                ids.push(id);
            }
        }
    }

    Ok(Record {
        source: "arxiv".into(),
        source_id,
        ids,
        title: collapse_ws(&opt_str(&obj, "title")?),
        abstract_: collapse_ws(&opt_str(&obj, "abstract")?),
        year,
        authors: authors(&obj)?,
        references: Vec::new(),
        citations: Vec::new(),
        arxiv_version,
        venue: opt_text_at(&obj, &["journal-ref"])?,
    })
}

/// `versions`: `[(version number, created)]` in the listed order.
fn versions(obj: &Map<String, Value>) -> Result<Vec<(Option<u32>, String)>, FieldError> {
    let items = match obj.get("versions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(v) => return Err(field_err("versions", format!("expected an array, got {}", kind(v)))),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Object(v) = item else {
            return Err(field_err("versions", format!("item {i}: expected an object, got {}", kind(item))));
        };
        let number = match v.get("version") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                let t = s.trim();
                let digits = t.strip_prefix('v').or_else(|| t.strip_prefix('V')).unwrap_or(t);
                Some(digits.parse::<u32>().map_err(|_| {
                    field_err("versions", format!("item {i}: `version` should look like \"v2\", got {s:?}"))
                })?)
            }
            Some(x) => {
                return Err(field_err("versions", format!("item {i}: `version`: expected a string, got {}", kind(x))));
            }
        };
        let created = match v.get("created") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(x) => {
                return Err(field_err("versions", format!("item {i}: `created`: expected a string, got {}", kind(x))));
            }
        };
        out.push((number, created));
    }
    Ok(out)
}

/// The first token of exactly four ASCII digits: the year of an RFC 2822
/// date (`Mon, 2 Apr 2007 19:18:42 GMT`).
fn year_token(date: &str) -> Option<i32> {
    date.split(|c: char| c.is_whitespace() || c == ',')
        .find(|t| t.len() == 4 && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse().ok())
}

/// The year of `update_date` (`2008-11-13`).
fn update_year(obj: &Map<String, Value>) -> Result<Option<i32>, FieldError> {
    let date = opt_str(obj, "update_date")?;
    let date = date.trim();
    if date.is_empty() {
        return Ok(None);
    }
    let head = date.split('-').next().unwrap_or("");
    if head.len() == 4 && head.bytes().all(|b| b.is_ascii_digit()) {
        Ok(head.parse().ok())
    } else {
        Err(field_err("update_date", format!("expected a date like \"2008-11-13\", got {date:?}")))
    }
}

/// Authors as "First Last", from `authors_parsed` or else `authors`.
fn authors(obj: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    let parsed = match obj.get("authors_parsed") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(items),
        Some(v) => return Err(field_err("authors_parsed", format!("expected an array, got {}", kind(v)))),
    };
    if let Some(items) = parsed.filter(|items| !items.is_empty()) {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let Value::Array(parts) = item else {
                return Err(field_err(
                    "authors_parsed",
                    format!("item {i}: expected an array [last, first, suffix], got {}", kind(item)),
                ));
            };
            let mut strs = Vec::with_capacity(parts.len());
            for p in parts {
                match p {
                    Value::String(s) => strs.push(collapse_ws(s)),
                    Value::Null => strs.push(String::new()),
                    other => {
                        return Err(field_err(
                            "authors_parsed",
                            format!("item {i}: expected strings, got {}", kind(other)),
                        ));
                    }
                }
            }
            let get = |k: usize| strs.get(k).map(String::as_str).unwrap_or("");
            let name: Vec<&str> = [get(1), get(0), get(2)].into_iter().filter(|s| !s.is_empty()).collect();
            if !name.is_empty() {
                out.push(name.join(" "));
            }
        }
        return Ok(out);
    }
    let joined = collapse_ws(&opt_str(obj, "authors")?);
    Ok(joined
        .split(',')
        .flat_map(|part| part.split(" and "))
        .map(str::trim)
        .map(|s| s.strip_prefix("and ").unwrap_or(s).trim())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::Path;

    use super::super::{Located, ReadError, open_input};
    use super::*;

    fn read_all(path: &Path) -> Vec<Result<Located, ReadError>> {
        read(open_input(path).unwrap()).collect()
    }

    fn read_text(text: &str) -> Vec<Result<Located, ReadError>> {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f.flush().unwrap();
        read_all(f.path())
    }

    fn record(r: Result<Located, ReadError>) -> Record {
        match r {
            Ok((Item::Record(rec), _)) => rec,
            other => panic!("expected a record, got {other:?}"),
        }
    }

    #[test]
    fn fixture_records() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest/arxiv_oai.jsonl"));
        let items = read_all(path);
        assert_eq!(items.len(), 3);
        assert_eq!(items[1].as_ref().unwrap().1, format!("{}:2", path.display()));
        let recs: Vec<Record> = items.into_iter().map(record).collect();
        assert_eq!(
            recs[0],
            Record {
                source: "arxiv".into(),
                source_id: PaperId::Arxiv("2101.00001".into()),
                ids: vec![PaperId::Doi("10.1234/shared.paper.2021".into())],
                title: "Sparse Mixtures of Retrieval Experts".into(),
                abstract_: super::super::SHARED_ABSTRACT.into(),
                year: Some(2021),
                authors: vec!["Ada Lovelace".into(), "Charles Babbage".into()],
                references: vec![],
                citations: vec![],
                arxiv_version: Some(2),
                venue: Some("J. Retr. 7 (2021) 1-12".into()),
            }
        );
        assert_eq!(recs[1].source_id, PaperId::Arxiv("0704.0001".into()));
        assert_eq!(
            recs[1].title,
            "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
        );
        assert_eq!(recs[1].year, Some(2007));
        assert_eq!(recs[1].authors, ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"]);
        assert_eq!(recs[1].ids, [PaperId::Doi("10.1103/physrevd.76.013009".into())]);
        // Old-style id, no versions (year from update_date), no
        // authors_parsed (split the string), two DOIs.
        assert_eq!(recs[2].source_id, PaperId::Arxiv("math/0611800".into()));
        assert_eq!(recs[2].year, Some(2006));
        assert_eq!(recs[2].arxiv_version, None);
        assert_eq!(recs[1].venue.as_deref(), Some("Phys.Rev.D76:013009,2007"));
        assert_eq!(recs[2].venue, None);
        assert_eq!(recs[2].authors, ["Grace Hopper", "Alan Turing", "Emmy Noether"]);
        assert_eq!(recs[2].ids, [PaperId::Doi("10.1000/xyz1".into()), PaperId::Doi("10.1000/xyz2".into())]);
    }

    #[test]
    fn year_falls_back_and_versions_take_the_highest() {
        let items = read_text(concat!(
            r#"{"id":"2101.00001","title":"T","versions":[{"version":"v1","created":"garbled"},{"version":"v10","created":"Fri, 1 Jan 2021 00:00:00 GMT"},{"version":"v3"}],"update_date":"2022-05-01"}"#,
            "\n",
            r#"{"id":"arXiv:2101.00001v4","title":"T","authors":"A. One and B. Two, C. Three,  and D. Four","doi":"10.48550/arXiv.2101.00001; not-a-doi"}"#,
        ));
        let recs: Vec<Record> = items.into_iter().map(record).collect();
        assert_eq!(recs[0].year, Some(2022));
        assert_eq!(recs[0].arxiv_version, Some(10));
        assert_eq!(recs[1].year, None);
        assert_eq!(recs[1].arxiv_version, Some(4));
        assert_eq!(recs[1].authors, ["A. One", "B. Two", "C. Three", "D. Four"]);
        // The arXiv DOI is the record's own id; the junk token is ignored.
        assert!(recs[1].ids.is_empty());
    }

    #[test]
    fn bad_records_name_the_field() {
        let cases = [
            (r#"{"id":704.0001,"title":"T"}"#, Some("id"), "arXiv ids must be strings"),
            (r#"{"title":"T"}"#, Some("id"), "is required"),
            (r#"{"id":"p001","title":"T"}"#, Some("id"), "not an arXiv id"),
            (r#"{"id":"2101.00001","title":["T"]}"#, Some("title"), "expected a string, got an array"),
            (r#"{"id":"2101.00001","abstract":3}"#, Some("abstract"), "expected a string"),
            (r#"{"id":"2101.00001","versions":"v1"}"#, Some("versions"), "expected an array"),
            (r#"{"id":"2101.00001","versions":[1]}"#, Some("versions"), "item 0: expected an object"),
            (r#"{"id":"2101.00001","versions":[{"version":"two"}]}"#, Some("versions"), "item 0: `version`"),
            (r#"{"id":"2101.00001","versions":[{"version":"v1","created":5}]}"#, Some("versions"), "`created`"),
            (r#"{"id":"2101.00001","update_date":"yesterday"}"#, Some("update_date"), "expected a date"),
            (r#"{"id":"2101.00001","authors_parsed":"Lovelace"}"#, Some("authors_parsed"), "expected an array"),
            (r#"{"id":"2101.00001","authors_parsed":[["A",1]]}"#, Some("authors_parsed"), "item 0"),
            (r#"{"id":"2101.00001","authors":["A"]}"#, Some("authors"), "expected a string"),
            (r#"{"id":"2101.00001","doi":10.1}"#, Some("doi"), "expected a string"),
        ];
        for (line, field, msg) in cases {
            let items = read_text(line);
            assert_eq!(items.len(), 1, "{line}");
            match &items[0] {
                Err(ReadError::Record(e)) => {
                    assert_eq!(e.field.as_deref(), field, "{line}");
                    assert!(e.message.contains(msg), "{line}: {}", e.message);
                    assert!(e.location.ends_with(":1"), "{}", e.location);
                }
                other => panic!("{line}: expected a record error, got {other:?}"),
            }
        }
    }

    #[test]
    fn odd_but_valid_shapes_do_not_panic() {
        let items = read_text(concat!(
            r#"{"id":"2101.00001","authors_parsed":[[],["Solo"],["Last","First","Jr.",""]],"versions":[{}]}"#,
            "\n",
            r#"{"id":"2101.00001","authors_parsed":[],"authors":"","title":null,"abstract":null}"#,
        ));
        let recs: Vec<Record> = items.into_iter().map(record).collect();
        assert_eq!(recs[0].authors, ["Solo", "First Last Jr."]);
        assert!(recs[1].authors.is_empty());
        assert_eq!(recs[1].title, "");
    }
}
