//! `litindex neighbors`: the k-hop neighbourhood of one id ([`litindex::api::neighbors`]).

use std::io::Write;

use crate::cli::{Engine, Format, NeighborsArgs};
use litindex::api::{NeighborsRequest, WalkEngine, neighbors};
use litindex::store::Store;

pub fn run(args: &NeighborsArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let request = NeighborsRequest {
        id: args.id.clone(),
        hops: args.hops,
        direction: args.direction,
        engine: match args.engine {
            Engine::Sql => WalkEngine::Sql,
            Engine::Memory => WalkEngine::Memory,
        },
    };
    let hood = neighbors(store, &request)?;
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
