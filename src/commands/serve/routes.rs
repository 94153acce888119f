//! The routes: each handler reads its parameters, does its work on a
//! blocking thread against an index opened for this request, and answers
//! with a page from `pages.rs` (or an error page with its status).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::extras::{FORMATS, Facets, HitExtras, MarksQuery};
use super::pages::{self, Linked, PaperView, SearchView};
use super::{App, export, graph_svg};
use crate::commands::print_note;
use litindex::api::limits::{self, WEB_SEARCH_PAGE};
use litindex::api::{
    BadRequest, MarkRequest, Page, SearchOptions, UnknownPaper, UnmarkRequest, parse_mode, resolve_each, run_search,
};
use litindex::search::YearRange;
use litindex::store::{Label, MarkFilter};

/// How many hits a result page shows.
pub(super) const PAGE_HITS: usize = WEB_SEARCH_PAGE.default;

/// The stylesheet, compiled into the binary (the page needs nothing from the network).
const STYLE: &str = include_str!("assets/style.css");

pub(super) fn router(app: Arc<App>) -> Router {
    let mut router = Router::new()
        .route("/", get(search_page))
        .route("/paper", get(paper_page))
        .route("/graph.svg", get(graph))
        .route("/export", get(export_route))
        .route("/marks", get(marks_route))
        .route("/assets/style.css", get(style))
        // Browsers ask for it unbidden: no icon, and no 404 in their console.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }));
    if app.allow_writes {
        router = router.route("/mark", post(mark)).route("/unmark", post(unmark));
    }
    router = super::screen::routes(router, app.allow_writes);
    router = super::fulltext::routes(router);
    router = super::explore::routes(router);
    router.with_state(app)
}

/// A failed request: the status and the one-line message the page shows.
pub(super) struct Failure(StatusCode, String);

impl Failure {
    fn not_found(what: String) -> Failure {
        Failure(StatusCode::NOT_FOUND, what)
    }
}

impl From<anyhow::Error> for Failure {
    /// The library's error kinds: a bad request (a bad query or field) is
    /// the client's, 400; an unknown paper 404, in plain words; the rest is
    /// ours: 500 (its message is cleaned of the index's path by [`blocking`]).
    fn from(e: anyhow::Error) -> Failure {
        if let Some(bad) = e.downcast_ref::<BadRequest>() {
            return Failure(StatusCode::BAD_REQUEST, bad.0.clone());
        }
        if let Some(unknown) = e.downcast_ref::<UnknownPaper>() {
            return Failure::not_found(unknown.plain());
        }
        Failure(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}").replace('\n', " "))
    }
}

impl From<BadRequest> for Failure {
    fn from(e: BadRequest) -> Failure {
        Failure(StatusCode::BAD_REQUEST, e.0)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, Html(pages::error_page(self.0, &self.1).into_string())).into_response()
    }
}

/// Runs `f` on a blocking thread (SQLite and the search are synchronous).
pub(super) async fn blocking<T: Send + 'static>(
    app: Arc<App>,
    f: impl FnOnce(&App) -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    let db = app.db.display().to_string();
    let answer = tokio::task::spawn_blocking(move || f(&app))
        .await
        .unwrap_or_else(|e| Err(Failure(StatusCode::INTERNAL_SERVER_ERROR, format!("the request failed: {e}"))));
    // A page never shows a file path: the index is "the index".
    answer.map_err(|Failure(status, message)| Failure(status, message.replace(&db, "the index")))
}

/// The search form's fields (all optional: an empty form shows just the
/// form). Every field is text, read by the library's parsers: a value that
/// starts with `-` is a value.
#[derive(Debug, Default, Clone, Deserialize)]
pub(super) struct SearchForm {
    #[serde(default)]
    pub q: String,
    #[serde(default)]
    pub mode: String,
    #[serde(default)]
    pub author: String,
    #[serde(default)]
    pub year: String,
    #[serde(default)]
    pub venue: String,
    #[serde(default)]
    pub show_excluded: Option<String>,
    /// Citation hops walked from the seeds (empty: the default).
    #[serde(default)]
    pub hops: String,
    /// How many of one paper's references and citers the walk follows (empty: the default).
    #[serde(default)]
    pub fan_out: String,
    /// How many hits the page skips (the "next" link's).
    #[serde(default)]
    pub offset: String,
}

