//! A Zotero item as read ([`Raw`]) into a litindex record and what the
//! record has no place for ([`Extras`]: kept beside it, in `zotero_items`).
//!
//! - **Authors** are the item type's primary creators
//!   (`itemTypeCreatorTypes.primaryField`: authors; inventors of a patent,
//!   programmers of software, …), in `orderIndex` order, `First Last` (a
//!   single-field name as written). Every other creator (editors,
//!   translators, contributors, series editors) is recorded in
//!   [`Extras::creators`] with its role, not as an author.
//! - **Year** from `date` (or a field mapped onto it, e.g. `issueDate`),
//!   which Zotero stores as `YYYY-MM-DD original`, `00` for unknown parts.
//! - **Ids**: `DOI` (the field, else a `DOI:` line of `extra`), the arXiv id
//!   (an `arXiv:` line of `extra`, an arXiv URL, or a `10.48550/arXiv.*`
//!   DOI), and the item's own id `zotero:KEY` (`zotero:LIB/KEY` outside
//!   the user's own library).
//! - **Venue**: `publicationTitle` (or a field mapped onto it:
//!   `proceedingsTitle`, `bookTitle`, `blogTitle`, `websiteTitle`, …),
//!   else `conferenceName`, else a preprint's `repository`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Stamp;
use crate::paper::{PaperId, Record};

/// One creator of an item, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Creator {
    pub first: String,
    pub last: String,
    pub single_field: bool,
    pub role: String,
    /// A primary creator of its item type (an author, for most types).
    pub primary: bool,
}

impl Creator {
    fn name(&self) -> String {
        let (first, last) = (self.first.trim(), self.last.trim());
        let name = if self.single_field || first.is_empty() { last.to_string() } else { format!("{first} {last}") };
        name.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// A Zotero tag (type 1: added automatically, e.g. an imported keyword).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ZoteroTag {
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub automatic: bool,
}

/// One attachment of an item, its file resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Attachment {
    /// The attachment's own item key (its `storage/KEY/` folder).
    pub key: String,
    /// 0 imported file, 1 imported URL (a snapshot), 2 linked file, 3 linked URL, 4 embedded image.
    pub link_mode: i64,
    pub content_type: String,
    /// `itemAttachments.path` as Zotero stores it (`storage:NAME`, an absolute path, `attachments:REL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Where the file is on this machine, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// Whether `file` exists.
    pub exists: bool,
}

impl Attachment {
    pub(crate) fn resolve(
        data_dir: &Path,
        key: String,
        link_mode: i64,
        content_type: String,
        path: Option<String>,
    ) -> Attachment {
        let file = match path.as_deref().map(str::trim) {
            Some(p) if p.starts_with("storage:") => {
                Some(data_dir.join("storage").join(&key).join(&p["storage:".len()..]))
            }
            // Relative to the base directory set in Zotero's preferences, which litindex does not know.
            Some(p) if p.starts_with("attachments:") => None,
            Some(p) if !p.is_empty() && Path::new(p).is_absolute() => Some(PathBuf::from(p)),
            _ => None,
        };
        let exists = file.as_deref().is_some_and(Path::is_file);
        Attachment { key, link_mode, content_type, path, file, exists }
    }

    /// Whether it is a PDF (by content type, else by the file's name).
    pub(crate) fn is_pdf(&self) -> bool {
        self.content_type == "application/pdf"
            || (self.content_type.is_empty()
                && self.file.as_deref().and_then(Path::extension).is_some_and(|e| e.eq_ignore_ascii_case("pdf")))
    }

    /// Whether it names a file (not a linked URL).
    pub(crate) fn has_file(&self) -> bool {
        self.path.as_deref().is_some_and(|p| !p.trim().is_empty()) && self.link_mode != 3
    }
}

/// A creator as recorded beside the paper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RecordedCreator {
    pub name: String,
    pub role: String,
}

/// What a record has no field for, kept in `zotero_items.data`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Extras {
    pub item_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The date as the user typed it (Zotero's `original` part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Every creator in order, with its role (authors too).
    pub creators: Vec<RecordedCreator>,
    /// Collection paths (`Thesis/Chapter 2`).
    pub collections: Vec<String>,
    pub tags: Vec<ZoteroTag>,
    /// Child notes as text (HTML tags removed); not indexed.
    pub notes: Vec<String>,
    pub attachments: Vec<Attachment>,
}

/// An item as the queries read it.
#[derive(Debug, Clone)]
pub(crate) struct Raw {
    pub stamp: Stamp,
    pub type_name: String,
    /// (field name, value, base field name) sorted.
    pub fields: Vec<(String, String, Option<String>)>,
    pub creators: Vec<Creator>,
    pub tags: Vec<ZoteroTag>,
    pub collections: Vec<String>,
    /// HTML.
    pub notes: Vec<String>,
    pub attachments: Vec<Attachment>,
}

