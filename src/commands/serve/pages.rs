//! The HTML of the pages (maud: every `(value)` is escaped; nothing here
//! writes unescaped text from the index).

use axum::http::StatusCode;
use maud::{DOCTYPE, Markup, html};

use super::extras::{Facets, HitExtras, export_links, facets, hit_marks};
use super::routes::SearchForm;
use litindex::api::PaperDetails;
use litindex::search::{Hit, RetrievalResult, Weights};
use litindex::store::marks::{LABELS, LabelMark};

/// A search's answer, the weights its final scores used, and its page:
/// the hits skipped before it and whether more follow.
pub(super) struct SearchView {
    pub weights: Weights,
    pub offset: usize,
    pub more: bool,
    pub result: RetrievalResult,
    /// Each hit's citation count and marks.
    pub extras: HitExtras,
    /// The facets of the result set.
    pub facets: Facets,
    /// Whether the index has years (else the bars have no recency part).
    pub has_years: bool,
}

/// A paper this one cites or is cited by (`title`: `None` when not indexed).
pub(super) struct Linked {
    pub id: String,
    pub title: Option<String>,
}

/// What the paper page shows.
pub(super) struct PaperView {
    pub paper: PaperDetails,
    /// (alias, kind), the paper's own id left out.
    pub aliases: Vec<(String, String)>,
    pub references: Vec<Linked>,
    pub citations: Vec<Linked>,
    pub labels: Vec<LabelMark>,
    pub tags: Vec<String>,
    pub graph: Markup,
    /// The same papers as a list.
    pub graph_list: Markup,
    /// Its PDFs, their sections, and the sentences citing it (empty without full text).
    pub full_text: Markup,
}

/// `s` percent-encoded for a URL's query component (the one encoder `fetch` uses too).
pub(super) use litindex::fetch::encode;

pub(super) fn paper_url(id: &str) -> String {
    format!("/paper?id={}", encode(id))
}

/// The search page's URL for `form` from hit `offset` on (a stable link: the same fields, in one order).
pub(super) fn search_url(form: &SearchForm, offset: usize) -> String {
    let mut url = format!("/?q={}", encode(&form.q));
    let fields = [
        ("author", &form.author),
        ("year", &form.year),
        ("venue", &form.venue),
        ("mode", &form.mode),
        ("hops", &form.hops),
        ("fan_out", &form.fan_out),
    ];
    for (name, value) in fields {
        if !value.trim().is_empty() {
            url.push_str(&format!("&{name}={}", encode(value)));
        }
    }
    if form.show_excluded.is_some() {
        url.push_str("&show_excluded=on");
    }
    if offset > 0 {
        url.push_str(&format!("&offset={offset}"));
    }
    url
}

pub(super) fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · litindex" }
                link rel="stylesheet" href="/assets/style.css";
            }
            body {
                header { a.home href="/" { "litindex" } " " a.nav href="/marks" { "marks" } }
                main { (body) }
            }
        }
    }
}

/// A page with the search box above its body (the marks page, the error pages).
pub(super) fn layout_with_search(title: &str, form: &SearchForm, body: Markup) -> Markup {
    layout(title, html! { (search_form(form)) (body) })
}

fn search_form(form: &SearchForm) -> Markup {
    let mode = if form.mode.is_empty() { "bm25" } else { form.mode.as_str() };
    html! {
        form.search action="/" method="get" {
            div.row {
                input #q type="search" name="q" value=(form.q) autofocus dir="auto"
                    placeholder="words +must -not \"a phrase\" author:NAME year:2019..2023 venue:NAME";
                button type="submit" { "Search" }
                " " a.fulltext href={ "/passages?q=" (encode(&form.q)) } { "full text" }
            }
            div.paper.filters {
                label { "author " input type="text" name="author" value=(form.author); }
                label { "year " input type="text" name="year" value=(form.year) placeholder="2019..2023"; }
                label { "venue " input type="text" name="venue" value=(form.venue); }
                label { "mode "
                    select name="mode" {
                        @for m in ["bm25", "dense", "hybrid"] {
                            option value=(m) selected[m == mode] { (m) }
                        }
                    }
                }
                label title="citation hops walked from the best text matches" { "hops "
                    select name="hops" {
                        @for (value, shown) in [("", "default"), ("0", "0"), ("1", "1"), ("2", "2")] {
                            option value=(value) selected[value == form.hops.trim()] { (shown) }
                        }
                    }
                }
                label title="how many of one paper's references, and of its citers, the walk follows: a number, or all; a longer list is sampled" {
                    "fan-out " input.short type="text" name="fan_out" value=(form.fan_out) placeholder="100" size="4";
                }
                label { input type="checkbox" name="show_excluded" value="on" checked[form.show_excluded.is_some()]; " show excluded" }
            }
        }
    }
}

