//! `litindex paper`: one paper in full ([`litindex::api::paper`]).

use std::io::Write;

use crate::cli::{Format, PaperArgs};
use litindex::api::paper;
use litindex::store::Store;

pub fn run(args: &PaperArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let paper = paper(store, &args.id)?;
    match args.format {
        Format::Json => {
            super::write_json(out, &paper)?;
        }
        Format::Table => {
            let year = paper.year.map_or("-".to_string(), |y| y.to_string());
            writeln!(out, "id          {}", paper.id)?;
            writeln!(out, "title       {}", paper.title)?;
            writeln!(out, "year        {year}")?;
            writeln!(out, "authors     {}", paper.authors.join("; "))?;
            writeln!(out, "venue       {}", paper.venue.as_deref().unwrap_or("-"))?;
            writeln!(out, "source      {}", paper.source)?;
            writeln!(out, "references  {}", list(&paper.references))?;
            writeln!(out, "cited by    {}", list(&paper.citations))?;
            writeln!(out)?;
            writeln!(out, "{}", if paper.abstract_.is_empty() { "(no abstract)" } else { &paper.abstract_ })?;
        }
    }
    Ok(())
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() { "-".into() } else { format!("{} ({})", ids.join(", "), ids.len()) }
}