impl SearchForm {
    fn is_empty(&self) -> bool {
        [&self.q, &self.author, &self.year, &self.venue].iter().all(|s| s.trim().is_empty())
    }

    /// The first hit shown: `offset`, 0 when left out.
    pub fn offset(&self) -> Result<usize, BadRequest> {
        let o = self.offset.trim();
        if o.is_empty() {
            return Ok(0);
        }
        o.parse().map_err(|_| BadRequest(format!("offset `{}` is not a number of hits", litindex::api::error::clip(o))))
    }

    /// The form as the library's typed search (the same constructor MCP's `search_papers` uses).
    fn options(&self) -> Result<SearchOptions, BadRequest> {
        let page = Page::new(self.offset()?, Some(PAGE_HITS as u64), WEB_SEARCH_PAGE)?;
        let field = |name: &str, value: &str| -> Result<Vec<String>, BadRequest> {
            let value = limits::text(name, value)?.trim();
            Ok(if value.is_empty() { Vec::new() } else { vec![value.to_string()] })
        };
        let mode = match limits::text("mode", &self.mode)?.trim() {
            "" => None,
            m => Some(parse_mode(m)?),
        };
        let years = match limits::text("year", &self.year)?.trim() {
            "" => None,
            y => Some(YearRange::parse(y).map_err(|e| BadRequest(format!("year: {e}")))?),
        };
        let hops = match limits::text("hops", &self.hops)?.trim() {
            "" => None,
            h => Some(h.parse().map_err(|_| {
                BadRequest(format!("hops `{}` is not a number: use 0 to 2", litindex::api::error::clip(h)))
            })?),
        };
        let fan_out = match limits::text("fan_out", &self.fan_out)?.trim() {
            "" => None,
            f => Some(limits::fan_out(f)?),
        };
        Ok(SearchOptions {
            mode,
            hops,
            fan_out,
            authors: field("author", &self.author)?,
            years,
            venues: field("venue", &self.venue)?,
            show_excluded: self.show_excluded.is_some(),
            ..SearchOptions::new(self.q.clone(), page)
        })
    }
}

async fn search_page(State(app): State<Arc<App>>, Query(form): Query<SearchForm>) -> Response {
    let shown = form.clone();
    let token = app.allow_writes.then(|| app.token.clone());
    let result = blocking(app, move |app| {
        if form.is_empty() {
            return Ok(None);
        }
        let mut options = form.options()?;
        options.model_dir = crate::commands::model_dir();
        let page = options.page;
        // The facets count the first hits of the ranking (a page of the
        // largest size), whatever page is shown. A page among those hits is
        // cut from the same search, its snippets built for it alone; a later
        // page is a search of its own, the facets another.
        let within = page.offset + page.size <= WEB_SEARCH_PAGE.max;
        if within {
            options.page = Page { offset: 0, size: WEB_SEARCH_PAGE.max };
        }
        let store = app.open()?;
        let mut resolved = options.request(&store, crate::commands::models())?;
        for n in &resolved.notes {
            print_note(n);
        }
        if within {
            resolved.request.parts_for = Some(page.offset..page.offset + page.size);
        }
        let mut result = run_search(&store, &resolved, &options.query)?;
        let facets = if within {
            let facets = Facets::of(&result.ranked);
            result.ranked = result.ranked.into_iter().skip(page.offset).take(page.size).collect();
            facets
        } else {
            let mut whole = resolved.request.clone();
            whole.offset = 0;
            whole.limit = Some(WEB_SEARCH_PAGE.max);
            // Years, venues and authors only: no snippet is built for these hits.
            whole.parts = litindex::search::HitParts::Details;
            let all = litindex::search::search(&store, &whole, resolved.semantic.as_ref())?;
            Facets::of(&all.ranked)
        };
        let request = &resolved.request;
        let more = page.offset + result.ranked.len() < result.hit_count;
        let extras = HitExtras::of(&store, &result.ranked)?;
        let has_years = store.meta()?.min_year.is_some();
        Ok(Some(SearchView {
            weights: request.params.weights,
            offset: page.offset,
            more,
            result,
            extras,
            facets,
            has_years,
        }))
    })
    .await;
    match result {
        Ok(view) => Html(pages::search_page(&shown, view.as_ref(), token.as_deref()).into_string()).into_response(),
        Err(Failure(status, message)) => {
            (status, Html(pages::search_error(&shown, &message).into_string())).into_response()
        }
    }
}

