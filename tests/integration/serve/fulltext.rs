//! Full text on the web page over raw HTTP, with a real PDF in the index:
//! `/passages` (passages with their pages, the query's words marked, paging
//! links, a bad offset a 400 page), a search hit's page, and the paper page's
//! "Full text" section with the PDF's sections.

use super::{Server, hostile_index};
use crate::common::{litindex, shared_data, stderr};

#[test]
fn serve_shows_passages_with_pages_and_a_papers_sections() {
    let Some(pdfs) = shared_data("pdfs") else { return };
    let (_dir, db) = hostile_index();
    let o = litindex().arg("--db").arg(&db).arg("ingest").arg(pdfs.join("cermine_test1.pdf")).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let server = Server::start(&db, &[]);

    let page = server.get("/passages?q=trauma");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("passages matched"), "{}", page.body);
    assert!(page.body.contains("<mark>"), "the query's words marked");
    assert!(page.body.contains("p. ") || page.body.contains("pp. "), "each passage names its page");
    assert!(page.body.contains("venous thrombosis"), "the paper's title beside its passages");
    assert!(page.body.contains("rel=\"next\""), "more passages than one page: a next link");
    let paper_link = page.body.split("href=\"/paper?id=").nth(1).unwrap().split('"').next().unwrap().to_string();
    let next = server.get("/passages?q=trauma&offset=20");
    assert!(
        next.body.contains("rel=\"prev\"") && next.body.contains("<ol class=\"hits\" start=\"21\""),
        "{}",
        next.body
    );
    assert_eq!(server.get("/passages?q=x&offset=99999999999").status, 400);
    assert_eq!(server.get("/passages").status, 200, "an empty query is the form");

    let paper = server.get(&format!("/paper?id={paper_link}"));
    assert_eq!(paper.status, 200);
    assert!(paper.body.contains("<h2>Full text</h2>") && paper.body.contains("cermine_test1.pdf"), "{}", paper.body);
    assert!(paper.body.contains("<h3>Sections</h3>"), "the PDF's sections with their pages");
    assert!(!paper.body.contains(pdfs.to_str().unwrap()), "no page shows where the user keeps files");

    let hits = server.get("/?q=thromboprophylaxis+complications+heparin");
    assert!(hits.body.contains(&format!("/paper?id={paper_link}")), "the PDF's paper is a search hit: {}", hits.body);
    // A paper without a PDF has no full-text section.
    assert!(!server.get("/paper?id=p001").body.contains("<h2>Full text</h2>"));
}
