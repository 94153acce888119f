//! A [`Document`] as text and as passages.
//!
//! [`render`] lays the document out as `litindex paper ID --text` prints it:
//! the front matter (title, authors, DOI / arXiv id, abstract), then each
//! section (its heading as a `## ` line, `[p. N]` before a paragraph that
//! begins on a page other than the last one named, each paragraph its own
//! block), then the captions, each after its `[p. N]`. Blocks are separated
//! by one blank line.
//!
//! [`cut`] cuts that text into passages of about [`TARGET_CHARS`]
//! characters: a paragraph (or the abstract, or a caption) is split along
//! its sentences ([`crate::sentences::split_sentences`]), sentences are
//! packed while the passage stays within the target, and a passage never
//! crosses a paragraph, so never a section. A sentence longer than
//! [`MAX_CHARS`] is cut at the last space before that length. Each passage
//! keeps its section (index into [`Document::sections`], `-1` for the
//! abstract, the captions and the references), heading, paragraph number
//! (from 1 in its section; a caption's or an entry's number in its list), first and last page
//! (from [`Paragraph::page_at`] of its first and last byte) and its
//! **character** offsets (Unicode scalar values, not bytes) into the
//! rendered text.

use std::ops::Range;

use super::{Document, Paragraph};
use crate::sentences::split_sentences;

/// The length a passage is packed up to, in characters.
pub const TARGET_CHARS: usize = 512;

/// The longest one sentence may make a passage before it is cut at a space.
pub const MAX_CHARS: usize = 768;

/// What a passage is cut from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The abstract as the PDF printed it.
    Abstract,
    /// A paragraph of a section.
    Body,
    /// A figure or table caption.
    Caption,
    /// An entry of the reference list.
    Reference,
}

impl Kind {
    /// The word the `passages.kind` column holds.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Abstract => "abstract",
            Kind::Body => "body",
            Kind::Caption => "caption",
            Kind::Reference => "reference",
        }
    }

    /// The kind of a `passages.kind` word.
    pub fn from_name(s: &str) -> Option<Kind> {
        match s {
            "abstract" => Some(Kind::Abstract),
            "body" => Some(Kind::Body),
            "caption" => Some(Kind::Caption),
            "reference" => Some(Kind::Reference),
            _ => None,
        }
    }
}

/// One passage of a document.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Passage {
    /// Index into [`Document::sections`]; -1 for the abstract and captions.
    pub section: i64,
    pub heading: String,
    /// From 1 within its section (a caption: its number among the captions).
    pub paragraph: u32,
    pub page_first: u32,
    pub page_last: u32,
    /// Character offsets into [`render`]'s text.
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
    pub text: String,
}

/// A block of the rendered text a passage may be cut from, with where it starts (bytes).
struct Block<'d> {
    at: usize,
    text: &'d str,
    section: i64,
    heading: &'d str,
    paragraph: u32,
    kind: Kind,
    pages: Pages<'d>,
}

/// How a block's byte offsets map to pages.
enum Pages<'d> {
    Fixed(u32),
    Paragraph(&'d Paragraph),
}

impl Pages<'_> {
    fn at(&self, offset: usize) -> u32 {
        match self {
            Pages::Fixed(p) => *p,
            Pages::Paragraph(p) => p.page_at(offset),
        }
    }
}

/// The document's text as `paper ID --text` prints it.
pub fn render(doc: &Document) -> String {
    layout(doc).0
}

