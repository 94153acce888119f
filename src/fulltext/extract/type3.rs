//! Type 3 fonts whose glyph space is not the usual thousandth of a text
//! space unit. dvips' bitmap fonts, as Ghostscript writes them, have the
//! font matrix `[1 0 0 -1 0 0]` and every font set at size 0.24: the size
//! is in the glyphs. `pdf-extract` reads every font's widths as thousandths
//! and leaves the font matrix out, so such a page's glyphs came out a
//! thousandth of their advance, at a size too small to be text, and upside
//! down; the page read as having no text at all.
//!
//! Before the pages are read, each such font gets a scale `k`, guessed as
//! poppler's text extraction guesses it (the advance of its `m` is 0.6 of
//! the size, else a letter's 0.5), and the file is changed in memory so
//! that `pdf-extract` sees an ordinary font: the font's widths become
//! thousandths of a size `k` times its set size, and in each page's content
//! the font's size operands are multiplied by `k` and its `TJ` adjustments
//! (thousandths of the set size) divided by `k`. Every glyph keeps its place
//! and advance. The glyphs' upside-down orientation is allowed for where
//! they are collected ([`super::glyphs`]). Fonts with the usual matrix are
//! left as they are; so are the content of form XObjects (a figure's text
//! in such a font stays as unread as it was) and any page whose content
//! cannot be parsed.

use std::collections::HashMap;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

/// The usual font matrix's scale: a glyph unit is a thousandth of the size.
const USUAL: f64 = 0.001;

/// A number object's value (lopdf's, an integer or a real).
fn number(o: &Object) -> Option<f64> {
    o.as_float().ok().map(f64::from)
}

/// `o`, or the object it refers to (lopdf's, which bounds a chain of references).
fn resolved<'a>(pdf: &'a Document, o: &'a Object) -> Option<&'a Object> {
    pdf.dereference(o).ok().map(|(_, o)| o)
}

/// The glyph names a simple font's `/Encoding /Differences` gives, by code.
fn glyph_names(pdf: &Document, font: &Dictionary) -> HashMap<i64, Vec<u8>> {
    let mut names = HashMap::new();
    let encoding = font.get(b"Encoding").ok().and_then(|o| resolved(pdf, o));
    let differences = encoding
        .and_then(|e| e.as_dict().ok())
        .and_then(|e| e.get(b"Differences").ok())
        .and_then(|d| resolved(pdf, d))
        .and_then(|d| d.as_array().ok());
    let mut code = 0i64;
    for o in differences.into_iter().flatten() {
        match o {
            Object::Integer(i) => code = *i,
            Object::Name(n) => {
                names.insert(code, n.clone());
                code += 1;
            }
            _ => {}
        }
    }
    names
}

/// The scale `k` of a Type 3 font with an unusual matrix, and its widths
/// rewritten in thousandths of `k` (see the module's notes); `None` for any
/// other font, or one whose scale cannot be guessed.
fn rescaled(pdf: &Document, font: &Dictionary) -> Option<(f64, Vec<Object>)> {
    if font.get(b"Subtype").ok()?.as_name().ok()? != b"Type3" {
        return None;
    }
    let matrix: Vec<f64> =
        resolved(pdf, font.get(b"FontMatrix").ok()?)?.as_array().ok()?.iter().filter_map(number).collect();
    let (a, d) = (*matrix.first()?, *matrix.get(3)?);
    if a <= 0.0 || !a.is_finite() || !d.is_finite() || ((a - USUAL).abs() < 1e-12 && (d - USUAL).abs() < 1e-12) {
        return None;
    }
    let first = number(resolved(pdf, font.get(b"FirstChar").ok()?)?)? as i64;
    let widths: Vec<f64> =
        resolved(pdf, font.get(b"Widths").ok()?)?.as_array().ok()?.iter().map(|w| number(w).unwrap_or(0.0)).collect();
    let width =
        |code: i64| usize::try_from(code - first).ok().and_then(|i| widths.get(i)).copied().filter(|w| *w > 0.0);
    let names = glyph_names(pdf, font);
    let letter = |n: &[u8]| n.len() == 1 && n[0].is_ascii_alphabetic();
    let mut codes: Vec<(&i64, &Vec<u8>)> = names.iter().collect();
    codes.sort();
    // poppler's guess: an `m` is 0.6 of the size, another letter 0.5, any glyph 0.5.
    let guess = codes
        .iter()
        .find(|(_, n)| n.as_slice() == b"m")
        .and_then(|(c, _)| width(**c).map(|w| w / 0.6))
        .or_else(|| codes.iter().filter(|(_, n)| letter(n)).find_map(|(c, _)| width(**c).map(|w| w / 0.5)))
        .or_else(|| widths.iter().find(|w| **w > 0.0).map(|w| w / 0.5))?;
    let k = guess * a * (d / a).abs();
    if !k.is_finite() || k <= 0.0 {
        return None;
    }
    let rewritten = widths.iter().map(|w| Object::Real((w * a * 1000.0 / k) as f32)).collect();
    Some((k, rewritten))
}

