//! The web page's additions of issue 27 over raw HTTP: export in every
//! format, citation counts and facets on the result list, mark buttons on
//! each hit that come back to the same page (never to another site), the
//! `/marks` page, error pages with the search box, and user strings
//! isolated for bidirectional text.

use super::{Server, hostile_index, labels, token_of};
use crate::common::litindex;

#[test]
fn serve_exports_every_format_and_refuses_an_unknown_one() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    for (format, ctype, start) in [
        ("bibtex", "application/x-bibtex", "@"),
        ("ris", "application/x-research-info-systems", "TY  - "),
        ("csl-json", "application/vnd.citationstyles.csl+json", "["),
        ("jsonl", "application/jsonl", "{"),
    ] {
        let a = server.get(&format!("/export?ids=p001,p002&format={format}"));
        assert_eq!(a.status, 200, "{format}: {}", a.body);
        assert!(a.header("content-type").unwrap().starts_with(ctype), "{format}: {:?}", a.header("content-type"));
        assert!(a.body.trim_start().starts_with(start), "{format}: {}", &a.body[..a.body.len().min(200)]);
        // The body is what `litindex export` writes.
        let cli =
            litindex().arg("--db").arg(&db).args(["export", "p001", "p002", "--format", format]).output().unwrap();
        assert_eq!(a.body, String::from_utf8(cli.stdout).unwrap(), "{format}");
    }
    let a = server.get("/export?ids=p001&format=docx");
    assert_eq!(a.status, 400);
    assert!(a.body.contains("use bibtex, ris, csl-json or jsonl"), "{}", a.body);
    assert!(a.body.contains("name=\"q\""), "the error page has the search box");
}

#[test]
fn serve_hits_carry_citation_counts_facets_and_mark_buttons_that_come_back() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &["--allow-writes"]);
    let page = server.get("/?q=sparse+attention");
    assert_eq!(page.status, 200);
    // p001's citation count: what `paper` says.
    let cli = litindex().arg("--db").arg(&db).args(["paper", "p001", "--format", "json"]).output().unwrap();
    let p001: serde_json::Value = serde_json::from_slice(&cli.stdout).unwrap();
    let n = p001["citations"].as_array().unwrap().len();
    let at = page.body.find("data-id=\"p001\"").expect("p001 is a hit");
    let item = &page.body[at..at + page.body[at..].find("</li>").unwrap()];
    assert!(item.contains(&format!("cited by {n}<")), "p001 is cited by {n}: {item}");
    assert!(item.contains("<bdi dir=\"auto\">"), "the title is isolated: {item}");
    // Facets: links that add the filter.
    assert!(page.body.contains("<aside class=\"facets\""), "facets are shown");
    assert!(page.body.contains("href=\"/?q=sparse%20attention&amp;year=20"), "a year facet link");
    assert!(page.body.contains("href=\"/?q=sparse%20attention&amp;author="), "an author facet link");
    // A mark button on the hit: it comes back to the list, the mark on it.
    let token = token_of(&page.body);
    let back = "/?q=sparse%20attention";
    let a =
        server.post("/mark", &format!("id=p001&label=favorite&token={token}&back={}", litindex::fetch::encode(back)));
    assert_eq!(a.status, 303, "{}", a.body);
    assert_eq!(a.header("location"), Some(back));
    assert_eq!(labels(&db, "p001"), ["favorite"]);
    let page = server.get(back);
    let at = page.body.find("data-id=\"p001\"").unwrap();
    let item = &page.body[at..at + page.body[at..].find("</li>").unwrap()];
    assert!(item.contains("mark favorite active") && item.contains("action=\"/unmark\""), "{item}");
    // Never back to another site: an off-site `back` goes to the paper's page.
    for evil in ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"] {
        let a = server
            .post("/unmark", &format!("id=p001&label=favorite&token={token}&back={}", litindex::fetch::encode(evil)));
        assert_eq!(a.status, 303);
        assert_eq!(a.header("location"), Some("/paper?id=p001"), "back={evil}");
        server.post("/mark", &format!("id=p001&label=favorite&token={token}"));
    }
}

#[test]
fn serve_marks_page_lists_by_label_and_tag_with_exports() {
    let (_dir, db) = hostile_index();
    let ok = |args: &[&str]| assert!(litindex().arg("--db").arg(&db).args(args).output().unwrap().status.success());
    ok(&["mark", "p001", "favorite", "--note", "key paper"]);
    ok(&["mark", "p002", "to-read"]);
    ok(&["mark", "p003", "--tag", "survey"]);
    let server = Server::start(&db, &[]);
    let all = server.get("/marks");
    assert_eq!(all.status, 200);
    for id in ["p001", "p002", "p003"] {
        assert!(all.body.contains(&format!("<span class=\"id\">{id}</span>")), "{id} listed");
    }
    assert!(all.body.contains("key paper"));
    let fav = server.get("/marks?label=favorite");
    assert!(fav.body.contains("p001") && !fav.body.contains(">p002<"), "{}", fav.body);
    assert!(fav.body.contains("/export?ids=p001&amp;format=ris"), "exports of the listed papers");
    let tagged = server.get("/marks?tag=survey");
    assert!(tagged.body.contains(">p003<") && !tagged.body.contains(">p001<"));
    assert!(!all.body.contains("method=\"post\""), "no buttons without --allow-writes");
    let bad = server.get("/marks?label=bogus");
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("name=\"q\""), "the error page has the search box");
    let missing = server.get("/paper?id=nope");
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains("name=\"q\"") && !missing.body.contains("web.db"), "{}", missing.body);
}

