//! The Semantic Scholar bulk datasets, JSON Lines each:
//!
//! - `s2-papers` (`papers` dataset): `corpusid` (an integer), `externalids`
//!   (`CorpusId` as a *string* here, `DOI`, `ArXiv`, `MAG`, …; values may be
//!   null), `url`, `title`, `authors` (`[{"authorId", "name"}]`), `year`,
//!   `venue`, … → a record of source `s2-papers` keyed by its CorpusId. The
//!   paper's sha, when `url` ends in one
//!   (`https://www.semanticscholar.org/paper/<sha>`), is kept as one more id
//!   so that the record meets the Graph API's.
//! - `s2-abstracts` (`abstracts` dataset): `corpusid`, `abstract`,
//!   `openaccessinfo` → a record of source `s2-abstracts` with only the
//!   abstract filled.
//! - `s2-citations` (`citations` dataset): `citingcorpusid`, `citedcorpusid`
//!   (strings of digits in the dataset; integers are accepted too) → a
//!   [`Link`]. A null `citedcorpusid` (the cited paper is not in the corpus)
//!   is skipped and counted in [`FormatOptions::skipped_nulls`].

use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use super::s2::{authors, corpus_id, external_ids, stop_after_file_error};
use super::{
    FieldError, FormatOptions, InputFormat, Items, OpenInput, collapse_ws, field_err, json_lines, object, opt_str,
    opt_text_at, opt_year,
};
use crate::paper::PaperId;
use crate::paper::{Item, Link, Record};

pub(crate) fn read_papers(input: OpenInput, _opts: &FormatOptions) -> Items {
    stop_after_file_error(json_lines(input, InputFormat::S2Papers, |value| Ok(vec![Item::Record(paper(value)?)])))
}

pub(crate) fn read_abstracts(input: OpenInput, _opts: &FormatOptions) -> Items {
    stop_after_file_error(json_lines(input, InputFormat::S2Abstracts, |value| {
        let obj = object(value)?;
        Ok(vec![Item::Record(Record {
            source: "s2-abstracts".into(),
            source_id: PaperId::CorpusId(req_corpus_id(&obj, "corpusid")?),
            abstract_: opt_str(&obj, "abstract")?.trim().to_string(),
            ..Record::default()
        })])
    }))
}

pub(crate) fn read_citations(input: OpenInput, opts: &FormatOptions) -> Items {
    let skipped = opts.skipped_nulls.clone();
    stop_after_file_error(json_lines(input, InputFormat::S2Citations, move |value| {
        let obj = object(value)?;
        let citing = req_corpus_id(&obj, "citingcorpusid")?;
        match corpus_id(obj.get("citedcorpusid"), "citedcorpusid")? {
            Some(cited) => {
                Ok(vec![Item::Link(Link { citing: PaperId::CorpusId(citing), cited: PaperId::CorpusId(cited) })])
            }
            None => {
                skipped.fetch_add(1, Ordering::Relaxed);
                Ok(Vec::new())
            }
        }
    }))
}

fn req_corpus_id(obj: &Map<String, Value>, field: &str) -> Result<u64, FieldError> {
    corpus_id(obj.get(field), field)?.ok_or_else(|| field_err(field, "is required"))
}

fn paper(value: Value) -> Result<Record, FieldError> {
    let obj = object(value)?;
    let source_id = PaperId::CorpusId(req_corpus_id(&obj, "corpusid")?);
    let mut ids = Vec::new();
    for id in external_ids(&obj, "externalids")? {
        if id != source_id && !ids.contains(&id) {
            ids.push(id);
        }
    }
    if let Some(sha) = sha_of_url(&opt_str(&obj, "url")?) {
        if !ids.contains(&sha) {
            ids.push(sha);
        }
    }
    Ok(Record {
        source: "s2-papers".into(),
        source_id,
        ids,
        title: collapse_ws(&opt_str(&obj, "title")?),
        year: opt_year(&obj, "year")?,
        authors: authors(&obj, "authors")?,
        venue: match opt_text_at(&obj, &["venue"])? {
            Some(v) => Some(v),
            None => opt_text_at(&obj, &["journal", "name"])?,
        },
        ..Record::default()
    })
}

