//! The full-text tools: `search_passages` (passages of the papers' PDFs,
//! best first, with their pages), `get_passage` (one passage by id) and
//! `why` (the sentences in which one paper's full text cites another), each
//! calling the library function the CLI's `search --passages`, `paper
//! --text` and `why` call. Read-only.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::Value;

use super::page::{Page, PageArgs, limit, text};
use super::{Litindex, lenient, schemas, structured};
use litindex::api::limits::SEARCH_PAGE;
use litindex::api::{PassageSearch, WhyRequest, get_passage, search_passages, why};
use litindex::search::Mode;

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct SearchPassages {
    /// The words to find in the papers' full text (plain words: no operators)
    pub query: String,
    /// Passages per page, 1 to 50 (default 10)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u64>,
    /// bm25 (default), dense (cosine of the passages' own vectors) or hybrid (both fused); dense and hybrid need `litindex embed --passages`
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct GetPassage {
    /// The passage's id (`passage` in a search_passages hit)
    #[serde(deserialize_with = "lenient::u64")]
    pub passage: u64,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct WhyArgs {
    /// The citing paper (id or alias): its PDF is read
    pub citing: String,
    /// The cited paper (id or alias, or a dangling id from gaps)
    pub cited: String,
}

#[tool_router(router = fulltext_tools, vis = "pub(super)")]
impl Litindex {
    #[tool(
        description = "Search the full text of the papers' PDFs: passages (~512 characters) best first by BM25 (mode dense or hybrid: by the passages' own vectors, after `litindex embed --passages`), each with its paper (id, title), section, first and last page, the text with the query's words as byte spans, and its passage id for get_passage. Papers without a PDF have no passages. Pages with cursor/next_cursor; bounded by max_tokens.",
        annotations(read_only_hint = true),
        output_schema = schemas::search_passages()
    )]
    fn search_passages(&self, Parameters(p): Parameters<SearchPassages>) -> Result<CallToolResult, String> {
        let query = text("query", &p.query)?;
        let size = limit(p.limit, SEARCH_PAGE)?;
        let mode = p.mode.unwrap_or(Mode::Bm25);
        // A cursor belongs to its query and its mode.
        let fingerprint = match mode {
            Mode::Bm25 => format!("{query:?}"),
            m => format!("{query:?} {}", m.name()),
        };
        let page = Page::new("search_passages", &fingerprint, &p.page)?;
        let mut request = PassageSearch::new(query, page.page(size));
        request.mode = mode;
        request.model_dir = super::model_dir();
        let (items, total) = self.with_store(|store| {
            let result = search_passages(store, &request)?;
            let items = result.hits.iter().map(serde_json::to_value).collect::<Result<Vec<Value>, _>>()?;
            Ok((items, result.total))
        })?;
        let more = request.page.offset + items.len() < total;
        let mut body = serde_json::Map::new();
        body.insert("query".into(), Value::String(request.query.clone()));
        body.insert("total".into(), total.into());
        Ok(structured(page.fit(body, "passages", items, more)?))
    }

    #[tool(
        description = "One passage of a paper's PDF by its id: the paper (id, title), section heading, paragraph, first and last page, kind (abstract, body, caption, reference), the text, and its character offsets in the paper's structured text.",
        annotations(read_only_hint = true),
        output_schema = schemas::get_passage()
    )]
    fn get_passage(&self, Parameters(p): Parameters<GetPassage>) -> Result<CallToolResult, String> {
        let id = i64::try_from(p.passage).map_err(|_| format!("no passage {} in the index", p.passage))?;
        let row = self.with_store(|store| get_passage(store, id))?;
        Ok(structured(serde_json::to_value(row).map_err(|e| e.to_string())?))
    }

    #[tool(
        description = "Why paper A cites paper B: the entries of A's reference list that name B (how each was matched) and the sentences of A's full text citing them, with page and section. The verdict says no-full-text (A has no PDF), not-cited, no-context or cited; graph_edge whether the citation graph holds A -> B from any source.",
        annotations(read_only_hint = true),
        output_schema = schemas::why()
    )]
    fn why(&self, Parameters(p): Parameters<WhyArgs>) -> Result<CallToolResult, String> {
        let request = WhyRequest { citing: text("citing", &p.citing)?, cited: text("cited", &p.cited)? };
        let answer = self.with_store(|store| why(store, &request))?;
        Ok(structured(serde_json::to_value(answer).map_err(|e| e.to_string())?))
    }
}
