//! One reference-list entry, as printed, parsed into fields: authors in
//! order (and `et al.`), year, title, venue, DOI, arXiv id.
//!
//! The parse runs in steps, each taking its part off the text: the
//! identifiers and URLs ([`ids`]); the label (`[12]`, `12.`, `[Smith et al.
//! 2019]`); the author list ([`names`]); a year printed right after the
//! authors (`(2019a).`, `2019.`, `2019:`, the author-year styles); then the
//! title — a quoted span (IEEE, APS, ACM with quotes), else the text up to
//! the end of its sentence, or in the comma styles (Elsevier, APS books, the
//! authors closed by a comma) up to `, in:` or the next comma; the physics
//! style with no title (`Phys. Rev. 181, 920 (1969).`) gives none and its
//! venue. The venue is what follows the title up to the volume, pages or
//! year; a year not printed after the authors is the last year-like number
//! after the title (never a page range's end, an ISSN or a date).
//!
//! A pure function that never panics (fuzzed by `fuzz/fuzz_targets/refs_parse.rs`);
//! an entry longer than [`MAX_ENTRY_BYTES`] is read only that far.

mod ids;
mod names;
#[cfg(test)]
mod tests;

use super::ParsedRef;
use crate::paper::title::normalize;

/// The longest entry read; longer text is cut (at a character boundary)
/// before parsing. Real entries are under 1,000 bytes.
pub const MAX_ENTRY_BYTES: usize = 4_000;

/// The fields of one printed reference entry.
pub fn parse(raw: &str) -> ParsedRef {
    let text = clean(raw);
    let ids = ids::take(&text);
    let body = strip_label(&ids.rest);
    let authors = names::scan(body);
    let after_authors = skip_editors(&body[authors.end.min(body.len())..]);
    let (leading_year, consumed) = leading_year(after_authors);
    let rest = &after_authors[consumed..];
    let comma_style = authors.closed_by == ',' && consumed == 0;
    let piece = title_and_rest(rest, comma_style);
    let venue = piece.venue.or_else(|| venue(piece.after)).or_else(|| ids.arxiv.as_ref().map(|_| "arXiv".to_string()));
    // A year inside the title ("Hurricane Patricia (2015)") is not the entry's.
    let year = leading_year
        .or(piece.year)
        .or_else(|| last_year(piece.after))
        .or_else(|| if piece.title.is_none() && consumed == 0 { last_year(body) } else { None });
    ParsedRef {
        title: piece.title,
        authors: authors.names,
        et_al: authors.et_al,
        year,
        venue,
        doi: ids.doi,
        arxiv: ids.arxiv,
    }
}

/// An author's surname, normalised (lowercase, no diacritics): the last
/// word with the particles before it ("W. Van der Aalst" -> "van der
/// aalst"), a suffix ("Jr") skipped; the whole name for a one-word name.
pub(crate) fn surname(author: &str) -> String {
    let words: Vec<&str> = author.split_whitespace().collect();
    let mut end = words.len();
    while end > 1 && matches!(words[end - 1].trim_end_matches('.'), "Jr" | "Sr" | "II" | "III" | "IV" | "jr" | "Jnr") {
        end -= 1;
    }
    if end == 0 {
        return String::new();
    }
    let mut start = end - 1;
    while start > 0 && is_particle(words[start - 1]) {
        start -= 1;
    }
    normalize(&words[start..end].join(" "))
}

fn is_particle(word: &str) -> bool {
    matches!(
        word.to_lowercase().as_str(),
        "van"
            | "von"
            | "der"
            | "den"
            | "de"
            | "del"
            | "della"
            | "di"
            | "da"
            | "du"
            | "le"
            | "la"
            | "dos"
            | "das"
            | "ter"
            | "ten"
    )
}

