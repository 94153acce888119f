//! `litindex mcp`: a Model Context Protocol server over stdio (rmcp).
//!
//! Each tool call runs the CLI command it stands for (`search`, `paper`,
//! `neighbors`, …) in this process with `--format json`, on a store opened
//! for that call and closed after it: the server holds no connection, and so
//! no lock, while it waits, and an `ingest` can run beside it. A tool's
//! arguments become the command's flags, so a bad value gets the CLI's own
//! one-line message, as a tool error (`isError: true`). What the command
//! printed becomes the structured result (`structuredContent`, with the same
//! JSON as the text fallback), cut to the caller's budget by `page`.
//!
//! The tool registry is [`Litindex::registry`]: one router per file
//! (`read.rs`, `cite.rs`, `write.rs`), merged. Only protocol messages go to stdout;
//! notes go to stderr.

mod cite;
mod page;
mod read;
mod write;

use std::path::PathBuf;

use clap::Parser;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool_handler};

use super::{Db, open_for_reading};
use crate::cli::{Cli, McpArgs};

/// The tools that write to the index: listed and callable only with `--allow-writes`.
const WRITE_TOOLS: &[&str] = &["mark", "unmark"];

/// The server: the index it serves and whether writes are allowed.
#[derive(Clone)]
pub(crate) struct Litindex {
    /// `--db` / `LITINDEX_DB` when given (else the CLI's default, `./litindex.db`).
    db: Option<PathBuf>,
    allow_writes: bool,
    tool_router: ToolRouter<Self>,
}

impl Litindex {
    fn new(db: Option<PathBuf>, allow_writes: bool) -> Self {
        Litindex { db, allow_writes, tool_router: Self::registry(allow_writes) }
    }

    /// Every tool the server offers. A tool from another part of litindex
    /// (as `cite.rs`: export, context, verify_citations) is a `#[tool]` method in its own
    /// file's `#[tool_router(router = NAME, vis = "pub(super)")] impl Litindex`,
    /// merged here with one line.
    fn registry(allow_writes: bool) -> ToolRouter<Self> {
        let mut router = Self::read_tools();
        router.merge(Self::cite_tools());
        if allow_writes {
            router.merge(Self::write_tools());
        }
        router
    }

    /// Runs one litindex command line (without the program name and
    /// `--db`) and returns what it printed; an error is the one line the
    /// CLI would print after `litindex: error: `.
    fn run_cli(&self, args: Vec<String>) -> Result<Vec<u8>, String> {
        match self.run_cli_keeping(args)? {
            (out, None) => Ok(out),
            (_, Some(e)) => Err(e),
        }
    }

    /// [`Self::run_cli`] that keeps what the command printed before it
    /// failed (a report whose findings make it exit 1), with the error line.
    fn run_cli_keeping(&self, args: Vec<String>) -> Result<(Vec<u8>, Option<String>), String> {
        let mut argv = vec!["litindex".to_string()];
        if let Some(db) = &self.db {
            argv.push("--db".into());
            argv.push(db.to_string_lossy().into_owned());
        }
        argv.extend(args);
        let cli = Cli::try_parse_from(argv).map_err(|e| {
            let text = e.to_string();
            text.lines().next().unwrap_or("invalid argument").trim_start_matches("error: ").to_string()
        })?;
        let mut out = Vec::new();
        let failed = super::run(cli, &mut out).err().map(|e| format!("{e:#}").replace('\n', " "));
        Ok((out, failed))
    }

    /// Runs a command that prints JSON and parses what it printed.
    fn run_json(&self, args: Vec<String>) -> Result<serde_json::Value, String> {
        let out = self.run_cli(args)?;
        serde_json::from_slice(&out).map_err(|e| format!("internal error: the command printed no JSON ({e})"))
    }
}

// The instructions a client gets at `initialize`.
#[tool_handler(
    router = self.tool_router,
    name = "litindex",
    instructions = "litindex: a local literature index (BM25 + citation graph). Start with search_papers (query language: words, +must, -not, \"phrase\", author:, year:, venue:), then get_paper, neighbors, related and gaps on the ids it returns. List results page: pass next_cursor back as cursor, with the same other arguments, for more; max_tokens (default 4000) bounds a result's size, estimated as JSON characters / 4."
)]
impl ServerHandler for Litindex {
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
        let service = server.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        anyhow::Ok(())
    })
}
