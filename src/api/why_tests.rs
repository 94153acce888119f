//! `why`, `paper`'s "cited in context" and `gaps`' titles over Documents
//! filed through the real PDF ingest path (`ingest::pdf`, after reading),
//! into the built-in corpus; `check` after every write.

use std::path::Path;

use super::why::{WhyRequest, WhyVerdict, why};
use crate::fulltext::{CitationContext, Document, ParsedRef, Reference};
use crate::ingest::pdf::test_support::{document, file, mock_index};
use crate::store::Store;

fn entry(label: &str, title: &str, year: i32, author: &str) -> Reference {
    Reference {
        label: Some(label.into()),
        raw: format!("{author}. {title}. {year}."),
        page: 3,
        parsed: ParsedRef {
            title: Some(title.into()),
            year: Some(year),
            authors: vec![author.into()],
            ..ParsedRef::default()
        },
    }
}

const UNKNOWN: &str = "An unknown paper about many things";

/// A survey whose two pages cite p002 twice, p003 never in a sentence, and a paper the index lacks.
fn survey(with_p002: bool) -> Document {
    let mut doc = document(
        "A survey of attention patterns in long documents",
        None,
        &["Windows help locality [1]. Heads can go [2].", "Both windows and the unknown [1, 3] agree."],
    );
    doc.references = vec![
        entry("1", "Local Window Attention with Learned Global Tokens", 2018, "A. Rahman"),
        entry("2", "Most Attention Heads Can Be Pruned After Training", 2019, "L. Bennett"),
        entry("3", UNKNOWN, 2018, "B. Nobody"),
    ];
    let ctx = |paragraph: usize, start: usize, end: usize, refs: Vec<usize>| CitationContext {
        section: 0,
        paragraph,
        start,
        end,
        page: paragraph as u32 + 1,
        markers: vec![format!("{refs:?}")],
        references: refs,
    };
    doc.contexts = vec![ctx(0, 0, 26, vec![0]), ctx(1, 0, 42, vec![0, 2])];
    if !with_p002 {
        doc.references.remove(0);
        doc.contexts = vec![ctx(1, 0, 42, vec![1])];
    }
    doc
}

fn checked(db: &Path) -> Store {
    let store = Store::open(db).unwrap();
    let report = store.check();
    let bad: Vec<_> = report.violated().map(|i| format!("{}: {:?}", i.name, i.examples)).collect();
    assert!(bad.is_empty(), "{bad:?}");
    store
}

fn ask(store: &Store, a: &str, b: &str) -> super::why::Why {
    why(store, &WhyRequest { citing: a.into(), cited: b.into() }).unwrap()
}

#[test]
fn why_a_cites_b_from_a_filed_pdf_and_after_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let db = mock_index(dir.path());
    assert_eq!(file(&db, &[("/pdfs/survey.pdf", &survey(true))]), vec![false], "a new paper");
    let store = checked(&db);
    let a = store.papers_from_source("pdf").unwrap().pop().unwrap();

    let w = ask(&store, &a, "p002");
    assert_eq!(w.verdict, WhyVerdict::Cited);
    assert!(w.graph_edge, "the PDF's link is an edge");
    assert_eq!(w.reference_entries, 3);
    assert_eq!(w.entries.len(), 1);
    let e = &w.entries[0];
    assert_eq!(e.entry.matched_by.as_deref(), Some("title"));
    let said: Vec<(u32, &str)> = e.sentences.iter().map(|s| (s.page, s.sentence.as_str())).collect();
    assert_eq!(said, [(1, "Windows help locality [1]."), (2, "Both windows and the unknown [1, 3] agree.")]);
    assert_eq!(e.sentences[0].section, "1 Introduction");

    assert_eq!(ask(&store, &a, "p003").verdict, WhyVerdict::NoContext, "cited, no sentence resolved to it");
    let not = ask(&store, &a, "p004");
    assert_eq!((not.verdict, not.graph_edge), (WhyVerdict::NotCited, false));
    assert_eq!(ask(&store, "p001", "p002").verdict, WhyVerdict::NoFullText);
    assert!(why(&store, &WhyRequest { citing: a.clone(), cited: "nowhere-at-all".into() }).is_err());

    // `paper p002` shows the survey's sentences; p001 (no citer with full text) shows none.
    let p = super::paper(&store, "p002").unwrap();
    assert_eq!(p.cited_in_context.len(), 1);
    assert_eq!(p.cited_in_context[0].citing, a);
    assert_eq!(p.cited_in_context[0].sentences.len(), 2);
    assert!(super::paper(&store, "p001").unwrap().cited_in_context.is_empty());
    assert!(!serde_json::to_string(&super::paper(&store, "p001").unwrap()).unwrap().contains("cited_in_context"));

    // gaps: the unknown paper by its title; why answers for the dangling id too.
    let gaps = crate::explore::gaps(&store, Some(std::slice::from_ref(&a)), 10).unwrap();
    let gap = gaps.iter().find(|g| g.title.as_deref() == Some(UNKNOWN)).expect("the unknown paper is a gap");
    assert!(gap.id.starts_with("ref:") && gap.year == Some(2018), "{gap:?}");
    assert_eq!(ask(&store, &a, &gap.id).verdict, WhyVerdict::Cited);
    assert_eq!(ask(&store, &a, &format!("  {}  ", gap.id)).cited, gap.id, "spelt loosely");
    drop(store);

    // The changed PDF no longer cites p002: its entry, sentences and edge go; p003's stay.
    assert_eq!(file(&db, &[("/pdfs/survey.pdf", &survey(false))]), vec![false]);
    let store = checked(&db);
    assert_eq!(store.papers_from_source("pdf").unwrap(), vec![a.clone()], "the same paper");
    let w = ask(&store, &a, "p002");
    assert_eq!((w.verdict, w.graph_edge, w.reference_entries), (WhyVerdict::NotCited, false, 2));
    assert!(super::paper(&store, "p002").unwrap().cited_in_context.is_empty());
    assert!(store.linked(&a, crate::graph::Direction::References).unwrap().contains(&"p003".to_string()));
}

