//! PDF bytes to a structured [`Document`]: text with positions, reading
//! order, cleaning and structure.
//!
//! The file is parsed by `lopdf` and each page's content stream interpreted
//! by `pdf-extract` (chosen by measurement: docs/FULLTEXT.md), which hands
//! over every glyph with its position and size ([`glyphs`]). From there it is
//! this module's: lines in reading order for one or two columns
//! ([`layout`]), ligatures, accents and odd glyphs ([`text`]), running
//! headers, footers, page and line numbers ([`margins`]), the front matter
//! ([`front`]), headings, paragraphs and captions ([`body`]), the reference
//! list's entries ([`bib`]), and identifiers ([`ids`]).
//!
//! Bounds ([`Limits`]): the file size and the decompressed size of its
//! Flate streams are checked before parsing ([`guard`]); pages past
//! `max_pages` are not read; the deadline is checked between pages and every
//! few thousand glyphs; a panic in either crate is caught (quietly) and the
//! file or page reported, never the process brought down. Not bounded: the
//! memory `lopdf` takes for the file's objects (proportional to the file,
//! which `max_file_bytes` caps) and the time of a single `lopdf` parse.

mod bib;
mod body;
mod front;
mod glyphs;
mod guard;
mod ids;
mod layout;
mod margins;
#[cfg(test)]
mod tests;
mod text;
mod type3;
mod widthless;

use std::time::Instant;

use super::{Document, Limits, PdfError};
pub(crate) use ids::from_file_name as ids_from_file_name;
use layout::Line;

/// Reads the file's text and structure; references are left unparsed and
/// contexts empty (see [`super::read_pdf`]).
pub fn read(bytes: &[u8], limits: &Limits) -> Result<Document, PdfError> {
    let started = Instant::now();
    let deadline = started + limits.timeout;
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(PdfError::Corrupt("the file does not start with %PDF".into()));
    }
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(PdfError::Limit(format!("the file is larger than {} bytes", limits.max_file_bytes)));
    }
    guard::check_inflated_size(bytes, limits.max_decompressed_bytes, deadline)?;
    let loaded = guard::quietly(|| lopdf::Document::load_mem(bytes));
    let mut doc = Document::default();
    let mut pdf = match loaded {
        Some(Ok(pdf)) => pdf,
        Some(Err(e)) if contains(bytes, b"/Encrypt") => {
            doc.notes.push(format!("encrypted (cannot be decrypted: {e})"));
            return Ok(doc);
        }
        Some(Err(e)) => return Err(PdfError::Corrupt(format!("its structure cannot be parsed: {e}"))),
        None => return Err(PdfError::Corrupt("its structure cannot be parsed (the parser failed)".into())),
    };
    let pages = pdf.get_pages();
    doc.pages = pages.len() as u32;
    let info = guard::quietly(|| ids::info(&pdf)).unwrap_or_default();
    if pdf.is_encrypted() {
        doc.notes.push("encrypted".into());
        doc.title = info.title.clone().filter(|t| !front::file_name_title(t));
        doc.authors = info
            .author
            .iter()
            .flat_map(|a| a.split([';', ',']).map(|s| s.trim().to_string()))
            .filter(|s| !s.is_empty())
            .collect();
        return Ok(doc);
    }
    if pages.is_empty() && contains(bytes, b"/Encrypt") {
        // Decrypted with the empty password into nothing: the password is another.
        doc.notes.push("encrypted (no pages after decryption with an empty password)".into());
        doc.title = info.title.clone().filter(|t| !front::file_name_title(t));
        return Ok(doc);
    }
    if pages.is_empty() {
        return Err(PdfError::Corrupt("it has no pages".into()));
    }
    // Type 3 fonts in a glyph space of their own, made ordinary first.
    let _ = guard::quietly(|| type3::normalise(&mut pdf, limits.max_pages as usize, deadline));
    // Simple fonts without widths, given a base-14 font's.
    let _ = guard::quietly(|| widthless::normalise(&mut pdf));
    // The glyphs, page by page.
    let mut collector = glyphs::Collector::new(deadline);
    let mut unreadable = Vec::new();
    for (n, &page) in pages.keys().enumerate() {
        if n as u32 >= limits.max_pages {
            doc.notes.push(format!("only the first {} pages read", limits.max_pages));
            break;
        }
        let before = collector.pages.len();
        collector.rotate = pages.get(&page).map_or(0, |&id| page_rotation(&pdf, id));
        let done = guard::quietly(|| pdf_extract::output_doc_page(&pdf, &mut collector, page));
        match collector.stop {
            Some(glyphs::Stop::Deadline) => {
                return Err(PdfError::Limit(format!("the time limit per file ({} s)", limits.timeout.as_secs_f32())));
            }
            Some(glyphs::Stop::Glyphs) => {
                return Err(PdfError::Limit(format!("more than {} characters", glyphs::MAX_GLYPHS)));
            }
            None => {}
        }
        if !matches!(done, Some(Ok(()))) {
            unreadable.push(page);
            // Keep the page, empty, so page numbers stay right.
            collector.pages.truncate(before);
            collector.pages.push(glyphs::Page { number: page, ..glyphs::Page::default() });
        }
    }
    if !unreadable.is_empty() {
        let list: Vec<String> = unreadable.iter().take(10).map(u32::to_string).collect();
        doc.notes.push(format!("{} page(s) could not be read: {}", unreadable.len(), list.join(", ")));
    }
    let pages = collector.pages;
    if Instant::now() > deadline {
        return Err(PdfError::Limit(format!("the time limit per file ({} s)", limits.timeout.as_secs_f32())));
    }
    // The layout and structure code is this crate's own; a panic there on
    // some odd file is a bug, but still a file error rather than a crash.
    let notes = doc.notes.clone();
    match guard::quietly(|| {
        structure(&mut doc, &pages, &info);
        doc
    }) {
        Some(doc) => Ok(doc),
        None => Err(PdfError::Corrupt(format!("its text could not be laid out (an internal error; notes: {notes:?})"))),
    }
}

