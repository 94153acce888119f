//! Exploring from papers on the web page: `/related` (papers like a paper,
//! or like the papers of a mark label: co-citation, coupling, text) and
//! `/gaps` (the ids a paper, a label's papers or the whole index cite most
//! that the index lacks). Both call the library functions `litindex related`
//! and `litindex gaps` call, one page at a time with next/previous links.
//! The paper page and the marks page link here.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::response::Html;
use axum::routing::get;
use maud::{Markup, html};
use serde::Deserialize;

use super::App;
use super::pages::{encode, layout, paper_url};
use super::routes::{Failure, blocking};
use litindex::api::BadRequest;
use litindex::api::error::clip;
use litindex::api::limits;
use litindex::api::resolve::resolve_one;
use litindex::explore::{Gap, Method, Related, gaps, related};
use litindex::store::{Label, Store};

/// Rows per page of both views.
const PAGE_ROWS: usize = 20;

/// The routes, added to the server's router.
pub(super) fn routes(router: Router<Arc<App>>) -> Router<Arc<App>> {
    router.route("/related", get(related_route)).route("/gaps", get(gaps_route))
}

/// Which papers a view starts from: one paper (`id`), the papers of a mark
/// label (`label`), or (gaps only) the whole index (neither).
#[derive(Debug, Default, Clone, Deserialize)]
pub(super) struct FromParams {
    #[serde(default)]
    id: String,
    #[serde(default)]
    label: String,
    #[serde(default)]
    method: String,
    #[serde(default)]
    offset: usize,
}

impl FromParams {
    fn url(&self, path: &str, offset: usize) -> String {
        let mut url = path.to_string();
        let mut sep = '?';
        for (k, v) in [("id", &self.id), ("label", &self.label), ("method", &self.method)] {
            if !v.trim().is_empty() {
                url.push_str(&format!("{sep}{k}={}", encode(v)));
                sep = '&';
            }
        }
        if offset > 0 {
            url.push_str(&format!("{sep}offset={offset}"));
        }
        url
    }

    fn label(&self) -> Result<Option<Label>, Failure> {
        match self.label.trim() {
            "" => Ok(None),
            l => l.parse().map(Some).map_err(|e: String| bad(clip(&e))),
        }
    }
}

/// The seeds the parameters name, and how the page says so; `None`: the whole index.
fn seeds(store: &Store, p: &FromParams, label: Option<Label>) -> anyhow::Result<Option<(Vec<String>, String)>> {
    if !p.id.trim().is_empty() {
        let id = resolve_one(store, p.id.trim())?;
        let title = store.paper(&id)?.map_or_else(|| id.clone(), |paper| paper.title);
        return Ok(Some((vec![id], title)));
    }
    match label {
        Some(l) => {
            let ids = store.papers_labelled(l)?;
            let none = if ids.is_empty() { format!(" (none is marked {} yet)", l.name()) } else { String::new() };
            Ok(Some((ids, format!("the papers marked {}{none}", l.name()))))
        }
        None => Ok(None),
    }
}

/// A 400 with `message`.
fn bad(message: String) -> Failure {
    anyhow::Error::from(BadRequest(message)).into()
}

fn method(name: &str) -> Result<Method, Failure> {
    Ok(match name.trim() {
        "" | "both" => Method::Both,
        "cocitation" => Method::Cocitation,
        "coupling" => Method::Coupling,
        "text" => Method::Text,
        other => {
            return Err(bad(format!("method must be cocitation, coupling, text or both, not `{}`", clip(other))));
        }
    })
}

async fn related_route(State(app): State<Arc<App>>, Query(p): Query<FromParams>) -> Result<Html<String>, Failure> {
    limits::text("id", &p.id)?;
    let label = p.label()?;
    let method = method(&p.method)?;
    if p.id.trim().is_empty() && label.is_none() {
        return Err(bad("related to what: give a paper (`id=`) or a mark label (`label=`)".into()));
    }
    let shown = p.clone();
    let (from, rows, more) = blocking(app, move |app| {
        let store = app.open()?;
        let Some((seeds, from)) = seeds(&store, &p, label)? else { unreachable!("checked above") };
        if seeds.is_empty() {
            return Ok((from, Vec::new(), false));
        }
        let mut found = related(&store, &seeds, method, p.offset + PAGE_ROWS + 1)?.related;
        let more = found.len() > p.offset + PAGE_ROWS;
        found.truncate(p.offset + PAGE_ROWS);
        found.drain(..p.offset.min(found.len()));
        Ok((from, found, more))
    })
    .await?;
    Ok(Html(related_page(&shown, &from, &rows, more).into_string()))
}