/// The rendered text and its blocks.
fn layout(doc: &Document) -> (String, Vec<Block<'_>>) {
    let mut out = String::new();
    let mut blocks = Vec::new();
    let push_block = |out: &mut String, s: &str| {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let at = out.len();
        out.push_str(s);
        at
    };
    if let Some(t) = &doc.title {
        push_block(&mut out, &format!("# {t}"));
    }
    if !doc.authors.is_empty() {
        push_block(&mut out, &doc.authors.join(", "));
    }
    let ids: Vec<String> =
        [doc.doi.as_ref().map(|d| format!("DOI {d}")), doc.arxiv.as_ref().map(|a| format!("arXiv {a}"))]
            .into_iter()
            .flatten()
            .collect();
    if !ids.is_empty() {
        push_block(&mut out, &ids.join(" · "));
    }
    if let Some(a) = doc.abstract_.as_deref().filter(|a| !a.trim().is_empty()) {
        push_block(&mut out, "## Abstract");
        let at = push_block(&mut out, a);
        blocks.push(Block {
            at,
            text: a,
            section: -1,
            heading: "Abstract",
            paragraph: 1,
            kind: Kind::Abstract,
            pages: Pages::Fixed(1),
        });
    }
    let mut page_named = 0u32;
    for (si, section) in doc.sections.iter().enumerate() {
        if !section.heading.is_empty() {
            let hashes = "#".repeat(usize::from(section.level.clamp(1, 4)) + 1);
            push_block(&mut out, &format!("{hashes} {}", section.heading));
        }
        for (pi, para) in section.paragraphs.iter().enumerate() {
            if para.text.trim().is_empty() {
                continue;
            }
            if para.first_page() != page_named {
                page_named = para.first_page();
                push_block(&mut out, &format!("[p. {page_named}]"));
            }
            let at = push_block(&mut out, &para.text);
            blocks.push(Block {
                at,
                text: &para.text,
                section: si as i64,
                heading: &section.heading,
                paragraph: pi as u32 + 1,
                kind: Kind::Body,
                pages: Pages::Paragraph(para),
            });
        }
    }
    if !doc.captions.is_empty() {
        push_block(&mut out, "## Figures and tables");
        for (ci, c) in doc.captions.iter().enumerate() {
            if c.text.trim().is_empty() {
                continue;
            }
            let label = format!("[p. {}] ", c.page);
            let at = push_block(&mut out, &format!("{label}{}", c.text)) + label.len();
            blocks.push(Block {
                at,
                text: &c.text,
                section: -1,
                heading: "",
                paragraph: ci as u32 + 1,
                kind: Kind::Caption,
                pages: Pages::Fixed(c.page),
            });
        }
    }
    if !doc.references.is_empty() {
        push_block(&mut out, "## References");
        for (ri, r) in doc.references.iter().enumerate() {
            if r.raw.trim().is_empty() {
                continue;
            }
            let label = format!("[p. {}] ", r.page);
            let at = push_block(&mut out, &format!("{label}{}", r.raw)) + label.len();
            blocks.push(Block {
                at,
                text: &r.raw,
                section: -1,
                heading: "References",
                paragraph: ri as u32 + 1,
                kind: Kind::Reference,
                pages: Pages::Fixed(r.page),
            });
        }
    }
    (out, blocks)
}

/// The document's passages, in reading order (abstract, body, captions, references).
pub fn cut(doc: &Document) -> Vec<Passage> {
    let (text, blocks) = layout(doc);
    // Byte offset -> char offset into `text`, computed once walking forward.
    let mut chars = CharIndex::new(&text);
    let mut out = Vec::new();
    for b in &blocks {
        for range in pack(b.text) {
            let piece = b.text[range.clone()].trim();
            if piece.is_empty() {
                continue;
            }
            let lead = b.text[range.clone()].len() - b.text[range.clone()].trim_start().len();
            let (s, e) = (range.start + lead, range.start + lead + piece.len());
            out.push(Passage {
                section: b.section,
                heading: b.heading.to_string(),
                paragraph: b.paragraph,
                page_first: b.pages.at(s),
                page_last: b.pages.at(e.saturating_sub(1).max(s)),
                start: chars.at(b.at + s),
                end: chars.at(b.at + e),
                kind: b.kind,
                text: piece.to_string(),
            });
        }
    }
    out
}

/// Byte ranges of `text` making passages: its sentences packed up to
/// [`TARGET_CHARS`], a sentence over [`MAX_CHARS`] cut at spaces.
fn pack(text: &str) -> Vec<Range<usize>> {
    let mut units: Vec<Range<usize>> = Vec::new();
    let mut sentences = split_sentences(text);
    if sentences.is_empty() {
        sentences.push(0..text.len());
    }
    for s in sentences {
        units.extend(split_long(text, s));
    }
    let mut out: Vec<Range<usize>> = Vec::new();
    for u in units {
        match out.last_mut() {
            Some(last) if text[last.start..u.end].chars().count() <= TARGET_CHARS => last.end = u.end,
            _ => out.push(u),
        }
    }
    out
}

/// `range` of `text` cut into pieces of at most [`MAX_CHARS`] characters, at the last space before.
fn split_long(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    while text[start..range.end].chars().count() > MAX_CHARS {
        let limit = text[start..range.end].char_indices().nth(MAX_CHARS).map_or(range.end, |(i, _)| start + i);
        let cut = text[start..limit].rfind(' ').map_or(limit, |i| start + i).max(start + 1);
        let cut = (cut..=range.end).find(|&i| text.is_char_boundary(i)).unwrap_or(range.end);
        out.push(start..cut);
        start = cut;
    }
    if start < range.end {
        out.push(start..range.end);
    }
    out
}

/// Byte offsets to char offsets over one text, asked in increasing order (mostly).
struct CharIndex<'t> {
    text: &'t str,
    byte: usize,
    chars: usize,
}

