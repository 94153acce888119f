//! `litindex export`: papers as BibTeX, CSL-JSON, RIS or Paper JSON Lines.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;

use crate::cli::ExportArgs;
use litindex::cite;
use litindex::search::{HitParts, search};
use litindex::store::Store;

pub fn run(args: &ExportArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let Some(format) = args.format.cite() else {
        return super::opensearch::export(args, store, out);
    };
    let ids = match &args.query {
        Some(query) => {
            // The query is free text here, as it has always been for `export`.
            let choices = args.search.choices(query, args.limit, 0, true);
            let mut resolved = super::search::resolve(&choices, None, store)?;
            // Only the ids are exported (their records are read by `cite`).
            resolved.request.parts = HitParts::Scores;
            let result = search(store, &resolved.request, resolved.semantic.as_ref())?;
            Some(result.ranked.into_iter().map(|h| h.id).collect())
        }
        None if !args.ids.is_empty() => Some(litindex::api::resolve_each(store, &args.ids)?),
        None if args.tag.is_some() => {
            let tag = args.tag.as_deref().unwrap_or_default();
            let ids = store.papers_tagged(tag)?;
            anyhow::ensure!(!ids.is_empty(), "no paper of {} is tagged `{tag}`", store.path().display());
            Some(ids)
        }
        None => args.marks.map(|label| litindex::api::marked(store, label)).transpose()?,
    };
    let write = |out: &mut dyn Write| match &ids {
        Some(ids) => cite::export_ids(store, ids, format, out),
        None => cite::export_all(store, format, out),
    };
    match &args.output {
        None => {
            write(out)?;
        }
        Some(path) => {
            let n = write_atomically(path, write)?;
            eprintln!("litindex: wrote {n} paper{} to {}", if n == 1 { "" } else { "s" }, path.display());
        }
    }
    Ok(())
}

/// Writes through `write` into a temporary file beside `path`, renamed onto
/// `path` only when every paper is written: a failure leaves `path` as it was.
fn write_atomically(path: &Path, write: impl FnOnce(&mut dyn Write) -> anyhow::Result<usize>) -> anyhow::Result<usize> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    let mut buf = BufWriter::new(tmp);
    let n = write(&mut buf).with_context(|| format!("cannot write {}", path.display()))?;
    let tmp =
        buf.into_inner().map_err(|e| e.into_error()).with_context(|| format!("cannot write {}", path.display()))?;
    // A temporary file is private (0600); the export gets the mode of the
    // file it replaces, or the usual 0644.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    tmp.as_file().sync_all().with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(n)
}
