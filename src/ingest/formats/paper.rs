//! `paper`: the core Paper JSON Lines (`id`, `title`, `abstract`, `year`,
//! `authors`, `references`, `citations`, `venue`; `source` and unknown keys are
//! ignored). `id` and `title` are required (the title may be empty: CACM has
//! a paper with an abstract and no title); `abstract` defaults to "", `year`
//! to null, the lists to empty. Ids are kept verbatim unless they have a
//! recognised shape (an arXiv id, a DOI, …), in which case they are
//! normalised like any other.

use serde_json::Value;

use super::{
    FieldError, InputFormat, Items, OpenInput, json_lines, object, opt_str, opt_text_at, opt_year, req_str, req_text,
    str_list,
};
use crate::paper::{Item, PaperId, Record};

pub fn read(input: OpenInput) -> Items {
    json_lines(input, InputFormat::Paper, |value| Ok(vec![Item::Record(parse(value)?)]))
}

/// One Paper line as the `paper` source's record.
pub(crate) fn parse(value: Value) -> Result<Record, FieldError> {
    let obj = object(value)?;
    let id = req_str(&obj, "id")?;
    let ids = |field: &str| -> Result<Vec<PaperId>, FieldError> {
        Ok(str_list(&obj, field)?.iter().map(|s| PaperId::parse(s)).collect())
    };
    Ok(Record {
        source: "paper".into(),
        source_id: PaperId::parse(&id),
        ids: Vec::new(),
        arxiv_version: PaperId::parse_arxiv(&id).and_then(|(_, v)| v),
        title: req_text(&obj, "title")?,
        abstract_: opt_str(&obj, "abstract")?,
        year: opt_year(&obj, "year")?,
        authors: str_list(&obj, "authors")?,
        references: ids("references")?,
        citations: ids("citations")?,
        venue: opt_text_at(&obj, &["venue"])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(text: &str) -> Result<Record, FieldError> {
        let value: Value = serde_json::from_str(text).map_err(|e| (None, format!("malformed JSON: {e}")))?;
        parse(value)
    }

    #[test]
    fn minimal_record_gets_defaults() {
        let r = parse_line(r#"{"id": "x1", "title": "A title"}"#).unwrap();
        assert_eq!(r.source_id, PaperId::Own("x1".into()));
        assert_eq!(r.abstract_, "");
        assert_eq!(r.year, None);
        assert!(r.authors.is_empty() && r.references.is_empty() && r.citations.is_empty());
        // A title may be empty, but not missing.
        assert_eq!(parse_line(r#"{"id": "x2", "title": ""}"#).unwrap().title, "");
    }

    #[test]
    fn full_record_unknown_keys_and_recognised_ids() {
        let r = parse_line(
            r#"{"id":"arXiv:2101.00001v3","title":"T","abstract":"A.","year":2019,"authors":["X"],"references":["b","https://doi.org/10.1/ABC"],"citations":["c"],"source":"mine","month":12}"#,
        )
        .unwrap();
        assert_eq!(r.source_id, PaperId::Arxiv("2101.00001".into()));
        assert_eq!(r.arxiv_version, Some(3));
        assert_eq!(r.year, Some(2019));
        assert_eq!(r.references, [PaperId::Own("b".into()), PaperId::Doi("10.1/abc".into())]);
        assert_eq!(r.citations, [PaperId::Own("c".into())]);
        assert_eq!(r.source, "paper", "the line's own `source` is not a source litindex knows");
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
