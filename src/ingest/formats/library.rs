//! What the reference-library formats (`bibtex`, `csl-json`, `ris`) share:
//! an entry's ids (its citation key, DOI, arXiv id, a recognised URL), its
//! year written any way, and the [`Record`] it becomes.
//!
//! A record's own id is the entry's citation key (`PaperId::Citekey`, so a
//! re-import of the same library replaces it); its DOI, arXiv id and URL ids
//! are the ids through which it merges with the same paper from arXiv,
//! Semantic Scholar or OpenAlex. An entry with no key (RIS without `ID`)
//! takes its strongest id as its own, else an id derived from its content
//! ([`derived_key`]).
//!
//! **Untitled entries** are accepted in every format, with what they have
//! (an empty title), as OpenAlex and Semantic Scholar records already were;
//! export leaves the empty title out, so what it writes imports again.

use std::collections::HashMap;
use std::io::Read;

use encoding_rs::Encoding;

use super::{FieldError, FormatOptions, MAX_JSON_DOCUMENT, OpenInput, field_err, file_fault};
use crate::paper::{PaperId, Record};

/// The whole text of a library file `what` (at most [`MAX_JSON_DOCUMENT`]
/// bytes) and its path for locations, decoded by [`decode_text`] (the
/// encoding `opts` forces, else UTF-8, UTF-16 by its byte-order mark, else
/// the legacy encoding detected); a note in `opts.notes` says which legacy
/// encoding was used.
pub(crate) fn read_whole(mut input: OpenInput, what: &str, opts: &FormatOptions) -> anyhow::Result<(String, String)> {
    let path = input.path.display().to_string();
    let mut buf = Vec::new();
    let n = (&mut input.reader)
        .take(MAX_JSON_DOCUMENT + 1)
        .read_to_end(&mut buf)
        .map_err(|e| file_fault(&input.path, e))?;
    anyhow::ensure!(
        n as u64 <= MAX_JSON_DOCUMENT,
        "{path} is a {what} file over {} MiB; split it",
        MAX_JSON_DOCUMENT / 1024 / 1024
    );
    let (text, note) = decode_text(&buf, opts.encoding);
    if let Some(note) = note {
        opts.note(format!("{path}: {note}"));
    }
    Ok((path, text))
}

/// The text of `bytes`: in `forced` when given (a byte-order mark still
/// wins, as in a browser); else UTF-8 or UTF-16 by their byte-order mark;
/// else UTF-8 when valid; else the legacy encoding `chardetng` detects
/// (windows-1252, a superset of latin-1, for European text; GBK, Shift_JIS,
/// … for East Asian text), with a note saying so. A byte-order mark is
/// dropped; bytes the encoding cannot map become U+FFFD.
pub(crate) fn decode_text(bytes: &[u8], forced: Option<&'static Encoding>) -> (String, Option<String>) {
    if let Some(enc) = forced {
        return (enc.decode_with_bom_removal(bytes).0.into_owned(), None);
    }
    if let Some((enc, bom)) = Encoding::for_bom(bytes) {
        return (enc.decode_without_bom_handling(&bytes[bom..]).0.into_owned(), None);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_string(), None);
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let enc = detector.guess(None, true);
    let (text, _, bad) = enc.decode(bytes);
    let lossy = if bad { " (some bytes do not map and read as U+FFFD)" } else { "" };
    let note = format!("not UTF-8: read as {} (detected; --encoding NAME forces one){lossy}", enc.name());
    (text.into_owned(), Some(note))
}

/// The citation keys of one file so far: a key that comes back for a
/// different work is made unique (`key-2`, `key-3`, …) and reported, so
/// that two works are two papers; the same work again (the same title and
/// year, folded) keeps its key and is folded into the first, its
/// conflicts recorded as disagreements.
#[derive(Default)]
pub(crate) struct Keys {
    seen: HashMap<String, (String, String)>,
}

impl Keys {
    /// The key to store `key` under, for the entry at `loc` with `title` and `year`.
    pub fn unique(&mut self, key: &str, title: &str, year: Option<i32>, loc: &str, opts: &FormatOptions) -> String {
        let sig = format!("{} {year:?}", crate::names::fold_words(title).join(" "));
        match self.seen.get(key) {
            None => {
                self.seen.insert(key.to_string(), (sig, loc.to_string()));
                key.to_string()
            }
            Some((first, _)) if *first == sig => key.to_string(),
            Some((_, first_loc)) => {
                let first_loc = first_loc.clone();
                let mut n = 2;
                let unique = loop {
                    let candidate = format!("{key}-{n}");
                    if !self.seen.contains_key(&candidate) {
                        break candidate;
                    }
                    n += 1;
                };
                opts.note(format!(
                    "{loc}: the key `{key}` is already the key of a different work ({first_loc}); this one is stored as `{unique}`"
                ));
                self.seen.insert(unique.clone(), (sig, loc.to_string()));
                unique
            }
        }
    }
}

/// One entry as a library format reads it, text already decoded.
#[derive(Debug, Default)]
pub(crate) struct LibraryEntry {
    pub key: Option<String>,
    pub ids: Vec<PaperId>,
    pub title: String,
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// Where it was published (journal, proceedings), when the entry says.
    pub venue: Option<String>,
    /// What the user should hear about this entry (a date without a year,
    /// an undefined @string), without refusing it.
    pub notes: Vec<String>,
}

impl LibraryEntry {
    /// Sets the year of the date `value` of `field`; a date with no year in
    /// it (`13th Century`, `n.d.`) leaves the entry without one, with a note.
    pub fn set_year(&mut self, field: &str, value: &str) {
        match year_in(field, value) {
            Ok(y) => self.year = y,
            Err((_, m)) => self.notes.push(format!("field `{field}`: {m}; stored without a year")),
        }
    }