/// Joined lines, ligatures split, soft hyphens and odd spaces gone, cut to
/// [`MAX_ENTRY_BYTES`].
fn clean(raw: &str) -> String {
    let mut end = raw.len().min(MAX_ENTRY_BYTES);
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end);
    for c in raw[..end].chars() {
        match c {
            'ﬁ' => out.push_str("fi"),
            'ﬂ' => out.push_str("fl"),
            'ﬀ' => out.push_str("ff"),
            'ﬃ' => out.push_str("ffi"),
            'ﬄ' => out.push_str("ffl"),
            'ﬅ' | 'ﬆ' => out.push_str("st"),
            '\u{ad}' | '\u{200b}' | '\u{feff}' => {}
            c if c.is_whitespace() || c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text without its printed label: `[12]`, `[Smith et al. 2019]`,
/// `12.`, `12)`, `12 ` (a label set on its own line).
fn strip_label(text: &str) -> &str {
    let t = text.trim_start();
    if let Some(inner) = t.strip_prefix('[') {
        if let Some(close) = inner.find(']') {
            if close <= 100 {
                return inner[close + 1..].trim_start();
            }
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=4).contains(&digits) {
        let after = &t[digits..];
        let after = after.strip_prefix(['.', ')']).unwrap_or(after);
        if after.starts_with(' ') && after.trim_start().chars().next().is_some_and(|c| !c.is_ascii_digit()) {
            return after.trim_start();
        }
    }
    t
}

/// Skips an editors' mark after the names (`, eds.`, `(Eds.)`, `editors`).
fn skip_editors(text: &str) -> &str {
    let t = text.trim_start_matches([' ', ',']);
    for mark in ["(eds.)", "(ed.)", "(eds)", "(ed)", "eds.", "ed.", "editors", "editor"] {
        if t.len() >= mark.len() && t.is_char_boundary(mark.len()) && t[..mark.len()].eq_ignore_ascii_case(mark) {
            return &t[mark.len()..];
        }
    }
    text
}

/// A year printed right after the authors (`(2019a).`, `2019.`, `2019:`,
/// `, 2019:`, `(n.d.)`), and the bytes it and its punctuation take.
fn leading_year(text: &str) -> (Option<i32>, usize) {
    let lead = text.len() - text.trim_start_matches([' ', '.', ',', ':', ';']).len();
    let t = &text[lead..];
    let (open, t) = match t.strip_prefix('(') {
        Some(inner) => (1, inner),
        None => (0, t),
    };
    for undated in ["n.d.", "n. d.", "in press", "forthcoming", "to appear"] {
        if t.len() >= undated.len()
            && t.is_char_boundary(undated.len())
            && t[..undated.len()].eq_ignore_ascii_case(undated)
        {
            let used = lead + open + undated.len();
            let tail = &text[used..];
            let close = tail.len() - tail.trim_start_matches([')', ' ', '.', ',', ':', ';']).len();
            return (None, used + close);
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits != 4 {
        return (None, 0);
    }
    let Some(year) = year_of(&t[..4]) else {
        return (None, 0);
    };
    let mut used = 4;
    let rest = &t[4..];
    if rest.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && rest.chars().nth(1).is_none_or(|c| !c.is_alphanumeric())
    {
        used += 1; // 2015a
    }
    let tail = &t[used..];
    if open == 1 && !tail.starts_with(')') {
        return (None, 0);
    }
    if !tail.is_empty() && !tail.starts_with([')', ' ', '.', ',', ':', ';']) {
        return (None, 0);
    }
    let close = tail.len() - tail.trim_start_matches([')', ' ', '.', ',', ':', ';']).len();
    (Some(year), lead + open + used + close)
}

/// The title and what follows it.
struct TitlePiece<'a> {
    title: Option<String>,
    after: &'a str,
    venue: Option<String>,
    year: Option<i32>,
}

const OPEN_QUOTES: &[&str] = &["“", "\"", "``", "‘‘", "”", "„", "«", "‘", "'"];
const CLOSE_QUOTES: &[&str] = &["”", "\"", "''", "’’", "“", "»", "’", "'"];

fn title_and_rest(text: &str, comma_style: bool) -> TitlePiece<'_> {
    let t = text.trim_start_matches([' ', '.', ',', ':', ';']);
    let none = TitlePiece { title: None, after: t, venue: None, year: None };
    if t.is_empty() {
        return none;
    }
    if let Some((title, after)) = quoted(t) {
        return TitlePiece { title: title_text(title), after, venue: None, year: None };
    }
    if let Some(found) = names::VENUE_VOLUME_PAGE_YEAR.captures(t) {
        let venue = found.get(1).map(|m| m.as_str().trim_end_matches([',', ' ']).to_string());
        let year = found.get(4).and_then(|m| year_of(m.as_str()));
        return TitlePiece { title: None, after: "", venue, year };
    }
    let mut end = sentence_end(t);
    for marker in [", in:", ", In:", ", In ", " In: ", ". In: ", ", in ", ", volume ", ", vol. ", ", pp. ", ", pages "]
    {
        if let Some(at) = t[..end].find(marker) {
            end = at;
        }
    }
    if comma_style {
        if let Some(at) = t[..end].find(", ") {
            end = at;
        }
        // A book's publisher and year in parentheses: "… Volume (World Scientific, 1992)".
        if let Some(at) = t[..end].find(" (") {
            let inside = t[at + 2..].split(')').next().unwrap_or("");
            if last_year(inside).is_some() && inside.contains(',') {
                end = at;
            }
        }
    }
    // A report's publisher and year run on after its title: "…, University
    // of Wisconsin-Madison, 2007" is not the title's.
    while let Some(at) = t[..end].rfind(", ") {
        let tail = t[at + 2..end].trim();
        let year = tail.len() == 4 && tail.chars().all(|c| c.is_ascii_digit());
        let publisher = ["University", "Press", "Institute", "Publishers", "Publishing", "Inc.", "Ltd"]
            .iter()
            .any(|w| tail.split(|c: char| !c.is_alphanumeric() && c != '.').any(|x| x == *w));
        if !(year || publisher) || at == 0 {
            break;
        }
        end = at;
    }
    let title = title_text(&t[..end]);
    TitlePiece { title, after: &t[end..], venue: None, year: None }
}

/// A title printed in quotes, and the text after the closing quote.
fn quoted(t: &str) -> Option<(&str, &str)> {
    let open = OPEN_QUOTES.iter().find(|q| t.starts_with(**q))?;
    let inner = &t[open.len()..];
    let single = matches!(*open, "‘" | "'");
    let mut best: Option<(usize, usize)> = None;
    for close in CLOSE_QUOTES {
        if single != matches!(*close, "’" | "'") {
            continue;
        }
        let mut from = 0;
        while let Some(at) = inner[from..].find(close) {
            let at = from + at;
            let after = &inner[at + close.len()..];
            // A single quote closes only before a space or punctuation and
            // after punctuation (not the apostrophe of "Wetterich’s").
            let ok = !single
                || (after.is_empty() || after.starts_with([' ', ',', '.', ';', ':']))
                    && inner[..at].ends_with([',', '.', '?', '!']);
            if ok && at > 0 {
                if best.is_none_or(|(b, _)| at < b) {
                    best = Some((at, close.len()));
                }
                break;
            }
            from = at + close.len();
        }
    }
    let (at, len) = best?;
    Some((&inner[..at], &inner[at + len..]))
}

/// The byte where the first sentence of `t` ends (before its `.`; after a
/// `?` or `!`): a mark followed by a space and then by a word that does not
/// start lowercase, or the end of the text.
fn sentence_end(t: &str) -> usize {
    let mut chars = t.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !matches!(c, '.' | '?' | '!') {
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, q)) = chars.peek() {
            if matches!(q, '”' | '"' | '’' | '\'' | ')') {
                end = j + q.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let rest = &t[end..];
        if !(rest.is_empty() || rest.starts_with(' ')) {
            continue;
        }
        let next = rest.trim_start().chars().next();
        if next.is_some_and(|n| n.is_lowercase()) {
            continue;
        }
        // "Self-stratification of tropical cyclone outflow. Part II: …" is one title.
        let next_word = rest.trim_start().split(' ').next().unwrap_or("");
        if next_word == "Part" {
            continue;
        }
        let word = t[..i].rsplit(' ').next().unwrap_or("");
        if c == '.'
            && matches!(word.to_lowercase().as_str(), "vs" | "e.g" | "i.e" | "cf" | "st" | "dr" | "mr" | "no" | "vol")
        {
            continue;
        }
        return if c == '.' { i } else { end };
    }
    t.len()
}

/// A title as kept: trimmed of spaces, quotes and closing punctuation
/// (`?` and `!` stay); `None` for fewer than two letters.
fn title_text(raw: &str) -> Option<String> {
    let t = raw.trim().trim_matches(['“', '”', '"', '‘', '’', '`']).trim();
    let t = t.trim_end_matches([',', '.', ';', ':', ' ']).trim();
    let t = t.trim_matches(['“', '”', '"']).trim();
    (t.chars().filter(|c| c.is_alphabetic()).count() >= 2).then(|| t.to_string())
}

/// The venue after a title: the text up to the volume, issue, pages or
/// year (`Neuron, 76(6):1210–1224` -> `Neuron`; `In Proceedings of the 2014
/// International Conference …, pages 1–6` -> `Proceedings of the 2014
/// International Conference …`).
fn venue(after: &str) -> Option<String> {
    let t = after.trim_start_matches([' ', '.', ',', ':', ';', '?', '!', '”', '"', '’']);
    let t = ["In: ", "in: ", "In ", "in ", "In:", "in:"].iter().find_map(|p| t.strip_prefix(p)).unwrap_or(t);
    let words: Vec<(usize, &str)> = t
        .split(' ')
        .scan(0usize, |at, w| {
            let start = *at;
            *at += w.len() + 1;
            Some((start, w))
        })
        .collect();
    let mut end = t.len();
    for (k, (start, w)) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        let core = lower.trim_end_matches([',', '.', ';', ':']);
        let next_opens = words.get(k + 1).is_some_and(|(_, n)| n.starts_with('('));
        let digit = w.chars().next().is_some_and(|c| c.is_ascii_digit());
        let cut = w.starts_with('(')
            || matches!(core, "vol" | "volume" | "pp" | "pages" | "page" | "p" | "no" | "issn" | "isbn" | "chapter")
            || digit
                && (w.ends_with([',', '.', ';', ':', ')'])
                    || w.contains(['(', ':', '–', '-'])
                    || k + 1 == words.len()
                    || next_opens);
        if cut {
            end = *start;
            break;
        }
    }
    let v = t[..end.min(t.len())].trim().trim_end_matches([',', ';', ':', ' ']).trim();
    // An abbreviation keeps its period ("Mon. Wea. Rev."); a sentence's goes.
    let last_word = v.trim_end_matches('.').rsplit(' ').next().unwrap_or("");
    let abbreviation =
        last_word.chars().count() <= 5 && last_word.chars().next().is_some_and(char::is_uppercase) && v.contains(". ");
    let v = if abbreviation && v.ends_with('.') { v } else { v.trim_end_matches(['.', ',', ' ']) };
    (v.chars().filter(|c| c.is_alphabetic()).count() >= 2 && v.len() <= 300).then(|| v.to_string())
}

/// `digits` as a year an entry can be of: 1600 to 2099 (`Phys. Rev. 211,
/// 012031 (1005)` is a page, or a misprint, not a year).
fn year_of(digits: &str) -> Option<i32> {
    digits.parse::<i32>().ok().filter(|y| (1600..=2099).contains(y))
}

/// The last year-like number of `text`: four digits from 1600 to 2099 (a
/// letter suffix allowed, `2019b`), not part of a longer number, a page
/// range (`1360–1369`), an ISSN (`1548-7660`), a date (`2011-11-07`) or a
/// ratio (`9075:2023`).
fn last_year(text: &str) -> Option<i32> {
    let bytes = text.as_bytes();
    let mut found = None;
    let mut i = 0;
    while i + 4 <= bytes.len() {
        if !bytes[i..i + 4].iter().all(u8::is_ascii_digit) {
            i += 1;
            continue;
        }
        let before = text[..i].chars().next_back();
        let after = &text[i + 4..];
        let mut after_chars = after.chars();
        let a1 = after_chars.next();
        let a2 = after_chars.next();
        let joined_before = before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '-' | '–' | '/' | ':' | '.'));
        let joined_after = match a1 {
            Some(c) if c.is_ascii_digit() => true,
            Some(c) if c.is_ascii_lowercase() => a2.is_some_and(char::is_alphanumeric),
            Some('-' | '–' | ':' | '/') => a2.is_some_and(|c| c.is_ascii_digit()),
            Some(c) => c.is_alphabetic(),
            None => false,
        };
        if !joined_before && !joined_after {
            if let Some(year) = year_of(&text[i..i + 4]) {
                found = Some(year);
            }
        }
        i += 4;
    }
    found
}
