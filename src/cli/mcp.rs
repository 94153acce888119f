//! Arguments of `mcp` (the Model Context Protocol server), `completions` and `man`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Offer the tools that write to the index (`mark`, `unmark`); without it they are not listed and a call is refused
    #[arg(long)]
    pub allow_writes: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write one page per command (litindex.1, litindex-search.1, …) into DIR instead of the main page to stdout
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}
