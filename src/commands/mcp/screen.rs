//! The screening tools: `screen_next` and `screen_status` (read), and
//! `screen_label` (writes: in the registry only with `--allow-writes`), each
//! calling the library function `litindex screen next|status|label` calls,
//! on the server's own index.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::json;

use super::page::text;
use super::{Litindex, lenient, one_line, schemas, structured};
use crate::commands::print_note;
use litindex::screen::{SvmParams, Weights, review, status};

/// The most candidates one `screen_next` call proposes.
const MAX_NEXT: u64 = 20;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ScreenNext {
    /// The review's name (made with `litindex screen new`)
    pub review: String,
    /// How many candidates to propose, 1 to 20 (default 1)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 20))]
    pub n: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ScreenStatus {
    /// The review's name
    pub review: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ScreenLabel {
    /// The review's name
    pub review: String,
    /// The candidate: the id it was given, or any id or alias of its paper
    pub id: String,
    /// include or exclude
    pub decision: Decision,
    /// A note kept with the decision
    #[serde(default)]
    pub note: Option<String>,
    /// A reason tag (e.g. wrong-population)
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Decision {
    Include,
    Exclude,
}

#[tool_router(router = screen_read_tools, vis = "pub(super)")]
impl Litindex {
    /// The candidates to screen next.
    #[tool(
        description = "The undecided candidates of a screening review the model ranks most likely to be included, each with why: its top terms, the included papers it cites or is cited by, references shared with them, vector similarity. Before the first include and exclude: the candidates in the order they were added.",
        annotations(read_only_hint = true),
        output_schema = schemas::screen_next()
    )]
    fn screen_next(&self, Parameters(p): Parameters<ScreenNext>) -> Result<CallToolResult, String> {
        text("review", &p.review)?;
        let n = p.n.unwrap_or(1);
        if !(1..=MAX_NEXT).contains(&n) {
            return Err(format!("n must be 1 to {MAX_NEXT}, got {n}"));
        }
        let proposals = self.with_store(|store| {
            self.models.with(store, &p.review, Weights::default(), SvmParams::default(), |m| m.next(store, n as usize))
        })?;
        Ok(structured(json!({ "review": p.review, "proposals": proposals })))
    }

    /// Where a review stands.
    #[tool(
        description = "A screening review's status: candidates, screened, included, excluded, an estimate of the relevant candidates left (with its method) and a stopping suggestion (the knee rule).",
        annotations(read_only_hint = true),
        output_schema = schemas::screen_status()
    )]
    fn screen_status(&self, Parameters(p): Parameters<ScreenStatus>) -> Result<CallToolResult, String> {
        text("review", &p.review)?;
        let s = self.with_store(|store| status::status(store, &p.review))?;
        Ok(structured(serde_json::to_value(s).map_err(|e| e.to_string())?))
    }
}

#[tool_router(router = screen_write_tools, vis = "pub(super)")]
impl Litindex {
    /// Records a decision (writes to the index).
    #[tool(
        description = "Include or exclude a candidate of a screening review (replaces an earlier decision on it). Writes to the index (needs --allow-writes).",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true),
        output_schema = schemas::screen_label()
    )]
    fn screen_label(&self, Parameters(p): Parameters<ScreenLabel>) -> Result<CallToolResult, String> {
        text("review", &p.review)?;
        text("id", &p.id)?;
        let note = p.note.as_deref().map_or(Ok(String::new()), |n| text("note", n))?;
        let reason = p.reason.as_deref().map_or(Ok(String::new()), |r| text("reason", r))?;
        let include = p.decision == Decision::Include;
        let d =
            review::label(self.db_path(), &print_note, &p.review, &p.id, include, &note, &reason).map_err(one_line)?;
        Ok(structured(serde_json::to_value(d).map_err(|e| e.to_string())?))
    }
}
