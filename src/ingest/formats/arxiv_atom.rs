//! `arxiv-atom`: an arXiv API response (an Atom feed), streamed.
//!
//! Elements are matched by namespace URI, never by prefix: Atom
//! (`http://www.w3.org/2005/Atom`) for `feed`, `entry`, `id`, `title`,
//! `summary`, `published`, `updated`, `author/name`; arXiv
//! (`http://arxiv.org/schemas/atom`) for `doi` and `journal_ref` (the venue,
//! whitespace collapsed). Everything else (links,
//! categories, OpenSearch counters, affiliations) is ignored.
//!
//! Per `entry`: `id` (`http://arxiv.org/abs/2101.00001v2`) gives the arXiv id
//! and version; `title` and `summary` (the abstract) have their whitespace
//! collapsed; the year is that of `published` (else `updated`); authors in
//! document order; `arxiv:doi` may list several DOIs separated by spaces (a
//! token that is not a DOI is ignored, as in `arxiv-oai`).
//!
//! An entry titled `Error` whose id is not an arXiv id is how the API
//! reports a bad query: that is a fault of the whole file
//! ([`ReadError::File`]) carrying the entry's summary. Malformed or truncated
//! XML is also a file fault, naming the byte offset, and so is text that is
//! not UTF-8; a lone `&` or an unknown entity is an error of the field it is
//! in (and nothing in an ignored element). Items are located
//! `file: byte N (entry K)`, N being the offset of the entry's start tag.

use std::io::{self, BufRead};
use std::path::PathBuf;

use quick_xml::NsReader;
use quick_xml::errors::IllFormedError;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;

use super::{FieldError, Items, Located, OpenInput, ReadError, collapse_ws, field_err, file_fault, record_error};
use crate::paper::PaperId;
use crate::paper::{Item, Record};

const ATOM_NS: &str = "http://www.w3.org/2005/Atom";
const ARXIV_NS: &str = "http://arxiv.org/schemas/atom";

pub fn read(input: OpenInput) -> Items {
    let mut reader = NsReader::from_reader(input.reader);
    reader.config_mut().expand_empty_elements = true;
    let mut feed = Feed {
        path: input.path,
        reader,
        buf: Vec::new(),
        done: false,
        seen_root: false,
        open: Vec::new(),
        entries: 0,
        entry: None,
    };
    Box::new(std::iter::from_fn(move || {
        if feed.done {
            return None;
        }
        let next = feed.next_item();
        if matches!(next, None | Some(Err(ReadError::File(_)))) {
            feed.done = true;
        }
        next
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    Atom,
    Arxiv,
    Other,
}

/// One parsing event, owned, so that the reader is free again.
enum Ev {
    Start(Ns, String),
    End,
    Text(Result<String, String>),
    Eof,
}

/// What a captured element's text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Id,
    Title,
    Summary,
    Published,
    Updated,
    AuthorName,
    Doi,
    JournalRef,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Title => "title",
            Field::Summary => "summary",
            Field::Published => "published",
            Field::Updated => "updated",
            Field::AuthorName => "author/name",
            Field::Doi => "arxiv:doi",
            Field::JournalRef => "arxiv:journal_ref",
        }
    }
}

/// An entry being read.
#[derive(Default)]
struct Entry {
    number: usize,
    offset: u64,
    id: Option<String>,
    title: String,
    summary: String,
    published: String,
    updated: String,
    authors: Vec<String>,
    dois: Vec<String>,
    journal_ref: String,
    /// The element whose text is being collected, the depth it opened at, and the text.
    capture: Option<(Field, usize, String)>,
    /// Depth of the open `author` element, and the name found in it.
    author: Option<(usize, Option<String>)>,
    /// The first problem found in the entry.
    error: Option<FieldError>,
}

struct Feed {
    path: PathBuf,
    reader: NsReader<Box<dyn BufRead>>,
    buf: Vec<u8>,
    done: bool,
    seen_root: bool,
    /// Names of the open elements (for messages about truncation).
    open: Vec<String>,
    entries: usize,
    entry: Option<Entry>,
}

/// Depth (number of open elements, the root being 1) of an entry element.
const ENTRY_DEPTH: usize = 2;

impl Feed {
    fn file_error(&self, message: String) -> Option<Result<Located, ReadError>> {
        Some(Err(ReadError::File(anyhow::anyhow!("{}: {message}", self.path.display()))))
    }

