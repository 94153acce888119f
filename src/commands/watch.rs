//! `litindex watch`: saved searches, and what is new in them since their last check.
//!
//! `watch [NAME]` runs each saved search (or the one named) with the flags
//! it was saved with and the index's marks, shows the hits that were not in
//! its results at its previous check (papers new to the index, or papers that
//! rose into the first `--limit`), and records this check's results. The
//! first check of a saved search is its baseline: every hit is shown, flagged.

use std::io::Write;
use std::path::Path;

use clap::Parser;
use serde::Serialize;

use super::{Db, UsageError, open_for_reading, print_note};
use crate::cli::{Format, WatchAction, WatchArgs, WatchFlags};
use litindex::search::{Hit, search};
use litindex::store::{Store, Watch, edit};

pub fn run(args: &WatchArgs, db: &Db, out: &mut dyn Write) -> anyhow::Result<()> {
    match &args.action {
        Some(WatchAction::Add { name, query, flags }) => add(name, query, flags, db, out),
        Some(WatchAction::List { format }) => list(&open_for_reading(db)?, *format, out),
        Some(WatchAction::Rm { name }) => {
            remove(db.path(), name)?;
            writeln!(out, "removed saved search `{name}`")?;
            Ok(())
        }
        None => check(args.name.as_deref(), args.format, db, out),
    }
}

/// The flags of a saved search, parsed as `watch add` and each check read them.
fn parse_flags(name: &str, flags: &[String]) -> Result<WatchFlags, UsageError> {
    let parsed = WatchFlags::try_parse_from(flags).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ");
        UsageError(format!("saved search `{name}`: {first}"))
    })?;
    super::search::validate(&parsed.search)?;
    super::marks::validate_feedback(&parsed.marks.tuning)?;
    Ok(parsed)
}

fn add(name: &str, query: &str, flags: &[String], db: &Db, out: &mut dyn Write) -> anyhow::Result<()> {
    if let Db::Default = db {
        open_for_reading(db)?; // builds ./litindex.db from the mock corpus when missing
    }
    save(db.path(), name, query, flags)?;
    writeln!(out, "saved search `{name}`: {query}{}{}", if flags.is_empty() { "" } else { " " }, flags.join(" "))?;
    writeln!(out, "run `litindex watch {name}` to record its baseline, and again later to see what is new")?;
    Ok(())
}

/// Saves a search under `name` (`watch add`, MCP's `watch_add`): its flags
/// checked as each check will read them.
pub(crate) fn save(db: &Path, name: &str, query: &str, flags: &[String]) -> anyhow::Result<()> {
    if name.trim().is_empty() || name.starts_with('-') {
        return Err(UsageError(format!("`{name}` cannot name a saved search")).into());
    }
    if query.trim().is_empty() {
        return Err(UsageError("the query of a saved search cannot be empty".into()).into());
    }
    parse_flags(name, flags)?;
    if !edit(db, &print_note, |e| e.add_watch(name, query, flags))? {
        anyhow::bail!("a saved search named `{name}` exists in {} (`litindex watch rm {name}` first)", db.display());
    }
    Ok(())
}

/// Removes the saved search `name` (`watch rm`, MCP's `watch_remove`).
pub(crate) fn remove(db: &Path, name: &str) -> anyhow::Result<()> {
    if !edit(db, &print_note, |e| e.remove_watch(name))? {
        anyhow::bail!("no saved search named `{name}` in {} (see `litindex watch list`)", db.display());
    }
    Ok(())
}

fn list(store: &Store, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    let watches = store.watches()?;
    match format {
        Format::Json => super::write_json(out, &watches)?,
        Format::Table => {
            writeln!(out, "{:<16} {:<24} {:>5}  query [flags]", "name", "last checked", "seen")?;
            for w in &watches {
                let flags = if w.flags.is_empty() { String::new() } else { format!(" [{}]", w.flags.join(" ")) };
                let last = w.last_checked.as_deref().unwrap_or("never");
                writeln!(out, "{:<16} {:<24} {:>5}  {}{flags}", w.name, last, w.seen, w.query)?;
            }
            writeln!(out, "{} saved searches", watches.len())?;
        }
    }
    Ok(())
}

/// One saved search's check.
#[derive(Serialize)]
pub(crate) struct Checked {
    pub name: String,
    pub query: String,
    /// The first check: every hit is new, and becomes what later checks compare with.
    pub baseline: bool,
    /// Hits of this check (its `--limit` at most).
    pub hits: usize,
    /// The hits not in the previous check's results, best first.
    pub new: Vec<Hit>,
    /// Every hit's id, in order: what recording this check stores.
    #[serde(skip)]
    pub ids: Vec<String>,
}

/// Runs each saved search (or the one named) with the flags it was saved
/// with and the index's marks, and says what is new since its last recorded
/// check; records nothing ([`record`] does).
pub(crate) fn look(store: &Store, db: &Path, name: Option<&str>) -> anyhow::Result<Vec<Checked>> {
    let watches: Vec<Watch> = match name {
        Some(n) => vec![store.watch(n)?.ok_or_else(|| {
            anyhow::anyhow!("no saved search named `{n}` in {} (see `litindex watch list`)", db.display())
        })?],
        None => store.watches()?,
    };
    let mut checks = Vec::with_capacity(watches.len());
    for w in watches {
        let flags = parse_flags(&w.name, &w.flags)?;
        let choices = flags.search.choices(&w.query, flags.limit, 0, false);
        let resolved = super::search::resolve(&choices, Some(&flags.marks), store)?;
        let result = search(store, &resolved.request, resolved.semantic.as_ref())?;
        let seen = store.watch_seen(&w.name)?;
        let ids: Vec<String> = result.ranked.iter().map(|h| h.id.clone()).collect();
        let hits = result.ranked.len();
        let new: Vec<Hit> = result.ranked.into_iter().filter(|h| !seen.contains(&h.id)).collect();
        checks.push(Checked { baseline: w.last_checked.is_none(), name: w.name, query: w.query, hits, new, ids });
    }
    Ok(checks)
}

/// Records `checks` as their saved searches' latest: what the next check compares with.
pub(crate) fn record(db: &Path, checks: &[Checked]) -> anyhow::Result<()> {
    edit(db, &print_note, |e| checks.iter().try_for_each(|c| e.record_check(&c.name, &c.ids)))?;
    Ok(())
}

fn check(name: Option<&str>, format: Format, db: &Db, out: &mut dyn Write) -> anyhow::Result<()> {
    let store = open_for_reading(db)?;
    let checks = look(&store, db.path(), name)?;
    drop(store);
    record(db.path(), &checks)?;
    match format {
        Format::Json => super::write_json(out, &checks)?,
        Format::Table => {
            for c in &checks {
                let why = if c.baseline { " (first check: the baseline, every hit is new)" } else { "" };
                writeln!(out, "== {}: {}  ({} new of {} hits){why}", c.name, c.query, c.new.len(), c.hits)?;
                for h in &c.new {
                    let year = h.year.map_or("-".to_string(), |y| y.to_string());
                    writeln!(out, "  {:<16} {:>4}  {}", h.id, year, super::search::truncate(&h.title, 70))?;
                }
            }
            if checks.is_empty() {
                writeln!(out, "no saved searches (`litindex watch add NAME QUERY [search flags]`)")?;
            }
        }
    }
    Ok(())
}