/// The search page: the form, and the hits when a search ran; `token`: the
/// write token when the mark buttons are offered.
pub(super) fn search_page(form: &SearchForm, view: Option<&SearchView>, token: Option<&str>) -> Markup {
    let title = if form.q.trim().is_empty() { "Search".to_string() } else { form.q.clone() };
    layout(
        &title,
        html! {
            (search_form(form))
            @if let Some(view) = view { (results(form, view, token)) }
        },
    )
}

/// The search page with the error a bad search gave (served with its status).
pub(super) fn search_error(form: &SearchForm, message: &str) -> Markup {
    layout("Bad search", html! { (search_form(form)) p.error role="alert" { (message) } })
}

/// An error page: the message, and the search box to go on from (never a dead end).
pub(super) fn error_page(status: StatusCode, message: &str) -> Markup {
    layout_with_search(
        status.canonical_reason().unwrap_or("Error"),
        &SearchForm::default(),
        html! { p.error role="alert" { (message) } },
    )
}

fn results(form: &SearchForm, view: &SearchView, token: Option<&str>) -> Markup {
    let r = &view.result;
    let w = view.weights;
    let scale = r.ranked.iter().map(|h| h.final_score).fold(0.0, f64::max);
    let ids: Vec<&str> = r.ranked.iter().map(|h| h.id.as_str()).collect();
    html! {
        p.summary {
            (r.hit_count) " hits, showing "
            @if view.offset > 0 || view.more { (view.offset + 1) "–" (view.offset + r.ranked.len()) } @else { (r.ranked.len()) }
            " · " (format!("{:.1}", r.wall_time_ms)) " ms · final = "
            span.key.b { (w.bm25) "·" (if r.mode.name() == "bm25" { "bm25_norm" } else { "fused" }) }
            " + " span.key.g { (w.graph) "·graph" }
            @if view.has_years { " + " span.key.r { (w.recency) "·recency" } }
            @if !r.favorites.is_empty() { " + " span.key.f { "feedback" } }
            @if !ids.is_empty() { " · these hits: " (export_links(&ids)) }
        }
        @if !r.ranked.is_empty() { (facets(form, &view.facets)) }
        @if r.excluded_hidden > 0 {
            p.note { (r.excluded_hidden) " excluded papers not shown (tick “show excluded” to see them)" }
        }
        ol.hits start=(view.offset + 1) {
            @for h in &r.ranked { (hit(h, w, scale, view, token, &search_url(form, view.offset))) }
        }
        @if view.offset > 0 || view.more {
            nav.pages {
                @if view.offset > 0 {
                    a rel="prev" href=(search_url(form, view.offset.saturating_sub(super::routes::PAGE_HITS))) { "← previous" }
                }
                @if view.offset > 0 && view.more { " · " }
                @if view.more {
                    a rel="next" href=(search_url(form, view.offset + r.ranked.len())) { "next " (super::routes::PAGE_HITS) " →" }
                }
            }
        }
    }
}

fn hit(h: &Hit, w: Weights, scale: f64, view: &SearchView, token: Option<&str>, back: &str) -> Markup {
    let cited = view.extras.citations.get(&h.id).copied().unwrap_or(0);
    let labels = view.extras.labels.get(&h.id).map_or(&[][..], Vec::as_slice);
    html! {
        li.hit.excluded[h.excluded] data-id=(h.id) {
            div.title {
                a href=(paper_url(&h.id)) { bdi dir="auto" { (h.title) } }
                @if h.excluded { " " span.flag { "excluded" } }
            }
            div.meta {
                span.id { (h.id) }
                @if let Some(y) = h.year { " · " (y) }
                @if !h.authors.is_empty() { " · " bdi dir="auto" { (authors(&h.authors)) } }
                @if let Some(v) = &h.venue { " · " i { bdi dir="auto" { (v) } } }
                " · " span.cited title="papers of this index that cite it" { "cited by " (cited) }
                " · " (match h.graph_distance {
                    None => "first-stage hit".to_string(),
                    Some(0) => "a seed of the walk".to_string(),
                    Some(d) => format!("{d} hop{} from a seed", if d == 1 { "" } else { "s" }),
                })
                @if let Some(via) = &h.graph_via {
                    " · " span.via title="the walk follows part of a hub's list (--fan-out)" { (via) }
                }
            }
            (score_bar(h, w, scale, view.has_years))
            @if !h.snippet.is_empty() {
                p.snippet dir="auto" {
                    (highlighted(&h.snippet, &h.snippet_spans))
                    @if let Some(page) = h.snippet_page { " " small.page title="from the paper's PDF" { "(full text, p. " (page) ")" } }
                }
            }
            @if token.is_some() || !labels.is_empty() { (hit_marks(&h.id, labels, token, back)) }
        }
    }
}

