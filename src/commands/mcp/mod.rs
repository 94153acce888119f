//! `litindex mcp`: a Model Context Protocol server over stdio (rmcp).
//!
//! Each tool call turns its typed arguments into the library's typed request
//! (`litindex::api`: a `SearchOptions`, a `NeighborsRequest`, a
//! `MarkRequest`, …) and calls the same library function the CLI command
//! calls, on a store opened for that call and closed after it: the server
//! holds no connection, and so no lock, while it waits, and an `ingest` can
//! run beside it. No argument ever becomes a command line, so no value (one
//! that starts with `-` included) is read as a flag, and no tool opens a
//! path its arguments name: the only file a tool touches is the index the
//! server was started on. A bad value is the library's `BadRequest` (or an
//! unknown id), answered as a tool error (`isError: true`) with its one-line
//! message. The value the function returns is the structured result
//! (`structuredContent`, with the same JSON as the text fallback; the JSON
//! the CLI prints for `--format json`), cut to the caller's budget by `page`.
//!
//! The tool registry is [`Litindex::registry`]: one router per file
//! (`read.rs`, `cite.rs`, `write.rs`), merged. Only protocol messages go to stdout;
//! notes go to stderr.

mod cite;
mod fulltext;
mod index;
mod lenient;
mod page;
mod read;
mod resources;
mod schemas;
mod screen;
mod transport;
mod watch;
mod write;

use std::path::{Path, PathBuf};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool_handler};

pub(super) use super::model_dir;
use super::{Db, open_for_reading, print_note};
use crate::cli::{DEFAULT_DB, McpArgs};
use litindex::store::Store;

/// The tools that write to the index: listed and callable only with `--allow-writes`.
const WRITE_TOOLS: &[&str] = &["mark", "unmark", "screen_label", "watch_add", "watch_check", "watch_remove"];

/// The server: the index it serves and whether writes are allowed.
#[derive(Clone)]
pub(crate) struct Litindex {
    /// `--db` / `LITINDEX_DB` when given (else the CLI's default, `./litindex.db`).
    db: Option<PathBuf>,
    allow_writes: bool,
    tool_router: ToolRouter<Self>,
    /// Screening reviews' models, kept between `screen_next` calls.
    models: std::sync::Arc<litindex::screen::next::Models>,
}

impl Litindex {
    fn new(db: Option<PathBuf>, allow_writes: bool) -> Self {
        Litindex { db, allow_writes, tool_router: Self::registry(allow_writes), models: Default::default() }
    }

    /// Every tool the server offers. A tool from another part of litindex
    /// (as `cite.rs`: export, context, verify_citations) is a `#[tool]` method in its own
    /// file's `#[tool_router(router = NAME, vis = "pub(super)")] impl Litindex`,
    /// merged here with one line.
    fn registry(allow_writes: bool) -> ToolRouter<Self> {
        let mut router = Self::read_tools();
        router.merge(Self::index_tools());
        router.merge(Self::cite_tools());
        router.merge(Self::fulltext_tools());
        router.merge(Self::screen_read_tools());
        router.merge(Self::watch_read_tools());
        if allow_writes {
            router.merge(Self::write_tools());
            router.merge(Self::screen_write_tools());
            router.merge(Self::watch_write_tools());
        }
        router
    }

    /// The index file the server serves.
    fn db_path(&self) -> &Path {
        self.db.as_deref().unwrap_or(Path::new(DEFAULT_DB))
    }

    /// Runs `f` on the index, opened for this call and closed after it; an
    /// error is its one line (the library's message, as the CLI prints it).
    fn with_store<T>(&self, f: impl FnOnce(&Store) -> anyhow::Result<T>) -> Result<T, String> {
        let store = Store::open_with_notes(self.db_path(), &print_note).map_err(one_line)?;
        f(&store).map_err(one_line)
    }
}

/// An error as one line.
fn one_line(e: anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

/// The instructions a client gets at `initialize`.
const INSTRUCTIONS: &str = "litindex: a local literature index (BM25 + citation graph). Start with describe_index, then search_papers (query language: words, +must, -not, \"phrase\", author:, year:, venue:), then get_paper / get_papers, neighbors, related and gaps on the ids it returns; search_passages, get_passage and why read the papers' PDFs (full text, with pages). List results page: pass next_cursor back as cursor, with the same other arguments, for more; max_tokens (default 4000) caps a result's JSON at max_tokens x 4 characters. Resources: paper://ID, marks://LABEL; prompt: prior_art_report. Saved searches: list_watches, watch_new (what is new since the last check).";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Litindex {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build())
            .with_server_info(Implementation::new("litindex", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.to_string())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(self, &request.uri).map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(resources::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        resources::prompt(&request.name, request.arguments.as_ref()).map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.allow_writes && WRITE_TOOLS.contains(&request.name.as_ref()) {
            let message = format!(
                "`{}` writes to the index, and this server is read-only: start it with `litindex mcp --allow-writes`",
                request.name
            );
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
        }
        self.tool_router.call(ToolCallContext::new(self, request, context)).await
    }

    /// The request that stands for a line over the cap ([`transport`]), answered with an error.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method == transport::OVERSIZED {
            let p = request.params.unwrap_or_default();
            let message = format!(
                "the request line is {} bytes, over the limit of {} bytes: send less in one request (fewer or shorter arguments)",
                p["bytes"], p["limit"]
            );
            return Err(ErrorData::new(ErrorCode::INVALID_REQUEST, message, Some(p)));
        }
        Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("no method `{}`", request.method), None))
    }
}

/// A tool's answer: the structured result and its JSON as the text.
fn structured(value: serde_json::Value) -> CallToolResult {
    CallToolResult::structured(value)
}

/// `litindex mcp`: serve until the client closes stdin.
pub fn run(args: &McpArgs, db: &Db) -> anyhow::Result<()> {
    // Fail before serving when the index cannot be read (and build the
    // default one, as every read command does); the store is closed again.
    drop(open_for_reading(db)?);
    let path = match db {
        Db::Named(p) => Some(p.clone()),
        Db::Default => None,
    };
    let server = Litindex::new(path, args.allow_writes);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let service = server.serve((transport::capped_stdin(), tokio::io::stdout())).await?;
        service.waiting().await?;
        anyhow::Ok(())
    })
}