/// Rewrites, in memory, the fonts of the module's notes and the first
/// `max_pages` pages that use them (the pages a read goes through), until
/// `deadline`; returns how many fonts it changed.
pub(crate) fn normalise(pdf: &mut Document, max_pages: usize, deadline: std::time::Instant) -> usize {
    let mut scales: HashMap<ObjectId, f64> = HashMap::new();
    let mut widths: Vec<(ObjectId, Vec<Object>)> = Vec::new();
    for (&id, o) in &pdf.objects {
        if let Ok(font) = o.as_dict() {
            if let Some((k, w)) = rescaled(pdf, font) {
                scales.insert(id, k);
                widths.push((id, w));
            }
        }
    }
    if scales.is_empty() {
        return 0;
    }
    for (id, w) in widths {
        if let Ok(Object::Dictionary(font)) = pdf.get_object_mut(id) {
            font.set("Widths", Object::Array(w));
        }
    }
    let pages: Vec<ObjectId> = pdf.get_pages().values().copied().take(max_pages).collect();
    for page in pages {
        if std::time::Instant::now() > deadline {
            break;
        }
        let _ = rewrite_page(pdf, page, &scales);
    }
    scales.len()
}

/// The page's font names that name a rescaled font, with its scale.
fn page_scales(pdf: &Document, page: ObjectId, scales: &HashMap<ObjectId, f64>) -> HashMap<Vec<u8>, f64> {
    let mut out = HashMap::new();
    let Ok((own, inherited)) = pdf.get_page_resources(page) else { return out };
    let dicts = own.into_iter().chain(inherited.iter().filter_map(|id| pdf.get_dictionary(*id).ok()));
    for resources in dicts {
        let fonts = resources.get(b"Font").ok().and_then(|f| resolved(pdf, f)).and_then(|f| f.as_dict().ok());
        for (name, o) in fonts.into_iter().flat_map(|f| f.iter()) {
            if let Some(k) = o.as_reference().ok().and_then(|id| scales.get(&id)) {
                out.entry(name.clone()).or_insert(*k);
            }
        }
    }
    out
}

/// Scales the size operands and `TJ` adjustments of the rescaled fonts in
/// the page's content, into a new content stream of the page.
fn rewrite_page(pdf: &mut Document, page: ObjectId, scales: &HashMap<ObjectId, f64>) -> anyhow::Result<()> {
    let by_name = page_scales(pdf, page, scales);
    if by_name.is_empty() {
        return Ok(());
    }
    let mut content = Content::decode(&pdf.get_page_content(page)?)?;
    // The font is part of the graphics state: saved by q, restored by Q.
    let mut current: Option<f64> = None;
    let mut saved: Vec<Option<f64>> = Vec::new();
    for op in &mut content.operations {
        match op.operator.as_str() {
            "q" => saved.push(current),
            "Q" => current = saved.pop().flatten(),
            "Tf" => {
                current = op.operands.first().and_then(|n| n.as_name().ok()).and_then(|n| by_name.get(n)).copied();
                if let (Some(k), Some(size)) = (current, op.operands.get(1).and_then(number)) {
                    op.operands[1] = Object::Real((size * k) as f32);
                }
            }
            "TJ" => {
                if let (Some(k), Some(Object::Array(parts))) = (current, op.operands.first_mut()) {
                    for part in parts.iter_mut() {
                        if let Some(adjust) = number(part) {
                            *part = Object::Real((adjust / k) as f32);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let stream = pdf.add_object(Stream::new(Dictionary::new(), content.encode()?));
    if let Ok(Object::Dictionary(dict)) = pdf.get_object_mut(page) {
        dict.set("Contents", stream);
    }
    Ok(())
}
