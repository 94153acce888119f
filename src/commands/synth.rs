//! `litindex gen`: a synthetic corpus (Paper JSON Lines) on stdout, and
//! optionally a query set drawn from the same distribution.

use std::fs::File;
use std::io::{BufWriter, Write};

use anyhow::Context;

use crate::cli::GenArgs;
use litindex::synth::Generator;

pub fn run(args: &GenArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let generator = Generator::new(args.seed);
    if let Some(path) = &args.queries {
        let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut w = BufWriter::new(file);
        generator.write_queries(args.num_queries, &mut w)?;
        w.flush().with_context(|| format!("cannot write {}", path.display()))?;
    }
    let stats = generator.write_corpus(args.papers, out)?;
    out.flush()?;
    eprintln!(
        "litindex: generated {} papers (seed {}): {} references ({:.1} per paper, most-cited paper {} times), \
         {:.1} abstract tokens per paper{}",
        stats.papers,
        args.seed,
        stats.references,
        stats.references as f64 / stats.papers.max(1) as f64,
        stats.max_in_degree,
        stats.abstract_tokens as f64 / stats.papers.max(1) as f64,
        match &args.queries {
            Some(p) => format!("; {} queries in {}", args.num_queries, p.display()),
            None => String::new(),
        }
    );
    Ok(())
}
