//! The tools that write (`mark`, `unmark`): in the registry only with
//! `--allow-writes`; each a typed request to the function `litindex mark` /
//! `unmark` call, on the server's own index.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::json;

use super::page::{ids, text};
use super::{Litindex, one_line, schemas, structured};
use crate::commands::print_note;
use litindex::api::{MarkRequest, UnmarkRequest, mark, unmark};
use litindex::store::Label;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Mark {
    /// Paper ids or aliases, 1 to 100
    #[schemars(length(min = 1, max = 100))]
    pub ids: Vec<String>,
    /// favorite, exclude, to-read or read (may be left out when tags are given)
    #[serde(default)]
    pub label: Option<Label>,
    /// A note kept with the label
    #[serde(default)]
    pub note: Option<String>,
    /// Free tags to add
    #[serde(default)]
    pub tags: Vec<String>,
    /// Keep marks of ids the index does not hold instead of failing
    #[serde(default, deserialize_with = "super::lenient::bool")]
    pub allow_missing: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Unmark {
    /// Paper ids or aliases, 1 to 100
    #[schemars(length(min = 1, max = 100))]
    pub ids: Vec<String>,
    /// The one label to remove (every label when left out)
    #[serde(default)]
    pub label: Option<Label>,
    /// Remove these tags instead of labels
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Every string of a write checked for length (an id list for count too).
fn check(paper_ids: &[String], tags: &[String], note: Option<&str>) -> Result<(), String> {
    ids("ids", paper_ids)?;
    for t in tags {
        text("tag", t)?;
    }
    note.map_or(Ok(String::new()), |n| text("note", n)).map(drop)
}

#[tool_router(router = write_tools, vis = "pub(super)")]
impl Litindex {
    /// Marks papers (writes to the index).
    #[tool(
        description = "Mark papers: favorite (feeds the ranking), exclude (never shown by search), to-read, read; and/or add tags. Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true),
        output_schema = schemas::mark()
    )]
    fn mark(&self, Parameters(p): Parameters<Mark>) -> Result<CallToolResult, String> {
        check(&p.ids, &p.tags, p.note.as_deref())?;
        let request =
            MarkRequest { ids: p.ids, label: p.label, note: p.note, tags: p.tags, allow_missing: p.allow_missing };
        let marked = mark(self.db_path(), &print_note, &request).map_err(one_line)?;
        let lines: Vec<String> = marked.iter().map(|m| format!("marked {m}")).collect();
        Ok(structured(json!({ "message": lines.join("\n"), "marked": marked })))
    }

    /// Removes marks (writes to the index).
    #[tool(
        description = "Remove marks from papers: one label, every label (label left out), or tags. Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true),
        output_schema = schemas::unmark()
    )]
    fn unmark(&self, Parameters(p): Parameters<Unmark>) -> Result<CallToolResult, String> {
        check(&p.ids, &p.tags, None)?;
        let request = UnmarkRequest { ids: p.ids, label: p.label, tags: p.tags };
        let removed = unmark(self.db_path(), &print_note, &request).map_err(one_line)?;
        let what = if request.tags.is_empty() { "mark" } else { "tag" };
        let message = format!("removed {removed} {what}{}", if removed == 1 { "" } else { "s" });
        Ok(structured(json!({ "message": message, "removed": removed })))
    }
}
