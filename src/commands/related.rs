//! `litindex related`: papers like the given ones, each result explained.

use std::io::Write;

use super::search::truncate;
use clap::ValueEnum;

use crate::cli::{Format, RelatedArgs, RelatedMethod};
use litindex::api::{marked, resolve_distinct};
use litindex::explore::{Method, related};
use litindex::store::Store;

pub fn run(args: &RelatedArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut seeds = resolve_distinct(store, &args.ids)?;
    if let Some(label) = args.from_marks {
        for id in marked(store, label)? {
            if !seeds.contains(&id) {
                seeds.push(id);
            }
        }
    }
    let method = match args.method {
        RelatedMethod::Cocitation => Method::Cocitation,
        RelatedMethod::Coupling => Method::Coupling,
        RelatedMethod::Both => Method::Both,
        RelatedMethod::Text => Method::Text,
    };
    let result = related(store, &seeds, method, usize::try_from(args.limit).unwrap_or(usize::MAX))?;
    match args.format {
        Format::Json => super::write_json(out, &result)?,
        Format::Table => {
            writeln!(
                out,
                "{:>4}  {:<12} {:>6} {:>6} {:>6} {:>6} {:>4}  title / shared",
                "rank", "id", "score", "cocit", "coupl", "text", "year"
            )?;
            for (i, r) in result.related.iter().enumerate() {
                let year = r.year.map_or("-".to_string(), |y| y.to_string());
                writeln!(
                    out,
                    "{:>4}  {:<12} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>4}  {}",
                    i + 1,
                    r.id,
                    r.score,
                    r.cocitation,
                    r.coupling,
                    r.text_norm,
                    year,
                    truncate(&r.title, 60)
                )?;
                if r.shared_citers > 0 {
                    writeln!(
                        out,
                        "{:>50}cited with it by {}: {}",
                        "",
                        r.shared_citers,
                        r.shared_citers_sample.join(", ")
                    )?;
                }
                if r.shared_references > 0 {
                    let sample = r.shared_references_sample.join(", ");
                    writeln!(out, "{:>50}both cite {}: {sample}", "", r.shared_references)?;
                }
            }
            if !result.terms.is_empty() {
                writeln!(out, "text query: {}", result.terms.join(" "))?;
            }
            if let Some(model) = &result.vectors {
                writeln!(out, "text = (BM25 / its max + cosine of the stored {model} vectors) / 2")?;
            }
            writeln!(
                out,
                "{} related to {} (method {}); cocit/coupl = Salton's cosine, text = BM25 more-like-this / its max",
                result.related.len(),
                result.seeds.join(", "),
                args.method.to_possible_value().map_or(String::new(), |v| v.get_name().to_string())
            )?;
        }
    }
    Ok(())
}
