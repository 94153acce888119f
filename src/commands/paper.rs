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
            for data in store.zotero_data(&paper.id)? {
                zotero_lines(&data, out)?;
            }
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

/// What a Zotero item holds beside the record (`zotero_items.data`): its
/// type, creators other than authors, collections and tags, attachments,
/// notes.
fn zotero_lines(data: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    let v: serde_json::Value = serde_json::from_str(data)?;
    let strs = |key: &str, field: Option<&str>| -> Vec<String> {
        v[key]
            .as_array()
            .map(|a| a.iter().filter_map(|x| field.map_or(x, |f| &x[f]).as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    writeln!(
        out,
        "zotero      {}{}",
        v["item_type"].as_str().unwrap_or("-"),
        v["url"].as_str().map(|u| format!(", {u}")).unwrap_or_default()
    )?;
    if let Some(creators) = v["creators"].as_array() {
        let others: Vec<String> = creators
            .iter()
            .filter(|c| c["role"] != "author")
            .map(|c| format!("{} ({})", c["name"].as_str().unwrap_or(""), c["role"].as_str().unwrap_or("")))
            .collect();
        if !others.is_empty() {
            writeln!(out, "  creators  {}", others.join("; "))?;
        }
    }
    let collections = strs("collections", None);
    if !collections.is_empty() {
        writeln!(out, "  in        {}", collections.join("; "))?;
    }
    let tags = strs("tags", Some("name"));
    if !tags.is_empty() {
        writeln!(out, "  tags      {}", tags.join("; "))?;
    }
    for a in v["attachments"].as_array().into_iter().flatten() {
        let file = a["file"].as_str().or(a["path"].as_str()).unwrap_or("(no file)");
        let state = if a["exists"] == true {
            ""
        } else if a["file"].is_string() {
            " (missing)"
        } else {
            ""
        };
        writeln!(out, "  attached  {} {file}{state}", a["content_type"].as_str().unwrap_or(""))?;
    }
    let notes = strs("notes", None);
    for n in &notes {
        let short: String = n.chars().take(100).collect();
        writeln!(out, "  note      {short}{}", if short.len() < n.len() { "…" } else { "" })?;
    }
    Ok(())
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() { "-".into() } else { format!("{} ({})", ids.join(", "), ids.len()) }
}
