//! Marking papers: what `litindex mark` / `unmark`, MCP's `mark` / `unmark`
//! and the web page's buttons write, in one transaction (all the ids, or
//! none of them).

use std::fmt;
use std::path::Path;

use serde::Serialize;

use super::error::BadRequest;
use crate::store::{Label, Notes, UserEdit, edit};

/// Labels and tags to put on papers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkRequest {
    /// Paper ids or aliases.
    pub ids: Vec<String>,
    pub label: Option<Label>,
    /// Kept with the label (needs one).
    pub note: Option<String>,
    /// Free tags to add (trimmed; none may be empty).
    pub tags: Vec<String>,
    /// Keep marks of ids the index does not hold (dangling) instead of failing.
    pub allow_missing: bool,
}

/// Marks to remove.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnmarkRequest {
    pub ids: Vec<String>,
    /// The one label to remove (every label when `None`), unless `tags` are given.
    pub label: Option<Label>,
    /// Remove these tags instead of labels.
    pub tags: Vec<String>,
}

/// One paper marked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Marked {
    /// The id the marks are stored under.
    pub id: String,
    pub label: Option<Label>,
    pub tags: Vec<String>,
    /// Not in the index: kept as a dangling mark.
    pub dangling: bool,
}

impl fmt::Display for Marked {
    /// `ID  label #tag`, as `mark` prints it after `marked `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what: Vec<String> =
            self.label.map(|l| l.to_string()).into_iter().chain(self.tags.iter().map(|t| format!("#{t}"))).collect();
        write!(
            f,
            "{}  {}{}",
            self.id,
            what.join(" "),
            if self.dangling { "  (dangling: not in the index)" } else { "" }
        )
    }
}

/// The non-empty, trimmed tags, or a [`BadRequest`] for an empty one.
fn tags(tags: &[String]) -> Result<Vec<String>, BadRequest> {
    tags.iter()
        .map(|t| {
            let t = t.trim();
            if t.is_empty() { Err(BadRequest("--tag needs a non-empty name".into())) } else { Ok(t.to_string()) }
        })
        .collect()
}

/// Puts the request's label and tags on every paper it names, in the index at `db`.
pub fn mark(db: &Path, notes: Notes, request: &MarkRequest) -> anyhow::Result<Vec<Marked>> {
    let tags = tags(&request.tags)?;
    if request.ids.is_empty() {
        return Err(BadRequest("no paper id given".into()).into());
    }
    if request.label.is_none() && tags.is_empty() {
        return Err(BadRequest("no label given (favorite, exclude, to-read, read) and no tag".into()).into());
    }
    if request.note.is_some() && request.label.is_none() {
        return Err(BadRequest("--note goes with a label (favorite, exclude, to-read, read)".into()).into());
    }
    edit(db, notes, |e| {
        let mut resolved = Vec::with_capacity(request.ids.len());
        let mut unknown = Vec::new();
        for input in &request.ids {
            match e.resolve(input)? {
                Some(id) => resolved.push((id, false)),
                None if request.allow_missing => resolved.push((UserEdit::dangling_key(input), true)),
                None => unknown.push(format!("`{}`", super::error::clip(input))),
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
        let mut marked = Vec::new();
        for (id, dangling) in resolved {
            if let Some(label) = request.label {
                e.mark(&id, label, request.note.as_deref())?;
            }
            for t in &tags {
                e.tag(&id, t)?;
            }
            marked.push(Marked { id, label: request.label, tags: tags.clone(), dangling });
        }
        Ok(marked)
    })
}

/// Removes the request's label (or every label, or its tags) from every
/// paper it names; returns how many marks were removed.
pub fn unmark(db: &Path, notes: Notes, request: &UnmarkRequest) -> anyhow::Result<usize> {
    let tags = tags(&request.tags)?;
    if request.ids.is_empty() {
        return Err(BadRequest("no paper id given".into()).into());
    }
    edit(db, notes, |e| {
        let mut n = 0;
        for input in &request.ids {
            // A mark may be stored under the paper's id or, dangling, under the id's key.
            let mut names = vec![input.trim().to_string(), UserEdit::dangling_key(input)];
            names.extend(e.resolve(input)?);
            n += if tags.is_empty() {
                e.unmark(&names, request.label)?
            } else {
                tags.iter().map(|t| e.untag(&names, t)).sum::<anyhow::Result<usize>>()?
            };
        }
        Ok(n)
    })
}
