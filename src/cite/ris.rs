//! The RIS writer: `TY  - JOUR` with the venue as `JO` when the paper has
//! one, else `TY  - GEN` (litindex keeps no other entry type), `ID` the
//! key, `TI` (left out for an untitled paper), one `AU  - Last, First` per author, `PY`, `DO`, `UR`, the
//! arXiv id as `AN  - arXiv:ID`, `AB`, `ER`. RIS is one field per line, so a
//! line break inside a value is written as a space.

use std::io::{self, Write};

use super::{Entry, name_parts};

pub(super) fn write(out: &mut dyn Write, e: &Entry) -> io::Result<()> {
    let mut field = |tag: &str, value: &str| writeln!(out, "{tag}  - {}", one_line(value));
    field("TY", if e.venue.is_some() { "JOUR" } else { "GEN" })?;
    field("ID", &e.key)?;
    // An untitled paper has no `TI` (an empty one would not import again).
    if !e.title.trim().is_empty() {
        field("TI", &e.title)?;
    }
    if let Some(venue) = &e.venue {
        field("JO", venue)?;
    }
    for a in &e.authors {
        if a == crate::names::ET_AL {
            // RIS has no "and others": the marker itself, which imports back as it is.
            field("AU", a)?;
            continue;
        }
        let n = name_parts::split(a);
        if n.given.is_empty() { field("AU", &n.family)? } else { field("AU", &format!("{}, {}", n.family, n.given))? }
    }
    if let Some(y) = e.year {
        field("PY", &y.to_string())?;
    }
    if let Some(doi) = &e.doi {
        field("DO", doi)?;
    }
    if let Some(url) = &e.url {
        field("UR", url)?;
    }
    if let Some(arxiv) = &e.arxiv {
        field("AN", &format!("arXiv:{arxiv}"))?;
    }
    if !e.abstract_.is_empty() {
        field("AB", &e.abstract_)?;
    }
    writeln!(out, "ER  - ")
}

fn one_line(s: &str) -> String {
    s.chars().map(|c| if matches!(c, '\n' | '\r') { ' ' } else { c }).collect()
}
