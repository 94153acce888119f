//! What the result list shows beside each hit and beside the list (issue
//! 27): each hit's citation count in the index and its marks (with the mark
//! buttons under `--allow-writes`), the facets of the result set (a year
//! histogram, the top venues and authors, each a link that adds the filter),
//! the export links in every format, and the `/marks` page.

use std::collections::{BTreeMap, HashMap};

use maud::{Markup, html};

use super::pages::{encode, paper_url, search_url};
use super::routes::SearchForm;
use litindex::graph::Direction;
use litindex::search::Hit;
use litindex::store::marks::{LABELS, MarkedPaper};
use litindex::store::{Label, MarkFilter, Store};

/// The export formats of the page: (the `format=` value, its name, file extension, content type).
pub(super) const FORMATS: [(&str, &str, &str, &str); 4] = [
    ("bibtex", "BibTeX", "bib", "application/x-bibtex; charset=utf-8"),
    ("ris", "RIS", "ris", "application/x-research-info-systems; charset=utf-8"),
    ("csl-json", "CSL-JSON", "json", "application/vnd.citationstyles.csl+json; charset=utf-8"),
    ("jsonl", "JSON Lines", "jsonl", "application/jsonl; charset=utf-8"),
];

/// An export link's URL for `ids` in `format`.
pub(super) fn export_url_as(ids: &[&str], format: &str) -> String {
    format!("/export?ids={}&format={format}", encode(&ids.join(",")))
}

/// "export as BibTeX · RIS · CSL-JSON · JSON Lines" for `ids`.
pub(super) fn export_links(ids: &[&str]) -> Markup {
    html! {
        span.exports {
            "export as "
            @for (i, (format, name, _, _)) in FORMATS.iter().enumerate() {
                @if i > 0 { " · " }
                a.export href=(export_url_as(ids, format)) data-format=(format) { (name) }
            }
        }
    }
}

/// Per shown hit: how many papers of the index cite it, and its labels.
#[derive(Default)]
pub(super) struct HitExtras {
    pub citations: HashMap<String, usize>,
    pub labels: HashMap<String, Vec<Label>>,
}

impl HitExtras {
    pub fn of(store: &Store, hits: &[Hit]) -> anyhow::Result<HitExtras> {
        let mut extras = HitExtras::default();
        for h in hits {
            extras.citations.insert(h.id.clone(), store.linked(&h.id, Direction::Citations)?.len());
        }
        for m in store.marked(&MarkFilter::default())? {
            if let Some(id) = m.id {
                extras.labels.entry(id).or_default().extend(m.labels.iter().map(|l| l.label));
            }
        }
        Ok(extras)
    }
}

/// The facets of a result set: counts per year, venue and author.
#[derive(Default)]
pub(super) struct Facets {
    /// Hits counted (of the first of the ranking, up to the page's maximum, those that match the query).
    pub counted: usize,
    pub years: BTreeMap<i32, usize>,
    pub venues: Vec<(String, usize)>,
    pub authors: Vec<(String, usize)>,
}

/// How many venues and authors a facet lists.
const TOP: usize = 8;

impl Facets {
    pub fn of(hits: &[Hit]) -> Facets {
        let mut years = BTreeMap::new();
        let mut venues: HashMap<&str, usize> = HashMap::new();
        let mut authors: HashMap<&str, usize> = HashMap::new();
        // Only the hits that match the query themselves: a filter applies to
        // the first stage too, so a paper the walk alone brought in is not
        // found again under its year, venue or author.
        let hits: Vec<&Hit> =
            hits.iter().filter(|h| h.bm25_score > 0.0 || h.dense_score.is_some_and(|d| d > 0.0)).collect();
        for h in &hits {
            if let Some(y) = h.year {
                *years.entry(y).or_default() += 1;
            }
            if let Some(v) = h.venue.as_deref().filter(|v| !v.trim().is_empty()) {
                *venues.entry(v).or_default() += 1;
            }
            for a in &h.authors {
                *authors.entry(a.as_str()).or_default() += 1;
            }
        }
        let top = |m: HashMap<&str, usize>| {
            let mut v: Vec<(String, usize)> = m.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            v.truncate(TOP);
            v
        };
        Facets { counted: hits.len(), years, venues: top(venues), authors: top(authors) }
    }
}

/// The form with one filter set (a facet's link).
fn with(form: &SearchForm, field: &str, value: &str) -> String {
    let mut f = form.clone();
    match field {
        "year" => f.year = value.to_string(),
        "venue" => f.venue = value.to_string(),
        _ => f.author = value.to_string(),
    }
    search_url(&f, 0)
}