async fn gaps_route(State(app): State<Arc<App>>, Query(p): Query<FromParams>) -> Result<Html<String>, Failure> {
    limits::text("id", &p.id)?;
    let label = p.label()?;
    let shown = p.clone();
    let (from, rows, more) = blocking(app, move |app| {
        let store = app.open()?;
        let (seeds, from) = match seeds(&store, &p, label)? {
            Some((seeds, from)) => (Some(seeds), from),
            None => (None, "the whole index".to_string()),
        };
        if seeds.as_ref().is_some_and(Vec::is_empty) {
            return Ok((from, Vec::new(), false));
        }
        let mut found = gaps(&store, seeds.as_deref(), (p.offset + PAGE_ROWS + 1) as u64)?;
        let more = found.len() > p.offset + PAGE_ROWS;
        found.truncate(p.offset + PAGE_ROWS);
        found.drain(..p.offset.min(found.len()));
        Ok((from, found, more))
    })
    .await?;
    Ok(Html(gaps_page(&shown, &from, &rows, more).into_string()))
}

/// Previous/next links of a view's page.
fn pager(p: &FromParams, path: &str, shown: usize, more: bool) -> Markup {
    html! {
        nav.pager {
            @if p.offset > 0 { a rel="prev" href=(p.url(path, p.offset.saturating_sub(PAGE_ROWS))) { "← previous" } " " }
            @if more { a rel="next" href=(p.url(path, p.offset + shown)) { "next " (PAGE_ROWS) " →" } }
        }
    }
}

fn related_page(p: &FromParams, from: &str, rows: &[Related], more: bool) -> Markup {
    let methods = [("both", "all combined"), ("cocitation", "co-citation"), ("coupling", "coupling"), ("text", "text")];
    let current = if p.method.trim().is_empty() { "both" } else { p.method.trim() };
    let body = html! {
        h1 { "Related to " bdi dir="auto" { (from) } }
        nav.filters {
            @for (i, (m, name)) in methods.iter().enumerate() {
                @if i > 0 { " · " }
                a href=(FromParams { method: m.to_string(), offset: 0, ..p.clone() }.url("/related", 0))
                    aria-current=(if current == *m { "page" } else { "false" }) { (name) }
            }
        }
        @if rows.is_empty() {
            p.summary { "Nothing related found (no shared citers or references, and no text match)." }
        }
        ol.related start=(p.offset + 1) {
            @for r in rows {
                li {
                    div.title { a href=(paper_url(&r.id)) { bdi dir="auto" { (r.title) } } " " span.id { (r.id) } }
                    div.meta {
                        (r.year.map_or("-".to_string(), |y| y.to_string()))
                        " · score " (format!("{:.3}", r.score))
                        @if r.shared_citers > 0 { " · cited together by " (r.shared_citers) }
                        @if r.shared_references > 0 { " · " (r.shared_references) " shared references" }
                    }
                }
            }
        }
        (pager(p, "/related", rows.len(), more))
    };
    layout(&format!("Related to {from}"), body)
}

fn gaps_page(p: &FromParams, from: &str, rows: &[Gap], more: bool) -> Markup {
    let body = html! {
        h1 { "What " bdi dir="auto" { (from) } " cites that the index lacks" }
        p.note { "Most cited first. Add them with " code { "litindex fetch --from-gaps" } "." }
        @if rows.is_empty() { p.summary { "None: every cited id is in the index (or no citations are known)." } }
        ol.gaps start=(p.offset + 1) {
            @for g in rows {
                li {
                    div.title {
                        @match &g.title { Some(t) => { bdi dir="auto" { (t) } " " } None => {} }
                        span.id { (g.id) } " " small { "(" (g.kind) ")" }
                    }
                    div.meta {
                        "cited by " (g.cited_by) ": "
                        @for (i, c) in g.cited_by_sample.iter().enumerate() {
                            @if i > 0 { ", " }
                            a href=(paper_url(c)) { span.id { (c) } }
                        }
                    }
                }
            }
        }
        (pager(p, "/gaps", rows.len(), more))
    };
    layout(&format!("Gaps of {from}"), body)
}

/// The links a paper page (`id`) or the marks page (`label`) shows to these views.
pub(super) fn explore_links(id: Option<&str>, label: Option<&str>) -> Markup {
    let p = FromParams {
        id: id.unwrap_or_default().to_string(),
        label: label.unwrap_or_default().to_string(),
        ..FromParams::default()
    };
    html! {
        span.explore {
            a href=(p.url("/related", 0)) { "related papers" } " · "
            a href=(p.url("/gaps", 0)) { "what it cites that the index lacks" }
        }
    }
}