fn authors(names: &[String]) -> String {
    match names.len() {
        0..=3 => names.join(", "),
        n => format!("{}, … ({n} authors)", names[..2].join(", ")),
    }
}

/// The parts of a hit's final score: `w_bm25·bm25_norm` (the fused score in
/// a dense or hybrid search), `w_graph·graph`, `w_recency·recency`, and the
/// favorites' closeness bonus, each with its name and the bar's CSS class.
pub(super) fn score_parts(h: &Hit, w: Weights) -> [(&'static str, &'static str, f64); 4] {
    // The parts as the library computes them (`search::score`), with the bar's CSS class of each.
    let classes = ["b", "g", "r", "f"];
    let named = h.parts(w).named();
    std::array::from_fn(|i| (classes[i], named[i].0, named[i].1))
}

/// A stacked bar of the parts, as inline SVG (its length relative to the
/// page's best final score), with the numbers beside it.
fn score_bar(h: &Hit, w: Weights, scale: f64, has_years: bool) -> Markup {
    const WIDTH: f64 = 240.0;
    let parts = score_parts(h, w);
    // A part is shown when it adds something, or always for bm25 and graph,
    // and recency when the index has years (without, it is 0 for every paper).
    let shown = |name: &str, v: f64| v > 0.0 || name == "bm25" || name == "graph" || (name == "recency" && has_years);
    let unit = if scale > 0.0 { WIDTH / scale } else { 0.0 };
    let mut x = 0.0;
    let mut rects = Vec::new();
    for (class, _, v) in parts {
        let len = v * unit;
        if len > 0.0 {
            rects.push((class, x, len));
            x += len;
        }
    }
    let numbers: Vec<String> =
        parts.iter().filter(|p| shown(p.1, p.2)).map(|(_, n, v)| format!("{n} {v:.3}")).collect();
    html! {
        div.score {
            svg.bar width=(WIDTH) height="12" viewBox=(format!("0 0 {WIDTH} 12")) role="img" {
                title { "final " (format!("{:.3}", h.final_score)) ": " (numbers.join(", ")) }
                rect.track x="0" y="0" width=(WIDTH) height="12" {}
                @for (class, x, len) in &rects {
                    rect class=(format!("part {class}")) x=(format!("{x:.2}")) y="0" width=(format!("{len:.2}")) height="12" {}
                }
            }
            span.numbers title=(graph_meaning(h)) { b { (format!("{:.3}", h.final_score)) } " = " (numbers.join(" + ")) }
        }
    }
}

/// What the graph part of a hit's bar means for it.
fn graph_meaning(h: &Hit) -> String {
    match h.graph_distance {
        Some(0) => "graph: this seed is cited by or cites the other strong hits (the evidence of the other seeds that reach it)".into(),
        Some(d) => format!("graph: reached {d} citation step{} from the seeds", if d == 1 { "" } else { "s" }),
        None => "graph: the walk from the seeds did not reach it".into(),
    }
}

/// `text` with the byte ranges `spans` in `<mark>` (a span that is out of
/// range or not on character boundaries is left unmarked).
pub(super) fn highlighted(text: &str, spans: &[[usize; 2]]) -> Markup {
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    let mut at = 0;
    for &[start, end] in spans {
        if start < at || end <= start {
            continue;
        }
        let (Some(before), Some(inside)) = (text.get(at..start), text.get(start..end)) else { continue };
        pieces.push((before, false));
        pieces.push((inside, true));
        at = end;
    }
    pieces.push((text.get(at..).unwrap_or(""), false));
    html! {
        @for (piece, marked) in pieces {
            @if marked { mark { (piece) } } @else { (piece) }
        }
    }
}

