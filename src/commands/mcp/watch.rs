//! The saved-search tools: `list_watches` and `watch_new` (read), and
//! `watch_add`, `watch_check` and `watch_remove` (write: in the registry only
//! with `--allow-writes`). Each calls the function `litindex watch` calls
//! (`commands::watch`: a saved search is its query and the search flags the
//! CLI reads at each check, so both surfaces run it the same way). The typed
//! arguments of `watch_add` become flags in the `--flag=value` form only, so
//! no value is ever read as a flag.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;

use super::page::text;
use super::schemas::object;
use super::{Litindex, lenient, one_line, structured};
use crate::commands::watch::{Checked, look, record, remove, save};
use litindex::search::Mode;

/// The most hits a saved search compares at each check.
const MAX_WATCH_LIMIT: u64 = 100;

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct ListWatches {}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct WatchName {
    /// The saved search's name (all of them when left out)
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct WatchAdd {
    /// The name to save it under (not starting with `-`)
    pub name: String,
    /// The query, in the query language (words, +must, -not, "phrase", author:, year:, venue:)
    pub query: String,
    /// How many hits each check compares, 1 to 100 (default 20)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    /// The first stage: bm25, dense or hybrid (default: as search_papers)
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Citation hops walked from the seeds (default: as search_papers)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub hops: Option<u64>,
    /// Let the index's favorites feed the ranking (default true)
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub feedback: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct WatchRemove {
    /// The saved search's name
    pub name: String,
}

/// A check as the tools return it: each new hit briefly (id, title, year, score, evidence).
fn checks_json(checks: &[Checked]) -> Value {
    let watches: Vec<Value> = checks
        .iter()
        .map(|c| {
            let new: Vec<Value> = c
                .new
                .iter()
                .map(|h| {
                    json!({"id": h.id, "title": h.title, "year": h.year, "final_score": h.final_score, "snippet": h.snippet})
                })
                .collect();
            json!({"name": c.name, "query": c.query, "baseline": c.baseline, "hits": c.hits, "new": new})
        })
        .collect();
    json!({ "watches": watches })
}

/// The flags `watch_add`'s typed arguments stand for, each as `--flag=value`.
fn flags(p: &WatchAdd) -> Result<Vec<String>, String> {
    let mut flags = Vec::new();
    if let Some(limit) = p.limit {
        if !(1..=MAX_WATCH_LIMIT).contains(&limit) {
            return Err(format!("limit must be 1 to {MAX_WATCH_LIMIT}, got {limit}"));
        }
        flags.push(format!("--limit={limit}"));
    }
    if let Some(mode) = p.mode {
        flags.push(format!("--mode={}", mode.name()));
    }
    if let Some(hops) = p.hops {
        flags.push(format!("--hops={hops}"));
    }
    if p.feedback == Some(false) {
        flags.push("--feedback=off".into());
    }
    Ok(flags)
}

#[tool_router(router = watch_read_tools, vis = "pub(super)")]
impl Litindex {
    /// The saved searches.
    #[tool(
        description = "The saved searches (watches): name, query, the search flags they run with, when each was last checked and how many hits it recorded.",
        annotations(read_only_hint = true),
        output_schema = list_schema()
    )]
    fn list_watches(&self, Parameters(_): Parameters<ListWatches>) -> Result<CallToolResult, String> {
        let watches = self.with_store(|store| store.watches())?;
        Ok(structured(json!({ "watches": watches })))
    }

    /// What is new in saved searches, without recording.
    #[tool(
        description = "Run a saved search (or every one) and return the hits that were not in its results at its last recorded check (papers new to the index, or that rose into its limit). Records nothing: watch_check records.",
        annotations(read_only_hint = true),
        output_schema = checks_schema()
    )]
    fn watch_new(&self, Parameters(p): Parameters<WatchName>) -> Result<CallToolResult, String> {
        let name = p.name.as_deref().map(|n| text("name", n)).transpose()?;
        let checks = self.with_store(|store| look(store, self.db_path(), name.as_deref()))?;
        Ok(structured(checks_json(&checks)))
    }
}

#[tool_router(router = watch_write_tools, vis = "pub(super)")]
impl Litindex {
    /// Saves a search (writes to the index).
    #[tool(
        description = "Save a search under a name, to check later for what is new. Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false),
        output_schema = message_schema()
    )]
    fn watch_add(&self, Parameters(p): Parameters<WatchAdd>) -> Result<CallToolResult, String> {
        text("name", &p.name)?;
        text("query", &p.query)?;
        let flags = flags(&p)?;
        save(self.db_path(), &p.name, &p.query, &flags).map_err(one_line)?;
        Ok(structured(json!({ "message": format!("saved search `{}`: {}", p.name, p.query), "flags": flags })))
    }

    /// Checks saved searches and records the check (writes to the index).
    #[tool(
        description = "Run a saved search (or every one), return what is new since its last check, and record this check as the one the next compares with (the first check is the baseline: every hit is new). Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false),
        output_schema = checks_schema()
    )]
    fn watch_check(&self, Parameters(p): Parameters<WatchName>) -> Result<CallToolResult, String> {
        let name = p.name.as_deref().map(|n| text("name", n)).transpose()?;
        let checks = self.with_store(|store| look(store, self.db_path(), name.as_deref()))?;
        record(self.db_path(), &checks).map_err(one_line)?;
        Ok(structured(checks_json(&checks)))
    }

    /// Removes a saved search (writes to the index).
    #[tool(
        description = "Remove a saved search. Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false),
        output_schema = message_schema()
    )]
    fn watch_remove(&self, Parameters(p): Parameters<WatchRemove>) -> Result<CallToolResult, String> {
        text("name", &p.name)?;
        remove(self.db_path(), &p.name).map_err(one_line)?;
        Ok(structured(json!({ "message": format!("removed saved search `{}`", p.name), "flags": [] })))
    }
}

fn list_schema() -> Arc<Map<String, Value>> {
    let watch = json!({
        "type": "object",
        "required": ["name", "query", "flags", "created_at", "last_checked", "seen"],
        "properties": {
            "name": {"type": "string"},
            "query": {"type": "string"},
            "flags": {"type": "array", "items": {"type": "string"}},
            "created_at": {"type": "string"},
            "last_checked": {"type": ["string", "null"]},
            "seen": {"type": "integer", "minimum": 0},
        }
    });
    object(
        json!({"type": "object", "required": ["watches"], "properties": {"watches": {"type": "array", "items": watch}}}),
    )
}

fn checks_schema() -> Arc<Map<String, Value>> {
    let hit = json!({
        "type": "object",
        "required": ["id", "title", "year", "final_score", "snippet"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "year": {"type": ["integer", "null"]},
            "final_score": {"type": "number"},
            "snippet": {"type": "string"},
        }
    });
    let check = json!({
        "type": "object",
        "required": ["name", "query", "baseline", "hits", "new"],
        "properties": {
            "name": {"type": "string"},
            "query": {"type": "string"},
            "baseline": {"type": "boolean"},
            "hits": {"type": "integer", "minimum": 0},
            "new": {"type": "array", "items": hit},
        }
    });
    object(
        json!({"type": "object", "required": ["watches"], "properties": {"watches": {"type": "array", "items": check}}}),
    )
}

fn message_schema() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["message", "flags"],
        "properties": {"message": {"type": "string"}, "flags": {"type": "array", "items": {"type": "string"}}}
    }))
}
