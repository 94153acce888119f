//! Unit tests of `references.rs` and `citing.rs`: Documents built in code,
//! written into a small index through the real ingest engine, read back
//! through the store, with `check` run after each write.

use rusqlite::Connection;

use super::references::{dangling_id, write_document_links};
use super::{Handle, PaperDoc, Store, create_index, write_to};
use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::fulltext::{CitationContext, Document, Paragraph, ParsedRef, Reference, Section};
use crate::ingest::engine::Ingester;
use crate::paper::{PaperId, Record};

fn record(source: &str, id: &str, ids: &[&str], title: &str, year: i32, author: &str, refs: &[&str]) -> Record {
    Record {
        source: source.into(),
        source_id: PaperId::parse(id),
        ids: ids.iter().map(|i| PaperId::parse(i)).collect(),
        title: title.into(),
        abstract_: format!("{title} and more words"),
        year: Some(year),
        authors: vec![author.into()],
        references: refs.iter().map(|r| PaperId::parse(r)).collect(),
        citations: Vec::new(),
        arxiv_version: None,
        venue: None,
    }
}

fn entry(label: &str, raw: &str, parsed: ParsedRef) -> Reference {
    Reference { label: Some(label.into()), raw: raw.into(), page: 9, parsed }
}

fn titled(title: &str, year: Option<i32>, author: &str) -> ParsedRef {
    ParsedRef {
        title: Some(title.into()),
        year,
        authors: if author.is_empty() { vec![] } else { vec![author.into()] },
        ..ParsedRef::default()
    }
}

const GRAPH_WALKS: &str = "Graph walks for literature search";
const UNKNOWN: &str = "An unknown paper about many things";

/// The reference list of "mine": every kind of entry.
fn references() -> Vec<Reference> {
    vec![
        entry(
            "1",
            "A. Lovelace. Sparse attention. doi:10.1/aaa",
            ParsedRef { doi: Some("10.1/aaa".into()), ..titled("Sparse attention", Some(2019), "A. Lovelace") },
        ),
        entry(
            "2",
            "A. Turing. Dense retrieval. arXiv:2101.00001",
            ParsedRef { arxiv: Some("2101.00001".into()), ..ParsedRef::default() },
        ),
        entry(
            "3",
            "G. Hopper. Graph Walks for Literature Search. 2020.",
            titled("Graph Walks for Literature Search.", Some(2020), "G. Hopper"),
        ),
        entry("4", "X. Other. Graph walks for literature search. 2005.", titled(GRAPH_WALKS, Some(2005), "X. Other")),
        entry("5", "B. Nobody. An unknown paper about many things. 2018.", titled(UNKNOWN, Some(2018), "B. Nobody")),
        entry(
            "6",
            "C. Far. Elsewhere. doi:10.9/zzz",
            ParsedRef { doi: Some("10.9/zzz".into()), ..ParsedRef::default() },
        ),
        entry("7", "ibid.", ParsedRef::default()),
    ]
}

fn paragraph(text: &str) -> Paragraph {
    Paragraph { text: text.into(), page_starts: vec![(0, 3)], raised: vec![] }
}

fn document(references: Vec<Reference>) -> Document {
    let text = "Attention is sparse [1, 3]. Nobody knows why [5]. An uncited sentence.";
    let context = |start: usize, end: usize, refs: Vec<usize>, marker: &str| CitationContext {
        section: 0,
        paragraph: 0,
        start,
        end,
        page: 3,
        markers: vec![marker.into()],
        references: refs,
    };
    Document {
        pages: 10,
        title: Some("My full text paper with references".into()),
        sections: vec![Section { heading: "1 Introduction".into(), level: 1, paragraphs: vec![paragraph(text)] }],
        contexts: vec![
            context(0, 27, vec![0, 2], "[1, 3]"),
            context(28, 49, vec![4, 99], "[5]"),
            // Indexes that name no sentence (a finder's bug): skipped, never an error.
            CitationContext { section: 5, ..context(0, 3, vec![0], "[1]") },
            CitationContext { end: 10_000, ..context(0, 3, vec![0], "[1]") },
        ],
        references,
        ..Document::default()
    }
}

