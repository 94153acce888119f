//! The citation neighbourhood of a paper as SVG, drawn on the server, laid
//! out as Connected Papers and Litmaps do: papers placed by year along the
//! x axis (undated ones in a column of their own at the right), in one band
//! per hop (the paper's own in the middle, one hop above, two hops below),
//! each circle sized by how many papers of the index cite it and coloured by
//! hop, labelled with its first author's surname and year, a `<title>` with
//! its full title, and an arrow on every edge from the citing paper to the
//! cited one. Each node links to its page. [`neighbourhood_list`] is the
//! same papers as a list, shown beside the picture. The SVG is a standalone
//! document too (`/graph.svg`).

use std::collections::{BTreeMap, HashSet};

use maud::{Markup, html};

use super::pages::paper_url;
use litindex::graph::Direction;
use litindex::store::Store;

/// How far the picture reaches.
pub(super) const HOPS: u32 = 2;
/// The most nodes it draws (the paper included); the nearest are kept.
pub(super) const MAX_NODES: usize = 60;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 520.0;
const LEFT: f64 = 40.0;
/// The column of undated papers, at the right.
const UNDATED: f64 = 60.0;
/// The top of each hop's band (hop 1 above, the paper, hop 2 below), and its height.
const BANDS: [(f64, f64); 3] = [(215.0, 70.0), (30.0, 170.0), (300.0, 180.0)];

/// A node: its id, hop, what the index knows of it, and its place.
struct Node {
    id: String,
    hop: u32,
    title: Option<String>,
    year: Option<i32>,
    label: String,
    cited_by: usize,
    x: f64,
    y: f64,
    r: f64,
}

/// The first author's surname (the last word of the name).
fn surname(name: &str) -> &str {
    name.split_whitespace().last().unwrap_or(name)
}

/// The nodes kept: the `MAX_NODES` nearest within `HOPS`, placed.
fn nodes(store: &Store, id: &str) -> anyhow::Result<(Vec<Node>, usize)> {
    let mut reached: Vec<(String, u32)> =
        store.expand_cte(&[id.to_string()], HOPS, Direction::Both)?.into_iter().collect();
    reached.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let total = reached.len();
    reached.truncate(MAX_NODES);
    let mut out = Vec::with_capacity(reached.len());
    for (node, hop) in reached {
        let row = store.paper(&node)?;
        let cited_by = store.linked(&node, Direction::Citations)?.len();
        let (title, year, label) = match row {
            Some(p) => {
                let who = p.authors.first().map_or(node.as_str(), |a| surname(a)).to_string();
                let label = match p.year {
                    Some(y) => format!("{who} {y}"),
                    None => who,
                };
                (Some(p.title), p.year, label)
            }
            None => (None, None, node.clone()),
        };
        let r = 4.0 + 2.5 * (1.0 + cited_by as f64).ln();
        out.push(Node {
            id: node,
            hop,
            title,
            year,
            label,
            cited_by,
            x: 0.0,
            y: 0.0,
            r: if hop == 0 { r.max(10.0) } else { r },
        });
    }
    place(&mut out);
    Ok((out, total))
}

/// x by year over the nodes' year range, y spread within the hop's band
/// (the papers of one year and hop one under the other).
fn place(nodes: &mut [Node]) {
    let years: Vec<i32> = nodes.iter().filter_map(|n| n.year).collect();
    let (lo, hi) = (years.iter().copied().min().unwrap_or(0), years.iter().copied().max().unwrap_or(0));
    let span = (hi - lo).max(1) as f64;
    let plot = WIDTH - LEFT - UNDATED - 30.0;
    let mut slots: BTreeMap<(u32, Option<i32>), usize> = BTreeMap::new();
    for n in nodes.iter() {
        *slots.entry((n.hop.min(2), n.year)).or_default() += 1;
    }
    let mut seen: BTreeMap<(u32, Option<i32>), usize> = BTreeMap::new();
    for n in nodes.iter_mut() {
        let key = (n.hop.min(2), n.year);
        let (i, count) = (*seen.entry(key).or_default(), slots[&key]);
        *seen.get_mut(&key).unwrap() += 1;
        n.x = match n.year {
            Some(y) if hi > lo => LEFT + (y - lo) as f64 / span * plot,
            Some(_) => LEFT + plot / 2.0,
            None => WIDTH - UNDATED / 2.0 - 10.0,
        };
        let (top, height) = BANDS[key.0 as usize];
        n.y = top + height * (i as f64 + 0.5) / count as f64;
        // Alternate a little left and right so labels of one column overlap less.
        if count > 1 {
            n.x += if i % 2 == 0 { -6.0 } else { 6.0 };
        }
    }
}

/// A node's fill (also set by the stylesheet; this for the SVG alone).
fn colour(n: &Node) -> &'static str {
    match (n.title.is_some(), n.hop) {
        (false, _) => "#aab1b9",
        (_, 0) => "#c0392b",
        (_, 1) => "#3b6fb6",
        _ => "#4c9a52",
    }
}

