//! `litindex paper`: one paper in full.

use std::io::Write;

use crate::cli::{Format, PaperArgs};
use litindex::graph::Direction;
use litindex::store::Store;

pub fn run(args: &PaperArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let row = match store.resolve(&args.id)? {
        Some(id) => store.paper(&id)?,
        None => None,
    };
    let Some(row) = row else {
        anyhow::bail!("unknown paper id `{}` in {}", args.id, store.path().display());
    };
    let paper = PaperJson {
        references: store.linked(&row.id, Direction::References)?,
        citations: store.linked(&row.id, Direction::Citations)?,
        id: row.id,
        title: row.title,
        abstract_: row.abstract_,
        year: row.year,
        authors: row.authors,
        source: row.source,
        venue: row.venue,
    };
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

/// What `paper --format json` prints.
#[derive(serde::Serialize)]
struct PaperJson {
    id: String,
    title: String,
    #[serde(rename = "abstract")]
    abstract_: String,
    year: Option<i32>,
    authors: Vec<String>,
    /// Ids this paper cites.
    references: Vec<String>,
    /// Ids that cite it.
    citations: Vec<String>,
    /// The contributing sources, joined by `+`.
    source: String,
    /// Where it was published (null when no source said).
    venue: Option<String>,
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() { "-".into() } else { format!("{} ({})", ids.join(", "), ids.len()) }
}