fn put_document(conn: &Connection, document: i64, source_id: &str) {
    conn.execute(
        "INSERT OR IGNORE INTO documents (document, path, hash, source_id, pages, ingested_at)
         VALUES (?1, '/tmp/' || ?1 || '.pdf', 'h', ?2, 10, '2026-12-01T00:00:00Z')",
        rusqlite::params![document, source_id],
    )
    .unwrap();
}

fn mine() -> PaperDoc {
    PaperDoc { document: 1, paper_id: "mine".into(), source_id: "pdf-1".into() }
}

fn links(h: Handle<'_>, doc: &Document) -> super::LinkCounts {
    put_document(h.conn, 1, "pdf-1");
    write_document_links(h, &mine(), doc).unwrap()
}

/// The index: four papers, and "mine", a paper record plus the PDF's record (sharing the id "mine").
fn small_index(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("r.db");
    create_index(&path, Analyzer::Plain, Bm25::default(), |h| {
        let mut ing = Ingester::new(h)?;
        ing.add_record(
            record(
                "paper",
                "p-a",
                &["doi:10.1/aaa"],
                "Sparse attention over long documents",
                2019,
                "Ada Lovelace",
                &[],
            ),
            "paper",
            "t:1",
        )?;
        ing.add_record(
            record(
                "paper",
                "p-b",
                &["arXiv:2101.00001"],
                "Dense retrieval of passages at scale",
                2021,
                "Alan Turing",
                &[],
            ),
            "paper",
            "t:2",
        )?;
        ing.add_record(record("paper", "p-c", &[], GRAPH_WALKS, 2020, "Grace Hopper", &[]), "paper", "t:3")?;
        ing.add_record(
            record("paper", "mine", &[], "My full text paper with references", 2024, "Me Myself", &["p-b"]),
            "paper",
            "t:4",
        )?;
        ing.add_record(
            record("pdf", "pdf-1", &["mine"], "My full text paper with references", 2024, "Me Myself", &[]),
            "pdf",
            "x.pdf",
        )?;
        ing.finish()?;
        Ok(())
    })
    .unwrap();
    path
}

fn edges_from(store: &Store, id: &str) -> Vec<String> {
    store.linked(id, crate::graph::Direction::References).unwrap()
}

fn assert_checks(path: &std::path::Path) {
    let store = Store::open(path).unwrap();
    let report = store.check();
    assert!(report.ok, "{:#?}", report.violated().collect::<Vec<_>>());
}

#[test]
fn entries_match_by_doi_arxiv_and_title_and_the_rest_dangle() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_index(dir.path());
    let counts = write_to(&path, &|_| {}, |h| Ok(links(h, &document(references())))).unwrap();
    assert_eq!((counts.entries, counts.by_doi, counts.by_arxiv, counts.by_title), (7, 1, 1, 1));
    assert_eq!((counts.dangling, counts.raw_only, counts.near_misses), (3, 1, 1));
    assert_eq!((counts.contexts, counts.cited_pairs), (2, 3), "two sentences; the 99th entry does not exist");
    assert_checks(&path);

    let store = Store::open(&path).unwrap();
    let unknown = dangling_id(&titled(UNKNOWN, None, "")).unwrap();
    let near = dangling_id(&titled(GRAPH_WALKS, None, "")).unwrap();
    // Papers by their canonical ids (a DOI or arXiv id is stronger than an own id).
    let mut expected = vec![
        "10.9/zzz".to_string(),
        unknown.clone(),
        near.clone(),
        "10.1/aaa".into(),
        "2101.00001".into(),
        "p-c".into(),
    ];
    expected.sort();
    assert_eq!(edges_from(&store, "mine"), expected, "the PDF's links and the paper record's p-b, once");

    // Evidence: the title match says what agreed; the near miss why it was refused.
    let by_title = store.entries_naming("p-c", None).unwrap();
    assert_eq!(by_title.len(), 1);
    assert_eq!(by_title[0].citing, "mine");
    assert_eq!(by_title[0].entry.matched_by.as_deref(), Some("title"));
    assert_eq!(
        by_title[0].entry.evidence.as_deref(),
        Some("title \"graph walks for literature search\", years 2020/2020, first authors hopper/hopper")
    );
    let near_miss = store.entries_naming(&near, None).unwrap();
    assert_eq!(near_miss[0].entry.matched_by, None);
    let why = near_miss[0].entry.evidence.as_deref().unwrap();
    assert!(
        why.starts_with("near miss: title \"graph walks for literature search\" matches p-c but years 2005/2020"),
        "{why}"
    );

    // The sentences, with their page and section; by any alias of the cited paper.
    let a = store.entries_naming("10.1/aaa", None).unwrap();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].sentences.len(), 1);
    assert_eq!(a[0].sentences[0].sentence, "Attention is sparse [1, 3].");
    assert_eq!((a[0].sentences[0].page, a[0].sentences[0].section.as_str()), (3, "1 Introduction"));
    assert!(store.entries_naming("2101.00001", None).unwrap()[0].sentences.is_empty(), "cited, with no sentence");

    // gaps' titles for the dangling ids.
    let titles = store.reference_titles(&[unknown.clone(), "10.9/zzz".into()]).unwrap();
    assert_eq!(titles.get(&unknown), Some(&(UNKNOWN.to_string(), Some(2018))));
    assert_eq!(titles.get("10.9/zzz"), None, "no title was parsed for it");
    assert_eq!(store.documents_of("mine").unwrap(), vec![1]);
    assert_eq!(store.reference_entries(1).unwrap(), 7);
}

