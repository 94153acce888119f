//! The BibTeX writer: one entry per paper, `@article` with its venue as
//! `journal` when it has one, else `@misc` (litindex keeps no other entry
//! type), text fields LaTeX-escaped, the title's case protected by
//! a second pair of braces, `doi`, `eprint` + `archivePrefix` and `url`
//! verbatim, authors `Last, First` joined by `and` (the et-al marker as
//! `and others`); an untitled paper has no `title`.

use std::io::{self, Write};

use super::{Entry, latex, name_parts};

pub(super) fn write(out: &mut dyn Write, e: &Entry, first: bool) -> io::Result<()> {
    if !first {
        out.write_all(b"\n")?;
    }
    let kind = if e.venue.is_some() { "article" } else { "misc" };
    writeln!(out, "@{kind}{{{},", e.key)?;
    if !e.title.trim().is_empty() {
        writeln!(out, "  title = {{{{{}}}}},", latex::escape(&e.title))?;
    }
    if let Some(venue) = &e.venue {
        writeln!(out, "  journal = {{{}}},", latex::escape(venue))?;
    }
    if !e.authors.is_empty() {
        let authors: Vec<String> = e.authors.iter().map(|a| author(a)).collect();
        writeln!(out, "  author = {{{}}},", authors.join(" and "))?;
    }
    if let Some(y) = e.year {
        writeln!(out, "  year = {{{y}}},")?;
    }
    if let Some(doi) = &e.doi {
        writeln!(out, "  doi = {{{}}},", verbatim(doi))?;
    }
    if let Some(arxiv) = &e.arxiv {
        writeln!(out, "  eprint = {{{}}},", verbatim(arxiv))?;
        writeln!(out, "  archivePrefix = {{arXiv}},")?;
    }
    if let Some(url) = &e.url {
        writeln!(out, "  url = {{{}}},", verbatim(url))?;
    }
    if !e.abstract_.is_empty() {
        writeln!(out, "  abstract = {{{}}},", latex::escape(&e.abstract_))?;
    }
    writeln!(out, "}}")
}

/// One author as `Last, First` (just `Last` for a one-word name), escaped;
/// a part holding the word `and` is braced so it does not split the list.
fn author(name: &str) -> String {
    if name == crate::names::ET_AL {
        return "others".into();
    }
    let n = name_parts::split(name);
    let part = |s: &str| {
        let s = latex::escape(s);
        if s.split(' ').any(|w| w.eq_ignore_ascii_case("and")) { format!("{{{s}}}") } else { s }
    };
    if n.given.is_empty() { part(&n.family) } else { format!("{}, {}", part(&n.family), part(&n.given)) }
}

/// A verbatim field (DOI, eprint, URL) with the braces that would end it
/// dropped: DOIs and URLs do not hold them.
fn verbatim(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '{' | '}' | '\n' | '\r')).collect()
}
