//! Full text on the web page: `/passages?q=WORDS` (the passages of the
//! papers' PDFs best first, each with its paper, section and pages, the
//! query's words marked, and next/previous links), and the paper page's
//! "Full text" section (its PDFs, their sections with the page each begins
//! on, and the sentences in which other papers' PDFs cite it). Both call the
//! library functions `search --passages`, `paper` and `why` call.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::response::Html;
use axum::routing::get;
use maud::{Markup, html};
use serde::Deserialize;

use super::App;
use super::pages::{encode, highlighted, layout, paper_url};
use super::routes::{Failure, blocking};
use litindex::api::limits::{self, WEB_SEARCH_PAGE};
use litindex::api::{Page, PaperDetails, PassageResult, PassageSearch, search_passages};
use litindex::store::Store;

/// The route, added to the server's router.
pub(super) fn routes(router: Router<Arc<App>>) -> Router<Arc<App>> {
    router.route("/passages", get(passages))
}

#[derive(Debug, Default, Clone, Deserialize)]
struct PassageParams {
    #[serde(default)]
    q: String,
    #[serde(default)]
    offset: usize,
}

fn passages_url(q: &str, offset: usize) -> String {
    format!("/passages?q={}&offset={offset}", encode(q))
}

async fn passages(State(app): State<Arc<App>>, Query(p): Query<PassageParams>) -> Result<Html<String>, Failure> {
    let q = limits::text("q", &p.q)?.to_string();
    let page = Page::new(p.offset, None, WEB_SEARCH_PAGE).map_err(anyhow::Error::from)?;
    let result = if q.trim().is_empty() {
        None
    } else {
        let request = PassageSearch::new(q.clone(), page);
        Some(blocking(app, move |app| Ok(search_passages(&app.open()?, &request)?)).await?)
    };
    Ok(Html(passages_page(&q, page, result.as_ref()).into_string()))
}

fn passages_page(q: &str, page: Page, result: Option<&PassageResult>) -> Markup {
    let title = if q.trim().is_empty() { "Full-text search".to_string() } else { format!("{q} (full text)") };
    layout(
        &title,
        html! {
            form.search method="get" action="/passages" role="search" {
                div.row {
                    input #q type="search" name="q" value=(q) autofocus dir="auto" placeholder="words in the papers' PDFs";
                    button type="submit" { "Search the full text" }
                }
                p.note { "Passages of the PDFs in the index, best first by BM25, with the page they are printed on. "
                    a href={ "/?q=" (encode(q)) } { "Search the papers instead" } }
            }
            @if let Some(r) = result {
                p.summary { (r.total) " passages matched"
                    @if !r.hits.is_empty() { ", showing " (r.offset + 1) "–" (r.offset + r.hits.len()) } }
                ol.hits start=(r.offset + 1) {
                    @for h in &r.hits {
                        li.hit {
                            div.title {
                                @match &h.paper_id {
                                    Some(id) => a href=(paper_url(id)) { bdi dir="auto" { (h.title.as_deref().unwrap_or(id)) } },
                                    None => bdi dir="auto" { (h.title.as_deref().unwrap_or("(a PDF whose paper is not indexed)")) },
                                }
                            }
                            div.meta {
                                (pages(h.page_first, h.page_last))
                                @if !h.section.is_empty() { " · " bdi dir="auto" { (h.section) } }
                                " · " (h.kind) " · score " (format!("{:.3}", h.score))
                            }
                            p.snippet dir="auto" { (highlighted(&h.text, &h.spans)) }
                        }
                    }
                }
                nav.pager {
                    @if r.offset > 0 { a rel="prev" href=(passages_url(q, r.offset.saturating_sub(page.size))) { "previous" } " " }
                    @if r.offset + r.hits.len() < r.total { a rel="next" href=(passages_url(q, r.offset + r.hits.len())) { "next" } }
                }
            }
        },
    )
}

fn pages(first: u32, last: u32) -> String {
    if first == last { format!("p. {first}") } else { format!("pp. {first}–{last}") }
}

/// The paper page's "Full text" section; empty when the paper has no PDF
/// and no citer with full text.
pub(super) fn paper_section(store: &Store, paper: &PaperDetails) -> anyhow::Result<Markup> {
    if paper.documents.is_empty() && paper.cited_in_context.is_empty() {
        return Ok(html! {});
    }
    // The sections, in reading order, each with the page its first passage is on.
    let mut sections: Vec<(String, u32)> = Vec::new();
    for p in store.passages_of_paper(&paper.id)? {
        if p.kind == "body" && !p.heading.is_empty() && sections.last().is_none_or(|(h, _)| *h != p.heading) {
            sections.push((p.heading.clone(), p.page_first));
        }
    }
    Ok(html! {
        @if !paper.documents.is_empty() {
            section.fulltext {
                h2 { "Full text" }
                ul {
                    @for d in &paper.documents {
                        li { bdi dir="auto" { (file_name(&d.path)) } " · " (d.pages) " pages · " (d.passages) " passages"
                            @for n in &d.notes { " · " em { (n) } } }
                    }
                }
                @if !sections.is_empty() {
                    h3 { "Sections" }
                    ol.sections { @for (h, page) in &sections { li { bdi dir="auto" { (h) } " " small { "(p. " (page) ")" } } } }
                }
            }
        }
        @if !paper.cited_in_context.is_empty() {
            section.contexts {
                h2 { "Cited in context" }
                @for c in &paper.cited_in_context {
                    div.citer {
                        a href=(paper_url(&c.citing)) { bdi dir="auto" { (c.citing_title) } }
                        @if c.sentences.is_empty() { p.note { "cites it (entry: " bdi dir="auto" { (c.reference) } "), no sentence found" } }
                        @for s in &c.sentences {
                            blockquote dir="auto" { (s.sentence) " " small { "(p. " (s.page) ")" } }
                        }
                    }
                }
            }
        }
    })
}

/// A path's last component: the page never shows where the user keeps files.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
