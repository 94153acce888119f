//! The tools of citing and grounded answers: `export`, `context`,
//! `verify_citations`, each a typed request to the function its CLI command
//! calls (read-only; nothing is written anywhere).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::page::{
    CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ids, json_len, limit, over_budget, text,
};
use super::{Litindex, schemas, structured};
use crate::commands::verify_citations::OutsidePack;
use litindex::api::limits::CONTEXT_SOURCES;
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
    #[schemars(length(min = 1, max = 100))]
    pub ids: Vec<String>,
    /// bibtex (default), csl-json or ris
    #[serde(default)]
    pub format: Option<CiteFormat>,
    /// The most tokens the result may take (its JSON's characters / 4), 100 to 100000 (default 4000)
    #[serde(default, deserialize_with = "super::lenient::opt_u64")]
    #[schemars(range(min = 100, max = 100000))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Context {
    /// The question to gather sources for (query language as in search_papers)
    pub question: String,
    /// How many sources, 1 to 50 (default 8)
    #[serde(default, deserialize_with = "super::lenient::opt_u64")]
    #[schemars(range(min = 1, max = 50))]
    pub k: Option<u64>,
    /// The pack's budget in tokens (its JSON's characters / 4, a hard cap), 100 to 100000 (default 4000)
    #[serde(default, deserialize_with = "super::lenient::opt_u64")]
    #[schemars(range(min = 100, max = 100000))]
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
fn budget(value: Option<u64>) -> Result<usize, String> {
    match value {
        None => Ok(DEFAULT_MAX_TOKENS),
        Some(n) if (MIN_MAX_TOKENS as u64..=MAX_MAX_TOKENS as u64).contains(&n) => Ok(n as usize),
        Some(n) => Err(format!("max_tokens {n} is out of range: use {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}")),
    }
}

#[tool_router(router = cite_tools, vis = "pub(super)")]
impl Litindex {
    #[tool(
        description = "Papers as BibTeX, CSL-JSON or RIS (the text of `litindex export`): stable citation keys, escaped fields, DOI / arXiv ids from the aliases.",
        annotations(read_only_hint = true),
        output_schema = schemas::export()
    )]
    fn export(&self, Parameters(p): Parameters<Export>) -> Result<CallToolResult, String> {
        let max_tokens = budget(p.max_tokens)?;
        let budget = max_tokens * CHARS_PER_TOKEN;
        ids("ids", &p.ids)?;
        let format = p.format.unwrap_or(CiteFormat::Bibtex);
        let out = self.with_store(|store| {
            let canonical = resolve_each(store, &p.ids)?;
            let mut out = Vec::new();
            cite::export_ids(store, &canonical, format.into(), &mut out)?;
            Ok(String::from_utf8(out)?)
        })?;
        let value = json!({ "format": format.name(), "papers": p.ids.len(), "text": out });
        let len = json_len(&value);
        if len > budget {
            return Err(format!(
                "the export of {} papers is {} characters as JSON, over max_tokens={max_tokens} ({budget} characters): ask for fewer ids or a larger max_tokens",
                p.ids.len(),
                len,
            ));
        }
        Ok(structured(value))
    }

    #[tool(
        description = "A numbered source pack for answering a question: instructions, then [n] title (year), id and each source's evidence sentences, within max_tokens. Cite as [n]; check the answer with verify_citations.",
        annotations(read_only_hint = true),
        output_schema = schemas::context()
    )]
    fn context(&self, Parameters(p): Parameters<Context>) -> Result<CallToolResult, String> {
        let k = limit(p.k, CONTEXT_SOURCES)?;
        let max_tokens = budget(p.max_tokens)?;
        let options = SearchOptions {
            model_dir: super::model_dir(),
            ..SearchOptions::new(text("question", &p.question)?, Page { offset: 0, size: k })
        };
        let value = self.with_store(|store| {
            let resolved = options.request(store, super::super::models())?;
            // The pack's own budget counts its text; the cap is on its JSON:
            // packed again with a smaller budget until the JSON fits.
            let mut inner = max_tokens;
            loop {
                let packed = pack(store, &resolved.request, resolved.semantic.as_ref(), k, Some(inner))?;
                let value = serde_json::to_value(packed)?;
                let len = json_len(&value);
                if len <= max_tokens * CHARS_PER_TOKEN {
                    return Ok(Ok(value));
                }
                let over = (len - max_tokens * CHARS_PER_TOKEN).div_ceil(CHARS_PER_TOKEN) + 1;
                if inner <= over + 1 {
                    return Ok(Err(over_budget(len, max_tokens, "with its shortest pack")));
                }
                inner -= over;
            }
        })??;
        Ok(structured(value))
    }

    #[tool(
        description = "Checks an answer's [n] citations against the pack the context tool returned: each cited number supported / weak / not found, with the best matching sentence. A citation outside the pack is an error.",
        annotations(read_only_hint = true),
        output_schema = schemas::verify_citations()
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
