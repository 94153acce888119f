use std::io::Write;
use std::path::{Path, PathBuf};

use super::super::{Located, open_input};
use super::*;
use crate::paper::PaperId;
use crate::paper::{Link, Record};

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
                venue: None,
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
    let items =
        read_text(r#"{"data":[{"citedPaper":{"paperId":"zz","title":"T"}},{"citedPaper":5},{},7]}"#, &opts).unwrap();
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
    let strip = |items: Vec<Result<Located, ReadError>>| -> Vec<Item> { ok(items).into_iter().map(|x| x.0).collect() };
    let opts = FormatOptions::default();
    assert_eq!(strip(read_path(f.path(), &opts).unwrap()), strip(read_path(&path, &opts).unwrap()));

    let t = temp(&gz[..gz.len() / 2]);
    let err = read_path(t.path(), &opts).map(|_| ()).unwrap_err();
    assert!(format!("{err:#}").contains("truncated"), "{err:#}");
}

#[test]
fn venue_is_venue_else_journal_name() {
    let text = format!(
        "{{\"paperId\":\"{SHA}\",\"venue\":\"  ACL \",\"journal\":{{\"name\":\"J\"}}}}\n{{\"paperId\":\"{REF_SHA}\",\"venue\":\"\",\"journal\":{{\"name\":\"Found. Trends\"}}}}\n{{\"paperId\":\"{SHA}\",\"journal\":null}}\n{{\"paperId\":\"{SHA}\",\"journal\":{{\"name\":3}}}}\n"
    );
    let items = read_text(&text, &FormatOptions::default()).unwrap();
    let venue = |i: usize| match &items[i] {
        Ok((Item::Record(r), _)) => r.venue.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(venue(0).as_deref(), Some("ACL"));
    assert_eq!(venue(1).as_deref(), Some("Found. Trends"));
    assert_eq!(venue(2), None);
    match &items[3] {
        Err(ReadError::Record(e)) => assert_eq!(e.field.as_deref(), Some("journal.name")),
        other => panic!("{other:?}"),
    }
}
