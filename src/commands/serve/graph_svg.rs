//! The citation neighbourhood of a paper as SVG, drawn on the server: the
//! paper in the middle, the papers one hop away (cited or citing) on an
//! inner ring, two hops on an outer one, each a link to its page.

use std::collections::{BTreeMap, HashSet};
use std::f64::consts::TAU;

use maud::{Markup, html};

use super::pages::paper_url;
use litindex::graph::Direction;
use litindex::store::Store;

/// How far the picture reaches.
pub(super) const HOPS: u32 = 2;
/// The most nodes it draws (the paper included); the nearest are kept.
pub(super) const MAX_NODES: usize = 60;

const SIZE: f64 = 560.0;
const RINGS: [f64; 3] = [0.0, 120.0, 240.0];

/// A node: its id, hop, title (`None`: not indexed) and position.
struct Node {
    id: String,
    hop: u32,
    title: Option<String>,
    x: f64,
    y: f64,
}

/// The nodes kept: the `MAX_NODES` nearest within `HOPS`, ordered by hop, then id.
fn nodes(store: &Store, id: &str) -> anyhow::Result<(Vec<Node>, usize)> {
    let mut reached: Vec<(String, u32)> =
        store.expand_cte(&[id.to_string()], HOPS, Direction::Both)?.into_iter().collect();
    reached.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let total = reached.len();
    reached.truncate(MAX_NODES);
    let mut per_hop: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, hop) in &reached {
        *per_hop.entry(*hop).or_default() += 1;
    }
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(reached.len());
    for (node, hop) in reached {
        let i = seen.entry(hop).or_default();
        let n = per_hop[&hop];
        // Evenly spaced on the hop's ring, the outer ring turned by half a step.
        let angle = TAU * (*i as f64 + if hop == 2 { 0.5 } else { 0.0 }) / n as f64 - TAU / 4.0;
        *i += 1;
        let r = RINGS[(hop as usize).min(2)];
        let title = store.paper(&node)?.map(|p| p.title);
        out.push(Node { id: node, hop, title, x: SIZE / 2.0 + r * angle.cos(), y: SIZE / 2.0 + r * angle.sin() });
    }
    Ok((out, total))
}

/// The SVG of `id`'s neighbourhood (a standalone document as well as inline HTML).
pub(super) fn neighbourhood(store: &Store, id: &str) -> anyhow::Result<Markup> {
    let (nodes, total) = nodes(store, id)?;
    let kept: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let at: BTreeMap<&str, (f64, f64)> = nodes.iter().map(|n| (n.id.as_str(), (n.x, n.y))).collect();
    let mut edges = Vec::new();
    for n in &nodes {
        for cited in store.linked(&n.id, Direction::References)? {
            if kept.contains(cited.as_str()) && cited != n.id {
                edges.push((at[n.id.as_str()], at[cited.as_str()]));
            }
        }
    }
    let caption = if total > nodes.len() {
        format!("{} of {total} papers within {HOPS} hops (the nearest)", nodes.len())
    } else {
        format!("{} papers within {HOPS} hops", nodes.len())
    };
    let f = |v: f64| format!("{v:.1}");
    Ok(html! {
        svg.neighbourhood xmlns="http://www.w3.org/2000/svg" width=(SIZE) height=(SIZE + 24.0)
            viewBox=(format!("0 0 {SIZE} {}", SIZE + 24.0)) role="img" {
            title { "Citation neighbourhood of " (id) ": " (caption) }
            @for ((x1, y1), (x2, y2)) in &edges {
                line.edge x1=(f(*x1)) y1=(f(*y1)) x2=(f(*x2)) y2=(f(*y2)) {}
            }
            @for n in &nodes {
                a href=(paper_url(&n.id)) {
                    circle class=(format!("node hop{}{}", n.hop, if n.title.is_none() { " dangling" } else { "" }))
                        cx=(f(n.x)) cy=(f(n.y)) r=(if n.hop == 0 { "14" } else { "7" }) {
                        title { (n.id) @if let Some(t) = &n.title { ": " (t) } @else { " (not in the index)" } }
                    }
                }
            }
            @if let Some(seed) = nodes.first() {
                text.seed x=(f(seed.x)) y=(f(seed.y - 20.0)) text-anchor="middle" { (seed.id) }
            }
            text.caption x="8" y=(f(SIZE + 16.0)) { (caption) " · hop 0 · 1 · 2 by colour" }
        }
    })
}
