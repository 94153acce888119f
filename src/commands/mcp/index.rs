//! The tools about the index as a whole and about many papers at once:
//! `describe_index`, `get_papers` (a batch lookup), `list_marks` (the marks
//! an agent or a person made, read back). Read-only.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::page::{Page, PageArgs, ids, limit, text};
use super::{Litindex, WRITE_TOOLS, lenient, schemas, structured};
use litindex::api::limits::{LIST_PAGE, PageSize};
use litindex::api::{briefs, describe, paper_batch};
use litindex::store::{Label, MarkFilter};

/// A batch: 1 to 100 ids, all of them on the page unless the budget cuts it.
const BATCH: PageSize = PageSize { default: 100, max: 100 };

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct GetPapers {
    /// The papers (ids or aliases), 1 to 100
    #[schemars(length(min = 1, max = 100))]
    pub ids: Vec<String>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct ListMarks {
    /// Only papers with this label
    #[serde(default)]
    pub label: Option<Label>,
    /// Only papers with this tag
    #[serde(default)]
    pub tag: Option<String>,
    /// Only marks that name no paper of the index
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dangling: bool,
    /// Marked papers per page, 1 to 100 (default 20)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct DescribeIndex {}

/// What each tool can do with this index, said for an agent choosing one.
fn tools(modes: &[&str], edges: u64, writes: bool) -> Map<String, Value> {
    let dense = if modes.contains(&"dense") {
        "mode bm25 (default), dense or hybrid"
    } else {
        "mode bm25 only: the index has no vectors (`litindex embed` adds them)"
    };
    let graph = if edges > 0 {
        "the citation graph has edges"
    } else {
        "the index has no citation edges: only the text part ranks"
    };
    let mut m = Map::new();
    let mut put = |k: &str, v: String| {
        m.insert(k.into(), json!(v));
    };
    put("search_papers", format!("ranked, explained search; {dense}; {graph}"));
    put("get_paper", "one paper with the briefs of its references and citations".into());
    put("get_papers", "up to 100 papers at once (metadata, abstract, counts)".into());
    put("neighbors", "the citation neighbourhood of an id, 0 to 10 hops, with titles".into());
    put("related", "papers like the given ones (co-citation, coupling, text)".into());
    put("gaps", "the most cited ids the index lacks".into());
    put("list_marks", "the marks (favorite, exclude, to-read, read, tags) read back".into());
    put("search_passages", "passages of the papers' PDFs best first, with section and pages".into());
    put("get_passage", "one PDF passage by id, with its paper, section and pages".into());
    put("why", "the sentences in which one paper's PDF cites another, with pages".into());
    put("export", "BibTeX, CSL-JSON or RIS of up to 100 papers".into());
    put("context", "a numbered source pack for a question, within a token budget".into());
    put("verify_citations", "an answer's [n] citations checked against a pack".into());
    put("screen_next", "a screening review's next candidates, with why".into());
    put("screen_status", "a screening review's progress, estimate and stopping suggestion".into());
    put("list_watches", "the saved searches, with their last checks".into());
    put("watch_new", "what is new in a saved search since its last check (records nothing)".into());
    for &w in WRITE_TOOLS {
        let what = match w {
            "mark" | "unmark" => "writes marks to the index",
            "screen_label" => "records a screening decision",
            "watch_add" | "watch_remove" => "saves or removes a saved search",
            _ => "checks a saved search and records the check",
        };
        let what = if writes { what } else { "not offered: the server is read-only (--allow-writes)" };
        put(w, what.into());
    }
    m
}

#[tool_router(router = index_tools, vis = "pub(super)")]
impl Litindex {
    #[tool(
        description = "What the index holds: paper and edge counts, the analyzer, the year range, the vector model (if any) and the search modes it answers, mark counts, and what each tool can do with it. Call it first.",
        annotations(read_only_hint = true),
        output_schema = schemas::describe_index()
    )]
    fn describe_index(&self, Parameters(_): Parameters<DescribeIndex>) -> Result<CallToolResult, String> {
        let writes = self.allow_writes;
        let value = self.with_store(|store| {
            let d = describe(store)?;
            let mut v = serde_json::to_value(&d)?;
            v["tools"] = Value::Object(tools(&d.modes, d.edges, writes));
            v["writes_allowed"] = json!(writes);
            Ok(v)
        })?;
        Ok(structured(value))
    }

    #[tool(
        description = "Up to 100 papers by id or alias in one call: title, abstract, year, authors, venue and reference/citation counts; ids the index does not hold are listed under `unknown`. Bounded by max_tokens (the rest by next_cursor).",
        annotations(read_only_hint = true),
        output_schema = schemas::get_papers()
    )]
    fn get_papers(&self, Parameters(p): Parameters<GetPapers>) -> Result<CallToolResult, String> {
        ids("ids", &p.ids)?;
        let size = limit(None, BATCH)?;
        let page = Page::new("get_papers", &format!("{:?}", p.ids), &p.page)?;
        let window = page.page(size);
        let value = self.with_store(|store| {
            let batch = paper_batch(store, &p.ids)?;
            let items = batch.papers.iter().map(serde_json::to_value).collect::<Result<Vec<Value>, _>>()?;
            let (items, more) = window.of(items);
            let mut body = Map::new();
            body.insert("unknown".into(), json!(batch.unknown));
            Ok(page.fit(body, "papers", items, more))
        })??;
        Ok(structured(value))
    }

    #[tool(
        description = "The marked papers (by stored id): labels with their notes, tags, and each paper's title, year and first author; filter by label, tag or dangling. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true),
        output_schema = schemas::list_marks()
    )]
    fn list_marks(&self, Parameters(p): Parameters<ListMarks>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, LIST_PAGE)?;
        let tag = match &p.tag {
            Some(t) if t.trim().is_empty() => return Err("tag needs a non-empty name".into()),
            Some(t) => Some(text("tag", t)?.trim().to_string()),
            None => None,
        };
        let page = Page::new("list_marks", &format!("{:?} {:?} {}", p.label, tag, p.dangling), &p.page)?;
        let window = page.page(size);
        let filter = MarkFilter { label: p.label, tag, dangling: p.dangling };
        let value = self.with_store(|store| {
            let marked = store.marked(&filter)?;
            let total = marked.len();
            let (marked, more) = window.of(marked);
            let ids: Vec<String> = marked.iter().map(|m| m.id.clone().unwrap_or_else(|| m.stored_id.clone())).collect();
            let described = briefs(store, &ids)?;
            let items = marked
                .into_iter()
                .zip(described)
                .map(|(m, b)| {
                    json!({
                        "stored_id": m.stored_id,
                        "id": m.id,
                        "title": m.title,
                        "year": b.year,
                        "first_author": b.first_author,
                        "labels": m.labels.iter().map(|l| json!({"label": l.label, "note": l.note, "marked_at": l.marked_at})).collect::<Vec<_>>(),
                        "tags": m.tags,
                    })
                })
                .collect();
            let mut body = Map::new();
            body.insert("total".into(), json!(total));
            Ok(page.fit(body, "marks", items, more))
        })??;
        Ok(structured(value))
    }
}
