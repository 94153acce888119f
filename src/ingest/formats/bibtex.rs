//! `bibtex`: a BibTeX or BibLaTeX library (`.bib`, as Zotero, Mendeley,
//! JabRef and papis write it).
//!
//! The file is read whole (at most [`MAX_JSON_DOCUMENT`] bytes; its encoding
//! detected or forced, `library::decode_text`). Text outside entries is a
//! comment, as in BibTeX, and so is a `%` line outside entries (an `@` in it
//! starts nothing) or a `%` comment inside one, between fields; `@comment`
//! and `@preamble` are skipped and `@string` macros are expanded (`#`
//! concatenates). `crossref` and `xdata` are resolved as biblatex does
//! ([`inherit`]); `@xdata` entries are not papers. Per entry: the key (an
//! alias of kind `citekey`; a key used by a different work earlier in the
//! file is made unique, `library::Keys`), `title` (may be absent: the paper is
//! untitled), `author` (`and`-separated, `Last, First` or `First Last`; `and
//! others` kept as a last name [`ET_AL`]), `year` (else
//! `date`), `doi`, `eprint` (an arXiv id when `archivePrefix`/`eprinttype` is
//! arXiv or absent), `url`, `abstract`, the venue (`journal`, else
//! `journaltitle`, else `booktitle`); other fields are ignored. Values
//! are LaTeX-decoded (`latex::decode`), except `doi`, `eprint` and `url`.
//! A malformed entry is one bad record located `file:LINE` at its `@`;
//! reading goes on at the next line that starts with `@`.

use super::library::{Keys, LibraryEntry, read_whole};
use super::{FieldError, FormatOptions, Items, Located, OpenInput, ReadError, field_err, record_error};
use crate::cite::{latex, name_parts};
use crate::names::{ET_AL, strip_et_al};
use crate::paper::{Item, PaperId};
use std::collections::HashMap;

pub fn read(input: OpenInput, opts: &FormatOptions) -> anyhow::Result<Items> {
    let (path, text) = read_whole(input, "BibTeX", opts)?;
    let mut parser = Parser { text: &text, pos: 0, macros: HashMap::new(), counted: (0, 1) };
    // First every entry with its values expanded (a `crossref` may point
    // forward), then each one with what it inherits.
    let mut parsed: Vec<(String, Result<Fields, FieldError>)> = Vec::new();
    while let Some(start) = parser.next_entry() {
        let loc = format!("{path}:{}", parser.line_of(start));
        match parser.entry() {
            Ok(None) => {}
            Ok(Some(raw)) => {
                let macros = &parser.macros;
                parsed.push((loc, expand_all(raw, macros)));
            }
            Err(e) => {
                parsed.push((loc, Err(e)));
                // Whatever the error swallowed, go on at the next entry after this one's `@`.
                parser.pos = start;
                parser.skip_to_next_line_with_at();
            }
        }
    }
    let by_key: HashMap<String, &Fields> =
        parsed.iter().rev().filter_map(|(_, f)| f.as_ref().ok()).map(|f| (f.key.to_lowercase(), f)).collect();
    let mut keys = Keys::default();
    let mut out: Vec<Result<Located, ReadError>> = Vec::new();
    for (loc, fields) in &parsed {
        let record = fields.clone().and_then(|f| {
            if f.kind == "xdata" {
                return Ok(None);
            }
            let f = inherit(f, &by_key);
            let mut e = entry(&f)?;
            e.notes.extend(f.notes.iter().cloned());
            e.tell(loc, opts);
            let key = e.key.take().unwrap_or_default();
            e.key = Some(keys.unique(&key, &e.title, e.year, loc, opts));
            e.into_record("bibtex", "key").map(Some)
        });
        match record {
            Ok(None) => {}
            Ok(Some(r)) => out.push(Ok((Item::Record(r), loc.clone()))),
            Err((f, m)) => out.push(Err(record_error(loc, f, m))),
        }
    }
    Ok(Box::new(out.into_iter()))
}

/// An entry with its values expanded: type, key, fields (names lowercased,
/// the first of a repeated field kept), in order.
#[derive(Clone)]
struct Fields {
    kind: String,
    key: String,
    values: Vec<(String, String)>,
    /// Undefined @string names, read as nothing (as BibTeX does, with a warning).
    notes: Vec<String>,
}