/// The sha at the end of a Semantic Scholar paper URL, if any.
fn sha_of_url(url: &str) -> Option<PaperId> {
    let url = url.trim().trim_end_matches('/');
    if !url.contains("semanticscholar.org/") {
        return None;
    }
    PaperId::parse_s2(url.rsplit('/').next()?)
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::super::{Located, ReadError, open_input};
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest")).join(name)
    }

    type Reader = fn(OpenInput, &FormatOptions) -> Items;

    fn read_path(read: Reader, path: &Path, opts: &FormatOptions) -> Vec<Result<Located, ReadError>> {
        read(open_input(path).unwrap(), opts).collect()
    }

    fn read_text(read: Reader, text: &str) -> Vec<Result<Located, ReadError>> {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f.flush().unwrap();
        read_path(read, f.path(), &FormatOptions::default())
    }

    fn ok(items: Vec<Result<Located, ReadError>>) -> Vec<Located> {
        items.into_iter().map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    #[test]
    fn papers_fixture() {
        let path = fixture("s2_papers.jsonl");
        let items = ok(read_path(read_papers, &path, &FormatOptions::default()));
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].1, format!("{}:1", path.display()));
        assert_eq!(
            items[0].0,
            Item::Record(Record {
                source: "s2-papers".into(),
                source_id: PaperId::CorpusId(215416146),
                ids: vec![
                    PaperId::Arxiv("2101.00001".into()),
                    PaperId::Doi("10.1234/shared.paper.2021".into()),
                    PaperId::S2("0123456789abcdef0123456789abcdef01234567".into()),
                ],
                title: "Sparse Mixtures of Retrieval Experts".into(),
                year: Some(2021),
                authors: vec!["Ada Lovelace".into(), "Charles Babbage".into()],
                venue: Some("Journal of Retrieval".into()),
                ..Record::default()
            })
        );
        let Item::Record(r) = &items[1].0 else { panic!() };
        assert_eq!(r.source_id, PaperId::CorpusId(1111));
        assert_eq!(
            r.ids,
            [PaperId::Doi("10.1561/1500000019".into()), PaperId::S2("47ced790a563344efae66588b5fb7fe6cca29ed3".into())]
        );
        assert_eq!(r.title, "The Probabilistic Relevance Framework: BM25 and Beyond");
    }

    #[test]
    fn abstracts_fixture() {
        let items = ok(read_path(read_abstracts, &fixture("s2_abstracts.jsonl"), &FormatOptions::default()));
        let recs: Vec<Record> = items
            .into_iter()
            .map(|(i, _)| match i {
                Item::Record(r) => r,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            recs[0],
            Record {
                source: "s2-abstracts".into(),
                source_id: PaperId::CorpusId(215416146),
                abstract_: super::super::SHARED_ABSTRACT.into(),
                ..Record::default()
            }
        );
        assert_eq!(recs[1].source_id, PaperId::CorpusId(1111));
        assert_eq!(recs.len(), 2);
    }

    #[test]
    fn citations_fixture_skips_and_counts_null_cited() {
        let path = fixture("s2_citations.jsonl");
        let opts = FormatOptions::default();
        let items = ok(read_path(read_citations, &path, &opts));
        assert_eq!(
            items,
            vec![
                (
                    Item::Link(Link { citing: PaperId::CorpusId(215416146), cited: PaperId::CorpusId(1111) }),
                    format!("{}:1", path.display())
                ),
                (
                    Item::Link(Link { citing: PaperId::CorpusId(3333), cited: PaperId::CorpusId(215416146) }),
                    format!("{}:3", path.display())
                ),
            ]
        );
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn bad_lines_name_the_field() {
        let cases: [(Reader, &str, Option<&str>, &str); 10] = [
            (read_papers, r#"{"title":"T"}"#, Some("corpusid"), "is required"),
            (read_papers, r#"{"corpusid":"x1"}"#, Some("corpusid"), "expected a corpus id (digits)"),
            (read_papers, r#"{"corpusid":1,"externalids":{"CorpusId":1.5}}"#, Some("externalids.CorpusId"), "got 1.5"),
            (read_papers, r#"{"corpusid":1,"externalids":{"DOI":false}}"#, Some("externalids.DOI"), "a boolean"),
            (read_papers, r#"{"corpusid":1,"year":"c. 1990"}"#, Some("year"), "expected an integer year"),
            (read_papers, r#"{"corpusid":1,"authors":[1]}"#, Some("authors"), "item 0"),
            (read_abstracts, r#"{"corpusid":1,"abstract":["x"]}"#, Some("abstract"), "expected a string"),
            (read_citations, r#"{"citedcorpusid":"2"}"#, Some("citingcorpusid"), "is required"),
            (read_citations, r#"{"citingcorpusid":"1","citedcorpusid":{}}"#, Some("citedcorpusid"), "an object"),
            (read_citations, "[1]", None, "expected a JSON object"),
        ];
        for (read, line, field, msg) in cases {
            let items = read_text(read, &format!("\n\n{line}"));
            assert_eq!(items.len(), 1, "{line}");
            match &items[0] {
                Err(ReadError::Record(e)) => {
                    assert_eq!(e.field.as_deref(), field, "{line}");
                    assert!(e.message.contains(msg), "{line}: {}", e.message);
                    assert!(e.location.ends_with(":3"), "{}", e.location);
                }
                other => panic!("{line}: expected a record error, got {other:?}"),
            }
        }
    }

    #[test]
    fn gzip_copy_reads_identically() {
        let path = fixture("s2_citations.jsonl");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&std::fs::read(&path).unwrap()).unwrap();
        let gz = enc.finish().unwrap();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&gz).unwrap();
        f.flush().unwrap();
        let opts = FormatOptions::default();
        let a: Vec<Item> = ok(read_path(read_citations, f.path(), &opts)).into_iter().map(|x| x.0).collect();
        let b: Vec<Item> = ok(read_path(read_citations, &path, &opts)).into_iter().map(|x| x.0).collect();
        assert_eq!(a, b);
        assert_eq!(opts.skipped_nulls.load(Ordering::Relaxed), 2);
    }
}