#[derive(Debug, Deserialize)]
struct IdParam {
    #[serde(default)]
    id: String,
}

/// The canonical id of a paper named by any of its ids, or a 404 (a 400 for an id too long to be one).
fn resolve(store: &litindex::store::Store, input: &str) -> Result<String, Failure> {
    limits::text("id", input)?;
    Ok(litindex::api::resolve::resolve_one(store, input)?)
}

async fn paper_page(State(app): State<Arc<App>>, Query(p): Query<IdParam>) -> Result<Html<String>, Failure> {
    let allow_writes = app.allow_writes;
    let token = app.token.clone();
    let view = blocking(app, move |app| {
        let store = app.open()?;
        store.snapshot(|| Ok(paper_view(&store, &p.id)))?
    })
    .await?;
    Ok(Html(pages::paper_page(&view, allow_writes.then_some(token.as_str())).into_string()))
}

/// Everything the paper page shows, read in one read transaction.
fn paper_view(store: &litindex::store::Store, input: &str) -> Result<PaperView, Failure> {
    limits::text("id", input)?;
    // The paper as `litindex paper` and MCP's `get_paper` have it.
    let paper = litindex::api::paper(store, input)?;
    let id = paper.id.clone();
    let linked = |ids: &[String]| -> anyhow::Result<Vec<Linked>> {
        ids.iter().map(|other| Ok(Linked { title: store.paper(other)?.map(|p| p.title), id: other.clone() })).collect()
    };
    let (references, citations) = (linked(&paper.references)?, linked(&paper.citations)?);
    let marks = store.marked(&MarkFilter::default())?.into_iter().filter(|m| m.id.as_deref() == Some(id.as_str()));
    let (mut labels, mut tags) = (Vec::new(), Vec::new());
    for m in marks {
        labels.extend(m.labels);
        tags.extend(m.tags);
    }
    let aliases = store.alias_kinds_of(&id)?.into_iter().filter(|(alias, _)| *alias != id).collect();
    let graph = graph_svg::neighbourhood(store, &id)?;
    let graph_list = graph_svg::neighbourhood_list(store, &id)?;
    let full_text = super::fulltext::paper_section(store, &paper)?;
    Ok(PaperView { paper, aliases, references, citations, labels, tags, graph, graph_list, full_text })
}

async fn graph(State(app): State<Arc<App>>, Query(p): Query<IdParam>) -> Result<Response, Failure> {
    let svg = blocking(app, move |app| {
        let store = app.open()?;
        let id = resolve(&store, &p.id)?;
        Ok(graph_svg::neighbourhood(&store, &id)?)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8")], svg.into_string()).into_response())
}

#[derive(Debug, Deserialize)]
struct ExportParams {
    /// Paper ids, comma-separated.
    #[serde(default)]
    ids: String,
    #[serde(default)]
    format: String,
}

async fn export_route(State(app): State<Arc<App>>, Query(p): Query<ExportParams>) -> Result<Response, Failure> {
    let asked = if p.format.is_empty() { "bibtex" } else { p.format.as_str() };
    let Some(&(format, _, ext, content_type)) = FORMATS.iter().find(|f| f.0 == asked) else {
        return Err(Failure(
            StatusCode::BAD_REQUEST,
            format!(
                "unknown export format `{}`: use bibtex, ris, csl-json or jsonl",
                litindex::api::error::clip(&p.format)
            ),
        ));
    };
    let cite_format = match format {
        "ris" => litindex::cite::CiteFormat::Ris,
        "csl-json" => litindex::cite::CiteFormat::CslJson,
        "jsonl" => litindex::cite::CiteFormat::Jsonl,
        _ => litindex::cite::CiteFormat::Bibtex,
    };
    let ids: Vec<String> = p.ids.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
    if ids.is_empty() {
        return Err(Failure(StatusCode::BAD_REQUEST, "no paper ids to export: give ids=ID,ID…".into()));
    }
    limits::ids("ids", &ids, true)?;
    let text = blocking(app, move |app| {
        let store = app.open()?;
        let canonical = resolve_each(&store, &ids)?;
        let mut out = Vec::new();
        litindex::cite::export_ids(&store, &canonical, cite_format, &mut out)?;
        Ok(String::from_utf8(out).map_err(anyhow::Error::from)?)
    })
    .await?;
    let name =
        if p.ids.contains(',') { format!("litindex.{ext}") } else { format!("{}.{ext}", export::file_stem(&p.ids)) };
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        text,
    )
        .into_response())
}

