//! The tools of citing and grounded answers: `export`, `context`,
//! `verify_citations`, each a typed request to the function its CLI command
//! calls (read-only; nothing is written anywhere).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::page::{CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, ids, limit, text};
use super::{Litindex, structured};
use crate::commands::verify_citations::OutsidePack;
use litindex::api::limits::{CONTEXT_SOURCES, PageSize};
use litindex::api::{Page, SearchOptions, resolve_each};
use litindex::cite;
use litindex::context::{PackSource, SupportParams, pack, verify};

/// The most characters an answer to check may have.
const MAX_ANSWER: usize = 65_536;

/// A citation format: the ones of `litindex export` a tool offers (not Paper
/// JSON Lines), converted to the library's with `From`.
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

impl CiteFormat {
    fn name(self) -> &'static str {
        match self {
            CiteFormat::Bibtex => "bibtex",
            CiteFormat::CslJson => "csl-json",
            CiteFormat::Ris => "ris",
        }
    }
}

impl From<CiteFormat> for cite::CiteFormat {
    fn from(f: CiteFormat) -> cite::CiteFormat {
        match f {
            CiteFormat::Bibtex => cite::CiteFormat::Bibtex,
            CiteFormat::CslJson => cite::CiteFormat::CslJson,
            CiteFormat::Ris => cite::CiteFormat::Ris,
        }
    }
}

/// A `max_tokens`: 100 to 100000, 4000 when left out.
const BUDGET: PageSize = PageSize { default: DEFAULT_MAX_TOKENS, max: MAX_MAX_TOKENS };

#[tool_router(router = cite_tools, vis = "pub(super)")]
impl Litindex {
    #[tool(
        description = "Papers as BibTeX, CSL-JSON or RIS (the text of `litindex export`): stable citation keys, escaped fields, DOI / arXiv ids from the aliases.",
        annotations(read_only_hint = true)
    )]
    fn export(&self, Parameters(p): Parameters<Export>) -> Result<CallToolResult, String> {
        let budget = limit(p.max_tokens, BUDGET)?.max(100) * CHARS_PER_TOKEN;
        ids("ids", &p.ids)?;
        let format = p.format.unwrap_or(CiteFormat::Bibtex);
        let out = self.with_store(|store| {
            let canonical = resolve_each(store, &p.ids)?;
            let mut out = Vec::new();
            cite::export_ids(store, &canonical, format.into(), &mut out)?;
            Ok(String::from_utf8(out)?)
        })?;
        if out.len() > budget {
            return Err(format!(
                "the export of {} papers is {} characters, over max_tokens ({} characters): ask for fewer ids or a larger max_tokens",
                p.ids.len(),
                out.len(),
                budget
            ));
        }
        Ok(structured(json!({ "format": format.name(), "papers": p.ids.len(), "text": out })))
    }

    #[tool(
        description = "A numbered source pack for answering a question: instructions, then [n] title (year), id and each source's evidence sentences, within max_tokens. Cite as [n]; check the answer with verify_citations.",
        annotations(read_only_hint = true)
    )]
    fn context(&self, Parameters(p): Parameters<Context>) -> Result<CallToolResult, String> {
        let k = limit(p.k, CONTEXT_SOURCES)?;
        let budget = limit(p.max_tokens, BUDGET)?.max(100);
        let options = SearchOptions {
            model_dir: super::model_dir(),
            ..SearchOptions::new(text("question", &p.question)?, Page { offset: 0, size: k })
        };
        let value = self.with_store(|store| {
            let resolved = options.request(store)?;
            Ok(serde_json::to_value(pack(store, &resolved.request, resolved.semantic.as_ref(), k, Some(budget))?)?)
        })?;
        Ok(structured(value))
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
        let sources = match p.pack.get("sources") {
            Some(sources) if p.pack.is_object() => sources.clone(),
            _ => return Err("pack must be the JSON object the context tool returned".into()),
        };
        let sources: Vec<PackSource> = serde_json::from_value(sources).map_err(|e| {
            format!("pack must be the JSON object the context tool returned: its sources need `number` and `id` ({e})")
        })?;
        let report = self.with_store(|store| {
            let report = verify(store, &p.answer, &sources, &SupportParams::default())?;
            Ok((serde_json::to_value(&report)?, report.outside_pack))
        })?;
        let (mut report, outside) = report;
        // A citation outside the pack makes the CLI exit 1 after its report:
        // the report is the result, with the CLI's error line beside it.
        if let (true, Some(obj)) = (outside > 0, report.as_object_mut()) {
            obj.insert("error".into(), Value::String(OutsidePack(outside).to_string()));
        }
        Ok(structured(report))
    }
}