/// The index docs/FULLTEXT.md's examples of `why`, `paper` and `gaps` ran on.
#[test]
#[ignore]
fn docs_example_index() {
    let dir = std::path::Path::new("/tmp/g/demo");
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let db = mock_index(dir);
    file(&db, &[("/pdfs/survey.pdf", &survey(true))]);
}

/// Serves one OpenAlex list page (whatever is asked) on 127.0.0.1; returns the base URL and the URLs asked.
fn serve_once(page: String) -> (String, std::sync::mpsc::Receiver<String>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if let Some(rq) = server.incoming_requests().next() {
            tx.send(rq.url().to_string()).unwrap();
            let _ = rq.respond(tiny_http::Response::from_string(page));
        }
    });
    (base, rx)
}

#[test]
fn a_gap_fetched_by_its_title_links_the_entry_to_the_paper() {
    use crate::fetch::{Bases, FetchOptions, FetchPlan, fetch};
    let dir = tempfile::tempdir().unwrap();
    let db = mock_index(dir.path());
    file(&db, &[("/pdfs/survey.pdf", &survey(true))]);
    let store = Store::open(&db).unwrap();
    let a = store.papers_from_source("pdf").unwrap().pop().unwrap();
    let gap = crate::explore::gaps(&store, None, 100).unwrap().into_iter().find(|g| g.title.is_some()).unwrap();
    drop(store);

    // What `fetch --from-gaps` asks for a gap with no DOI or arXiv id: its title, one hit.
    let work = serde_json::json!({"meta": {"next_cursor": null}, "results": [{
        "id": "https://openalex.org/W77", "title": "An Unknown Paper About Many Things", "publication_year": 2018}]});
    let (base, asked) = serve_once(work.to_string());
    let opts = FetchOptions { bases: Bases { openalex: base, ..Bases::default() }, ..FetchOptions::default() };
    let plan = FetchPlan { titles: vec![gap.title.clone().unwrap()], limit: 10, ..FetchPlan::default() };
    fetch(&db, &plan, &opts).unwrap();
    let url = asked.recv().unwrap();
    assert!(url.contains("search=An%20unknown%20paper%20about%20many%20things") && url.contains("per_page=1"), "{url}");

    let store = checked(&db);
    let w = ask(&store, &a, "W77");
    assert_eq!((w.verdict, w.graph_edge), (WhyVerdict::Cited, true));
    assert_eq!(w.entries[0].entry.matched_by.as_deref(), Some("title"));
    let gaps = crate::explore::gaps(&store, None, 100).unwrap();
    assert!(!gaps.iter().any(|g| g.id == gap.id), "no longer a gap: {gaps:?}");
}
