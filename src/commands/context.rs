//! `litindex context`: a numbered source pack for an LLM.

use std::io::Write;

use crate::cli::{ContextArgs, PackFormat};
use litindex::context::pack;
use litindex::store::Store;

pub fn run(args: &ContextArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let k = args.k as usize;
    let choices = args.search.choices(&args.question, k, 0, false);
    let resolved = super::search::resolve(&choices, Some(&args.marks), store)?;
    let (request, index) = (resolved.request, resolved.semantic);
    let pack = pack(store, &request, index.as_ref(), k, args.budget_tokens.map(|b| b as usize))?;
    match args.format {
        PackFormat::Json => super::write_json(out, &pack)?,
        PackFormat::Markdown => out.write_all(pack.to_markdown().as_bytes())?,
    }
    if pack.omitted > 0 {
        eprintln!(
            "litindex: {} source(s) left out to stay within {} tokens (estimated {} tokens)",
            pack.omitted,
            pack.budget_tokens.unwrap_or_default(),
            pack.estimated_tokens
        );
    }
    Ok(())
}