    /// Hands the entry's notes, located at `loc`, to `opts`.
    pub fn tell(&mut self, loc: &str, opts: &FormatOptions) {
        for n in self.notes.drain(..) {
            opts.note(format!("{loc}: {n}"));
        }
    }

    /// Adds `id` unless it is there already.
    pub fn add_id(&mut self, id: PaperId) {
        if !self.ids.contains(&id) {
            self.ids.push(id);
        }
    }

    /// Adds the DOI `value` (any spelling; a `10.48550/arXiv.*` DOI is an
    /// arXiv id); not a DOI is an error of `field`.
    pub fn add_doi(&mut self, field: &str, value: &str) -> Result<(), FieldError> {
        if value.trim().is_empty() {
            return Ok(());
        }
        let id = PaperId::parse_doi(value).ok_or_else(|| field_err(field, format!("not a DOI: {value:?}")))?;
        self.add_id(id);
        Ok(())
    }

    /// Adds the id a URL names (arXiv abs/pdf, doi.org, OpenAlex); other URLs name no id.
    pub fn add_url(&mut self, value: &str) {
        match PaperId::parse(value) {
            PaperId::Own(_) | PaperId::Citekey(_) => {}
            id => self.add_id(id),
        }
    }

    /// The record of source `source`; `key_field` is blamed when the entry has no id at all.
    pub fn into_record(mut self, source: &str, key_field: &str) -> Result<Record, FieldError> {
        let source_id = match self.key.take().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()) {
            Some(key) => PaperId::Citekey(key),
            None => {
                let best = (0..self.ids.len()).min_by_key(|&i| (self.ids[i].priority(), self.ids[i].key()));
                let Some(best) = best else {
                    return Err(field_err(key_field, "the entry has no key, DOI, arXiv id or recognised URL"));
                };
                self.ids.remove(best)
            }
        };
        Ok(Record {
            source: source.into(),
            source_id,
            ids: self.ids,
            title: self.title,
            abstract_: self.abstract_,
            year: self.year,
            authors: self.authors,
            references: Vec::new(),
            citations: Vec::new(),
            arxiv_version: None,
            venue: self.venue.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()),
        })
    }
}

/// The id of an entry that names none (an RIS record without `ID`, `DO`
/// or a recognised `UR`): `ris-` and the first 16 hex digits of the BLAKE3
/// hash of its title (folded: lowercase, no diacritics, words of letters
/// and digits), its first author's folded name words and its year, one per
/// line; of `fallback` (the record's other text) when all three are empty.
/// The same record gets the same id on every import.
pub(crate) fn derived_key(
    prefix: &str,
    title: &str,
    first_author: Option<&str>,
    year: Option<i32>,
    fallback: &str,
) -> String {
    let folded = crate::names::fold_words(title).join(" ");
    let author = first_author.map(|a| crate::names::name_words(a).join(" ")).unwrap_or_default();
    let year = year.map(|y| y.to_string()).unwrap_or_default();
    let basis = if folded.is_empty() && author.is_empty() && year.is_empty() {
        fallback.to_string()
    } else {
        format!("{folded}\n{author}\n{year}")
    };
    let hash = blake3::hash(basis.as_bytes()).to_hex();
    format!("{prefix}-{}", &hash[..16])
}

/// The year a date holds, written any way (`2021`, `2021-03-04`, `March
/// 2021`, `2021/03`): its first run of exactly four digits; `None` for a
/// blank value, an error of `field` for one with no year.
pub(crate) fn year_in(field: &str, value: &str) -> Result<Option<i32>, FieldError> {
    if value.trim().is_empty() {
        return Ok(None);
    }
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i - start == 4 {
                return Ok(value[start..i].parse().ok());
            }
        } else {
            i += 1;
        }
    }
    Err(field_err(field, format!("expected a year, got {value:?}")))
}

/// The arXiv id of a value written `arXiv:ID` (RIS `AN`, CSL `number`), if it is one.
pub(crate) fn arxiv_prefixed(value: &str) -> Option<PaperId> {
    let v = value.trim();
    v.get(..6).filter(|p| p.eq_ignore_ascii_case("arxiv:"))?;
    PaperId::parse_arxiv(&v[6..]).map(|(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_are_found_in_any_date() {
        for (s, y) in [("2021", Some(2021)), ("2021-03-04", Some(2021)), ("March 2021", Some(2021)), (" ", None)] {
            assert_eq!(year_in("year", s).unwrap(), y, "{s}");
        }
        assert_eq!(year_in("year", "20x1").unwrap_err().0.as_deref(), Some("year"));
        assert!(year_in("year", "12345").is_err());
    }

    #[test]
    fn an_entry_without_a_key_takes_its_strongest_id() {
        let mut e = LibraryEntry::default();
        e.add_url("https://openalex.org/W12");
        e.add_doi("DO", "https://doi.org/10.1/X").unwrap();
        e.add_url("https://example.org/paper");
        let r = e.into_record("ris", "ID").unwrap();
        assert_eq!(r.source_id, PaperId::Doi("10.1/x".into()));
        assert_eq!(r.ids, [PaperId::OpenAlex("W12".into())]);
        let err = LibraryEntry::default().into_record("ris", "ID").unwrap_err();
        assert_eq!(err.0.as_deref(), Some("ID"));
        assert_eq!(arxiv_prefixed("arXiv:2101.00001v2"), Some(PaperId::Arxiv("2101.00001".into())));
        assert_eq!(arxiv_prefixed("2101.00001"), None);
    }
}
