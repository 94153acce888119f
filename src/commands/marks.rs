//! `litindex marks`: the marked papers as a table, JSON, or the favorites as qrels.

use std::io::Write;

use super::UsageError;
use crate::cli::{FeedbackOpts, MarksArgs, MarksFormat};
use litindex::store::{Label, MarkFilter, Store};

/// Checks the feedback flags that clap cannot.
pub fn validate_feedback(opts: &FeedbackOpts) -> Result<(), UsageError> {
    if !(opts.feedback_beta.is_finite() && opts.feedback_beta >= 0.0) {
        return Err(UsageError(format!("--feedback-beta {} must be a finite number >= 0", opts.feedback_beta)));
    }
    if !(opts.feedback_near.is_finite() && opts.feedback_near >= 0.0) {
        return Err(UsageError(format!("--feedback-near {} must be a finite number >= 0", opts.feedback_near)));
    }
    Ok(())
}

pub fn run(args: &MarksArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.tag.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(UsageError("--tag needs a non-empty name".into()).into());
    }
    let qrels = args.format == MarksFormat::Qrels;
    let query_id = match (&args.query_id, qrels) {
        (Some(q), true) if !q.trim().is_empty() && !q.contains(char::is_whitespace) => Some(q.as_str()),
        (_, true) => {
            return Err(UsageError("--format qrels needs --query-id QID (one word: the query's id)".into()).into());
        }
        (Some(_), false) => return Err(UsageError("--query-id goes with --format qrels".into()).into()),
        (None, false) => None,
    };
    let filter = MarkFilter {
        label: if qrels { Some(Label::Favorite) } else { args.label },
        tag: args.tag.as_ref().map(|t| t.trim().to_string()),
        dangling: args.dangling,
    };
    let papers = store.marked(&filter)?;
    match args.format {
        MarksFormat::Json => super::write_json(out, &papers)?,
        MarksFormat::Qrels => {
            for p in &papers {
                writeln!(out, "{} 0 {} 1", query_id.unwrap_or_default(), p.id.as_deref().unwrap_or(&p.stored_id))?;
            }
        }
        MarksFormat::Table => {
            writeln!(out, "{:<24} {:<24} {:<16}  title", "id", "labels", "tags")?;
            for p in &papers {
                let labels: Vec<&str> = p.labels.iter().map(|l| l.label.name()).collect();
                let tags: Vec<String> = p.tags.iter().map(|t| format!("#{t}")).collect();
                let title = match (&p.id, &p.title) {
                    (None, _) => "(dangling: not in this index)".to_string(),
                    (Some(id), t) if id != &p.stored_id => format!("(now {id}) {}", t.as_deref().unwrap_or("")),
                    (_, t) => t.clone().unwrap_or_default(),
                };
                let line = format!("{:<24} {:<24} {:<16}  {}", p.stored_id, labels.join(","), tags.join(" "), title);
                writeln!(out, "{}", line.trim_end())?;
                for l in p.labels.iter().filter(|l| !l.note.is_empty()) {
                    writeln!(out, "{:<24} note ({}): {}", "", l.label.name(), l.note)?;
                }
            }
            writeln!(out, "{} marked papers", papers.len())?;
        }
    }
    Ok(())
}
