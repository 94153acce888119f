//! `bibtex`: a BibTeX or BibLaTeX library (`.bib`, as Zotero, Mendeley,
//! JabRef and papis write it).
//!
//! The file is read whole (at most [`MAX_JSON_DOCUMENT`] bytes). Text
//! outside entries is a comment, as in BibTeX; `@comment` and `@preamble`
//! are skipped and `@string` macros are expanded (`#` concatenates). Per
//! entry: the key (an alias of kind `citekey`), `title` (required),
//! `author` (`and`-separated, `Last, First` or `First Last`), `year` (else
//! `date`), `doi`, `eprint` (an arXiv id when `archivePrefix`/`eprinttype` is
//! arXiv or absent), `url`, `abstract`, the venue (`journal`, else
//! `journaltitle`, else `booktitle`); other fields are ignored. Values
//! are LaTeX-decoded (`latex::decode`), except `doi`, `eprint` and `url`.
//! A malformed entry is one bad record located `file:LINE` at its `@`;
//! reading goes on at the next line that starts with `@`.

use super::library::{LibraryEntry, read_whole, year_in};
use super::{FieldError, Items, Located, OpenInput, ReadError, field_err, record_error};
use crate::cite::{latex, name_parts};
use crate::paper::{Item, PaperId};
use std::collections::HashMap;

pub fn read(input: OpenInput) -> anyhow::Result<Items> {
    let (path, text) = read_whole(input, "BibTeX")?;
    let mut out: Vec<Result<Located, ReadError>> = Vec::new();
    let mut parser = Parser { text: &text, pos: 0, macros: HashMap::new(), counted: (0, 1) };
    while let Some(start) = parser.next_entry() {
        let loc = format!("{path}:{}", parser.line_of(start));
        match parser.entry() {
            Ok(None) => {}
            Ok(Some(raw)) => {
                let record = entry(raw, &parser.macros).and_then(|e| e.into_record("bibtex", "key"));
                out.push(record.map(|r| (Item::Record(r), loc.clone())).map_err(|(f, m)| record_error(&loc, f, m)));
            }
            Err((field, message)) => {
                out.push(Err(record_error(&loc, field, message)));
                // Whatever the error swallowed, go on at the next entry after this one's `@`.
                parser.pos = start;
                parser.skip_to_next_line_with_at();
            }
        }
    }
    Ok(Box::new(out.into_iter()))
}

/// The id `fetch` can look up for each entry of the BibTeX file `path`, in
/// file order: its strongest DOI, arXiv or OpenAlex id (an entry's key names
/// nothing an API knows). Also the keys of the entries that have none. A
/// malformed entry is an error located `file:LINE`.
pub fn fetchable_ids(path: &std::path::Path) -> anyhow::Result<(Vec<PaperId>, Vec<String>)> {
    let (mut ids, mut without) = (Vec::new(), Vec::new());
    for item in read(super::open_input(path)?)? {
        let (item, _) = item.map_err(|e| anyhow::anyhow!("{e}"))?;
        let Item::Record(r) = item else { continue };
        let best = r
            .ids
            .into_iter()
            .filter(|id| !matches!(id, PaperId::Own(_) | PaperId::Citekey(_)))
            .min_by_key(|id| (id.priority(), id.key()));
        match best {
            Some(id) => ids.push(id),
            None => without.push(match r.source_id {
                PaperId::Citekey(key) => key,
                other => other.key(),
            }),
        }
    }
    Ok((ids, without))
}

/// One field's value before macro expansion: its parts, joined by `#`.
enum Part {
    Literal(String),
    Macro(String),
}

/// An entry as written: its key and its fields (names lowercased), in order.
struct RawEntry {
    key: String,
    fields: Vec<(String, Vec<Part>)>,
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    macros: HashMap<String, String>,
    /// A position and its line.
    counted: (usize, usize),
}

