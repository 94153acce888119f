//! The screening page (`/screen?review=NAME`): one candidate at a time, the
//! model's next proposal, title and abstract with the model's top terms
//! marked, why it is proposed, the review's progress and estimate; with
//! `--allow-writes`, include / exclude / skip buttons with access keys i, e,
//! s (Alt+key in Chromium, Alt+Shift+key in Firefox: the page runs no
//! script, as its Content-Security-Policy allows none), posted to
//! `/screen/label` with the form token.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use super::App;
use crate::commands::print_note;
use litindex::screen::next::Proposal;
use litindex::screen::status::Status;
use litindex::screen::{SvmParams, Weights, review, status};

/// The routes, added to the server's router (the POST only with `--allow-writes`).
pub(super) fn routes(router: Router<Arc<App>>, allow_writes: bool) -> Router<Arc<App>> {
    let router = router.route("/screen", get(page));
    if allow_writes { router.route("/screen/label", post(label)) } else { router }
}

#[derive(Debug, Default, Deserialize)]
struct PageParams {
    #[serde(default)]
    review: String,
    /// How many proposals to skip (the skip button's).
    #[serde(default)]
    skip: usize,
}

#[derive(Debug, Deserialize)]
struct LabelForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    review: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    decision: String,
}

fn failure(status: StatusCode, message: &str) -> Response {
    let body = html! { p.error role="alert" { (message) } p { a href="/screen" { "the reviews" } } };
    (status, Html(super::pages::layout("Screening", body).into_string())).into_response()
}

/// What the page shows, read on a blocking thread.
struct View {
    reviews: Vec<String>,
    status: Option<Status>,
    proposal: Option<Proposal>,
    abstract_: String,
    marked: Vec<String>,
}