#[test]
fn a_changed_pdf_replaces_its_entries_contexts_and_links_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_index(dir.path());
    write_to(&path, &|_| {}, |h| Ok(links(h, &document(references())))).unwrap();
    // The new version drops the DOI and arXiv entries (p-a, p-b) and the dangling DOI.
    let mut changed = references();
    changed.remove(5);
    changed.remove(1);
    changed.remove(0);
    let counts = write_to(&path, &|_| {}, |h| Ok(links(h, &document(changed)))).unwrap();
    assert_eq!((counts.entries, counts.by_title, counts.dangling), (4, 1, 2));
    assert_checks(&path);
    let store = Store::open(&path).unwrap();
    let refs = edges_from(&store, "mine");
    assert!(!refs.contains(&"10.1/aaa".to_string()) && !refs.contains(&"10.9/zzz".to_string()), "{refs:?}");
    assert!(refs.contains(&"2101.00001".to_string()), "the paper record's own link to p-b stays: {refs:?}");
    assert!(refs.contains(&"p-c".to_string()), "{refs:?}");
    assert!(store.entries_naming("10.1/aaa", None).unwrap().is_empty());
    assert_eq!(store.reference_entries(1).unwrap(), 4);
    // The contexts were renumbered with the entries: [1, 3] is now entry 0 (p-c) and 1.
    let c = store.entries_naming("p-c", None).unwrap();
    assert_eq!(c[0].sentences[0].sentence, "Attention is sparse [1, 3].");
}

#[test]
fn an_entry_matches_a_paper_that_arrives_later() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_index(dir.path());
    write_to(&path, &|_| {}, |h| Ok(links(h, &document(references())))).unwrap();
    let unknown = dangling_id(&titled(UNKNOWN, None, "")).unwrap();
    // The paper of entry 5 and the dangling DOI of entry 6 come in, by title and by id.
    write_to(&path, &|_| {}, |h| {
        let mut ing = Ingester::new(h)?;
        ing.add_record(record("paper", "p-u", &[], UNKNOWN, 2018, "Bea Nobody", &[]), "paper", "t:9")?;
        ing.add_record(
            record("paper", "p-z", &["doi:10.9/zzz"], "Elsewhere and far away from here", 2010, "C Far", &[]),
            "paper",
            "t:10",
        )?;
        ing.finish()?;
        Ok(())
    })
    .unwrap();
    assert_checks(&path);
    let store = Store::open(&path).unwrap();
    let refs = edges_from(&store, "mine");
    assert!(refs.contains(&"p-u".to_string()) && !refs.contains(&unknown), "{refs:?}");
    assert!(store.paper("10.9/zzz").unwrap().is_some(), "the dangling DOI is p-z's canonical id now");
    assert!(refs.contains(&"10.9/zzz".to_string()), "{refs:?}");
    let u = store.entries_naming("p-u", None).unwrap();
    assert_eq!(u[0].entry.matched_by.as_deref(), Some("title"));
    assert_eq!(u[0].sentences[0].sentence, "Nobody knows why [5].");
    assert_eq!(store.entries_naming("10.9/zzz", None).unwrap()[0].entry.matched_by.as_deref(), Some("doi"));
}

