//! The export download of the web page.
//!
//! PLACEHOLDER for the lead at merge: the `export` branch's BibTeX writer
//! (`litindex export`) replaces [`bibtex`] — one call from the route in
//! `routes.rs`. Until then this writes a minimal `@misc` entry per paper
//! from its row: key = the id's letters and digits, title, author, year,
//! venue (as `howpublished`) and the id as `note`.

use litindex::store::PaperRow;

/// `rows` as BibTeX (minimal; see the module note).
pub(super) fn bibtex(rows: &[PaperRow]) -> String {
    let mut out = String::new();
    for p in rows {
        out.push_str(&format!("@misc{{{},\n", file_stem(&p.id)));
        out.push_str(&format!("  title = {{{}}},\n", braced(&p.title)));
        if !p.authors.is_empty() {
            out.push_str(&format!("  author = {{{}}},\n", braced(&p.authors.join(" and "))));
        }
        if let Some(y) = p.year {
            out.push_str(&format!("  year = {{{y}}},\n"));
        }
        if let Some(v) = &p.venue {
            out.push_str(&format!("  howpublished = {{{}}},\n", braced(v)));
        }
        out.push_str(&format!("  note = {{litindex id {}}}\n}}\n\n", braced(&p.id)));
    }
    out
}

/// A citation key / file name from an id: its ASCII letters, digits and `-`, others as `_`.
pub(super) fn file_stem(id: &str) -> String {
    let s: String = id.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if s.is_empty() { "paper".into() } else { s }
}

/// A field value with its braces and backslashes escaped, so it cannot close the field.
fn braced(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bibtex_fields_cannot_break_out() {
        let row = PaperRow {
            id: "10.1/x y".into(),
            title: "A {b} \\c".into(),
            abstract_: String::new(),
            year: Some(2020),
            authors: vec!["Ann Li".into(), "Bo Wu".into()],
            source: "paper".into(),
            doc_len: 0,
            venue: None,
        };
        let text = bibtex(&[row]);
        assert!(text.starts_with("@misc{10_1_x_y,\n"), "{text}");
        assert!(text.contains("title = {A \\{b\\} \\textbackslash{}c},"), "{text}");
        assert!(text.contains("author = {Ann Li and Bo Wu},"), "{text}");
        assert!(text.contains("year = {2020},"), "{text}");
    }
}