    fn next_event(&mut self) -> Result<Ev, ReadError> {
        self.buf.clear();
        let (resolved, event) = match self.reader.read_resolved_event_into(&mut self.buf) {
            Ok(x) => x,
            Err(quick_xml::Error::Io(e)) => {
                return Err(ReadError::File(file_fault(&self.path, io::Error::new(e.kind(), e.to_string()))));
            }
            // A lone `&`: the reader has read past it, so, like an unknown entity, it spoils only its text.
            Err(quick_xml::Error::IllFormed(IllFormedError::UnclosedReference)) => {
                return Ok(Ev::Text(Err("a `&` that starts no entity or character reference".into())));
            }
            // The reader checks UTF-8 as it reads, and cannot go on; `error_position` is not set for this.
            Err(e @ quick_xml::Error::Encoding(_)) => {
                return Err(ReadError::File(anyhow::anyhow!(
                    "{}: malformed XML before byte {}: {e}",
                    self.path.display(),
                    self.reader.buffer_position()
                )));
            }
            Err(e) => {
                return Err(ReadError::File(anyhow::anyhow!(
                    "{}: malformed XML at byte {}: {e}",
                    self.path.display(),
                    self.reader.error_position()
                )));
            }
        };
        let ns = match resolved {
            ResolveResult::Bound(n) if n.into_inner() == ATOM_NS => Ns::Atom,
            ResolveResult::Bound(n) if n.into_inner() == ARXIV_NS => Ns::Arxiv,
            _ => Ns::Other,
        };
        Ok(match event {
            Event::Start(e) => Ev::Start(ns, e.local_name().as_ref().to_string()),
            Event::End(_) => Ev::End,
            Event::Text(t) => Ev::Text(Ok(t.xml10_content().into_owned())),
            Event::CData(c) => Ev::Text(Ok(c.xml10_content().into_owned())),
            // `&amp;`, `&#233;`: the reader reports each reference on its own, between texts.
            Event::GeneralRef(r) => Ev::Text(match r.resolve_char_ref() {
                Ok(Some(c)) => Ok(c.to_string()),
                Ok(None) => resolve_predefined_entity(&r)
                    .map(str::to_string)
                    .ok_or_else(|| format!("unrecognized entity `&{};`", &*r)),
                Err(e) => Err(e.to_string()),
            }),
            Event::Eof => Ev::Eof,
            // Empty elements are expanded to Start + End; the rest carries no data.
            _ => Ev::Text(Ok(String::new())),
        })
    }

    fn next_item(&mut self) -> Option<Result<Located, ReadError>> {
        loop {
            let offset = self.reader.buffer_position();
            let ev = match self.next_event() {
                Ok(ev) => ev,
                Err(e) => return Some(Err(e)),
            };
            match ev {
                Ev::Start(ns, local) => {
                    self.open.push(local.clone());
                    let depth = self.open.len();
                    if depth == 1 {
                        if self.seen_root {
                            return self
                                .file_error(format!("unexpected second root element <{local}> at byte {offset}"));
                        }
                        if !(ns == Ns::Atom && local == "feed") {
                            return self.file_error(format!(
                                "not an Atom feed: the root element is <{local}>, not <feed> in the Atom namespace"
                            ));
                        }
                        self.seen_root = true;
                    } else if depth == ENTRY_DEPTH && ns == Ns::Atom && local == "entry" {
                        self.entries += 1;
                        self.entry = Some(Entry { number: self.entries, offset, ..Entry::default() });
                    } else if let Some(entry) = self.entry.as_mut() {
                        entry.start(ns, &local, depth);
                    }
                }
                Ev::Text(text) => {
                    if let Some(entry) = self.entry.as_mut() {
                        entry.text(text);
                    }
                }
                Ev::End => {
                    let depth = self.open.len();
                    self.open.pop();
                    let Some(entry) = self.entry.as_mut() else { continue };
                    if depth > ENTRY_DEPTH {
                        entry.end(depth);
                        continue;
                    }
                    if let Some(entry) = self.entry.take() {
                        return Some(self.finish(entry));
                    }
                }
                Ev::Eof => {
                    if let Some(open) = self.open.last() {
                        return self
                            .file_error(format!("truncated XML: the input ends at byte {offset} inside <{open}>"));
                    }
                    if !self.seen_root {
                        return self.file_error("not an Atom feed: no root element".into());
                    }
                    return None;
                }
            }
        }
    }