impl Parser<'_> {
    /// The line of `pos`, counted on from the last position asked about
    /// (entries come in order, so a whole file is counted once).
    fn line_of(&mut self, pos: usize) -> usize {
        let (from, line) = if pos >= self.counted.0 { self.counted } else { (0, 1) };
        let line = line + self.text[from..pos].bytes().filter(|&b| b == b'\n').count();
        self.counted = (pos, line);
        line
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Moves to the next `@`; its position.
    fn next_entry(&mut self) -> Option<usize> {
        let at = self.text[self.pos..].find('@')? + self.pos;
        self.pos = at;
        Some(at)
    }

    /// After a malformed entry: on to the next line that starts with `@`.
    fn skip_to_next_line_with_at(&mut self) {
        let rest = &self.text[self.pos.min(self.text.len())..];
        self.pos = match rest.find("\n@") {
            Some(i) => self.pos + i + 1,
            None => self.text.len(),
        };
    }

    /// `[A-Za-z0-9_:.+/-]+`-like name: up to whitespace or a delimiter.
    fn name(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(|b| !b.is_ascii_whitespace() && !b"{}(),=#\"@%".contains(&b)) {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// Parses the entry at `@`: `None` for `@comment`, `@preamble` and `@string`.
    fn entry(&mut self) -> Result<Option<RawEntry>, FieldError> {
        self.pos += 1;
        let kind = self.name().to_ascii_lowercase();
        if kind.is_empty() {
            return Err((None, "expected an entry type after `@`".into()));
        }
        self.skip_ws();
        let close = match self.peek() {
            Some(b'{') => b'}',
            Some(b'(') => b')',
            _ => return Err((None, format!("expected `{{` after `@{kind}`"))),
        };
        if kind == "comment" || kind == "preamble" {
            self.pos += 1;
            self.balanced(close).map_err(|m| (None, m))?;
            return Ok(None);
        }
        self.pos += 1;
        if kind == "string" {
            let fields = self.fields(close)?;
            for (name, parts) in fields {
                let value = expand(&self.macros, &name, parts)?;
                self.macros.insert(name, value);
            }
            return Ok(None);
        }
        self.skip_ws();
        let key = self.name().to_string();
        self.skip_ws();
        if key.is_empty() {
            return Err(field_err("key", format!("@{kind} has no key")));
        }
        match self.peek() {
            Some(b',') => self.pos += 1,
            Some(c) if c == close => {
                self.pos += 1;
                return Ok(Some(RawEntry { key, fields: Vec::new() }));
            }
            _ => return Err(field_err("key", format!("expected `,` after the key `{key}`"))),
        }
        let fields = self.fields(close)?;
        Ok(Some(RawEntry { key, fields }))
    }

    /// `name = value, …` up to the entry's closing delimiter.
    fn fields(&mut self, close: u8) -> Result<Vec<(String, Vec<Part>)>, FieldError> {
        let mut fields = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err((None, "the entry is not closed (a `}` is missing)".into())),
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(fields);
                }
                _ => {}
            }
            let name = self.name().to_ascii_lowercase();
            if name.is_empty() {
                return Err((None, format!("expected a field name, found {:?}", self.peek().map(char::from))));
            }
            self.skip_ws();
            if self.peek() != Some(b'=') {
                return Err(field_err(&name, "expected `=` after the field name"));
            }
            self.pos += 1;
            let mut parts = Vec::new();
            loop {
                self.skip_ws();
                parts.push(self.part().map_err(|m| field_err(&name, m))?);
                self.skip_ws();
                if self.peek() == Some(b'#') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {}
                None => return Err(field_err(&name, "the entry is not closed (a `}` is missing)")),
                Some(c) => {
                    return Err(field_err(&name, format!("expected `,` after the value, found {:?}", char::from(c))));
                }
            }
            fields.push((name, parts));
        }
    }

    /// One part of a value: `{…}`, `"…"`, a number or a macro name.
    fn part(&mut self) -> Result<Part, String> {
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let start = self.pos;
                self.balanced(b'}')?;
                Ok(Part::Literal(self.text[start..self.pos - 1].to_string()))
            }
            Some(b'"') => {
                self.pos += 1;
                let start = self.pos;
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        None => return Err("the quoted value is not closed".into()),
                        Some(b'{') => depth += 1,
                        Some(b'}') if depth == 0 => return Err("unbalanced `}` in the value".into()),
                        Some(b'}') => depth -= 1,
                        Some(b'"') if depth == 0 => break,
                        _ => {}
                    }
                    self.pos += 1;
                }
                self.pos += 1;
                Ok(Part::Literal(self.text[start..self.pos - 1].to_string()))
            }
            _ => {
                let word = self.name().to_string();
                if word.is_empty() {
                    return Err("expected a value (`{…}`, `\"…\"`, a number or a @string name)".into());
                }
                if word.bytes().all(|b| b.is_ascii_digit()) { Ok(Part::Literal(word)) } else { Ok(Part::Macro(word)) }
            }
        }
    }

    /// Skips to just after the `close` that balances the group opened before `pos`.
    fn balanced(&mut self, close: u8) -> Result<(), String> {
        let open = if close == b')' { b'(' } else { b'{' };
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            self.pos += 1;
            if b == b'\\' && close == b'}' {
                // `\{` and `\}` do not count.
                self.pos += usize::from(self.peek().is_some_and(|c| c == b'{' || c == b'}'));
            } else if b == open {
                depth += 1;
            } else if b == close {
                if depth == 0 {
                    return Ok(());
                }
                depth -= 1;
            }
        }
        Err("the entry is not closed (a `}` is missing)".into())
    }
}

