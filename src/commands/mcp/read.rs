//! The read-only tools: `search_papers`, `get_paper`, `neighbors`, `related`, `gaps`.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::page::{CHARS_PER_TOKEN, Page, PageArgs, fitting, ids, json_len, limit, text, wire_name};
use super::{Litindex, structured};

/// The first stage of a search.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Mode {
    /// BM25 over title and abstract
    Bm25,
    /// Cosine over the vectors of `litindex embed`
    Dense,
    /// BM25 and dense fused
    Hybrid,
}

/// Which way to follow citations.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Direction {
    /// Papers this one cites
    References,
    /// Papers that cite this one
    Citations,
    Both,
}

/// How `related` measures likeness.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Method {
    /// Cited together with the seeds by the same papers
    Cocitation,
    /// Citing the same papers as the seeds
    Coupling,
    /// BM25 more-like-this from the seeds' text
    Text,
    /// Co-citation, coupling and text combined
    Both,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct SearchPapers {
    /// The query: words (BM25), +must, -not, "a phrase", author:NAME, year:2019..2023, venue:NAME, id:PREFIX
    pub query: String,
    /// Hits per page, 1 to 50 (default 10)
    #[serde(default)]
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
    #[serde(default)]
    pub hops: Option<u64>,
    /// Let the index's favorites feed the ranking (default true)
    #[serde(default)]
    pub feedback: Option<bool>,
    /// Show papers marked `exclude` too, flagged (default false)
    #[serde(default)]
    pub show_excluded: bool,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct GetPaper {
    /// The paper's id or any alias (arXiv id, DOI, CorpusId:N, OpenAlex W-id, S2 sha, or their URLs)
    pub id: String,
    /// Upper bound on the result's size in tokens (JSON characters / 4; 100 to 100000, default 4000): long reference and citation lists are cut to fit (page them with `neighbors`)
    #[serde(default)]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Neighbors {
    /// A paper id or alias, or any id of the citation graph
    pub id: String,
    /// Hops to walk, 0 to 10 (default 1)
    #[serde(default)]
    pub hops: Option<u64>,
    /// Which way to follow citations (default both)
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Nodes per page, 1 to 500 (default 100)
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Related {
    /// Seed papers (ids or aliases), scored as a set
    pub ids: Vec<String>,
    /// cocitation, coupling, text or both (default)
    #[serde(default)]
    pub method: Option<Method>,
    /// Papers per page, 1 to 100 (default 20)
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct Gaps {
    /// Papers whose references to look at (ids or aliases); leave out for the whole index
    #[serde(default)]
    pub from: Vec<String>,
    /// Missing ids per page, 1 to 100 (default 20)
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(flatten)]
    pub page: PageArgs,
}

/// `--flag value` for each value.
fn repeated(args: &mut Vec<String>, flag: &str, values: &[String]) -> Result<(), String> {
    for v in values {
        args.push(flag.into());
        args.push(text(flag.trim_start_matches('-'), v)?);
    }
    Ok(())
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

/// Runs a list command for a page: `args` with `--limit offset+size`, the
/// items from the offset on, and whether the command may have more.
fn paged(
    server: &Litindex,
    tool: &str,
    args: Vec<String>,
    size: usize,
    page: &PageArgs,
    key: &str,
) -> Result<CallToolResult, String> {
    let page = Page::new(tool, &args, page)?;
    // Right after the command's name: ids after `--` end the flags.
    let mut args = args;
    args.splice(1..1, ["--limit".to_string(), (page.offset + size).to_string()]);
    let value = server.run_json(args)?;
    let (body, items) =
        if value.is_array() { (Map::new(), value.as_array().cloned().unwrap_or_default()) } else { split(value, key) };
    let full = items.len() == page.offset + size;
    let items: Vec<Value> = items.into_iter().skip(page.offset).collect();
    Ok(structured(page.fit(body, key, items, full)))
}

#[tool_router(router = read_tools, vis = "pub(super)")]
impl Litindex {
    /// Ranked, explained search: BM25 first stage, a citation walk from the seeds, recency.
    #[tool(
        description = "Search the index. Each hit has id, title, year, final_score and its parts (bm25_score, graph_distance, recency_score) and the evidence sentences (snippet). Pages with cursor/next_cursor; bounded by max_tokens.",
        annotations(read_only_hint = true)
    )]
    fn search_papers(&self, Parameters(p): Parameters<SearchPapers>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, 10, 50)?;
        let mut args = vec!["search".to_string(), "--format".into(), "json".into()];
        if let Some(m) = p.mode {
            args.extend(["--mode".into(), wire_name(m)]);
        }
        if let Some(h) = p.hops {
            args.extend(["--hops".into(), h.to_string()]);
        }
        if let Some(y) = &p.year {
            args.extend(["--year".into(), text("year", y)?]);
        }
        repeated(&mut args, "--author", &p.author)?;
        repeated(&mut args, "--venue", &p.venue)?;
        repeated(&mut args, "--must", &p.must)?;
        repeated(&mut args, "--not", &p.not)?;
        if p.feedback == Some(false) {
            args.extend(["--feedback".into(), "off".into()]);
        }
        if p.show_excluded {
            args.push("--show-excluded".into());
        }
        args.extend(["--".into(), text("query", &p.query)?]);
        paged(self, "search_papers", args, size, &p.page, "ranked")
    }

    /// One paper: metadata, abstract, references and citations.
    #[tool(
        description = "One paper by id or alias: title, abstract, year, authors, venue, sources, and the ids it cites (references) and that cite it (citations).",
        annotations(read_only_hint = true)
    )]
    fn get_paper(&self, Parameters(p): Parameters<GetPaper>) -> Result<CallToolResult, String> {
        let page = Page::new("get_paper", &[], &PageArgs { cursor: None, max_tokens: p.max_tokens })?;
        let value =
            self.run_json(vec!["paper".into(), "--format".into(), "json".into(), "--".into(), text("id", &p.id)?])?;
        let (mut body, references) = split(value, "references");
        let citations = match body.remove("citations") {
            Some(Value::Array(c)) => c,
            _ => Vec::new(),
        };
        // The budget left after the paper itself goes to its two lists, half each.
        let room = (page.max_tokens * CHARS_PER_TOKEN).saturating_sub(json_len(&Value::Object(body.clone())) + 300);
        let keep_refs = fitting(&references, room / 2);
        let keep_cites = fitting(&citations, room - room / 2);
        let cut = keep_refs < references.len() || keep_cites < citations.len();
        body.insert("references_total".into(), json!(references.len()));
        body.insert("citations_total".into(), json!(citations.len()));
        body.insert("references".into(), Value::Array(references.into_iter().take(keep_refs).collect()));
        body.insert("citations".into(), Value::Array(citations.into_iter().take(keep_cites).collect()));
        body.insert("truncated".into(), json!(cut));
        if cut {
            body.insert(
                "note".into(),
                json!(format!(
                    "references/citations cut to fit max_tokens={}; page through them with the neighbors tool (hops 1, direction references or citations)",
                    page.max_tokens
                )),
            );
        }
        Ok(structured(Value::Object(body)))
    }

    /// The citation neighbourhood of one id.
    #[tool(
        description = "The ids within some citation hops of a paper (or a dangling id), each with its distance and whether the index holds it. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true)
    )]
    fn neighbors(&self, Parameters(p): Parameters<Neighbors>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, 100, 500)?;
        let page =
            Page::new("neighbors", &[p.id.clone(), format!("{:?}", p.hops), format!("{:?}", p.direction)], &p.page)?;
        let mut args = vec!["neighbors".to_string(), "--format".into(), "json".into()];
        if let Some(h) = p.hops {
            args.extend(["--hops".into(), h.to_string()]);
        }
        if let Some(d) = p.direction {
            args.extend(["--direction".into(), wire_name(d)]);
        }
        args.extend(["--".into(), text("id", &p.id)?]);
        let (body, nodes) = split(self.run_json(args)?, "nodes");
        let total = nodes.len();
        let nodes: Vec<Value> = nodes.into_iter().skip(page.offset).collect();
        let more = nodes.len() > size;
        let mut body = body;
        body.insert("total".into(), json!(total));
        Ok(structured(page.fit(body, "nodes", nodes.into_iter().take(size).collect(), more)))
    }

    /// Papers like the given ones.
    #[tool(
        description = "Papers like the given ones: co-citation, bibliographic coupling (Salton's cosine) and BM25 more-like-this, each with its parts and the shared citers/references. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true)
    )]
    fn related(&self, Parameters(p): Parameters<Related>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, 20, 100)?;
        let mut args = vec!["related".to_string(), "--format".into(), "json".into()];
        if let Some(m) = p.method {
            args.extend(["--method".into(), wire_name(m)]);
        }
        args.push("--".into());
        args.extend(ids("ids", &p.ids)?);
        paged(self, "related", args, size, &p.page, "related")
    }

    /// What the papers cite that the index lacks.
    #[tool(
        description = "The ids the given papers (or the whole index, when `from` is empty) cite most that are not in the index, with a few citers and the id kind. Pages with cursor/next_cursor.",
        annotations(read_only_hint = true)
    )]
    fn gaps(&self, Parameters(p): Parameters<Gaps>) -> Result<CallToolResult, String> {
        let size = limit(p.limit, 20, 100)?;
        let mut args = vec!["gaps".to_string(), "--format".into(), "json".into()];
        if p.from.is_empty() {
            args.push("--all".into());
        } else {
            args.push("--from".into());
            args.extend(ids("from", &p.from)?);
        }
        paged(self, "gaps", args, size, &p.page, "gaps")
    }
}
