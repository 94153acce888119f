//! `litindex paper`: one paper in full ([`litindex::api::paper`]).

use std::io::Write;

use crate::cli::{Format, PaperArgs};
use litindex::api::paper;
use litindex::store::Store;

pub fn run(args: &PaperArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.text {
        return text(args, store, out);
    }
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
            for d in &paper.documents {
                writeln!(
                    out,
                    "full text   {} ({} pages, {} passages; `paper {} --text`)",
                    d.path, d.pages, d.passages, paper.id
                )?;
                for n in &d.notes {
                    writeln!(out, "  note      {n}")?;
                }
            }
            writeln!(out)?;
            writeln!(out, "{}", if paper.abstract_.is_empty() { "(no abstract)" } else { &paper.abstract_ })?;
            if !paper.cited_in_context.is_empty() {
                writeln!(out)?;
                writeln!(out, "cited in context ({} citer(s) with full text)", paper.cited_in_context.len())?;
                for c in &paper.cited_in_context {
                    let label = c.label.as_deref().map(|l| format!("[{l}] ")).unwrap_or_default();
                    writeln!(out, "  {}  {}", c.citing, c.citing_title)?;
                    writeln!(out, "    as {label}{}", c.reference)?;
                    super::why::write_sentences(out, &c.sentences, "    ")?;
                }
            }
        }
    }
    Ok(())
}

/// `paper ID --text`: the structured text of each PDF filed under the paper.
fn text(args: &PaperArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let docs = litindex::api::paper_text(store, &args.id)?;
    match args.format {
        Format::Json => super::write_json(out, &docs)?,
        Format::Table => {
            if docs.is_empty() {
                anyhow::bail!("{} has no full text: ingest its PDF (`litindex ingest FILE.pdf`)", args.id);
            }
            for (i, d) in docs.iter().enumerate() {
                if docs.len() > 1 {
                    if i > 0 {
                        writeln!(out)?;
                    }
                    writeln!(out, "=== {} ({} pages)", d.path, d.pages)?;
                }
                for n in &d.notes {
                    writeln!(out, "(note: {n})")?;
                }
                writeln!(out, "{}", d.text)?;
            }
        }
    }
    Ok(())
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() { "-".into() } else { format!("{} ({})", ids.join(", "), ids.len()) }
}