impl Fields {
    fn get(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn expand_all(raw: RawEntry, macros: &HashMap<String, String>) -> Result<Fields, FieldError> {
    let mut values: Vec<(String, String)> = Vec::new();
    let mut notes = Vec::new();
    for (name, parts) in raw.fields {
        let (value, undefined) = expand(macros, parts);
        for m in undefined {
            notes.push(format!("field `{name}`: undefined @string `{m}`, read as nothing (as BibTeX does)"));
        }
        if !values.iter().any(|(n, _)| *n == name) {
            values.push((name, value));
        }
    }
    Ok(Fields { kind: raw.kind, key: raw.key, values, notes })
}

/// Fields a child never inherits: identity, and the parent's own work
/// (its ids and abstract would make the child the parent's duplicate).
const NOT_INHERITED: [&str; 22] = [
    "ids",
    "crossref",
    "xref",
    "xdata",
    "entryset",
    "entrysubtype",
    "execute",
    "label",
    "options",
    "presort",
    "related",
    "relatedoptions",
    "relatedstring",
    "relatedtype",
    "shorthand",
    "shorthandintro",
    "sortkey",
    "doi",
    "eprint",
    "url",
    "abstract",
    "isbn",
];

/// `f` with the fields of its `xdata` entries and of its `crossref` parent
/// added where it has none, as biblatex inherits them: from a book,
/// collection, reference or proceedings into an `in…` entry the parent's
/// `title` becomes `booktitle` (and `author` `bookauthor`), from a
/// periodical into an article `journaltitle`, from an `mv…` volume
/// `maintitle`; any other field keeps its name. A parent that is not in
/// the file adds nothing. One level of crossref (biblatex resolves chains;
/// BibTeX does not), and the xdata of the entry itself.
fn inherit(mut f: Fields, by_key: &HashMap<String, &Fields>) -> Fields {
    let lookup = |key: &str| by_key.get(&key.trim().to_lowercase()).copied();
    let add = |f: &mut Fields, name: &str, value: &str| {
        if f.get(name).is_none() {
            f.values.push((name.to_string(), value.to_string()));
        }
    };
    let xdata: Vec<String> = f
        .get("xdata")
        .map(|v| v.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect())
        .unwrap_or_default();
    for key in xdata {
        if let Some(x) = lookup(&key) {
            for (n, v) in &x.values {
                if !NOT_INHERITED.contains(&n.as_str()) {
                    add(&mut f, n, v);
                }
            }
        }
    }
    let Some(parent) = f.get("crossref").and_then(lookup).cloned() else { return f };
    let (pk, ck) = (parent.kind.as_str(), f.kind.as_str());
    let parent_volume = matches!(pk, "book" | "collection" | "reference" | "proceedings")
        || matches!(pk, "mvbook" | "mvcollection" | "mvproceedings" | "mvreference");
    let into_in = parent_volume && (ck.starts_with("in") || ck == "bookinbook" || ck.starts_with("supp"));
    for (n, v) in &parent.values {
        if NOT_INHERITED.contains(&n.as_str()) {
            continue;
        }
        let target = match n.as_str() {
            "title" if pk.starts_with("mv") => "maintitle",
            "title" if pk == "periodical" => "journaltitle",
            "title" if into_in => "booktitle",
            "author" if into_in && pk.ends_with("book") => "bookauthor",
            other => other,
        };
        add(&mut f, target, v);
    }
    f
}

/// The id `fetch` can look up for each entry of the BibTeX file `path`, in
/// file order: its strongest DOI, arXiv or OpenAlex id (an entry's key names
/// nothing an API knows). Also the keys of the entries that have none. A
/// malformed entry is an error located `file:LINE`.
pub fn fetchable_ids(path: &std::path::Path) -> anyhow::Result<(Vec<PaperId>, Vec<String>)> {
    let (mut ids, mut without) = (Vec::new(), Vec::new());
    for item in read(super::open_input(path)?, &FormatOptions::default())? {
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

/// An entry as written: its type and key and its fields (names lowercased), in order.
struct RawEntry {
    kind: String,
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

    /// Skips whitespace and `%` comments (to the end of their line).
    fn skip_ws(&mut self) {
        loop {
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'%') => {
                    self.pos = self.text[self.pos..].find('\n').map_or(self.text.len(), |i| self.pos + i + 1);
                }
                _ => return,
            }
        }
    }

    /// Moves to the next `@` that is not on a `%` comment line; its position.
    fn next_entry(&mut self) -> Option<usize> {
        loop {
            let at = self.text[self.pos..].find('@')? + self.pos;
            let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
            if self.text[line_start..at].trim_start().starts_with('%') {
                self.pos = at + 1;
                continue;
            }
            self.pos = at;
            return Some(at);
        }
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
                let (value, _) = expand(&self.macros, parts);
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
                return Ok(Some(RawEntry { kind, key, fields: Vec::new() }));
            }
            _ => return Err(field_err("key", format!("expected `,` after the key `{key}`"))),
        }
        let fields = self.fields(close)?;
        Ok(Some(RawEntry { kind, key, fields }))
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
                let found = self.text[self.pos..]
                    .chars()
                    .next()
                    .map_or("the end of the file".to_string(), |c| format!("`{c}`"));
                return Err((None, format!("expected a field name, found {found}")));
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
                    let c = self.text[self.pos..].chars().next().unwrap_or(char::from(c));
                    return Err(field_err(&name, format!("expected `,` after the value, found `{c}`")));
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

/// A value with its macros expanded, and the names of the undefined ones (read as nothing).
fn expand(macros: &HashMap<String, String>, parts: Vec<Part>) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut undefined = Vec::new();
    for part in parts {
        match part {
            Part::Literal(s) => out.push_str(&s),
            Part::Macro(m) => match macros.get(&m.to_ascii_lowercase()).map(String::as_str).or_else(|| month(&m)) {
                Some(v) => out.push_str(v),
                None => undefined.push(m),
            },
        }
    }
    (out, undefined)
}

/// BibTeX's predefined month macros.
fn month(name: &str) -> Option<&'static str> {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    const NUMBERS: [&str; 12] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"];
    MONTHS.iter().position(|m| m.eq_ignore_ascii_case(name)).map(|i| NUMBERS[i])
}