/// A converted item.
#[derive(Debug, Clone)]
pub(crate) struct ZoteroItem {
    pub stamp: Stamp,
    pub record: Record,
    pub extras: Extras,
}

/// The record key of item `key` of library `library_id` (`user_library`: the user's own).
pub(crate) fn item_id(key: &str, library_id: i64, user_library: bool) -> PaperId {
    if user_library {
        PaperId::Own(format!("zotero:{key}"))
    } else {
        PaperId::Own(format!("zotero:{library_id}/{key}"))
    }
}

impl Raw {
    /// The first non-empty value of field `name`, or of a field mapped onto it.
    fn get(&self, name: &str) -> Option<&str> {
        let direct = self.fields.iter().find(|(f, v, _)| f == name && !v.trim().is_empty());
        let mapped = || self.fields.iter().find(|(_, v, b)| b.as_deref() == Some(name) && !v.trim().is_empty());
        direct.or_else(mapped).map(|(_, v, _)| v.trim())
    }

    /// The record and extras of this item.
    pub(crate) fn convert(self, user_library: bool) -> ZoteroItem {
        let source_id = item_id(&self.stamp.key, self.stamp.library_id, user_library);
        let extra = self.get("extra").unwrap_or("").to_string();
        let mut ids: Vec<PaperId> = Vec::new();
        let mut push = |id: Option<PaperId>| {
            if let Some(id @ (PaperId::Doi(_) | PaperId::Arxiv(_))) = id {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        };
        push(self.get("DOI").and_then(PaperId::parse_doi));
        for (label, value) in extra_lines(&extra) {
            match label.as_str() {
                "doi" => push(PaperId::parse_doi(value)),
                "arxiv" => push(PaperId::parse_arxiv(value).map(|(id, _)| id)),
                _ => {}
            }
        }
        let url = self.get("url").map(str::to_string);
        if let Some(u) = &url {
            push(PaperId::parse_arxiv(u).map(|(id, _)| id));
            if u.contains("doi.org/") {
                push(PaperId::parse_doi(u));
            }
        }
        let date = self.get("date");
        let venue = self
            .get("publicationTitle")
            .or_else(|| self.get("conferenceName"))
            .or_else(|| if self.type_name == "preprint" { self.get("repository") } else { None })
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "));
        let authors: Vec<String> =
            self.creators.iter().filter(|c| c.primary).map(Creator::name).filter(|n| !n.is_empty()).collect();
        let record = Record {
            source: "zotero".into(),
            source_id,
            ids,
            title: self.get("title").map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).unwrap_or_default(),
            abstract_: self.get("abstractNote").unwrap_or("").to_string(),
            year: date.and_then(year_of),
            authors,
            venue,
            ..Record::default()
        };
        let extras = Extras {
            item_type: self.type_name.clone(),
            url,
            date: date.map(|d| date_original(d).to_string()),
            creators: self.creators.iter().map(|c| RecordedCreator { name: c.name(), role: c.role.clone() }).collect(),
            collections: self.collections,
            tags: self.tags,
            notes: self.notes.iter().map(|n| html_text(n)).filter(|n| !n.is_empty()).collect(),
            attachments: self.attachments,
        };
        ZoteroItem { stamp: self.stamp, record, extras }
    }
}

/// `label: value` lines of `extra` (labels lowercased; `_eprint` and `arXiv ID` read as `arxiv`).
fn extra_lines(extra: &str) -> Vec<(String, &str)> {
    extra
        .lines()
        .filter_map(|line| {
            let (label, value) = line.split_once(':')?;
            let label = label.trim().to_ascii_lowercase();
            let label = match label.as_str() {
                "arxiv" | "arxiv id" | "_eprint" | "eprint" => "arxiv".to_string(),
                _ => label,
            };
            Some((label, value.trim()))
        })
        .collect()
}

/// The year of a Zotero date: `YYYY-MM-DD original` (`0000` unknown), else
/// the first four-digit number from 1000 to 2999 in it.
pub(crate) fn year_of(date: &str) -> Option<i32> {
    let d = date.trim();
    let b = d.as_bytes();
    if b.len() >= 10 && b[4] == b'-' && b[7] == b'-' && b[..4].iter().all(u8::is_ascii_digit) {
        let y: i32 = d[..4].parse().ok()?;
        return (y != 0).then_some(y);
    }
    let digits: Vec<(usize, char)> = d.char_indices().collect();
    for w in digits.windows(4) {
        let s: String = w.iter().map(|(_, c)| *c).collect();
        let before = w[0].0.checked_sub(1).and_then(|i| d.as_bytes().get(i)).is_some_and(u8::is_ascii_digit);
        let after = d.as_bytes().get(w[3].0 + 1).is_some_and(u8::is_ascii_digit);
        if !before && !after && s.chars().all(|c| c.is_ascii_digit()) && (s.starts_with('1') || s.starts_with('2')) {
            return s.parse().ok();
        }
    }
    None
}

