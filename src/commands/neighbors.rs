//! `litindex neighbors`: the k-hop neighbourhood of one id.

use std::io::Write;

use anyhow::Context;
use serde::Serialize;

use crate::cli::{Engine, Format, NeighborsArgs};
use litindex::graph::bfs;
use litindex::paper::PaperId;
use litindex::store::{Store, StoreAdjacency};

/// Deepest walk `neighbors` allows.

#[derive(Serialize)]
struct Node {
    id: String,
    distance: u32,
    /// Whether the id is an indexed paper (false: a dangling id).
    indexed: bool,
    #[serde(skip)]
    title: Option<String>,
}

#[derive(Serialize)]
struct Neighborhood<'a> {
    seed: &'a str,
    hops: u32,
    direction: &'static str,
    nodes: Vec<Node>,
}

pub fn run(args: &NeighborsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    // A paper by any alias, else a dangling id as written or normalised.
    let seed = match store.resolve(&args.id)? {
        Some(id) => id,
        None => [args.id.trim().to_string(), PaperId::parse(&args.id).key()]
            .into_iter()
            .find_map(|id| store.is_node(&id).ok().filter(|&known| known).map(|_| id))
            .with_context(|| format!("unknown paper id `{}` in {}", args.id, store.path().display()))?,
    };
    let seeds = [seed.clone()];
    let reached = match args.engine {
        Engine::Sql => store.expand_cte(&seeds, args.hops, args.direction)?,
        Engine::Memory => bfs(&StoreAdjacency(store), &seeds, args.hops, args.direction)?,
    };
    let mut nodes = Vec::with_capacity(reached.len());
    for (id, distance) in reached {
        let title = store.paper(&id)?.map(|p| p.title);
        nodes.push(Node { indexed: title.is_some(), title, id, distance });
    }
    nodes.sort_by(|a, b| a.distance.cmp(&b.distance).then_with(|| a.id.cmp(&b.id)));
    let hood = Neighborhood { seed: &seed, hops: args.hops, direction: args.direction.name(), nodes };
    match args.format {
        Format::Json => {
            super::write_json(out, &hood)?;
        }
        Format::Table => {
            writeln!(out, "{:>4}  {:<14} title", "hop", "id")?;
            for n in &hood.nodes {
                let title = n.title.as_deref().map_or("(not indexed)".to_string(), |t| super::search::truncate(t, 70));
                writeln!(out, "{:>4}  {:<14} {}", n.distance, n.id, title)?;
            }
            writeln!(
                out,
                "{} nodes within {} hops of {} ({})",
                hood.nodes.len(),
                hood.hops,
                hood.seed,
                hood.direction
            )?;
        }
    }
    Ok(())
}
