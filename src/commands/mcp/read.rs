//! The read-only tools: `search_papers`, `get_paper`, `neighbors`, `related`, `gaps`,
//! each a typed request to the function its CLI command calls.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::page::{CHARS_PER_TOKEN, Page, PageArgs, ids, json_len, limit, measured, over_budget, text};
use super::{Litindex, lenient, model_dir, schemas, structured};
use crate::commands::print_note;
use litindex::api::limits::{LIST_PAGE, MAX_NEIGHBOR_HOPS, NEIGHBORS_PAGE, SEARCH_PAGE, fan_out, hops};
use litindex::api::search::more_after;
use litindex::api::{
    Brief, NeighborsRequest, SearchOptions, WalkEngine, briefs, neighbors, paper, resolve_distinct, run_search,
};
use litindex::explore::{Method, gaps, related};
use litindex::graph::Direction;
use litindex::search::{HitParts, Mode, YearRange};
use litindex::store::Store;

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct SearchPapers {
    /// The query: words (BM25), +must, -not, "a phrase", author:NAME, year:2019..2023, venue:NAME, id:PREFIX
    pub query: String,
    /// Hits per page, 1 to 50 (default 10)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u64>,
    /// First stage: bm25 (default), dense or hybrid (these need `litindex embed`)
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Only papers with these authors (surname or full name)
    #[serde(default)]
    pub author: Vec<String>,
    /// Only papers of these years: 2019..2023, 2020.., ..2015 or 2020
    #[serde(default)]
    pub year: Option<String>,
    /// Only papers whose venue holds these words
    #[serde(default)]
    pub venue: Vec<String>,
    /// Only papers whose title or abstract holds each of these words or phrases
    #[serde(default)]
    pub must: Vec<String>,
    /// Only papers whose title and abstract lack each of these words or phrases
    #[serde(default)]
    pub not: Vec<String>,
    /// Citation hops walked from the BM25 seeds, 0 to 2 (default 2)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 0, max = 2))]
    pub hops: Option<u64>,
    /// How many of one paper's references, and as many of its citers, the walk follows: a number from 1 up, or "all" (default 100). A longer list is sampled, the same way in every search; a hit reached through a cut list says so in graph_via
    #[serde(default, deserialize_with = "lenient::opt_word")]
    #[schemars(schema_with = "fan_out_schema")]
    pub fan_out: Option<String>,
    /// Let the index's favorites feed the ranking (default true)
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub feedback: Option<bool>,
    /// Show papers marked `exclude` too, flagged (default false)
    #[serde(default, deserialize_with = "lenient::bool")]
    pub show_excluded: bool,
    #[serde(flatten)]
    pub page: PageArgs,
}