    /// The record of a finished entry, a record error, or the API's error.
    fn finish(&self, entry: Entry) -> Result<Located, ReadError> {
        let loc = format!("{}: byte {} (entry {})", self.path.display(), entry.offset, entry.number);
        let title = collapse_ws(&entry.title);
        let summary = collapse_ws(&entry.summary);
        let id = entry.id.as_deref().map(str::trim).unwrap_or("");
        let parsed = PaperId::parse_arxiv(id);
        if title == "Error" && (parsed.is_none() || id.contains("/api/errors")) {
            let what = if summary.is_empty() { "(no message)" } else { summary.as_str() };
            return Err(ReadError::File(anyhow::anyhow!(
                "{}: arXiv API returned an error: {what}",
                self.path.display()
            )));
        }
        if let Some((field, message)) = entry.error {
            return Err(record_error(&loc, field, message));
        }
        let Some((source_id, arxiv_version)) = parsed else {
            let message =
                if entry.id.is_none() { "is required".to_string() } else { format!("not an arXiv id: {id:?}") };
            return Err(record_error(&loc, Some("id".into()), message));
        };
        let year = match year_of(&entry.published) {
            Ok(Some(y)) => Some(y),
            Ok(None) => year_of(&entry.updated).ok().flatten(),
            Err(message) => return Err(record_error(&loc, Some("published".into()), message)),
        };
        let mut ids = Vec::new();
        for doi in &entry.dois {
            for token in doi.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
                if let Some(id) = PaperId::parse_doi(token) {
                    if id != source_id && !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
        }
        let record = Record {
            source: "arxiv".into(),
            source_id,
            ids,
            title,
            abstract_: summary,
            year,
            authors: entry.authors,
            references: Vec::new(),
            citations: Vec::new(),
            arxiv_version,
            venue: Some(collapse_ws(&entry.journal_ref)).filter(|v| !v.is_empty()),
        };
        Ok((Item::Record(record), loc))
    }
}

impl Entry {
    fn start(&mut self, ns: Ns, local: &str, depth: usize) {
        if self.capture.is_some() {
            return; // markup inside a captured element: keep collecting its text
        }
        let field = match (depth, ns, local) {
            (3, Ns::Atom, "id") => Some(Field::Id),
            (3, Ns::Atom, "title") => Some(Field::Title),
            (3, Ns::Atom, "summary") => Some(Field::Summary),
            (3, Ns::Atom, "published") => Some(Field::Published),
            (3, Ns::Atom, "updated") => Some(Field::Updated),
            (3, Ns::Arxiv, "doi") => Some(Field::Doi),
            (3, Ns::Arxiv, "journal_ref") => Some(Field::JournalRef),
            (3, Ns::Atom, "author") => {
                self.author = Some((depth, None));
                None
            }
            (4, Ns::Atom, "name") if self.author.is_some() => Some(Field::AuthorName),
            _ => None,
        };
        if let Some(field) = field {
            self.capture = Some((field, depth, String::new()));
        }
    }

    fn text(&mut self, text: Result<String, String>) {
        let Some((field, _, buf)) = self.capture.as_mut() else { return };
        match text {
            Ok(t) => buf.push_str(&t),
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(field_err(field.name(), format!("unreadable text: {e}")));
                }
            }
        }
    }

    fn end(&mut self, depth: usize) {
        if let Some((field, at, _)) = &self.capture {
            if *at != depth {
                return;
            }
            let field = *field;
            let text = self.capture.take().map(|(_, _, t)| t).unwrap_or_default();
            match field {
                Field::Id => self.id = Some(text),
                Field::Title => self.title = text,
                Field::Summary => self.summary = text,
                Field::Published => self.published = text,
                Field::Updated => self.updated = text,
                Field::Doi => self.dois.push(text),
                Field::JournalRef => self.journal_ref = text,
                Field::AuthorName => {
                    if let Some((_, name)) = self.author.as_mut() {
                        *name = Some(collapse_ws(&text)).filter(|n| !n.is_empty());
                    }
                }
            }
            return;
        }
        if let Some((at, name)) = &self.author {
            if *at == depth {
                if let Some(name) = name {
                    self.authors.push(name.clone());
                }
                self.author = None;
            }
        }
    }
}