/// A value with its macros expanded; an undefined one is an error of `field`.
fn expand(macros: &HashMap<String, String>, field: &str, parts: Vec<Part>) -> Result<String, FieldError> {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Literal(s) => out.push_str(&s),
            Part::Macro(m) => match macros.get(&m.to_ascii_lowercase()).map(String::as_str).or_else(|| month(&m)) {
                Some(v) => out.push_str(v),
                None => return Err(field_err(field, format!("undefined @string `{m}`"))),
            },
        }
    }
    Ok(out)
}

/// BibTeX's predefined month macros.
fn month(name: &str) -> Option<&'static str> {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    const NUMBERS: [&str; 12] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"];
    MONTHS.iter().position(|m| m.eq_ignore_ascii_case(name)).map(|i| NUMBERS[i])
}

/// The library entry of a parsed BibTeX entry.
fn entry(raw: RawEntry, macros: &HashMap<String, String>) -> Result<LibraryEntry, FieldError> {
    let mut values: HashMap<String, String> = HashMap::new();
    for (name, parts) in raw.fields {
        let value = expand(macros, &name, parts)?;
        values.entry(name).or_insert(value);
    }
    let get = |f: &str| values.get(f).map(String::as_str);
    let verbatim = |f: &str| get(f).map(|v| v.replace(['{', '}'], "").trim().to_string());
    let mut e = LibraryEntry { key: Some(raw.key), ..LibraryEntry::default() };
    e.title = latex::decode(get("title").ok_or_else(|| field_err("title", "is required"))?);
    e.abstract_ = get("abstract").map(latex::decode).unwrap_or_default();
    e.authors = get("author").map(authors).unwrap_or_default();
    e.venue = ["journal", "journaltitle", "booktitle"].iter().find_map(|f| get(f)).map(latex::decode);
    e.year = match (get("year"), get("date")) {
        (Some(y), _) => year_in("year", &latex::decode(y))?,
        (None, Some(d)) => year_in("date", d)?,
        (None, None) => None,
    };
    if let Some(doi) = verbatim("doi") {
        e.add_doi("doi", &doi)?;
    }
    if let Some(eprint) = verbatim("eprint").filter(|s| !s.is_empty()) {
        let archive = verbatim("archiveprefix").or_else(|| verbatim("eprinttype")).unwrap_or_default();
        let is_arxiv = archive.is_empty() || archive.eq_ignore_ascii_case("arxiv");
        match PaperId::parse_arxiv(&eprint) {
            Some((id, _)) if is_arxiv => e.add_id(id),
            None if archive.eq_ignore_ascii_case("arxiv") => {
                return Err(field_err("eprint", format!("not an arXiv id: {eprint:?}")));
            }
            _ => {}
        }
    }
    if let Some(url) = verbatim("url") {
        e.add_url(&url);
    }
    Ok(e)
}

/// The `and`-separated names of an `author` field (at brace depth 0), as
/// display names; `others` is dropped.
fn authors(value: &str) -> Vec<String> {
    let mut names_out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let words: Vec<&str> = value.split_whitespace().collect();
    for word in words {
        if depth == 0 && word.eq_ignore_ascii_case("and") {
            names_out.push(std::mem::take(&mut current));
            continue;
        }
        for c in word.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    names_out.push(current);
    names_out
        .iter()
        .map(|n| name_parts::from_written(&latex::decode(n)))
        .filter(|n| !n.is_empty() && n != "others")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_and_outside_braces() {
        assert_eq!(
            authors(r"van der Berg, Jan and Lovelace, Ada AND {Barnes and Noble} and others"),
            ["Jan van der Berg", "Ada Lovelace", "Barnes and Noble"]
        );
        assert_eq!(authors(r#"Schr{\"o}dinger, Erwin"#), ["Erwin Schrödinger"]);
    }
}
