//! One file per subcommand; each `run` gets its parsed arguments, the opened
//! store (read commands) and the output stream.

mod bench;
mod build;
mod check;
mod completions;
mod context;
mod dupes;
mod embed;
mod eval;
mod eval_citations;
mod eval_evidence;
mod eval_pdf;
mod export;
mod fetch;
mod gaps;
mod ingest;
mod mark;
mod marks;
mod mcp;
mod neighbors;
mod opensearch;
mod paper;
mod postings;
mod related;
mod run;
mod screen;
mod search;
mod serve;
mod stats;
mod synth;
mod verify_citations;
mod watch;
mod why;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command, DEFAULT_DB};
use litindex::store::Store;

/// An argument that parsed but is not acceptable; `main` exits with 2 for
/// it. The library's [`BadRequest`](litindex::api::BadRequest): one kind for
/// a caller's bad request, whether it came from flags, MCP or the web page.
pub use litindex::api::BadRequest as UsageError;

/// Which database the user asked for.
enum Db {
    /// Named by `--db` or `LITINDEX_DB`: must exist for read commands.
    Named(PathBuf),
    /// Nothing named: `./litindex.db`, built from the mock corpus if missing.
    Default,
}

impl Db {
    fn path(&self) -> &Path {
        match self {
            Db::Named(p) => p,
            Db::Default => Path::new(DEFAULT_DB),
        }
    }
}

/// Dispatches a parsed command line.
pub fn run(cli: Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    let db = match cli.db {
        Some(p) if !p.as_os_str().is_empty() => Db::Named(p),
        _ => Db::Default,
    };
    // Reject bad arguments before anything touches the disk.
    match &cli.command {
        Command::Search(args) => {
            search::validate(&args.search)?;
            marks::validate_feedback(&args.marks.tuning)?
        }
        Command::Eval(args) => {
            search::validate(&args.search)?;
            marks::validate_feedback(&args.feedback_tuning)?
        }
        Command::Run(args) => search::validate(&args.search)?,
        Command::Export(args) => search::validate(&args.search)?,
        Command::Context(args) => {
            search::validate(&args.search)?;
            marks::validate_feedback(&args.marks.tuning)?
        }
        _ => {}
    }
    match cli.command {
        Command::Build(args) => build::run(&args, db.path(), out),
        Command::Ingest(args) => ingest::run(&args, db.path(), out),
        Command::Dupes(args) => dupes::run(&args, &open_for_reading(&db)?, out),
        Command::Search(args) if args.passages && args.backend.backend.is_some() => {
            Err(UsageError("--passages searches the local index's full text; it does not go with --backend".into())
                .into())
        }
        Command::Search(args) if args.passages => search::run_passages(&args, &open_for_reading(&db)?, out),
        Command::Search(args) if args.backend.backend.is_some() => {
            opensearch::search(&args, args.backend.backend.as_ref().expect("checked"), out)
        }
        Command::Search(args) => search::run(&args, &open_for_reading(&db)?, out),
        Command::Neighbors(args) => neighbors::run(&args, &open_for_reading(&db)?, out),
        Command::Paper(args) => paper::run(&args, &open_for_reading(&db)?, out),
        Command::Why(args) => why::run(&args, &open_for_reading(&db)?, out),
        Command::Stats(args) => stats::run(&args, &open_for_reading(&db)?, out),
        Command::Eval(args) if args.backend.backend.is_some() => eval::run(&args, None, out),
        Command::Eval(args) => eval::run(&args, Some(&open_for_reading(&db)?), out),
        Command::Run(args) if args.backend.backend.is_some() => run::run(&args, None, out),
        Command::Run(args) => run::run(&args, Some(&open_for_reading(&db)?), out),
        Command::Check(args) => check::run(&args, &open_for_reading(&db)?, out),
        Command::Postings(args) => postings::run(&args, &open_for_reading(&db)?, out),
        Command::Gen(args) => synth::run(&args, out),
        Command::Bench(args) => bench::run(&args, out),
        Command::Embed(args) => embed::run(&args, db.path(), out),
        Command::Mark(args) => mark::run(&args, db.path(), out),
        Command::Unmark(args) => mark::run_unmark(&args, db.path(), out),
        Command::Marks(args) => marks::run(&args, &open_for_reading(&db)?, out),
        Command::Watch(args) => watch::run(&args, &db, out),
        Command::Related(args) => related::run(&args, &open_for_reading(&db)?, out),
        Command::Gaps(args) => gaps::run(&args, &open_for_reading(&db)?, out),
        Command::EvalEvidence(args) => eval_evidence::run(&args, &open_for_reading(&db)?, out),
        Command::Fetch(args) => fetch::run(&args, db.path(), out),
        Command::Export(args) => export::run(&args, &open_for_reading(&db)?, out),
        Command::Context(args) => context::run(&args, &open_for_reading(&db)?, out),
        Command::VerifyCitations(args) => verify_citations::run(&args, &open_for_reading(&db)?, out),
        Command::EvalCitations(args) => eval_citations::run(&args, &open_for_reading(&db)?, out),
        Command::Screen(args) => screen::run(&args, &db, out),
        Command::EvalPdf(args) => eval_pdf::run(&args, out),
        Command::Serve(args) => serve::run(&args, &open_for_reading(&db)?, out),
        Command::Mcp(args) => mcp::run(&args, &db),
        Command::Completions(args) => completions::run(&args, out),
        Command::Man(args) => completions::run_man(&args, out),
    }
}

/// Prints `value` as pretty JSON and a newline. Serialised in memory first,
/// so a closed pipe surfaces as the plain `io::Error` that `main` treats as success.
fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// Opens the index for a read command. The embedded default: when no
/// database is named and `./litindex.db` does not exist, build it from the
/// mock corpus first and say so on stderr.
fn open_for_reading(db: &Db) -> anyhow::Result<Store> {
    if let Db::Default = db {
        let path = db.path();
        if !path.exists() {
            eprintln!(
                "litindex: no index at ./{DEFAULT_DB}; building it from the built-in mock corpus \
                 (use `litindex build` to index your own files)"
            );
            build::build_mock(path)?;
        }
    }
    Store::open_with_notes(db.path(), &print_note)
}

/// Writes a note from the library on stderr.
pub fn print_note(note: &str) {
    eprintln!("litindex: note: {note}");
}

/// The model directory of a dense or hybrid search from MCP or the web page:
/// `LITINDEX_MODEL_DIR` when set (as the CLI's `--model-dir` reads it), else
/// the one `litindex embed` recorded.
/// The models this process has loaded, shared by every search it runs: the
/// web page's and MCP's requests, `watch`'s saved searches
/// ([`litindex::embed::Models`]).
pub(crate) fn models() -> &'static litindex::embed::Models {
    static MODELS: std::sync::OnceLock<litindex::embed::Models> = std::sync::OnceLock::new();
    MODELS.get_or_init(Default::default)
}

pub(crate) fn model_dir() -> Option<PathBuf> {
    std::env::var_os(litindex::embed::MODEL_DIR_ENV).filter(|d| !d.is_empty()).map(PathBuf::from)
}