async fn page(State(app): State<Arc<App>>, Query(p): Query<PageParams>) -> Response {
    let allow = app.allow_writes;
    let token = app.token.clone();
    let review = p.review.clone();
    let skip = p.skip.min(10_000);
    let view = tokio::task::spawn_blocking(move || -> anyhow::Result<View> {
        let store = app.open()?;
        let reviews = store.screen_reviews()?.into_iter().map(|r| r.name).collect();
        if review.is_empty() {
            return Ok(View { reviews, status: None, proposal: None, abstract_: String::new(), marked: Vec::new() });
        }
        let st = status::status(&store, &review)?;
        let proposal = app
            .models
            .with(&store, &review, Weights::default(), SvmParams::default(), |m| m.next(&store, skip + 1))?
            .into_iter()
            .nth(skip);
        let (abstract_, marked) = match &proposal {
            Some(pr) => {
                let a = store.paper(&pr.paper_id)?.map(|x| x.abstract_).unwrap_or_default();
                let terms = pr.top_terms.iter().flat_map(|(t, _)| t.split(' ').map(String::from)).collect();
                (a, terms)
            }
            None => (String::new(), Vec::new()),
        };
        Ok(View { reviews, status: Some(st), proposal, abstract_, marked })
    })
    .await;
    let view = match view {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            let m = format!("{e:#}");
            let code =
                if m.starts_with("no review") { StatusCode::NOT_FOUND } else { StatusCode::INTERNAL_SERVER_ERROR };
            return failure(code, &m);
        }
        Err(e) => return failure(StatusCode::INTERNAL_SERVER_ERROR, &format!("the request failed: {e}")),
    };
    let analyzer = litindex::analyzer::Analyzer::default();
    let body = match (&view.status, &view.proposal) {
        (None, _) => html! {
            h1 { "Screening reviews" }
            @if view.reviews.is_empty() { p { "No review yet: make one with " code { "litindex screen new NAME --query …" } "." } }
            ul.reviews { @for r in &view.reviews { li { a href=(format!("/screen?review={}", encode(r))) { (r) } } } }
        },
        (Some(s), proposal) => html! {
            h1 { "Screening " (s.review) }
            p.progress #progress {
                (s.screened) " of " (s.candidates) " screened · " (s.included) " included · about "
                (format!("{:.0}", s.estimate.relevant_remaining)) " relevant left (" (s.estimate.method) ") · "
                (if s.stop.stop { "stopping rule: stop" } else { "stopping rule: go on" }) " (" (s.stop.why) ")"
            }
            @match proposal {
                None => { p #done { "Every candidate is decided." } }
                Some(pr) => {
                    article.candidate #candidate data-id=(pr.given_id) {
                        h2 #title { (mark_terms(&pr.title, &view.marked, analyzer)) }
                        p.meta { (pr.given_id) " · " (pr.paper_id) @if let Some(y) = pr.year { " · " (y) }
                            @if let Some(sc) = pr.score { " · score " (format!("{sc:.3}")) } }
                        p #abstract { (mark_terms(&view.abstract_, &view.marked, analyzer)) }
                        ul.why {
                            @if let Some(m) = &pr.model { li { "model: " (m) } }
                            @if !pr.top_terms.is_empty() { li { "terms: " (pr.top_terms.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(", ")) } }
                            @if !pr.cites_included.is_empty() { li { "cites included: " (pr.cites_included.join(", ")) } }
                            @if !pr.cited_by_included.is_empty() { li { "cited by included: " (pr.cited_by_included.join(", ")) } }
                            @if pr.shared_references > 0 { li { "references shared with the included: " (pr.shared_references) } }
                            @if let Some(v) = pr.vector_similarity { li { "vector similarity to the nearest included: " (format!("{v:.3}")) } }
                        }
                    }
                    @if allow {
                        form.screen #decide action="/screen/label" method="post" {
                            input type="hidden" name="token" value=(token);
                            input type="hidden" name="review" value=(s.review);
                            input type="hidden" name="id" value=(pr.given_id);
                            button #include type="submit" name="decision" value="include" accesskey="i" { "Include (i)" }
                            " "
                            button #exclude type="submit" name="decision" value="exclude" accesskey="e" { "Exclude (e)" }
                            " "
                            a #skip accesskey="s" href=(format!("/screen?review={}&skip={}", encode(&s.review), skip + 1)) { "Skip (s)" }
                        }
                    } @else {
                        p.note { "Read-only: start " code { "litindex serve --allow-writes" } " to decide here." }
                    }
                }
            }
        },
    };
    Html(super::pages::layout("Screening", body).into_string()).into_response()
}

/// `text` with every word whose analyzed form is one of `terms` in `<mark>`.
fn mark_terms(text: &str, terms: &[String], analyzer: litindex::analyzer::Analyzer) -> Markup {
    let mut parts: Vec<(String, bool)> = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, parts: &mut Vec<(String, bool)>| {
        if !word.is_empty() {
            let hit = analyzer.tokenize(word).iter().any(|t| terms.contains(t));
            parts.push((std::mem::take(word), hit));
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut parts);
            parts.push((c.to_string(), false));
        }
    }
    flush(&mut word, &mut parts);
    html! { @for (w, hit) in &parts { @if *hit { mark { (w) } } @else { (w) } } }
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn label(State(app): State<Arc<App>>, Form(f): Form<LabelForm>) -> Response {
    let (a, b) = (f.token.as_bytes(), app.token.as_bytes());
    if !(a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0) {
        return failure(StatusCode::FORBIDDEN, "missing or wrong form token: reload the page");
    }
    let include = match f.decision.as_str() {
        "include" => true,
        "exclude" => false,
        _ => return failure(StatusCode::BAD_REQUEST, "decision must be include or exclude"),
    };
    let back = format!("/screen?review={}", encode(&f.review));
    let done =
        tokio::task::spawn_blocking(move || review::label(&app.db, &print_note, &f.review, &f.id, include, "", ""))
            .await;
    match done {
        Ok(Ok(_)) => Redirect::to(&back).into_response(),
        Ok(Err(e)) => failure(StatusCode::BAD_REQUEST, &format!("{e:#}")),
        Err(e) => failure(StatusCode::INTERNAL_SERVER_ERROR, &format!("the request failed: {e}")),
    }
}