/// The SVG of `id`'s neighbourhood (a standalone document as well as inline HTML).
pub(super) fn neighbourhood(store: &Store, id: &str) -> anyhow::Result<Markup> {
    let (nodes, total) = nodes(store, id)?;
    let kept: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let at: BTreeMap<&str, &Node> = nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut edges = Vec::new();
    for n in &nodes {
        for cited in store.linked(&n.id, Direction::References)? {
            if kept.contains(cited.as_str()) && cited != n.id {
                edges.push((&at[n.id.as_str()], &at[cited.as_str()]));
            }
        }
    }
    let caption = if total > nodes.len() {
        format!("{} of {total} papers within {HOPS} hops (the nearest)", nodes.len())
    } else {
        format!("{} papers within {HOPS} hops", nodes.len())
    };
    let years: Vec<i32> = nodes.iter().filter_map(|n| n.year).collect();
    let (lo, hi) = (years.iter().min().copied(), years.iter().max().copied());
    let f = |v: f64| format!("{v:.1}");
    Ok(html! {
        svg.neighbourhood xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(HEIGHT + 40.0)
            viewBox=(format!("0 0 {WIDTH} {}", HEIGHT + 40.0)) role="img" {
            title { "Citation neighbourhood of " (id) ": " (caption) }
            defs {
                marker #arrow viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse" {
                    path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" fill="#9aa3ad" {}
                }
            }
            // The year axis.
            line.axis stroke="#c5ccd3" x1=(f(LEFT)) y1=(f(HEIGHT)) x2=(f(WIDTH - UNDATED - 30.0)) y2=(f(HEIGHT)) {}
            @if let (Some(lo), Some(hi)) = (lo, hi) {
                text.year x=(f(LEFT)) y=(f(HEIGHT + 14.0)) text-anchor="middle" { (lo) }
                @if hi > lo { text.year x=(f(WIDTH - UNDATED - 30.0)) y=(f(HEIGHT + 14.0)) text-anchor="middle" { (hi) } }
            }
            @if nodes.iter().any(|n| n.year.is_none()) {
                text.year x=(f(WIDTH - UNDATED / 2.0 - 10.0)) y=(f(HEIGHT + 14.0)) text-anchor="middle" { "no year" }
            }
            text.band x="4" y=(f(BANDS[1].0 + 10.0)) { "1 hop" }
            text.band x="4" y=(f(BANDS[0].0 + 10.0)) { "this paper" }
            text.band x="4" y=(f(BANDS[2].0 + 10.0)) { "2 hops" }
            // Edges from the citing paper to the cited one, stopping at the cited circle.
            @for (a, b) in &edges {
                @let (dx, dy) = (b.x - a.x, b.y - a.y);
                @let len = (dx * dx + dy * dy).sqrt().max(1.0);
                line.edge stroke="#9aa3ad" stroke-width="0.8" x1=(f(a.x + dx / len * a.r)) y1=(f(a.y + dy / len * a.r))
                    x2=(f(b.x - dx / len * (b.r + 1.0))) y2=(f(b.y - dy / len * (b.r + 1.0))) marker-end="url(#arrow)" {}
            }
            @for n in &nodes {
                a href=(paper_url(&n.id)) {
                    circle class=(format!("node hop{}{}", n.hop, if n.title.is_none() { " dangling" } else { "" }))
                        cx=(f(n.x)) cy=(f(n.y)) r=(f(n.r)) fill=(colour(n)) stroke="#fff" {
                        title {
                            @match &n.title {
                                Some(t) => { (t) " (" (n.label) "; cited by " (n.cited_by) " in the index; " (n.hop) " hop" (if n.hop == 1 { "" } else { "s" }) ")" }
                                None => { (n.id) " (not in the index)" }
                            }
                        }
                    }
                    text.label x=(f(n.x + n.r + 2.0)) y=(f(n.y + 4.0)) font-size="9" { (n.label) }
                }
            }
            text.caption x="8" y=(f(HEIGHT + 34.0)) {
                (caption) " · placed by year, sized by citations in the index, coloured by hop · arrows point from the citing paper to the cited one"
            }
        }
    })
}

/// The same papers as a list (beside the picture): label, title, hop, citations.
pub(super) fn neighbourhood_list(store: &Store, id: &str) -> anyhow::Result<Markup> {
    let (nodes, _) = nodes(store, id)?;
    Ok(html! {
        ol.neighbours {
            @for n in nodes.iter().skip(1) {
                li class=(format!("hop{}", n.hop)) {
                    span.hop { (n.hop) } " "
                    @match &n.title {
                        Some(t) => { a href=(paper_url(&n.id)) { bdi dir="auto" { (t) } } " " small { (n.label) " · cited by " (n.cited_by) } }
                        None => { span.id { (n.id) } " " small { "(not in the index)" } }
                    }
                }
            }
        }
    })
}
