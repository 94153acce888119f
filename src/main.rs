//! The `litindex` binary: parse, dispatch, map errors to an exit code.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

mod cli;
mod commands;

use cli::Cli;
use commands::UsageError;
use litindex::search::QueryError;

/// mimalloc for the binary's allocations (SQLite keeps the system's). A
/// search at 1M papers fills hash maps of some 60,000 reached papers, and
/// glibc's malloc gave every one of their pages to the process fresh from
/// the kernel (12,900 page faults, about 45 % of the process in the kernel);
/// mimalloc reuses its own (2,500). Measured in docs/PERFORMANCE.md, "The
/// allocator": the search process and the build both faster.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            // A bad value: one line naming the flag and what is wrong.
            ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
                let text = e.to_string();
                eprintln!(
                    "litindex: error: {}",
                    text.lines().next().unwrap_or("invalid argument").trim_start_matches("error: ")
                );
                return ExitCode::from(2);
            }
            _ => e.exit(),
        },
    };
    // Not `stdout().lock()`: `mcp` writes stdout from another thread (its
    // transport) while this one waits, and would deadlock on a held lock.
    let mut out = BufWriter::new(io::stdout());
    let result = commands::run(cli, &mut out).and_then(|()| Ok(out.flush()?));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `litindex search … | head` closing the pipe early is not a failure.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let message = format!("{e:#}").replace('\n', " ");
            eprintln!("litindex: error: {message}");
            // A user's mistake: a bad argument, or a query the query language cannot read.
            let usage = e.downcast_ref::<UsageError>().is_some() || e.downcast_ref::<QueryError>().is_some();
            if usage { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}