/// `fan_out`'s input schema: a whole number from 1 up, or `"all"`.
fn fan_out_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["all"]}]})
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct GetPaper {
    /// The paper's id or any alias (arXiv id, DOI, CorpusId:N, OpenAlex W-id, S2 sha, or their URLs)
    pub id: String,
    /// Upper bound on the result's size in tokens (its JSON's characters / 4; 100 to 100000, default 4000): long reference and citation lists are cut to fit (page them with `neighbors`)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 100, max = 100000))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct Neighbors {
    /// A paper id or alias, or any id of the citation graph
    pub id: String,
    /// Hops to walk, 0 to 10 (default 1)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 0, max = 10))]
    pub hops: Option<u64>,
    /// Which way to follow citations (default both)
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Nodes per page, 1 to 500 (default 100)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct Related {
    /// Seed papers (ids or aliases), scored as a set, 1 to 100
    #[schemars(length(min = 1, max = 100))]
    pub ids: Vec<String>,
    /// cocitation, coupling, text or both (default)
    #[serde(default)]
    pub method: Option<Method>,
    /// Papers per page, 1 to 100 (default 20)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct Gaps {
    /// Papers whose references to look at (ids or aliases, at most 100); leave out for the whole index
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub from: Vec<String>,
    /// Missing ids per page, 1 to 100 (default 20)
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

/// The fields of a command's JSON object other than `key`, and its `key` list.
fn split(mut value: Value, key: &str) -> (Map<String, Value>, Vec<Value>) {
    let items = match value.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let mut body = match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    body.remove(key);
    (body, items)
}

/// The briefs of the first of `ids` whose JSON fits in `chars` characters.
fn fitting_briefs(store: &Store, ids: &[String], chars: usize) -> anyhow::Result<Vec<Value>> {
    let mut used = 0;
    let mut out = Vec::new();
    for id in ids {
        let brief: Brief = briefs(store, std::slice::from_ref(id))?.remove(0);
        let v = to_json(&brief)?;
        used += json_len(&v) + 1;
        if used > chars {
            break;
        }
        out.push(v);
    }
    Ok(out)
}

/// `get_paper`'s result: the paper with the briefs kept of its two lists.
fn paper_result(
    body: &Map<String, Value>,
    refs: &[Value],
    cites: &[Value],
    references: &[String],
    citations: &[String],
    max_tokens: usize,
) -> Value {
    let mut body = body.clone();
    let cut = refs.len() < references.len() || cites.len() < citations.len();
    body.insert("references".into(), Value::Array(refs.to_vec()));
    body.insert("citations".into(), Value::Array(cites.to_vec()));
    body.insert("truncated".into(), json!(cut));
    if cut {
        body.insert(
            "note".into(),
            json!(format!(
                "references/citations cut to fit max_tokens={max_tokens}; page through them with the neighbors tool (hops 1, direction references or citations)"
            )),
        );
    }
    measured(Value::Object(body))
}

/// A value as JSON (the value the CLI prints for `--format json`).
fn to_json(value: &impl serde::Serialize) -> anyhow::Result<Value> {
    Ok(serde_json::to_value(value)?)
}

/// The fingerprint a cursor carries: the call's arguments but its page and size.
fn fingerprint<T: std::fmt::Debug>(args: &T) -> String {
    format!("{args:?}")
}

#[tool_router(router = read_tools, vis = "pub(super)")]
impl Litindex {
    /// Ranked, explained search: BM25 first stage, a citation walk from the seeds, recency.
    #[tool(
        description = "Search the index. Each hit has id, title, year, final_score and its parts (bm25_score, graph_distance, recency_score) and the evidence sentences (snippet). Pages with cursor/next_cursor; bounded by max_tokens.",
        annotations(read_only_hint = true),
        output_schema = schemas::search_papers()
    )]
    fn search_papers(&self, Parameters(p): Parameters<SearchPapers>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, SEARCH_PAGE)?;
        let page = Page::new(
            "search_papers",
            &fingerprint(&SearchPapers { limit: None, page: PageArgs::default(), ..p.clone() }),
            &p.page,
        )?;
        let years = match &p.year {
            None => None,
            Some(y) => Some(YearRange::parse(&text("year", y)?).map_err(|e| format!("year: {e}"))?),
        };
        let options = SearchOptions {
            mode: p.mode,
            hops: p.hops,
            fan_out: p.fan_out.as_deref().map(fan_out).transpose().map_err(|e| e.0)?,
            authors: p.author,
            years,
            venues: p.venue,
            must: p.must,
            must_not: p.not,
            feedback: p.feedback != Some(false),
            show_excluded: p.show_excluded,
            model_dir: model_dir(),
            ..SearchOptions::new(p.query, page.page(size))
        };
        let (value, more) = self.with_store(|store| {
            let mut resolved = options.request(store, super::super::models())?;
            // The hits go out as JSON, every field, their references too.
            resolved.request.parts = HitParts::Full;
            for n in &resolved.notes {
                print_note(n);
            }
            let result = run_search(store, &resolved, &options.query)?;
            Ok((to_json(&result)?, more_after(&resolved.request, &result)))
        })?;
        let (body, items) = split(value, "ranked");
        Ok(structured(page.fit(body, "ranked", items, more)?))
    }

    /// One paper: metadata, abstract, references and citations.
    #[tool(
        description = "One paper by id or alias: title, abstract, year, authors, venue, sources, and the papers it cites (references) and that cite it (citations), each with id, title, year and first author.",
        annotations(read_only_hint = true),
        output_schema = schemas::get_paper()
    )]
    fn get_paper(&self, Parameters(p): Parameters<GetPaper>) -> Result<CallToolResult, String> {
        let page = Page::new("get_paper", "", &PageArgs { cursor: None, max_tokens: p.max_tokens })?;
        let id = text("id", &p.id)?;
        let budget = page.max_tokens * CHARS_PER_TOKEN;
        let value = self.with_store(|store| {
            let (mut body, references) = split(to_json(&paper(store, &id)?)?, "references");
            let citations: Vec<String> = match body.remove("citations") {
                Some(Value::Array(c)) => c.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
                _ => Vec::new(),
            };
            let references: Vec<String> =
                references.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
            // The budget left after the paper itself goes to its two lists, half each.
            let room = budget.saturating_sub(json_len(&Value::Object(body.clone())) + 400);
            let mut refs = fitting_briefs(store, &references, room / 2)?;
            let mut cites = fitting_briefs(store, &citations, room - room / 2)?;
            body.insert("references_total".into(), json!(references.len()));
            body.insert("citations_total".into(), json!(citations.len()));
            // Then measured whole: a brief more from the longer list goes until it fits.
            loop {
                let value = paper_result(&body, &refs, &cites, &references, &citations, page.max_tokens);
                let len = json_len(&value);
                if len <= budget {
                    return Ok(Ok(value));
                }
                if refs.is_empty() && cites.is_empty() {
                    return Ok(Err(over_budget(len, page.max_tokens, "without its references and citations")));
                }
                if refs.len() >= cites.len() {
                    refs.pop();
                } else {
                    cites.pop();
                }
            }
        })??;
        Ok(structured(value))
    }

    /// The citation neighbourhood of one id.
    #[tool(
        description = "The ids within some citation hops of a paper (or a dangling id), each with its distance, whether the index holds it, and its title, year and first author. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true),
        output_schema = schemas::neighbors()
    )]
    fn neighbors(&self, Parameters(p): Parameters<Neighbors>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, NEIGHBORS_PAGE)?;
        let page = Page::new(
            "neighbors",
            &fingerprint(&Neighbors { limit: None, page: PageArgs::default(), ..p.clone() }),
            &p.page,
        )?;
        let request = NeighborsRequest {
            id: text("id", &p.id)?,
            hops: hops(p.hops.unwrap_or(1), MAX_NEIGHBOR_HOPS, "").map_err(|e| e.0)?,
            direction: p.direction.unwrap_or(Direction::Both),
            engine: WalkEngine::Sql,
        };
        let (body, nodes, more, total) = self.with_store(|store| {
            let (body, nodes) = split(to_json(&neighbors(store, &request)?)?, "nodes");
            let total = nodes.len();
            let (nodes, more) = page.page(size).of(nodes);
            // Each node of the page with its title, year and first author.
            let ids: Vec<String> = nodes.iter().filter_map(|n| n["id"].as_str().map(str::to_string)).collect();
            let described = briefs(store, &ids)?;
            let nodes = nodes
                .into_iter()
                .zip(described)
                .map(|(node, brief)| {
                    let mut v = to_json(&brief)?;
                    v["distance"] = node["distance"].clone();
                    Ok(v)
                })
                .collect::<anyhow::Result<Vec<Value>>>()?;
            Ok((body, nodes, more, total))
        })?;
        let mut body = body;
        body.insert("total".into(), json!(total));
        Ok(structured(page.fit(body, "nodes", nodes, more)?))
    }

    /// Papers like the given ones.
    #[tool(
        description = "Papers like the given ones: co-citation, bibliographic coupling (Salton's cosine) and BM25 more-like-this, each with its parts and the shared citers/references. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true),
        output_schema = schemas::related()
    )]
    fn related(&self, Parameters(p): Parameters<Related>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, LIST_PAGE)?;
        let page = Page::new(
            "related",
            &fingerprint(&Related { limit: None, page: PageArgs::default(), ..p.clone() }),
            &p.page,
        )?;
        ids("ids", &p.ids)?;
        let window = page.page(size);
        let method = p.method.unwrap_or(Method::Both);
        let value = self.with_store(|store| {
            let seeds = resolve_distinct(store, &p.ids)?;
            // The whole list up to one past this page: whether more follow.
            to_json(&related(store, &seeds, method, window.next_offset() + 1)?)
        })?;
        let (body, items) = split(value, "related");
        let (items, more) = window.of(items);
        Ok(structured(page.fit(body, "related", items, more)?))
    }

    /// What the papers cite that the index lacks.
    #[tool(
        description = "The ids the given papers (or the whole index, when `from` is empty) cite most that are not in the index, with a few citers and the id kind. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true),
        output_schema = schemas::gaps()
    )]
    fn gaps(&self, Parameters(p): Parameters<Gaps>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, LIST_PAGE)?;
        let page =
            Page::new("gaps", &fingerprint(&Gaps { limit: None, page: PageArgs::default(), ..p.clone() }), &p.page)?;
        if !p.from.is_empty() {
            ids("from", &p.from)?;
        }
        let window = page.page(size);
        let items = self.with_store(|store| {
            let from = if p.from.is_empty() { None } else { Some(resolve_distinct(store, &p.from)?) };
            let found = gaps(store, from.as_deref(), window.next_offset() as u64 + 1)?;
            found.iter().map(to_json).collect::<anyhow::Result<Vec<Value>>>()
        })?;
        let (items, more) = window.of(items);
        Ok(structured(page.fit(Map::new(), "gaps", items, more)?))
    }
}
