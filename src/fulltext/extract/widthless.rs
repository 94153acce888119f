//! Simple fonts printed without their widths. The PDF reference asks for
//! `/Widths` in every simple font but the base 14 (Helvetica, Times,
//! Courier, …); some makers leave them out anyway, for Arial and Times New
//! Roman above all: the text layer that scanning services lay over a page
//! image (the ACM Digital Library's older papers) is such a font. Readers
//! substitute the nearest base-14 font's metrics (poppler and pdfium do);
//! `pdf-extract` means to, for Helvetica, but looks the metrics up under the
//! font's own name and finds none, so every glyph had no advance and each
//! word came out as a line of its own.
//!
//! Before the pages are read, such a font's `/BaseFont` is set, in memory,
//! to the base-14 font of its family and style (Courier for a fixed-pitch
//! name, Times for a serif one, Helvetica else; bold and italic from the
//! name), whose widths `pdf-extract` has. A font with widths, an embedded
//! program's own font file aside, is left as it is.

use lopdf::{Document, Object, ObjectId};

/// The base 14 fonts `pdf-extract` knows the metrics of.
const BASE_14: [&str; 14] = [
    "Courier",
    "Courier-Bold",
    "Courier-BoldOblique",
    "Courier-Oblique",
    "Helvetica",
    "Helvetica-Bold",
    "Helvetica-BoldOblique",
    "Helvetica-Oblique",
    "Symbol",
    "Times-Bold",
    "Times-BoldItalic",
    "Times-Italic",
    "Times-Roman",
    "ZapfDingbats",
];

/// The base-14 font that stands in for `name` (a font's `/BaseFont`, maybe
/// with a subset prefix `ABCDEF+`).
pub(crate) fn stand_in(name: &str) -> &'static str {
    let name = name.split_once('+').filter(|(tag, _)| tag.len() == 6).map_or(name, |(_, rest)| rest);
    let lower = name.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let bold = has(&["bold", "black", "heavy", "semibold", "demi"]);
    let italic = has(&["italic", "oblique", "slant"]);
    if has(&["courier", "mono", "consol", "typewriter"]) {
        match (bold, italic) {
            (false, false) => "Courier",
            (true, false) => "Courier-Bold",
            (false, true) => "Courier-Oblique",
            (true, true) => "Courier-BoldOblique",
        }
    } else if has(&["times", "roman", "georgia", "garamond", "palatino", "book", "minion", "cambria"])
        || (lower.contains("serif") && !lower.contains("sans"))
    {
        match (bold, italic) {
            (false, false) => "Times-Roman",
            (true, false) => "Times-Bold",
            (false, true) => "Times-Italic",
            (true, true) => "Times-BoldItalic",
        }
    } else {
        match (bold, italic) {
            (false, false) => "Helvetica",
            (true, false) => "Helvetica-Bold",
            (false, true) => "Helvetica-Oblique",
            (true, true) => "Helvetica-BoldOblique",
        }
    }
}

/// Sets the stand-in of every simple font without widths (see the module's
/// notes); returns how many fonts it changed.
pub(crate) fn normalise(pdf: &mut Document) -> usize {
    let mut changed: Vec<(ObjectId, &'static str)> = Vec::new();
    for (&id, o) in &pdf.objects {
        let Ok(font) = o.as_dict() else { continue };
        let name = |key: &[u8]| font.get(key).ok().and_then(|n| n.as_name().ok());
        if name(b"Type") != Some(b"Font".as_slice())
            || !matches!(name(b"Subtype"), Some(b"Type1" | b"TrueType" | b"MMType1"))
            || font.has(b"Widths")
        {
            continue;
        }
        let Some(base) = name(b"BaseFont").map(String::from_utf8_lossy) else { continue };
        if BASE_14.contains(&base.as_ref()) {
            continue;
        }
        changed.push((id, stand_in(&base)));
    }
    for &(id, base) in &changed {
        if let Ok(Object::Dictionary(font)) = pdf.get_object_mut(id) {
            font.set("BaseFont", Object::Name(base.as_bytes().to_vec()));
        }
    }
    changed.len()
}