impl<'t> CharIndex<'t> {
    fn new(text: &'t str) -> CharIndex<'t> {
        CharIndex { text, byte: 0, chars: 0 }
    }

    fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        self.chars += self.text[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fulltext::{Caption, Section};

    fn para(text: &str, pages: &[(usize, u32)]) -> Paragraph {
        Paragraph { text: text.into(), page_starts: pages.to_vec(), raised: Vec::new() }
    }

    fn sentence(i: usize) -> String {
        format!("Sentence number {i} says something about retrieval with passages and pages. ")
    }

    fn doc() -> Document {
        let long: String = (0..20).map(sentence).collect();
        let break_at = long.find("Sentence number 10").unwrap();
        Document {
            pages: 3,
            title: Some("Passages Of Full Text".into()),
            authors: vec!["Ada Lovelace".into()],
            abstract_: Some("We cut documents. Into passages.".into()),
            sections: vec![
                Section {
                    heading: String::new(),
                    level: 1,
                    paragraphs: vec![para("Lead text before any heading.", &[(0, 1)])],
                },
                Section {
                    heading: "1 Introduction".into(),
                    level: 1,
                    paragraphs: vec![
                        para(long.trim_end(), &[(0, 1), (break_at, 2)]),
                        para("Ça va très bien.", &[(0, 2)]),
                    ],
                },
                Section { heading: "2 Método".into(), level: 1, paragraphs: vec![para("Short one.", &[(0, 3)])] },
            ],
            captions: vec![Caption { text: "Figure 1: A figure.".into(), page: 3 }],
            ..Document::default()
        }
    }

    #[test]
    fn passages_stay_near_the_target_and_inside_paragraphs() {
        let d = doc();
        let ps = cut(&d);
        let text = render(&d);
        let chars: Vec<char> = text.chars().collect();
        for p in &ps {
            assert!(p.text.chars().count() <= MAX_CHARS, "{}", p.text.len());
            // The offsets point at the passage in the rendered text.
            let span: String = chars[p.start..p.end].iter().collect();
            assert_eq!(span, p.text);
        }
        let intro: Vec<&Passage> = ps.iter().filter(|p| p.section == 1 && p.paragraph == 1).collect();
        assert!(intro.len() >= 2, "a long paragraph makes several passages");
        assert!(intro.iter().all(|p| p.text.chars().count() <= TARGET_CHARS));
        assert!(intro.iter().all(|p| p.text.ends_with('.')), "cut at sentence ends");
        // Pages follow the paragraph's page starts.
        assert_eq!(intro[0].page_first, 1);
        assert_eq!(intro.last().unwrap().page_last, 2);
        assert!(intro.iter().any(|p| p.page_first == 1 && p.page_last == 2) || intro.iter().any(|p| p.page_first == 2));
        // Each paragraph is its own passage: the short ones are not joined.
        assert!(ps.iter().any(|p| p.text == "Ça va très bien." && p.paragraph == 2 && p.page_first == 2));
        assert!(ps.iter().any(|p| p.text == "Short one." && p.heading == "2 Método" && p.page_first == 3));
        let abs = &ps[0];
        assert_eq!(
            (abs.kind, abs.section, abs.text.as_str()),
            (Kind::Abstract, -1, "We cut documents. Into passages.")
        );
        let cap = ps.last().unwrap();
        assert_eq!((cap.kind, cap.page_first, cap.text.as_str()), (Kind::Caption, 3, "Figure 1: A figure."));
    }

    #[test]
    fn the_rendered_text_has_headings_pages_and_captions() {
        let text = render(&doc());
        assert!(text.starts_with("# Passages Of Full Text\n\nAda Lovelace\n\n## Abstract\n\nWe cut documents."));
        assert!(text.contains("[p. 1]\n\nLead text before any heading.\n\n## 1 Introduction\n\nSentence number 0"));
        assert!(text.contains("[p. 2]\n\nÇa va très bien."));
        assert!(text.contains("## Figures and tables\n\n[p. 3] Figure 1: A figure."));
    }

    #[test]
    fn a_sentence_without_ends_is_cut_at_spaces() {
        let words = "word ".repeat(400);
        let d = Document {
            sections: vec![Section { heading: "H".into(), level: 1, paragraphs: vec![para(words.trim(), &[(0, 1)])] }],
            ..Document::default()
        };
        let ps = cut(&d);
        assert!(ps.len() >= 3);
        assert!(ps.iter().all(|p| p.text.chars().count() <= MAX_CHARS && !p.text.contains("wo rd")));
        let total: usize = ps.iter().map(|p| p.text.split_whitespace().count()).sum();
        assert_eq!(total, 400, "no word lost or split");
    }

    #[test]
    fn an_empty_document_has_no_passages() {
        assert!(cut(&Document::default()).is_empty());
        assert_eq!(render(&Document::default()), "");
    }
}
