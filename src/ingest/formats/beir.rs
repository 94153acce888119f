//! `beir`: a BEIR `corpus.jsonl`, one `{"_id", "title", "text", "metadata"}`
//! object per line.
//!
//! The `_id` is kept verbatim (trimmed) as a [`PaperId::Own`], even when it
//! looks like an arXiv id or a DOI: BEIR qrels name documents by exactly that
//! string. An integer `_id` is accepted and written in decimal. `title` may
//! be empty (it often is in real BEIR corpora); `text` becomes the abstract.
//! `metadata` is ignored.

use serde_json::{Map, Value};

use super::s2::stop_after_file_error;
use super::{FieldError, InputFormat, Items, OpenInput, collapse_ws, field_err, json_lines, kind, object, opt_str};
use crate::paper::PaperId;
use crate::paper::{Item, Record};

pub fn read(input: OpenInput) -> Items {
    stop_after_file_error(json_lines(input, InputFormat::Beir, |value| Ok(vec![Item::Record(parse(value)?)])))
}

fn parse(value: Value) -> Result<Record, FieldError> {
    let obj = object(value)?;
    let id = beir_id(&obj)?;
    Ok(Record {
        source: "beir".into(),
        source_id: PaperId::Own(id),
        title: collapse_ws(&opt_str(&obj, "title")?),
        abstract_: opt_str(&obj, "text")?.trim().to_string(),
        ..Record::default()
    })
}

/// `_id`: a non-empty string (trimmed, otherwise verbatim) or an integer.
fn beir_id(obj: &Map<String, Value>) -> Result<String, FieldError> {
    match obj.get("_id") {
        None | Some(Value::Null) => Err(field_err("_id", "is required")),
        Some(Value::String(s)) if s.trim().is_empty() => Err(field_err("_id", "must not be empty")),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Ok(n.to_string()),
        Some(Value::Number(n)) => Err(field_err("_id", format!("expected a string or an integer, got {n}"))),
        Some(v) => Err(field_err("_id", format!("expected a string or an integer, got {}", kind(v)))),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::Path;

    use super::super::{Located, ReadError, open_input};
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest")).join(name)
    }

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

    fn record_error(r: &Result<Located, ReadError>) -> &crate::paper::RecordError {
        match r {
            Err(ReadError::Record(e)) => e,
            other => panic!("expected a record error, got {other:?}"),
        }
    }

    #[test]
    fn fixture_records_keep_ids_verbatim() {
        let path = fixture("beir_corpus.jsonl");
        let items = read_all(&path);
        assert_eq!(items.len(), 3);
        let locs: Vec<String> = items.iter().map(|r| r.as_ref().unwrap().1.clone()).collect();
        assert_eq!(locs, (1..=3).map(|i| format!("{}:{i}", path.display())).collect::<Vec<_>>());
        let recs: Vec<Record> = items.into_iter().map(record).collect();
        assert_eq!(
            recs[0],
            Record {
                source: "beir".into(),
                source_id: PaperId::Own("smre-2021".into()),
                title: "Sparse Mixtures of Retrieval Experts".into(),
                abstract_: super::super::SHARED_ABSTRACT.into(),
                ..Record::default()
            }
        );
        assert_eq!(recs[1].source_id, PaperId::Own("4983".into()));
        assert_eq!(recs[1].title, "");
        assert!(recs[1].abstract_.starts_with("Alterations of the architecture"));
        // Looks like a versioned arXiv id; stays exactly as written (trimmed).
        assert_eq!(recs[2].source_id, PaperId::Own("1801.00002v3".into()));
        assert_eq!(recs[2].arxiv_version, None);
        assert!(recs[2].ids.is_empty());
    }

    #[test]
    fn bad_records_name_the_field() {
        let cases = [
            (r#"{"title":"T","text":"x"}"#, Some("_id"), "is required"),
            (r#"{"_id":"  ","title":"T","text":"x"}"#, Some("_id"), "must not be empty"),
            (r#"{"_id":1.5,"title":"T","text":"x"}"#, Some("_id"), "expected a string or an integer"),
            (r#"{"_id":["a"],"title":"T","text":"x"}"#, Some("_id"), "got an array"),
            (r#"{"_id":"a","title":7,"text":"x"}"#, Some("title"), "expected a string, got a number"),
            (r#"{"_id":"a","title":"T","text":{"p":1}}"#, Some("text"), "expected a string, got an object"),
            (r#"["a"]"#, None, "expected a JSON object"),
            (r#"{"_id":"a""#, None, "malformed JSON (beir)"),
        ];
        for (line, field, msg) in cases {
            let items = read_text(&format!("\n{line}\n"));
            assert_eq!(items.len(), 1, "{line}");
            let e = record_error(&items[0]);
            assert_eq!(e.field.as_deref(), field, "{line}");
            assert!(e.message.contains(msg), "{line}: {}", e.message);
            assert!(e.location.ends_with(":2"), "{line}: {}", e.location);
        }
    }

    #[test]
    fn gzip_copy_reads_identically_and_truncated_gzip_is_a_file_error() {
        let path = fixture("beir_corpus.jsonl");
        let plain = std::fs::read(&path).unwrap();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain).unwrap();
        let gz = enc.finish().unwrap();

        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&gz).unwrap();
        f.flush().unwrap();
        let strip =
            |items: Vec<Result<Located, ReadError>>| -> Vec<Item> { items.into_iter().map(|r| r.unwrap().0).collect() };
        assert_eq!(strip(read_all(f.path())), strip(read_all(&path)));

        let mut t = tempfile::NamedTempFile::new().unwrap();
        t.write_all(&gz[..gz.len() / 2]).unwrap();
        t.flush().unwrap();
        // The file error comes last: reading stops there.
        let items: Vec<_> = read(open_input(t.path()).unwrap()).take(100).collect();
        match items.last() {
            Some(Err(ReadError::File(e))) => assert!(format!("{e:#}").contains("truncated"), "{e:#}"),
            other => panic!("expected a file error last, got {other:?}"),
        }
        assert_eq!(items.iter().filter(|r| matches!(r, Err(ReadError::File(_)))).count(), 1);
    }
}