/// The neighbourhood picture: a standalone SVG document (parsed as XML by
/// Python's parser), a node per paper with its `<title>` and a label
/// `Surname YEAR`, an arrow on every edge, placed by year (an older paper
/// left of a newer one), and the list of the same papers on the paper page.
#[test]
fn serve_draws_a_readable_neighbourhood() {
    let (dir, db) = hostile_index();
    let server = Server::start(&db, &[]);
    let svg = server.get("/graph.svg?id=p001");
    assert_eq!(svg.status, 200);
    let file = dir.path().join("hood.svg");
    std::fs::write(&file, &svg.body).unwrap();
    let check = r#"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
circles = root.findall(".//s:circle", ns)
assert all(c.find("s:title", ns) is not None for c in circles), "every node has a title"
edges = [l for l in root.findall(".//s:line", ns) if l.get("class") == "edge"]
assert edges and all(l.get("marker-end") == "url(#arrow)" for l in edges), "directed edges"
labels = [t.text for t in root.findall(".//s:text", ns) if t.get("class") == "label"]
assert len(labels) == len(circles), (len(labels), len(circles))
print(len(circles), len(edges), labels[0])
"#;
    let o = std::process::Command::new("python3").args(["-c", check]).arg(&file).output().unwrap();
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("Castellano 2018"), "p001 is labelled by its first author and year: {out}");
    // By year: p001 (2018) left of xss1 (2024), which cites it.
    let x_of = |id: &str| -> f64 {
        let at = svg.body.find(&format!("href=\"/paper?id={id}\"")).unwrap();
        let rest = &svg.body[at..];
        let cx = rest.find("cx=\"").unwrap() + 4;
        rest[cx..cx + rest[cx..].find('"').unwrap()].parse().unwrap()
    };
    assert!(x_of("p001") < x_of("xss1"), "placed by year");
    let page = server.get("/paper?id=p001");
    assert!(page.body.contains("<ol class=\"neighbours\">"), "the list beside the picture");
    assert!(page.body.contains("cited by "), "{}", &page.body[..200]);
}

/// The form's hops and fan-out are the CLI's `--hops` and `--fan-out`: a
/// hub cited by five papers, with `fan_out=2`, shows two of its citers, each
/// saying through which cut list; the facet links and the form keep the
/// values; `hops=0` leaves the walk out; a bad value is a 400 with the
/// library's message and the form.
#[test]
fn serve_form_takes_the_walks_hops_and_fan_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::common::hub_index(dir.path());
    let server = Server::start(&db, &[]);
    let hits = |body: &str| body.matches("<li class=\"hit").count();

    let cut = server.get("/?q=sparse+attention&fan_out=2");
    assert_eq!(cut.status, 200, "{}", cut.body);
    assert_eq!(hits(&cut.body), 3, "the hub and two of its citers: {}", cut.body);
    assert_eq!(cut.body.matches("reached via 1 of 5 citers of hub (the walk follows 2 per paper)").count(), 2);
    assert!(cut.body.contains("name=\"fan_out\" value=\"2\""), "the form keeps the value");
    assert!(cut.body.contains("&amp;fan_out=2\""), "a facet link keeps it: {}", cut.body);
    let all = server.get("/?q=sparse+attention&fan_out=all");
    assert_eq!(hits(&all.body), 6, "{}", all.body);
    assert!(!all.body.contains("reached via"));
    assert_eq!(hits(&server.get("/?q=sparse+attention").body), 6, "the default's 100 is more than 5");
    let seeds_only = server.get("/?q=sparse+attention&hops=0");
    assert_eq!(hits(&seeds_only.body), 1, "{}", seeds_only.body);
    assert!(seeds_only.body.contains("<option value=\"0\" selected>"), "the form keeps hops");

    for (query, says) in [
        ("fan_out=0", "is not a fan-out: use a number from 1 up, or `all`"),
        ("fan_out=many", "is not a fan-out: use a number from 1 up, or `all`"),
        ("hops=7", "out of range for search"),
        ("hops=two", "is not a number"),
    ] {
        let a = server.get(&format!("/?q=sparse+attention&{query}"));
        assert_eq!(a.status, 400, "{query}: {}", a.body);
        assert!(a.body.contains(says), "{query}: {}", a.body);
        assert!(a.body.contains("name=\"q\""), "the error page has the search box");
    }
}