/// The library entry of a BibTeX entry, its values expanded.
fn entry(f: &Fields) -> Result<LibraryEntry, FieldError> {
    let get = |name: &str| f.get(name);
    let verbatim = |name: &str| get(name).map(|v| v.replace(['{', '}'], "").trim().to_string());
    let mut e = LibraryEntry { key: Some(f.key.clone()), ..LibraryEntry::default() };
    e.title = get("title").map(latex::decode).unwrap_or_default();
    e.abstract_ = get("abstract").map(latex::decode).unwrap_or_default();
    e.authors = get("author").map(authors).unwrap_or_default();
    e.venue = ["journal", "journaltitle", "booktitle"].iter().find_map(|n| get(n)).map(latex::decode);
    match (get("year"), get("date")) {
        (Some(y), _) => e.set_year("year", &latex::decode(y)),
        (None, Some(d)) => e.set_year("date", d),
        (None, None) => {}
    }
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
/// display names; `others` (the list goes on: "et al.") becomes [`ET_AL`].
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
    let mut et_al = false;
    let mut out: Vec<String> = Vec::new();
    for n in &names_out {
        // `and others`, or an "et al." written into the last name (`Born, L. et al.`).
        let (n, written) = strip_et_al(n);
        et_al |= written || n == "others";
        let n = name_parts::from_written(&latex::decode(n));
        if !n.is_empty() && n != "others" {
            out.push(n);
        }
    }
    if et_al {
        out.push(ET_AL.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_and_outside_braces() {
        assert_eq!(
            authors(r"van der Berg, Jan and Lovelace, Ada AND {Barnes and Noble} and others"),
            ["Jan van der Berg", "Ada Lovelace", "Barnes and Noble", ET_AL]
        );
        assert_eq!(authors(r#"Schr{\"o}dinger, Erwin"#), ["Erwin Schrödinger"]);
        assert_eq!(authors("Born, L. et al."), ["L. Born", ET_AL]);
    }
}