/// The `original` part of a Zotero date (`2013-05-00 May 2013` → `May 2013`).
fn date_original(date: &str) -> &str {
    let d = date.trim();
    let b = d.as_bytes();
    if b.len() > 10 && b[4] == b'-' && b[7] == b'-' && b[10] == b' ' { d[11..].trim() } else { d }
}

/// The text of a note's HTML: tags removed, the usual entities decoded,
/// whitespace collapsed.
pub(crate) fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(fields: &[(&str, &str, Option<&str>)]) -> Raw {
        Raw {
            stamp: Stamp {
                item_id: 1,
                library_id: 1,
                key: "ABCD1234".into(),
                version: 0,
                date_modified: String::new(),
                client_modified: String::new(),
                children: String::new(),
            },
            type_name: "journalArticle".into(),
            fields: fields.iter().map(|(f, v, b)| (f.to_string(), v.to_string(), b.map(str::to_string))).collect(),
            creators: vec![
                Creator {
                    first: "Ada".into(),
                    last: "Lovelace".into(),
                    single_field: false,
                    role: "author".into(),
                    primary: true,
                },
                Creator {
                    first: "".into(),
                    last: "WHO".into(),
                    single_field: true,
                    role: "author".into(),
                    primary: true,
                },
                Creator {
                    first: "Ed".into(),
                    last: "Itor".into(),
                    single_field: false,
                    role: "editor".into(),
                    primary: false,
                },
            ],
            tags: vec![],
            collections: vec![],
            notes: vec!["<p>Read <b>this</b> &amp; that</p>".into()],
            attachments: vec![],
        }
    }

    #[test]
    fn dates_ids_venue_and_creators() {
        let item = raw(&[
            ("title", "  A   Title ", None),
            ("issueDate", "2013-05-00 May 2013", Some("date")),
            ("proceedingsTitle", "Proc. of X", Some("publicationTitle")),
            ("extra", "Citation Key: x\nDOI: 10.1000/XYZ\narXiv: 2006.09403", None),
            ("url", "https://arxiv.org/abs/2006.09403v2", None),
        ])
        .convert(true);
        let r = &item.record;
        assert_eq!(r.title, "A Title");
        assert_eq!(r.year, Some(2013));
        assert_eq!(r.venue.as_deref(), Some("Proc. of X"));
        assert_eq!(r.ids, vec![PaperId::Doi("10.1000/xyz".into()), PaperId::Arxiv("2006.09403".into())]);
        assert_eq!(r.source_id, PaperId::Own("zotero:ABCD1234".into()));
        assert_eq!(r.authors, ["Ada Lovelace", "WHO"]);
        assert_eq!(item.extras.creators[2], RecordedCreator { name: "Ed Itor".into(), role: "editor".into() });
        assert_eq!(item.extras.date.as_deref(), Some("May 2013"));
        assert_eq!(item.extras.notes, ["Read this & that"]);
    }

    #[test]
    fn an_arxiv_doi_is_an_arxiv_id_and_years_read() {
        let r = raw(&[("DOI", "10.48550/arXiv.2101.00001", None)]).convert(false).record;
        assert_eq!(r.ids, vec![PaperId::Arxiv("2101.00001".into())]);
        assert_eq!(r.source_id, PaperId::Own("zotero:1/ABCD1234".into()));
        assert_eq!(year_of("0000-00-00 n.d."), None);
        assert_eq!(year_of("2011-00-00 2011"), Some(2011));
        assert_eq!(year_of("Spring 1999"), Some(1999));
        assert_eq!(year_of("12345"), None);
    }

    #[test]
    fn attachments_resolve_against_storage() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("storage/K1")).unwrap();
        std::fs::write(dir.path().join("storage/K1/Jankovi\u{107} 2020.pdf"), b"%PDF").unwrap();
        let a = Attachment::resolve(
            dir.path(),
            "K1".into(),
            1,
            "application/pdf".into(),
            Some("storage:Jankovi\u{107} 2020.pdf".into()),
        );
        assert!(a.exists && a.is_pdf() && a.has_file());
        let missing =
            Attachment::resolve(dir.path(), "K2".into(), 1, "application/pdf".into(), Some("storage:x.pdf".into()));
        assert!(!missing.exists && missing.has_file());
        let url = Attachment::resolve(dir.path(), "K3".into(), 3, "text/html".into(), None);
        assert!(!url.has_file() && url.file.is_none());
    }
}