/// The facets beside the hits: a histogram of years (each bar a link to that
/// year), the top venues and authors (each a link adding the filter).
pub(super) fn facets(form: &SearchForm, f: &Facets) -> Markup {
    const H: f64 = 40.0;
    let max = f.years.values().copied().max().unwrap_or(0).max(1) as f64;
    let (first, last) = (f.years.keys().next().copied(), f.years.keys().last().copied());
    let span = match (first, last) {
        (Some(a), Some(b)) => (b - a + 1) as usize,
        _ => 0,
    };
    let w = if span > 0 { (240.0 / span as f64).clamp(3.0, 24.0) } else { 0.0 };
    html! {
        aside.facets aria-label="facets" {
            p.facetnote { "Facets of the " (f.counted) " best hits that match the query's words; a link adds the filter." }
            @if let (Some(first), Some(last)) = (first, last) {
                section.facet.years {
                    h3 { "Year" }
                    svg.histogram width=(format!("{:.0}", w * span as f64)) height=(H + 14.0) role="img" aria-label="hits per year" {
                        @for (y, n) in &f.years {
                            a href=(with(form, "year", &y.to_string())) {
                                @let h = (*n as f64 / max * H).max(3.0);
                                rect x=(format!("{:.1}", (y - first) as f64 * w)) y=(format!("{:.1}", H - h))
                                    width=(format!("{:.1}", (w - 1.0).max(1.0))) height=(format!("{h:.1}")) {
                                    title { (y) ": " (n) " hit" (if *n == 1 { "" } else { "s" }) }
                                }
                            }
                        }
                        text x="0" y=(H + 12.0) { (first) }
                        text x=(format!("{:.0}", w * span as f64)) y=(H + 12.0) text-anchor="end" { (last) }
                    }
                    p.range { a href=(with(form, "year", &format!("{first}..{last}"))) { (first) "–" (last) } }
                }
            }
            @if !f.venues.is_empty() {
                section.facet.venues {
                    h3 { "Venue" }
                    ul { @for (v, n) in &f.venues { li { a href=(with(form, "venue", v)) { bdi { (v) } } " " span.count { (n) } } } }
                }
            }
            @if !f.authors.is_empty() {
                section.facet.authors {
                    h3 { "Author" }
                    ul { @for (a, n) in &f.authors { li { a href=(with(form, "author", a)) { bdi { (a) } } " " span.count { (n) } } } }
                }
            }
        }
    }
}

/// A hit's marks and, with a token, its mark / unmark buttons (back to `back`).
pub(super) fn hit_marks(id: &str, labels: &[Label], token: Option<&str>, back: &str) -> Markup {
    html! {
        div.hitmarks {
            @for l in labels { span class=(format!("label {}", l.name())) { (l.name()) } " " }
            @if let Some(token) = token {
                @for label in LABELS {
                    @let active = labels.contains(&label);
                    form method="post" action=(if active { "/unmark" } else { "/mark" }) {
                        input type="hidden" name="token" value=(token);
                        input type="hidden" name="id" value=(id);
                        input type="hidden" name="label" value=(label.name());
                        input type="hidden" name="back" value=(back);
                        button type="submit" class=(format!("mark {}{}", label.name(), if active { " active" } else { "" }))
                            aria-pressed=(if active { "true" } else { "false" })
                            title=(if active { format!("remove the mark {}", label.name()) } else { format!("mark {}", label.name()) }) {
                            (label.name())
                        }
                    }
                }
            }
        }
    }
}

/// The `/marks` page's query: a label and a tag to filter by.
#[derive(Debug, Default, Clone, serde::Deserialize)]
pub(super) struct MarksQuery {
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub tag: String,
}

/// The `/marks` page: the marked papers by label (and tag), with links to filter and export.
pub(super) fn marks_page(q: &MarksQuery, marked: &[MarkedPaper], tags: &[String], token: Option<&str>) -> Markup {
    let ids: Vec<&str> = marked.iter().filter_map(|m| m.id.as_deref()).collect();
    let link = |label: &str, tag: &str| {
        let mut url = "/marks".to_string();
        let mut sep = '?';
        for (k, v) in [("label", label), ("tag", tag)] {
            if !v.is_empty() {
                url.push_str(&format!("{sep}{k}={}", encode(v)));
                sep = '&';
            }
        }
        url
    };
    let body = html! {
        h1 { "Marks" }
        nav.filters {
            a href=(link("", "")) aria-current=(if q.label.is_empty() && q.tag.is_empty() { "page" } else { "false" }) { "all" }
            @for l in LABELS {
                " · " a href=(link(l.name(), &q.tag)) aria-current=(if q.label == l.name() { "page" } else { "false" }) { (l.name()) }
            }
            @if !tags.is_empty() {
                " · tags: "
                @for t in tags { a.tag href=(link(&q.label, t)) { "#" bdi { (t) } } " " }
            }
        }
        p.summary {
            (marked.len()) " marked paper" (if marked.len() == 1 { "" } else { "s" })
            @if !q.label.is_empty() { " labelled " b { (q.label) } }
            @if !q.tag.is_empty() { " tagged " b { "#" bdi { (q.tag) } } }
            @if !ids.is_empty() { " · " (export_links(&ids)) }
            @if !ids.is_empty() && !q.label.is_empty() { " · " (super::explore::explore_links(None, Some(&q.label))) }
        }
        ol.marked {
            @for m in marked {
                li {
                    div.title {
                        @match (&m.id, &m.title) {
                            (Some(id), Some(t)) => { a href=(paper_url(id)) { bdi dir="auto" { (t) } } }
                            _ => { span.id { (m.stored_id) } " " small { "(dangling: not in this index)" } }
                        }
                    }
                    div.meta {
                        span.id { (m.stored_id) }
                        @for l in &m.labels {
                            " " span class=(format!("label {}", l.label.name())) { (l.label.name()) }
                            @if !l.note.is_empty() { " " bdi dir="auto" { "(" (l.note) ")" } }
                        }
                        @for t in &m.tags { " " span.tag { "#" bdi { (t) } } }
                    }
                    @if let (Some(id), Some(_)) = (&m.id, token) {
                        (hit_marks(id, &m.labels.iter().map(|l| l.label).collect::<Vec<_>>(), token, &link(&q.label, &q.tag)))
                    }
                }
            }
        }
    };
    super::pages::layout_with_search("Marks", &SearchForm::default(), body)
}
