//! Input formats: one file per format, each turning a (decompressed) byte
//! stream into [`Item`]s with a precise location for every bad record.
//!
//! Line-oriented formats (JSON Lines, TSV) and Atom feeds stream; a single
//! JSON document is read whole, up to [`MAX_JSON_DOCUMENT`] bytes. Input may
//! be gzip-compressed (detected by its magic bytes, not its name).

mod arxiv_atom;
mod arxiv_oai;
mod beir;
mod bibtex;
pub use bibtex::fetchable_ids as bibtex_fetchable_ids;
mod csl_json;
mod edges;
mod library;
mod mock;
mod openalex;
mod paper;
mod ris;
mod s2;
mod s2_bulk;
mod sniff;
pub(crate) mod zotero;
pub(crate) use sniff::sniff;

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde_json::Value;

pub(crate) use crate::fields::*;

use crate::paper::Item;
use crate::paper::PaperId;
use crate::paper::RecordError;

pub(crate) use mock::{MOCK, read_mock};

/// The largest single JSON document read whole.
pub(crate) const MAX_JSON_DOCUMENT: u64 = 256 * 1024 * 1024;

/// The longest line a line-oriented format reads. Real records are far
/// smaller; a longer line is one bad record (skippable), read past without
/// being held in memory.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// A supported input format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    Paper,
    Beir,
    ArxivOai,
    ArxivAtom,
    S2,
    S2Papers,
    S2Abstracts,
    S2Citations,
    OpenAlex,
    Edges,
    Bibtex,
    CslJson,
    Ris,
    /// PDF files (`%PDF`): read by `ingest::pdf`, not by a record reader.
    Pdf,
    /// A Zotero library (`zotero.sqlite`, or its data folder): read by `ingest::zotero`.
    Zotero,
}

impl InputFormat {
    pub const ALL: [InputFormat; 15] = [
        InputFormat::Paper,
        InputFormat::Beir,
        InputFormat::ArxivOai,
        InputFormat::ArxivAtom,
        InputFormat::S2,
        InputFormat::S2Papers,
        InputFormat::S2Abstracts,
        InputFormat::S2Citations,
        InputFormat::OpenAlex,
        InputFormat::Edges,
        InputFormat::Bibtex,
        InputFormat::CslJson,
        InputFormat::Ris,
        InputFormat::Pdf,
        InputFormat::Zotero,
    ];

    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Paper => "paper",
            InputFormat::Beir => "beir",
            InputFormat::ArxivOai => "arxiv-oai",
            InputFormat::ArxivAtom => "arxiv-atom",
            InputFormat::S2 => "s2",
            InputFormat::S2Papers => "s2-papers",
            InputFormat::S2Abstracts => "s2-abstracts",
            InputFormat::S2Citations => "s2-citations",
            InputFormat::OpenAlex => "openalex",
            InputFormat::Edges => "edges",
            InputFormat::Bibtex => "bibtex",
            InputFormat::CslJson => "csl-json",
            InputFormat::Ris => "ris",
            InputFormat::Pdf => "pdf",
            InputFormat::Zotero => "zotero",
        }
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputFormat {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<InputFormat> {
        InputFormat::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
            anyhow::anyhow!("unknown format `{s}` (known: auto, {})", names.join(", "))
        })
    }
}

/// Options some formats need.
#[derive(Debug, Clone, Default)]
pub struct FormatOptions {
    /// The paper an S2 `/references` or `/citations` page belongs to.
    pub paper: Option<PaperId>,
    /// Counts entries skipped because they carry no usable id (S2 `paperId:
    /// null` references, `null` batch entries, bulk citations whose cited
    /// paper is null). Not errors: the caller reports the total.
    pub skipped_nulls: Arc<AtomicU64>,
    /// The text encoding of the reference-library files (BibTeX, RIS,
    /// CSL-JSON), when the user forces one (`ingest --encoding`); else
    /// detected ([`library::decode_text`]).
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// What a reader tells the user without refusing anything (a legacy
    /// encoding detected, a repeated key made unique), `file:line: …`.
    pub notes: Arc<Mutex<Vec<String>>>,
}

impl FormatOptions {
    /// Adds a note for the user.
    pub(crate) fn note(&self, note: String) {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).push(note);
    }

    /// The notes so far, taken.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Why reading stopped or a record was refused.
#[derive(Debug)]
pub enum ReadError {
    /// One bad record: skippable with `--skip-invalid`.
    Record(RecordError),
    /// The file itself is at fault (unreadable, truncated gzip, not the
    /// format): never skippable.
    File(anyhow::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Record(e) => e.fmt(f),
            ReadError::File(e) => write!(f, "{e:#}"),
        }
    }
}

/// An item and where it came from (`file:line`, or `file: …` for documents).
pub type Located = (Item, String);

/// The items of one file.
pub type Items = Box<dyn Iterator<Item = Result<Located, ReadError>>>;