async fn marks_route(State(app): State<Arc<App>>, Query(q): Query<MarksQuery>) -> Result<Html<String>, Failure> {
    let label: Option<Label> = match q.label.trim() {
        "" => None,
        l => Some(l.parse().map_err(|e: String| Failure(StatusCode::BAD_REQUEST, litindex::api::error::clip(&e)))?),
    };
    let tag = limits::text("tag", q.tag.trim())?.to_string();
    let token = app.allow_writes.then(|| app.token.clone());
    let shown = q.clone();
    let (marked, tags) = blocking(app, move |app| {
        let store = app.open()?;
        let all = store.marked(&MarkFilter::default())?;
        let mut tags: Vec<String> = all.iter().flat_map(|m| m.tags.iter().cloned()).collect();
        tags.sort();
        tags.dedup();
        let filter = MarkFilter { label, tag: (!tag.is_empty()).then_some(tag), dangling: false };
        Ok((store.marked(&filter)?, tags))
    })
    .await?;
    Ok(Html(super::extras::marks_page(&shown, &marked, &tags, token.as_deref()).into_string()))
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

/// A write form: the token, the paper and (for `mark`, optionally for `unmark`) the label.
#[derive(Debug, Deserialize)]
struct WriteForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    label: String,
    /// The page to go back to (a path of this server), when not the paper's.
    #[serde(default)]
    back: String,
}

impl WriteForm {
    /// Refuses a form without this process's token (403), in time independent of where they differ.
    fn check(&self, app: &App) -> Result<(), Failure> {
        let (a, b) = (self.token.as_bytes(), app.token.as_bytes());
        let same = a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0;
        if same {
            Ok(())
        } else {
            Err(Failure(StatusCode::FORBIDDEN, "missing or wrong form token: reload the page".into()))
        }
    }

    fn label(&self) -> Result<Option<Label>, Failure> {
        if self.label.is_empty() {
            return Ok(None);
        }
        self.label
            .parse()
            .map(Some)
            .map_err(|e: String| Failure(StatusCode::BAD_REQUEST, litindex::api::error::clip(&e)))
    }

    /// Back to the page the form was on (a local path only: `/…`, never
    /// `//host` or a URL), else the paper's page, once written.
    fn back(&self, id: &str) -> Response {
        let b = self.back.as_str();
        let local = b.starts_with('/') && !b.starts_with("//") && !b.contains(['\\', '\r', '\n']) && b.len() <= 8192;
        Redirect::to(&if local { b.to_string() } else { pages::paper_url(id) }).into_response()
    }
}

async fn mark(State(app): State<Arc<App>>, Form(form): Form<WriteForm>) -> Result<Response, Failure> {
    form.check(&app)?;
    let label = form.label()?.ok_or_else(|| Failure(StatusCode::BAD_REQUEST, "no label given".into()))?;
    let (id, form) = blocking(app, move |app| {
        let id = resolve(&app.open()?, &form.id)?;
        let request = MarkRequest { ids: vec![id.clone()], label: Some(label), ..MarkRequest::default() };
        litindex::api::mark(&app.db, &print_note, &request)?;
        Ok((id, form))
    })
    .await?;
    Ok(form.back(&id))
}

async fn unmark(State(app): State<Arc<App>>, Form(form): Form<WriteForm>) -> Result<Response, Failure> {
    form.check(&app)?;
    let label = form.label()?;
    let (id, form) = blocking(app, move |app| {
        let id = resolve(&app.open()?, &form.id)?;
        let request = UnmarkRequest { ids: vec![form.id.clone()], label, tags: Vec::new() };
        litindex::api::unmark(&app.db, &print_note, &request)?;
        Ok((id, form))
    })
    .await?;
    Ok(form.back(&id))
}
