//! Character-level cleaning: ligatures split, spacing accents turned into
//! combining ones and composed (NFC), odd glyphs dropped, and lines joined
//! into a paragraph with end-of-line hyphens removed.

use unicode_normalization::UnicodeNormalization;

use super::layout::Line;

/// The combining form of a spacing accent glyph (TeX's `\'e` prints the
/// accent `´` and the letter apart).
pub(crate) fn combining_for(c: char) -> Option<char> {
    Some(match c {
        '\u{B4}' | '\u{2CA}' => '\u{301}',
        '`' | '\u{2CB}' => '\u{300}',
        '\u{A8}' => '\u{308}',
        '\u{2C6}' | '^' => '\u{302}',
        '\u{2DC}' | '~' => '\u{303}',
        '\u{B8}' => '\u{327}',
        '\u{2C7}' => '\u{30C}',
        '\u{2D8}' => '\u{306}',
        '\u{2DA}' => '\u{30A}',
        '\u{AF}' | '\u{2C9}' => '\u{304}',
        '\u{2D9}' => '\u{307}',
        '\u{2DD}' => '\u{30B}',
        '\u{2DB}' => '\u{328}',
        _ => return None,
    })
}

/// Accent glyphs that are printed on their own over a letter (TeX's `\`e`
/// prints the ASCII grave over the e). Only one drawn over its neighbour
/// ([`super::layout`] checks) is taken for an accent.
pub(crate) fn is_spacing_accent(c: char) -> bool {
    matches!(
        c,
        '`' | '^'
            | '~'
            | '\u{B4}'
            | '\u{2CA}'
            | '\u{2CB}'
            | '\u{A8}'
            | '\u{2C6}'
            | '\u{2DC}'
            | '\u{B8}'
            | '\u{2C7}'
            | '\u{2D8}'
            | '\u{2DA}'
            | '\u{AF}'
            | '\u{2C9}'
            | '\u{2D9}'
            | '\u{2DD}'
            | '\u{2DB}'
    )
}

/// A line's text cleaned: ligatures split, private-use and control
/// characters dropped, odd spaces made plain, NFC.
pub(crate) fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            '\u{A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\t' => out.push(' '),
            '\u{AD}' | '\u{200B}'..='\u{200D}' | '\u{FEFF}' | '\u{FFFD}' => {}
            '\u{2010}' | '\u{2011}' => out.push('-'),
            c if c.is_control() => {}
            c if ('\u{E000}'..='\u{F8FF}').contains(&c) => {}
            c => out.push(c),
        }
    }
    out.nfc().collect()
}

/// Cleans a line's text ([`clean`]) and moves its raised ranges and wide
/// gaps to their places in the cleaned text.
pub(crate) fn clean_line(line: &mut Line) {
    let mut cuts: Vec<usize> = vec![0, line.text.len()];
    for &(a, b) in &line.raised {
        cuts.push(a);
        cuts.push(b);
    }
    cuts.extend(line.wide.iter().copied());
    cuts.sort_unstable();
    cuts.dedup();
    cuts.retain(|&c| c <= line.text.len() && line.text.is_char_boundary(c));
    let mut out = String::with_capacity(line.text.len());
    let mut map: Vec<(usize, usize)> = Vec::with_capacity(cuts.len());
    for w in cuts.windows(2) {
        map.push((w[0], out.len()));
        out.push_str(&clean(&line.text[w[0]..w[1]]));
    }
    map.push((line.text.len(), out.len()));
    let at = |old: usize| map.iter().find(|(o, _)| *o == old).map(|(_, n)| *n);
    line.raised = line.raised.iter().filter_map(|&(a, b)| Some((at(a)?, at(b)?))).filter(|(a, b)| a < b).collect();
    line.wide = line.wide.iter().filter_map(|&w| at(w)).collect();
    line.text = out;
}

/// Whether a word broken at a line end by `prev` ending in a hyphen and
/// `next` beginning should be joined without the hyphen ("compu-" +
/// "tational") rather than kept ("two-" + "stage").
pub(crate) fn joins_without_hyphen(prev: &str, next: &str) -> bool {
    let Some(stem) = prev.strip_suffix('-') else { return false };
    let last: String = stem.chars().rev().take_while(|c| c.is_alphabetic()).collect();
    let first = next.chars().next();
    // A lowercase letter on both sides: a word split by hyphenation.
    last.chars().next().is_some_and(char::is_lowercase) && first.is_some_and(char::is_lowercase)
}

/// Appends line `next` to paragraph text `acc`: a space between, or the
/// end-of-line hyphen removed. Returns the byte offset where `next` starts.
pub(crate) fn append_line(acc: &mut String, next: &str) -> usize {
    if acc.is_empty() {
        acc.push_str(next);
        return 0;
    }
    if acc.ends_with('-') && joins_without_hyphen(acc, next) {
        acc.pop();
        let at = acc.len();
        acc.push_str(next);
        return at;
    }
    if !acc.ends_with('-') && !acc.ends_with('/') {
        acc.push(' ');
    }
    let at = acc.len();
    acc.push_str(next);
    at
}

/// A line's text with digits folded, for finding running headers that
/// differ only by their page number.
pub(crate) fn fold_digits(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ligatures_and_accents() {
        assert_eq!(clean("e\u{FB03}cient \u{FB01}eld"), "efficient field");
        assert_eq!(clean("Erd\u{6F}\u{308}s"), "Erd\u{F6}s");
        assert_eq!(clean("a\u{AD}b\u{FFFD}"), "ab");
    }

    #[test]
    fn hyphens() {
        let mut s = String::from("compu-");
        append_line(&mut s, "tational cost");
        assert_eq!(s, "computational cost");
        let mut s = String::from("a two-");
        append_line(&mut s, "Stage method");
        assert_eq!(s, "a two-Stage method");
        let mut s = String::from("the end.");
        let at = append_line(&mut s, "Next");
        assert_eq!((s.as_str(), at), ("the end. Next", 9));
    }

    #[test]
    fn digits_fold() {
        assert_eq!(fold_digits("Page 12 of 30"), "page#of#");
    }
}