/// The page's `/Rotate` (inherited from its parents in the page tree, as
/// the PDF reference says), as 0, 90, 180 or 270.
fn page_rotation(pdf: &lopdf::Document, page: lopdf::ObjectId) -> u32 {
    let mut node = pdf.get_dictionary(page).ok();
    // A page tree is shallow; a cycle of parents ends here too.
    for _ in 0..32 {
        let Some(dict) = node else { break };
        if let Ok(r) = dict.get(b"Rotate").and_then(|o| pdf.dereference(o)).and_then(|(_, o)| o.as_i64()) {
            return glyphs::quarter_turns(r);
        }
        node = dict.get(b"Parent").and_then(|o| o.as_reference()).and_then(|id| pdf.get_dictionary(id)).ok();
    }
    0
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Fills the document's text and structure from the pages' glyphs.
fn structure(doc: &mut Document, pages: &[glyphs::Page], info: &ids::Info) {
    let mut per_page: Vec<Vec<Line>> = pages.iter().map(layout::lines).collect();
    for ls in &mut per_page {
        for l in ls.iter_mut() {
            text::clean_line(l);
        }
        ls.retain(|l| !l.text.trim().is_empty());
    }
    // Identifiers: the first pages' text before the margins are cut (a DOI
    // is often in the running header), the margin stamp, the metadata.
    let mut first = String::new();
    for (p, ls) in pages.iter().zip(&per_page).take(2) {
        first.push_str(&p.rotated);
        first.push('\n');
        for l in ls {
            first.push_str(&l.text);
            first.push('\n');
        }
    }
    let meta = format!("{}\n{}\n{}", info.other, info.xmp, info.title.clone().unwrap_or_default());
    doc.doi = ids::find_doi(&first).or_else(|| ids::find_doi(&meta));
    doc.arxiv = ids::find_arxiv(&first).or_else(|| ids::find_arxiv(&meta));
    margins::strip(pages, &mut per_page);
    if let Some(pat) = std::env::var_os("LITINDEX_DUMP_LINES") {
        let pat = pat.to_string_lossy().to_string();
        for l in per_page.iter().flatten().filter(|l| l.text.contains(pat.as_str())) {
            eprintln!("p{} x{:.0}-{:.0} y{:.1} s{:.2} {:?} | {}", l.page, l.x0, l.x1, l.y, l.size, l.side, l.text);
        }
    }
    let lines: Vec<Line> = per_page.into_iter().flatten().collect();
    if lines.iter().map(|l| l.text.len()).sum::<usize>() < 40 {
        doc.notes.push("no text layer (scanned?)".into());
        doc.title = info.title.clone().filter(|t| !front::file_name_title(t));
        doc.year = info.created_year;
        return;
    }
    let body_size = body_size(&lines);
    let front = front::find(&lines, body_size, info.title.as_deref());
    doc.title = front.title;
    doc.authors = front.authors;
    doc.abstract_ = front.abstract_;
    let body = body::build(&lines[front.body_from.min(lines.len())..], body_size);
    doc.sections = body.sections;
    doc.captions = body.captions;
    doc.references = bib::split(&body.ref_lines);
    doc.year = year(doc, &first, info);
}

/// The size most of the text is set in (by characters).
fn body_size(lines: &[Line]) -> f32 {
    let mut by: std::collections::HashMap<i32, usize> = std::collections::HashMap::new();
    for l in lines {
        *by.entry((l.size * 4.0).round() as i32).or_default() += l.text.len();
    }
    by.into_iter().max_by_key(|(k, n)| (*n, -*k)).map_or(10.0, |(k, _)| k as f32 / 4.0)
}

/// The year: the arXiv id's, else the most frequent plausible year on the
/// first pages (a banner, a copyright line), else the file's creation date.
fn year(doc: &Document, first: &str, info: &ids::Info) -> Option<i32> {
    if let Some(a) = doc.arxiv.as_deref() {
        let digits: String = a.rsplit('/').next().unwrap_or(a).chars().take(2).collect();
        if let Ok(yy) = digits.parse::<i32>() {
            return Some(if yy >= 91 { 1900 + yy } else { 2000 + yy });
        }
    }
    let latest = info.created_year.unwrap_or(2100);
    let mut counts: std::collections::BTreeMap<i32, usize> = std::collections::BTreeMap::new();
    for y in ids::years(first) {
        if y >= 1950 && y <= latest + 1 {
            *counts.entry(y).or_default() += 1;
        }
    }
    counts.into_iter().max_by_key(|(y, n)| (*n, *y)).map(|(y, _)| y).or(info.created_year)
}
