//! What the reference-library formats (`bibtex`, `csl-json`, `ris`) share:
//! an entry's ids (its citation key, DOI, arXiv id, a recognised URL), its
//! year written any way, and the [`Record`] it becomes.
//!
//! A record's own id is the entry's citation key (`PaperId::Citekey`, so a
//! re-import of the same library replaces it); its DOI, arXiv id and URL ids
//! are the ids through which it merges with the same paper from arXiv,
//! Semantic Scholar or OpenAlex. An entry with no key (RIS without `ID`)
//! takes its strongest id as its own.

use std::io::Read;

use super::{FieldError, MAX_JSON_DOCUMENT, OpenInput, field_err, file_fault};
use crate::paper::{PaperId, Record};

/// The whole text of a library file `what` (at most [`MAX_JSON_DOCUMENT`]
/// bytes, UTF-8, a byte-order mark dropped), and its path for locations.
pub(crate) fn read_whole(mut input: OpenInput, what: &str) -> anyhow::Result<(String, String)> {
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
    let mut text = String::from_utf8(buf)
        .map_err(|e| anyhow::anyhow!("{path}: invalid UTF-8 at byte offset {}", e.utf8_error().valid_up_to()))?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok((path, text))
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
}

impl LibraryEntry {
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
