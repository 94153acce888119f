//! The tools that write (`mark`, `unmark`): in the registry only with `--allow-writes`.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::page::{ids, text, wire_name};
use super::{Litindex, structured};

/// A mark's label.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Label {
    /// Feeds the ranking (query expansion, walk seeds)
    Favorite,
    /// Never shown by search
    Exclude,
    ToRead,
    Read,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Mark {
    /// Paper ids or aliases
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
    #[serde(default)]
    pub allow_missing: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Unmark {
    /// Paper ids or aliases
    pub ids: Vec<String>,
    /// The one label to remove (every label when left out)
    #[serde(default)]
    pub label: Option<Label>,
    /// Remove these tags instead of labels
    #[serde(default)]
    pub tags: Vec<String>,
}

/// `--tag T` per tag, then `-- IDS [LABEL]`.
fn tail(args: &mut Vec<String>, tags: &[String], paper_ids: &[String], label: Option<Label>) -> Result<(), String> {
    for t in tags {
        args.extend(["--tag".into(), text("tag", t)?]);
    }
    args.push("--".into());
    args.extend(ids("ids", paper_ids)?);
    args.extend(label.map(wire_name));
    Ok(())
}

#[tool_router(router = write_tools, vis = "pub(super)")]
impl Litindex {
    /// Marks papers (writes to the index).
    #[tool(
        description = "Mark papers: favorite (feeds the ranking), exclude (never shown by search), to-read, read; and/or add tags. Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true)
    )]
    fn mark(&self, Parameters(p): Parameters<Mark>) -> Result<CallToolResult, String> {
        let mut args = vec!["mark".to_string()];
        if let Some(n) = &p.note {
            args.extend(["--note".into(), text("note", n)?]);
        }
        if p.allow_missing {
            args.push("--allow-missing".into());
        }
        tail(&mut args, &p.tags, &p.ids, p.label)?;
        let out = self.run_cli(args)?;
        Ok(structured(json!({ "message": String::from_utf8_lossy(&out).trim() })))
    }

    /// Removes marks (writes to the index).
    #[tool(
        description = "Remove marks from papers: one label, every label (label left out), or tags. Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true)
    )]
    fn unmark(&self, Parameters(p): Parameters<Unmark>) -> Result<CallToolResult, String> {
        let mut args = vec!["unmark".to_string()];
        tail(&mut args, &p.tags, &p.ids, p.label)?;
        let out = self.run_cli(args)?;
        Ok(structured(json!({ "message": String::from_utf8_lossy(&out).trim() })))
    }
}