/// The year of an Atom date (`2021-01-04T10:00:00Z`); `Ok(None)` when empty.
fn year_of(date: &str) -> Result<Option<i32>, String> {
    let date = date.trim();
    if date.is_empty() {
        return Ok(None);
    }
    let head = date.split('-').next().unwrap_or("");
    if head.len() == 4 && head.bytes().all(|b| b.is_ascii_digit()) {
        Ok(head.parse().ok())
    } else {
        Err(format!("expected a date like 2021-01-04T10:00:00Z, got {date:?}"))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::Path;

    use super::super::open_input;
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest")).join(name)
    }

    fn read_path(path: &Path) -> Vec<Result<Located, ReadError>> {
        read(open_input(path).unwrap()).collect()
    }

    fn read_bytes(bytes: &[u8]) -> Vec<Result<Located, ReadError>> {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        read_path(f.path())
    }

    fn file_error(items: &[Result<Located, ReadError>]) -> String {
        match items.last() {
            Some(Err(ReadError::File(e))) => format!("{e:#}"),
            other => panic!("expected a file error last, got {other:?}"),
        }
    }

    #[test]
    fn fixture_entries_by_namespace_not_prefix() {
        let path = fixture("arxiv_atom.xml");
        let items = read_path(&path);
        assert_eq!(items.len(), 2, "{items:?}");
        let (first, loc1) = items[0].as_ref().unwrap();
        let (second, loc2) = items[1].as_ref().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let off1 = text.find("<a:entry>").unwrap();
        let off2 = text.find("<entry xmlns").unwrap();
        assert_eq!(loc1, &format!("{}: byte {off1} (entry 1)", path.display()));
        assert_eq!(loc2, &format!("{}: byte {off2} (entry 2)", path.display()));
        assert_eq!(
            first,
            &Item::Record(Record {
                source: "arxiv".into(),
                source_id: PaperId::Arxiv("2101.00001".into()),
                ids: vec![PaperId::Doi("10.1234/shared.paper.2021".into())],
                title: "Sparse Mixtures of Retrieval Experts".into(),
                abstract_: super::super::SHARED_ABSTRACT.into(),
                year: Some(2021),
                authors: vec!["Ada Lovelace".into(), "Charles Babbage".into()],
                references: vec![],
                citations: vec![],
                arxiv_version: Some(2),
                venue: Some("J. Retr. 7 (2021) 1-12".into()),
            })
        );
        assert_eq!(
            second,
            &Item::Record(Record {
                source: "arxiv".into(),
                source_id: PaperId::Arxiv("2102.00002".into()),
                title: "Dense & Sparse Retrieval: A Survey".into(),
                abstract_: "We survey <dense> and sparse retrievers.".into(),
                year: Some(2021),
                authors: vec!["Grace Hopper".into()],
                arxiv_version: Some(1),
                ..Record::default()
            })
        );
    }

    #[test]
    fn api_error_feed_is_a_file_error() {
        let items = read_path(&fixture("arxiv_atom_error.xml"));
        assert_eq!(items.len(), 1);
        let msg = file_error(&items);
        assert!(msg.contains("arXiv API returned an error: incorrect id format for 1234"), "{msg}");
    }

    #[test]
    fn bad_entries_are_record_errors_and_reading_goes_on() {
        let feed = br#"<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
<entry><id>http://arxiv.org/abs/not-an-id</id><title>T</title></entry>
<entry><title>No id</title></entry>
<entry><id>http://arxiv.org/abs/2101.00001v1</id><title>T</title><published>soon</published></entry>
<entry><id>http://arxiv.org/abs/2101.00001v1</id><title>Bad &unknown; entity</title></entry>
<entry><id>http://arxiv.org/abs/2101.00001v3</id><title>Error</title><summary>A real paper titled Error</summary><published/><updated>2020-05-01T00:00:00Z</updated><author><name/></author><arxiv:doi>10.48550/arXiv.2101.00001 junk</arxiv:doi></entry>
</feed>"#;
        let items = read_bytes(feed);
        assert_eq!(items.len(), 5, "{items:?}");
        let expect = [(1, "id", "not an arXiv id"), (2, "id", "is required"), (3, "published", "expected a date")];
        for (i, (n, field, msg)) in expect.into_iter().enumerate() {
            match &items[i] {
                Err(ReadError::Record(e)) => {
                    assert_eq!(e.field.as_deref(), Some(field));
                    assert!(e.message.contains(msg), "{}", e.message);
                    assert!(e.location.contains(&format!("(entry {n})")), "{}", e.location);
                    assert!(e.location.contains(": byte "), "{}", e.location);
                }
                other => panic!("entry {n}: expected a record error, got {other:?}"),
            }
        }
        match &items[3] {
            Err(ReadError::Record(e)) => assert_eq!(e.field.as_deref(), Some("title")),
            other => panic!("expected a record error, got {other:?}"),
        }
        match &items[4] {
            Ok((Item::Record(r), _)) => {
                assert_eq!(r.title, "Error");
                assert_eq!(r.year, Some(2020));
                assert_eq!(r.arxiv_version, Some(3));
                assert!(r.authors.is_empty() && r.ids.is_empty());
            }
            other => panic!("expected a record, got {other:?}"),
        }
    }

    /// Entities and character references are resolved and CDATA kept; an
    /// unknown entity or a lone `&` is an error of its field (nothing in an
    /// ignored element); text that is not UTF-8 ends the feed (file error).
    #[test]
    fn entities_char_refs_cdata_lone_ampersands_and_bad_utf8() {
        let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
<entry><id>http://arxiv.org/abs/2101.00001v1</id><title>Caf&#233; &#x2013; &lt;Dense&gt; &amp; &quot;Sparse&quot;&apos;s</title><summary><![CDATA[a <b>bold</b> & plain]]> end</summary><author><name>Ren&#xE9;e</name></author></entry>
<entry><id>http://arxiv.org/abs/2101.00002v1</id><title>T</title><summary>x &nbsp; y</summary></entry>
<entry><id>http://arxiv.org/abs/2101.00003v1</id><title>Dense & Sparse</title></entry>
<entry><id>http://arxiv.org/abs/2101.00004v1</id><title>T</title><arxiv:comment>5 pages & 2 figures</arxiv:comment></entry>
</feed>"#;
        let items = read_bytes(feed);
        assert_eq!(items.len(), 4, "{items:?}");
        let Ok((Item::Record(r), _)) = &items[0] else { panic!("{:?}", items[0]) };
        assert_eq!(r.title, "Café – <Dense> & \"Sparse\"'s");
        assert_eq!(
            (r.abstract_.as_str(), r.authors.as_slice()),
            ("a <b>bold</b> & plain end", &["Renée".to_string()][..])
        );
        for (i, field, msg) in [(1, "summary", "nbsp"), (2, "title", "`&`")] {
            let Err(ReadError::Record(e)) = &items[i] else { panic!("{:?}", items[i]) };
            assert_eq!(e.field.as_deref(), Some(field));
            assert!(e.message.contains(msg), "{}", e.message);
        }
        assert!(matches!(&items[3], Ok((Item::Record(r), _)) if r.title == "T"), "{:?}", items[3]);

        let latin1 = b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>http://arxiv.org/abs/2101.00001v1</id><title>Caf\xe9</title></entry></feed>";
        let msg = file_error(&read_bytes(latin1));
        assert!(msg.contains("malformed XML before byte 102"), "{msg}");
    }

    #[test]
    fn malformed_and_foreign_xml_are_file_errors() {
        let cases: [(&[u8], &str); 5] = [
            (
                b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>x</wrong></entry></feed>",
                "malformed XML at byte",
            ),
            (b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>x</id>", "truncated XML"),
            (b"<rss><channel/></rss>", "not an Atom feed"),
            (b"<feed><entry/></feed>", "not an Atom feed"),
            (b"just text", "no root element"),
        ];
        for (bytes, msg) in cases {
            let items = read_bytes(bytes);
            let got = file_error(&items);
            assert!(got.contains(msg), "{}: {got}", String::from_utf8_lossy(bytes));
        }
        assert!(read_bytes(b"").iter().all(|r| matches!(r, Err(ReadError::File(_)))));
    }

    #[test]
    fn gzip_copy_reads_identically_and_truncated_gzip_is_a_file_error() {
        let path = fixture("arxiv_atom.xml");
        let plain = std::fs::read(&path).unwrap();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain).unwrap();
        let gz = enc.finish().unwrap();
        let items: Vec<Item> = read_bytes(&gz).into_iter().map(|r| r.unwrap().0).collect();
        let expected: Vec<Item> = read_path(&path).into_iter().map(|r| r.unwrap().0).collect();
        assert_eq!(items, expected);

        let truncated = read_bytes(&gz[..gz.len() - 12]);
        assert!(file_error(&truncated).contains("truncated"));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let plain = std::fs::read(fixture("arxiv_atom.xml")).unwrap();
        for cut in (0..plain.len()).step_by(37) {
            let items = read_bytes(&plain[..cut]);
            assert!(items.len() <= 3);
        }
        let _ = read_bytes(&[0xff, 0xfe, b'<', 0x00, b'>']);
    }
}