/// An opened input: decompressed bytes, plus a counter of compressed bytes
/// read so far (for progress) and the file's size.
pub struct OpenInput {
    pub path: PathBuf,
    pub reader: Box<dyn BufRead>,
    pub bytes_read: Arc<AtomicU64>,
    pub total_bytes: u64,
}

/// Counts bytes as they are read from the file.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens `path`, transparently gunzipping it when it starts with the gzip magic bytes.
pub(crate) fn open_input(path: &Path) -> anyhow::Result<OpenInput> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let meta = file.metadata().with_context(|| format!("cannot read {}", path.display()))?;
    anyhow::ensure!(!meta.is_dir(), "cannot read {}: it is a directory", path.display());
    let bytes_read = Arc::new(AtomicU64::new(0));
    // 64 KiB buffers: `sniff` looks at up to that much of the first line.
    let mut raw = BufReader::with_capacity(64 * 1024, Counting { inner: file, count: bytes_read.clone() });
    let head = raw.fill_buf().with_context(|| format!("cannot read {}", path.display()))?;
    let gzip = head.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn BufRead> = if gzip {
        Box::new(BufReader::with_capacity(64 * 1024, flate2::bufread::MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    };
    Ok(OpenInput { path: path.to_path_buf(), reader, bytes_read, total_bytes: meta.len() })
}

/// Bytes in memory as an input named `label` (for locations and errors).
pub(crate) fn memory_input(label: &str, bytes: Vec<u8>) -> OpenInput {
    let total_bytes = bytes.len() as u64;
    let bytes_read = Arc::new(AtomicU64::new(total_bytes));
    OpenInput { path: PathBuf::from(label), reader: Box::new(io::Cursor::new(bytes)), bytes_read, total_bytes }
}

/// Reads `input` as `format`.
pub fn read(format: InputFormat, input: OpenInput, opts: &FormatOptions) -> anyhow::Result<Items> {
    match format {
        InputFormat::Paper => Ok(paper::read(input)),
        InputFormat::Beir => Ok(beir::read(input)),
        InputFormat::ArxivOai => Ok(arxiv_oai::read(input)),
        InputFormat::ArxivAtom => Ok(arxiv_atom::read(input)),
        InputFormat::S2 => s2::read(input, opts),
        InputFormat::S2Papers => Ok(s2_bulk::read_papers(input, opts)),
        InputFormat::S2Abstracts => Ok(s2_bulk::read_abstracts(input, opts)),
        InputFormat::S2Citations => Ok(s2_bulk::read_citations(input, opts)),
        InputFormat::OpenAlex => openalex::read(input),
        InputFormat::Edges => Ok(edges::read(input)),
        InputFormat::Bibtex => bibtex::read(input, opts),
        InputFormat::CslJson => csl_json::read(input, opts),
        InputFormat::Ris => ris::read(input, opts),
        InputFormat::Pdf => anyhow::bail!("a PDF is not a record file (ingest reads PDFs through ingest::pdf)"),
        InputFormat::Zotero => {
            anyhow::bail!("a Zotero library is not a record file (ingest reads it through ingest::zotero)")
        }
    }
}

/// Reads `bytes` as `format` to the end, in memory, as ingest would (notes
/// kept, nothing stored): the records and the bad records it found, or the
/// fault of the file. For the fuzz targets (`fuzz/fuzz_targets/`), which
/// drive the readers without an index.
#[doc(hidden)]
pub fn read_all(format: InputFormat, bytes: Vec<u8>) -> anyhow::Result<(usize, usize)> {
    let opts = FormatOptions::default();
    let (mut good, mut bad) = (0, 0);
    for item in read(format, memory_input("fuzz.input", bytes), &opts)? {
        match item {
            Ok(_) => good += 1,
            Err(ReadError::Record(_)) => bad += 1,
            Err(ReadError::File(e)) => return Err(e),
        }
    }
    Ok((good, bad))
}

/// An I/O failure while reading `path`: a fault of the file itself.
pub(crate) fn file_fault(path: &Path, e: io::Error) -> anyhow::Error {
    let what = if e.kind() == io::ErrorKind::UnexpectedEof {
        "truncated input (a gzip stream that ends early?)".to_string()
    } else {
        e.to_string()
    };
    anyhow::anyhow!("cannot read {}: {what}", path.display())
}

/// One line of a line-oriented input, without its `\n`.
pub(crate) enum Line {
    Text(Vec<u8>),
    /// Longer than the limit: only its length (in bytes) was kept.
    TooLong(u64),
}

impl Line {
    /// The line's bytes, or the record error of a line over [`MAX_LINE`].
    pub(crate) fn bytes(self) -> Result<Vec<u8>, String> {
        match self {
            Line::Text(b) => Ok(b),
            Line::TooLong(n) => Err(format!(
                "line of {:.1} MiB, longer than the {} MiB limit of one record (is it one record?)",
                n as f64 / (1024.0 * 1024.0),
                MAX_LINE / 1024 / 1024
            )),
        }
    }
}

/// Reads the next line, holding at most `max` bytes of it in memory;
/// `None` at the end of the input.
pub(crate) fn read_line_limited(reader: &mut dyn BufRead, max: usize) -> io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let (mut total, mut any, mut too_long) = (0u64, false, false);
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let content = &chunk[..newline.unwrap_or(chunk.len())];
        total += content.len() as u64;
        if !too_long {
            if buf.len() + content.len() > max {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(content);
            }
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            break;
        }
    }
    Ok(match (any, too_long) {
        (false, _) => None,
        (true, false) => Some(Line::Text(buf)),
        (true, true) => Some(Line::TooLong(total)),
    })
}

