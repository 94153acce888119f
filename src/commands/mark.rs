//! `litindex mark` and `litindex unmark`: labels and tags on papers
//! ([`litindex::api::mark`]: one transaction, all the ids or none of them).

use std::io::Write;
use std::path::Path;

use super::{UsageError, print_note};
use crate::cli::{MarkArgs, UnmarkArgs};
use litindex::api::{MarkRequest, UnmarkRequest, mark, unmark};
use litindex::store::Label;

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

/// An empty `--tag` is refused before the ids are read (the library refuses it too).
fn blank_tags(tags: &[String]) -> Result<(), UsageError> {
    match tags.iter().any(|t| t.trim().is_empty()) {
        true => Err(UsageError("--tag needs a non-empty name".into())),
        false => Ok(()),
    }
}

pub fn run(args: &MarkArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    blank_tags(&args.tag)?;
    let (ids, label) = split_label(&args.args, args.tag.is_empty())?;
    let request = MarkRequest {
        ids: ids.to_vec(),
        label,
        note: args.note.clone(),
        tags: args.tag.clone(),
        allow_missing: args.allow_missing,
    };
    for marked in mark(db, &print_note, &request)? {
        writeln!(out, "marked {marked}")?;
    }
    Ok(())
}

pub fn run_unmark(args: &UnmarkArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    blank_tags(&args.tag)?;
    let (ids, label) = split_label(&args.args, false)?;
    let request = UnmarkRequest { ids: ids.to_vec(), label, tags: args.tag.clone() };
    let removed = unmark(db, &print_note, &request)?;
    let what = if request.tags.is_empty() { "mark" } else { "tag" };
    writeln!(out, "removed {removed} {what}{}", if removed == 1 { "" } else { "s" })?;
    Ok(())
}