/// The paper page; `token`: the write token when the buttons are offered.
pub(super) fn paper_page(v: &PaperView, token: Option<&str>) -> Markup {
    let p = &v.paper;
    layout(
        &p.title,
        html! {
            article.paper {
                h1 { bdi dir="auto" { (p.title) } }
                table.meta {
                    tr { th { "id" } td.id { (p.id) } }
                    tr { th { "year" } td { (p.year.map_or("-".to_string(), |y| y.to_string())) } }
                    tr { th { "authors" } td dir="auto" { (if p.authors.is_empty() { "-".to_string() } else { p.authors.join("; ") }) } }
                    tr { th { "venue" } td dir="auto" { (p.venue.as_deref().unwrap_or("-")) } }
                    tr { th { "source" } td { (p.source) } }
                    tr { th { "aliases" } td {
                        @if v.aliases.is_empty() { "-" }
                        @for (alias, kind) in &v.aliases { span.alias { (alias) " " small { "(" (kind) ")" } } " " }
                    } }
                    tr { th { "export" } td { (export_links(&[p.id.as_str()])) } }
                    tr { th { "explore" } td { (super::explore::explore_links(Some(&p.id), None)) } }
                }
                (marks(v, token))
                section.abstract {
                    h2 { "Abstract" }
                    p dir="auto" { (if p.abstract_.is_empty() { "(no abstract)" } else { p.abstract_.as_str() }) }
                }
                (v.full_text)
                section.graph {
                    h2 { "Citation neighbourhood" }
                    p.note { "Two hops both ways, by year; circles sized by citations in the index; click a node to open it." }
                    div.hood {
                        (v.graph)
                        (v.graph_list)
                    }
                }
                div.links {
                    (linked("References", &v.references))
                    (linked("Cited by", &v.citations))
                }
            }
        },
    )
}

fn marks(v: &PaperView, token: Option<&str>) -> Markup {
    let id = v.paper.id.as_str();
    html! {
        section.marks {
            h2 { "Marks" }
            p.current {
                @if v.labels.is_empty() && v.tags.is_empty() { "none" }
                @for l in &v.labels {
                    span class=(format!("label {}", l.label.name())) { (l.label.name()) }
                    @if !l.note.is_empty() { " " bdi dir="auto" { "(" (l.note) ")" } }
                    " "
                }
                @for t in &v.tags { span.tag { "#" bdi { (t) } } " " }
            }
            @if let Some(token) = token {
                div.buttons {
                    @for label in LABELS {
                        form method="post" action="/mark" {
                            input type="hidden" name="token" value=(token);
                            input type="hidden" name="id" value=(id);
                            input type="hidden" name="label" value=(label.name());
                            button type="submit" class=(format!("mark {}", label.name())) { (label.name()) }
                        }
                    }
                    form method="post" action="/unmark" {
                        input type="hidden" name="token" value=(token);
                        input type="hidden" name="id" value=(id);
                        button type="submit" class="mark unmark" { "unmark" }
                    }
                }
            }
        }
    }
}

fn linked(heading: &str, papers: &[Linked]) -> Markup {
    html! {
        section.linked {
            h2 { (heading) " (" (papers.len()) ")" }
            @if papers.is_empty() { p { "none" } }
            ul {
                @for l in papers {
                    li {
                        @match &l.title {
                            Some(t) => { a href=(paper_url(&l.id)) { bdi dir="auto" { (t) } } " " span.id { (l.id) } }
                            None => { span.id { (l.id) } " " small { "(not in the index)" } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlighting_escapes_and_marks_byte_spans() {
        let html = highlighted("a <b> sparse é word", &[[6, 12], [13, 14], [100, 120]]).into_string();
        assert_eq!(html, "a &lt;b&gt; <mark>sparse</mark> é word");
    }

    #[test]
    fn urls_encode_every_reserved_byte() {
        assert_eq!(paper_url("10.1/a b&c"), "/paper?id=10.1%2Fa%20b%26c");
        assert_eq!(super::super::extras::export_url_as(&["a", "b"], "ris"), "/export?ids=a%2Cb&format=ris");
    }
}