#[test]
fn ambiguous_titles_and_disagreeing_dois_are_near_misses() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_index(dir.path());
    write_to(&path, &|_| {}, |h| {
        let mut ing = Ingester::new(h)?;
        ing.add_record(record("paper", "p-c2", &[], GRAPH_WALKS, 2020, "Grace Hopper", &[]), "paper", "t:5")?;
        ing.finish()?;
        Ok(())
    })
    .unwrap();
    let doc = document(vec![
        entry("1", "G. Hopper. Graph walks for literature search. 2020.", titled(GRAPH_WALKS, Some(2020), "G. Hopper")),
        entry(
            "2",
            "A. Lovelace. Sparse attention over long documents. doi:10.7/other",
            ParsedRef {
                doi: Some("10.7/other".into()),
                ..titled("Sparse attention over long documents", Some(2019), "A. Lovelace")
            },
        ),
    ]);
    let counts = write_to(&path, &|_| {}, |h| Ok(links(h, &doc))).unwrap();
    assert_eq!((counts.by_title, counts.near_misses, counts.dangling), (0, 2, 2));
    let store = Store::open(&path).unwrap();
    let near = dangling_id(&titled(GRAPH_WALKS, None, "")).unwrap();
    let e = &store.entries_naming(&near, None).unwrap()[0].entry;
    assert_eq!(
        e.evidence.as_deref(),
        Some("near miss: title \"graph walks for literature search\" matches 2 papers (p-c, p-c2)")
    );
    let e = &store.entries_naming("10.7/other", None).unwrap()[0].entry;
    assert!(e.evidence.as_deref().unwrap().ends_with("matches 10.1/aaa but DOIs 10.7/other/10.1/aaa"), "{e:?}");
    assert_checks(&path);
}

#[test]
fn dangling_ids_prefer_the_doi_then_the_arxiv_id_then_the_title() {
    let p = |doi: Option<&str>, arxiv: Option<&str>, title: Option<&str>| ParsedRef {
        doi: doi.map(Into::into),
        arxiv: arxiv.map(Into::into),
        title: title.map(Into::into),
        ..ParsedRef::default()
    };
    assert_eq!(dangling_id(&p(Some("10.1/X"), Some("2101.00001"), Some("A title"))).as_deref(), Some("10.1/x"));
    assert_eq!(dangling_id(&p(None, Some("arXiv:2101.00001v2"), None)).as_deref(), Some("2101.00001"));
    assert_eq!(dangling_id(&p(Some("10.48550/arXiv.2101.00002"), None, None)).as_deref(), Some("2101.00002"));
    let t = dangling_id(&p(None, None, Some("Deep Residual Learning!"))).unwrap();
    assert_eq!(t, dangling_id(&p(None, None, Some("deep residual  learning"))).unwrap(), "the normalised title");
    assert!(t.starts_with("ref:") && t.len() == 20, "{t}");
    assert_eq!(dangling_id(&p(None, None, Some("Word2vec"))), None, "one word identifies nothing");
    assert_eq!(dangling_id(&ParsedRef::default()), None);
}

#[test]
fn check_names_a_pdf_link_without_its_entry_and_an_entry_without_its_link() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_index(dir.path());
    write_to(&path, &|_| {}, |h| Ok(links(h, &document(references())))).unwrap();
    let conn = Connection::open(&path).unwrap();
    conn.execute("UPDATE doc_references SET target = 'p-nowhere' WHERE position = 6", []).unwrap();
    conn.execute("UPDATE doc_references SET target = NULL WHERE position = 5", []).unwrap();
    let report = super::check::check(&conn);
    let pdf = report.invariants.iter().find(|i| i.name == "pdf-links").unwrap();
    assert_eq!(pdf.violations, 2, "{pdf:#?}");
    assert!(pdf.examples.iter().any(|e| e.contains("names \"p-nowhere\" but the PDF states no such link")), "{pdf:#?}");
    assert!(
        pdf.examples.iter().any(|e| e.contains("states a link to \"10.9/zzz\" that no reference entry names")),
        "{pdf:#?}"
    );
}