/// Drives a JSON Lines format: each non-blank line is parsed as JSON and
/// handed to `parse`, which returns the line's items or the field at fault.
/// Invalid UTF-8 and malformed JSON are record errors, located `file:line`.
pub(crate) fn json_lines<F>(input: OpenInput, format: InputFormat, mut parse: F) -> Items
where
    F: FnMut(Value) -> Result<Vec<Item>, FieldError> + 'static,
{
    let path = input.path;
    let mut reader = input.reader;
    let mut i = 0usize;
    let mut pending: std::vec::IntoIter<Item> = Vec::new().into_iter();
    let mut pending_loc = String::new();
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        loop {
            if let Some(item) = pending.next() {
                return Some(Ok((item, pending_loc.clone())));
            }
            if done {
                return None;
            }
            let line = read_line_limited(&mut reader, MAX_LINE).transpose()?;
            i += 1;
            let loc = format!("{}:{}", path.display(), i);
            let bytes = match line.map(Line::bytes) {
                Ok(Ok(b)) => b,
                Ok(Err(too_long)) => return Some(Err(record_error(&loc, None, too_long))),
                Err(e) => {
                    // A fault of the file ends the stream: reading on would repeat it.
                    done = true;
                    return Some(Err(ReadError::File(file_fault(&path, e))));
                }
            };
            let text = match std::str::from_utf8(&bytes) {
                // A UTF-8 byte-order mark may start the first line.
                Ok(t) => t.trim_start_matches('\u{feff}').trim(),
                Err(e) => {
                    return Some(Err(record_error(&loc, None, format!("invalid UTF-8 at byte {}", e.valid_up_to()))));
                }
            };
            if text.is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(e) => return Some(Err(record_error(&loc, None, format!("malformed JSON ({format}): {e}")))),
            };
            match parse(value) {
                Ok(items) => {
                    pending = items.into_iter();
                    pending_loc = loc;
                }
                Err((field, message)) => return Some(Err(record_error(&loc, field, message))),
            }
        }
    }))
}

/// Reads a whole JSON document (at most [`MAX_JSON_DOCUMENT`] bytes).
pub(crate) fn json_document(mut input: OpenInput, format: InputFormat) -> anyhow::Result<Value> {
    let mut buf = Vec::new();
    let n = (&mut input.reader)
        .take(MAX_JSON_DOCUMENT + 1)
        .read_to_end(&mut buf)
        .map_err(|e| file_fault(&input.path, e))?;
    if n as u64 > MAX_JSON_DOCUMENT {
        anyhow::bail!(
            "{} is a single JSON document over {} MiB; convert it to JSON Lines (one object per line) and ingest that",
            input.path.display(),
            MAX_JSON_DOCUMENT / 1024 / 1024
        );
    }
    let text = std::str::from_utf8(&buf)
        .map_err(|e| anyhow::anyhow!("{}: invalid UTF-8 at byte offset {}", input.path.display(), e.valid_up_to()))?;
    serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
        anyhow::anyhow!(
            "{}: not valid {format} JSON at line {}, column {}: {e}",
            input.path.display(),
            e.line(),
            e.column()
        )
    })
}

pub(crate) fn record_error(location: &str, field: Option<String>, message: String) -> ReadError {
    ReadError::Record(RecordError { location: location.to_string(), field, message })
}

/// Adds the author name `value` holds (an optional string, whitespace
/// collapsed; an empty one adds nothing) to `out`, or names what it is
/// instead: `field`, at `path` inside it.
pub(crate) fn push_name(
    out: &mut Vec<String>,
    value: Option<&Value>,
    field: &str,
    path: &str,
) -> Result<(), FieldError> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(s)) => {
            let name = collapse_ws(s);
            if !name.is_empty() {
                out.push(name);
            }
            Ok(())
        }
        Some(v) => Err(field_err(field, format!("{path}: expected a string, got {}", kind(v)))),
    }
}

/// Collapses runs of whitespace to one space and trims.
pub(crate) fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The abstract of the paper that every fixture in `tests/fixtures/ingest/`
/// describes, as each format's parser should read it.
#[cfg(test)]
pub(crate) const SHARED_ABSTRACT: &str = "We route each query to a sparse mixture of retrieval experts. Each expert \
    is a small lexical or dense retriever, and a learned gate selects two experts per query. On five benchmarks the \
    mixture matches a dense retriever ten times its size.";

#[cfg(test)]
mod tests;
