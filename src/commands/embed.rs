//! `litindex embed`: sentence vectors for every paper that has none yet for
//! the model, and with `--passages` for every full-text passage (see
//! [`litindex::embed::embed_index`]).

use std::io::Write;
use std::path::Path;

use super::UsageError;
use crate::cli::EmbedArgs;
use litindex::embed::{EmbedOptions, embed_index};

pub fn run(args: &EmbedArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.batch == 0 {
        return Err(UsageError("--batch must be at least 1".into()).into());
    }
    if !db.exists() {
        anyhow::bail!("no index at {}; build or ingest one first, then embed it", db.display());
    }
    let bar = super::ingest::progress_bar(
        !args.quiet,
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg} {per_sec} eta {eta}",
    );
    if let Some(bar) = &bar {
        bar.set_message("papers");
    }
    // Papers first, then (with --passages) passages: a new length starts the passages.
    let draw = |done: u64, todo: u64| {
        if let Some(bar) = &bar {
            if bar.length() != Some(todo) && args.passages {
                bar.set_message("papers, then passages");
            }
            bar.set_length(todo);
            bar.set_position(done);
        }
    };
    let opts = EmbedOptions {
        model_dir: args.model_dir.clone(),
        batch: args.batch,
        chunks: args.chunks,
        passages: args.passages,
        progress: Some(&draw),
        notes: Some(&super::print_note),
    };
    let r = embed_index(db, &opts);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let r = r?;
    let secs = r.embed_secs.max(1e-9);
    writeln!(
        out,
        "embedded {}: {} of {} papers with {} ({}-d, fingerprint {}){}; {} already current{}; model loaded in {:.2} s",
        db.display(),
        r.embedded,
        r.papers,
        r.model.name,
        r.model.dim,
        r.model.fingerprint,
        if r.chunked > 0 { format!(", {} chunks of {} papers", r.chunks, r.chunked) } else { String::new() },
        r.unchanged,
        if r.removed > 0 { format!(", {} vectors of removed papers dropped", r.removed) } else { String::new() },
        r.load_secs,
    )?;
    if let Some(p) = &r.passages {
        writeln!(
            out,
            "passages: {} of {} embedded; {} already current{}",
            p.embedded,
            p.passages,
            p.unchanged,
            if p.removed > 0 { format!(", {} vectors of removed passages dropped", p.removed) } else { String::new() },
        )?;
    }
    writeln!(
        out,
        "{:.2} s, {:.1} papers/s, {:.0} tokens/s",
        r.embed_secs,
        (r.embedded.max(r.chunked)) as f64 / secs,
        r.tokens as f64 / secs
    )?;
    Ok(())
}
