//! Full text: a PDF read into a structured [`Document`] (front matter,
//! sections of paragraphs with their pages, figure and table captions, the
//! reference list with each entry parsed, and the in-text citation
//! contexts), and that document cut into [`passages`] for the index.
//!
//! The pipeline is [`read_pdf`]: [`extract`] turns the file's bytes into
//! pages of positioned text and then into the document's structure (reading
//! order, columns, running headers and footers, de-hyphenation, headings,
//! the bibliography); [`refs`] parses each reference entry into fields; and
//! [`contexts`] finds the in-text citation markers and resolves them to
//! entries. Nothing here touches the store or prints.

pub mod contexts;
pub mod eval;
pub mod extract;
pub mod passages;
pub mod refs;

use std::time::Duration;

/// What one PDF may cost. A file past a limit is refused with
/// [`PdfError::Limit`] (a file error naming the limit), never read halfway
/// into memory or for ever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest file read.
    pub max_file_bytes: u64,
    /// The most pages read; later pages are not read (a note says so).
    pub max_pages: u32,
    /// The most bytes all of a file's decompressed streams may add up to.
    pub max_decompressed_bytes: u64,
    /// The wall-clock time one file may take.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: 256 * 1024 * 1024,
            max_pages: 2_000,
            max_decompressed_bytes: 1024 * 1024 * 1024,
            timeout: Duration::from_secs(60),
        }
    }
}

/// Why a PDF could not be read at all. Files that open but carry no usable
/// text (encrypted, scanned) are not errors: they are a [`Document`] with a
/// [`Document::notes`] entry saying why it has no text.
#[derive(Debug)]
pub enum PdfError {
    /// Not a PDF, truncated, or its structure is broken beyond reading.
    Corrupt(String),
    /// A [`Limits`] bound was reached (which one, and its value).
    Limit(String),
}

impl std::fmt::Display for PdfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PdfError::Corrupt(why) => write!(f, "not a readable PDF: {why}"),
            PdfError::Limit(why) => write!(f, "over a limit: {why}"),
        }
    }
}

impl std::error::Error for PdfError {}

/// A PDF's structured text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    /// The page count of the file.
    pub pages: u32,
    pub title: Option<String>,
    /// "First Last", in printed order.
    pub authors: Vec<String>,
    pub abstract_: Option<String>,
    pub year: Option<i32>,
    /// Lowercase DOI without prefix, from the text, the XMP metadata or the file name.
    pub doi: Option<String>,
    /// Unversioned arXiv id.
    pub arxiv: Option<String>,
    /// The body in reading order. Text before the first heading (after the
    /// abstract) is a section with an empty heading.
    pub sections: Vec<Section>,
    /// Figure and table captions, each its own passage.
    pub captions: Vec<Caption>,
    /// The reference list, in printed order.
    pub references: Vec<Reference>,
    /// In-text citations: each sentence with its markers resolved.
    pub contexts: Vec<CitationContext>,
    /// Why the document has less than it should ("encrypted", "no text
    /// layer (scanned?)", "only the first 2000 pages read").
    pub notes: Vec<String>,
}

/// One section: its heading and its paragraphs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    /// As printed, numbering kept ("3.1 Results"); empty for text before
    /// the first heading.
    pub heading: String,
    /// 1 for a top-level section, 2 for a subsection, ...
    pub level: u8,
    pub paragraphs: Vec<Paragraph>,
}

/// A paragraph's text (de-hyphenated, lines joined with spaces) and where
/// its pages begin, so any span of it can name its page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Paragraph {
    pub text: String,
    /// `(byte offset in text, page number from 1)`, sorted, the first at
    /// offset 0: a paragraph that runs over a page break has two entries.
    pub page_starts: Vec<(usize, u32)>,
    /// Byte ranges of the text that was printed raised and smaller than the
    /// line (superscripts: citation numbers such as `^{12,14}`, footnote
    /// marks), sorted; the text itself keeps the characters as printed.
    pub raised: Vec<(usize, usize)>,
}

impl Paragraph {
    /// The page (from 1) on which byte `offset` of the text is printed.
    pub fn page_at(&self, offset: usize) -> u32 {
        self.page_starts.iter().take_while(|(start, _)| *start <= offset).last().map_or(1, |(_, page)| *page)
    }

    pub fn first_page(&self) -> u32 {
        self.page_starts.first().map_or(1, |(_, page)| *page)
    }

    pub fn last_page(&self) -> u32 {
        self.page_starts.last().map_or(1, |(_, page)| *page)
    }
}

/// A figure or table caption ("Figure 3: ...").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Caption {
    pub text: String,
    pub page: u32,
}

/// One entry of the reference list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reference {
    /// The printed label without brackets ("12", "Smi19"), when the style has one.
    pub label: Option<String>,
    /// The entry as printed, lines joined, de-hyphenated.
    pub raw: String,
    pub page: u32,
    /// The fields parsed out of `raw` by [`refs::parse`].
    pub parsed: ParsedRef,
}

/// A reference entry's fields. Every field is optional: a style may not
/// print it, or the parser may not find it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedRef {
    pub title: Option<String>,
    /// "First Last" or as printed ("J. Smith"), in order.
    pub authors: Vec<String>,
    /// True when the list ends in "et al." or "and others".
    pub et_al: bool,
    pub year: Option<i32>,
    pub venue: Option<String>,
    /// Lowercase, without `https://doi.org/`.
    pub doi: Option<String>,
    /// Unversioned.
    pub arxiv: Option<String>,
}

/// One sentence of the body that cites, with the entries it cites.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CitationContext {
    /// Indexes into [`Document::sections`] and that section's paragraphs.
    pub section: usize,
    pub paragraph: usize,
    /// The sentence's byte range in the paragraph's text.
    pub start: usize,
    pub end: usize,
    pub page: u32,
    /// The markers as printed ("[3-5]", "(Smith et al., 2019)").
    pub markers: Vec<String>,
    /// Indexes into [`Document::references`], without repeats.
    pub references: Vec<usize>,
}

/// Reads a PDF into a structured [`Document`]: [`extract::read`], then each
/// reference parsed ([`refs::parse`]) and the citation contexts found
/// ([`contexts::find`]).
pub fn read_pdf(bytes: &[u8], limits: &Limits) -> Result<Document, PdfError> {
    read_pdf_named(bytes, None, limits)
}

/// [`read_pdf`] of a file named `file_name`: a DOI or arXiv id the text and
/// the metadata lack is taken from the name when it spells one
/// (`2101.01234v2.pdf`, `arXiv-2101.01234.pdf`, `10.1145_3292500.3330701.pdf`).
pub fn read_pdf_named(bytes: &[u8], file_name: Option<&str>, limits: &Limits) -> Result<Document, PdfError> {
    let mut doc = read_pdf_text(bytes, limits)?;
    if let (None, None, Some(name)) = (&doc.doi, &doc.arxiv, file_name) {
        let (doi, arxiv) = extract::ids_from_file_name(name);
        doc.doi = doi;
        doc.arxiv = arxiv;
    }
    Ok(doc)
}

fn read_pdf_text(bytes: &[u8], limits: &Limits) -> Result<Document, PdfError> {
    let mut doc = extract::read(bytes, limits)?;
    for reference in &mut doc.references {
        reference.parsed = refs::parse(&reference.raw);
    }
    doc.contexts = contexts::find(&doc);
    Ok(doc)
}
