//! `litindex mark` and `litindex unmark`: labels and tags on papers, written
//! in one transaction (all the ids, or none of them).

use std::io::Write;
use std::path::Path;

use super::{UsageError, print_note};
use crate::cli::{MarkArgs, UnmarkArgs};
use litindex::store::{Label, UserEdit, edit};

/// Splits `ID... LABEL`: the last argument is the label when it names one.
/// `label_required`: a last argument that is not a label is a usage error.
fn split_label(args: &[String], label_required: bool) -> Result<(&[String], Option<Label>), UsageError> {
    let (last, rest) = args.split_last().ok_or_else(|| UsageError("no paper id given".into()))?;
    let (ids, label) = match last.parse::<Label>() {
        Ok(label) => (rest, Some(label)),
        Err(e) if label_required => return Err(UsageError(format!("{e}; give the label after the ids"))),
        Err(_) => (args, None),
    };
    if ids.is_empty() {
        return Err(UsageError("no paper id given before the label".into()));
    }
    Ok((ids, label))
}

/// The non-empty, trimmed tags, or a usage error for an empty one.
fn tags(tags: &[String]) -> Result<Vec<String>, UsageError> {
    tags.iter()
        .map(|t| {
            let t = t.trim();
            if t.is_empty() { Err(UsageError("--tag needs a non-empty name".into())) } else { Ok(t.to_string()) }
        })
        .collect()
}

pub fn run(args: &MarkArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let tags = tags(&args.tag)?;
    let (ids, label) = split_label(&args.args, tags.is_empty())?;
    if args.note.is_some() && label.is_none() {
        return Err(UsageError("--note goes with a label (favorite, exclude, to-read, read)".into()).into());
    }
    let lines = edit(db, &print_note, |e| {
        let mut resolved = Vec::with_capacity(ids.len());
        let mut unknown = Vec::new();
        for input in ids {
            match e.resolve(input)? {
                Some(id) => resolved.push((id, false)),
                None if args.allow_missing => resolved.push((UserEdit::dangling_key(input), true)),
                None => unknown.push(format!("`{input}`")),
            }
        }
        if !unknown.is_empty() {
            anyhow::bail!(
                "unknown paper id{} {} in {}; nothing was marked (--allow-missing keeps them as dangling marks)",
                if unknown.len() > 1 { "s" } else { "" },
                unknown.join(", "),
                db.display()
            );
        }
        let mut lines = Vec::new();
        for (id, dangling) in resolved {
            if let Some(label) = label {
                e.mark(&id, label, args.note.as_deref())?;
            }
            for t in &tags {
                e.tag(&id, t)?;
            }
            let what: Vec<String> =
                label.map(|l| l.to_string()).into_iter().chain(tags.iter().map(|t| format!("#{t}"))).collect();
            lines.push(format!(
                "{id}  {}{}",
                what.join(" "),
                if dangling { "  (dangling: not in the index)" } else { "" }
            ));
        }
        Ok(lines)
    })?;
    for line in lines {
        writeln!(out, "marked {line}")?;
    }
    Ok(())
}

pub fn run_unmark(args: &UnmarkArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let tags = tags(&args.tag)?;
    let (ids, label) = split_label(&args.args, false)?;
    let removed = edit(db, &print_note, |e| {
        let mut n = 0;
        for input in ids {
            // A mark may be stored under the paper's id or, dangling, under the id's key.
            let mut names = vec![input.trim().to_string(), UserEdit::dangling_key(input)];
            names.extend(e.resolve(input)?);
            n += if tags.is_empty() {
                e.unmark(&names, label)?
            } else {
                tags.iter().map(|t| e.untag(&names, t)).sum::<anyhow::Result<usize>>()?
            };
        }
        Ok(n)
    })?;
    let what = if tags.is_empty() { "mark" } else { "tag" };
    writeln!(out, "removed {removed} {what}{}", if removed == 1 { "" } else { "s" })?;
    Ok(())
}
