//! The tools of citing and grounded answers: `export`, `context`,
//! `verify_citations` (read-only: `verify_citations` writes its two inputs
//! to a private temporary folder for the command, nothing into the index).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::page::{CHARS_PER_TOKEN, ids, limit, text};
use super::{Litindex, structured};

/// The most characters an answer to check may have.
const MAX_ANSWER: usize = 65_536;

/// A citation format.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(super) enum CiteFormat {
    Bibtex,
    CslJson,
    Ris,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Export {
    /// The papers (ids or aliases such as DOIs), 1 to 100
    pub ids: Vec<String>,
    /// bibtex (default), csl-json or ris
    #[serde(default)]
    pub format: Option<CiteFormat>,
    /// The most tokens (characters / 4) the result may take, 100 to 100000 (default 4000)
    #[serde(default)]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Context {
    /// The question to gather sources for (query language as in search_papers)
    pub question: String,
    /// How many sources, 1 to 50 (default 8)
    #[serde(default)]
    pub k: Option<u64>,
    /// The pack's budget in estimated tokens (characters / 4), 100 to 100000 (default 4000)
    #[serde(default)]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct VerifyCitations {
    /// The answer, citing sources as [n], [1, 3], [1-3]
    pub answer: String,
    /// The pack the answer cites: the JSON object the `context` tool returned
    pub pack: Value,
}

#[tool_router(router = cite_tools, vis = "pub(super)")]
impl Litindex {
    #[tool(
        description = "Papers as BibTeX, CSL-JSON or RIS (the text of `litindex export`): stable citation keys, escaped fields, DOI / arXiv ids from the aliases.",
        annotations(read_only_hint = true)
    )]
    fn export(&self, Parameters(p): Parameters<Export>) -> Result<CallToolResult, String> {
        let budget = limit(p.max_tokens, 4000, 100_000)?.max(100) * CHARS_PER_TOKEN;
        let format = match p.format.unwrap_or(CiteFormat::Bibtex) {
            CiteFormat::Bibtex => "bibtex",
            CiteFormat::CslJson => "csl-json",
            CiteFormat::Ris => "ris",
        };
        let mut args = vec!["export".to_string()];
        args.extend(ids("ids", &p.ids)?);
        args.extend(["--format".to_string(), format.to_string()]);
        let out = String::from_utf8(self.run_cli(args)?)
            .map_err(|e| format!("internal error: export printed no text ({e})"))?;
        if out.len() > budget {
            return Err(format!(
                "the export of {} papers is {} characters, over max_tokens ({} characters): ask for fewer ids or a larger max_tokens",
                p.ids.len(),
                out.len(),
                budget
            ));
        }
        Ok(structured(json!({ "format": format, "papers": p.ids.len(), "text": out })))
    }

    #[tool(
        description = "A numbered source pack for answering a question: instructions, then [n] title (year), id and each source's evidence sentences, within max_tokens. Cite as [n]; check the answer with verify_citations.",
        annotations(read_only_hint = true)
    )]
    fn context(&self, Parameters(p): Parameters<Context>) -> Result<CallToolResult, String> {
        let k = limit(p.k, 8, 50)?;
        let budget = limit(p.max_tokens, 4000, 100_000)?.max(100);
        let args = vec![
            "context".to_string(),
            text("question", &p.question)?,
            "--k".into(),
            k.to_string(),
            "--budget-tokens".into(),
            budget.to_string(),
            "--format".into(),
            "json".into(),
        ];
        Ok(structured(self.run_json(args)?))
    }

    #[tool(
        description = "Checks an answer's [n] citations against the pack the context tool returned: each cited number supported / weak / not found, with the best matching sentence. A citation outside the pack is an error.",
        annotations(read_only_hint = true)
    )]
    fn verify_citations(&self, Parameters(p): Parameters<VerifyCitations>) -> Result<CallToolResult, String> {
        let n = p.answer.chars().count();
        if n > MAX_ANSWER {
            return Err(format!("answer is {n} characters long: at most {MAX_ANSWER} are accepted"));
        }
        if !p.pack.is_object() {
            return Err("pack must be the JSON object the context tool returned".into());
        }
        let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let answer = dir.path().join("answer.md");
        let pack = dir.path().join("pack.json");
        std::fs::write(&answer, &p.answer).map_err(|e| format!("cannot write the answer: {e}"))?;
        std::fs::write(&pack, p.pack.to_string()).map_err(|e| format!("cannot write the pack: {e}"))?;
        let args = vec![
            "verify-citations".to_string(),
            answer.to_string_lossy().into_owned(),
            "--context".into(),
            pack.to_string_lossy().into_owned(),
            "--format".into(),
            "json".into(),
        ];
        // A citation outside the pack makes the command exit 1 after its
        // report: the report is the result, with the error line beside it.
        let (out, failed) = self.run_cli_keeping(args)?;
        let mut report: Value = match serde_json::from_slice(&out) {
            Ok(v) => v,
            Err(_) => return Err(failed.unwrap_or_else(|| "internal error: verify-citations printed no JSON".into())),
        };
        if let (Some(e), Some(obj)) = (failed, report.as_object_mut()) {
            obj.insert("error".into(), Value::String(e));
        }
        Ok(structured(report))
    }
}
