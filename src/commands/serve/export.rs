//! The export download of the web page: the BibTeX itself is
//! `litindex export`'s writer ([`litindex::cite`]); this names the file.

/// A file name from an id: its ASCII letters, digits and `-`, others as `_`.
pub(super) fn file_stem(id: &str) -> String {
    let s: String = id.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if s.is_empty() { "paper".into() } else { s }
}
