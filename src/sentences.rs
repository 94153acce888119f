//! Sentence splitting for abstracts: the one splitter of the crate, used by
//! the evidence snippets (`evidence`, which re-exports it), the chunks of
//! `embed`, the context packs and the citation check. It uses nothing of the
//! crate, so both `embed` and `evidence` sit above it.
//!
//! A sentence ends at `.`, `!` or `?` (and any closing quotes or brackets
//! right after it) that is followed by whitespace and then by something
//! that can start a sentence: not a lowercase letter, and not a `.` that
//! ends an abbreviation (`e.g.`, `i.e.`, `Fig.`, `et al.`, `vs.`, a single
//! capital initial such as `J.`). A `.` inside a token (`3.5`, `e.g`) never
//! ends one, since it is not followed by whitespace. Ranges are byte ranges
//! of the trimmed sentence text.

use std::ops::Range;

/// Abbreviations (lowercased, without their final `.`) after which a `.`
/// does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "al", "approx", "ca", "cf", "ch", "dr", "e.g", "eq", "eqs", "etc", "fig", "figs", "i.e", "inc", "mr", "mrs", "ms",
    "no", "nos", "pp", "prof", "ref", "refs", "resp", "sec", "sect", "st", "tab", "viz", "vol", "vs",
];

/// The byte ranges of the sentences of `text`, in order, each trimmed of
/// surrounding whitespace; empty sentences are dropped.
pub(crate) fn split_sentences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        // Closing quotes and brackets belong to the sentence they end.
        let mut end = i + c.len_utf8();
        while let Some(&(j, next)) = chars.peek() {
            if matches!(next, '"' | '\'' | ')' | ']' | '”' | '’') {
                end = j + next.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let rest = &text[end..];
        let after = rest.trim_start();
        if after.len() == rest.len() && !rest.is_empty() {
            continue; // `3.5`, `e.g`: no whitespace after the mark
        }
        let starts_sentence = after.chars().next().is_none_or(|n| !n.is_lowercase());
        if !starts_sentence || (c == '.' && ends_abbreviation(&text[start..i])) {
            continue;
        }
        push_trimmed(&mut out, text, start..end);
        start = end;
    }
    push_trimmed(&mut out, text, start..text.len());
    out
}

/// Whether the word just before a `.` (the end of `before`) is an abbreviation.
fn ends_abbreviation(before: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    let mut letters = word.chars();
    let initial = matches!((letters.next(), letters.next()), (Some(c), None) if c.is_uppercase());
    initial || ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

fn push_trimmed(out: &mut Vec<Range<usize>>, text: &str, range: Range<usize>) {
    let piece = &text[range.clone()];
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    if !trimmed.is_empty() {
        let s = range.start + lead;
        out.push(s..s + trimmed.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        split_sentences(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn splits_at_sentence_ends() {
        assert_eq!(split("One. Two has 3.5 points! Three? Four."), ["One.", "Two has 3.5 points!", "Three?", "Four."]);
        assert_eq!(split("  No terminator "), ["No terminator"]);
        assert!(split("").is_empty());
        assert!(split("   ").is_empty());
    }

    #[test]
    fn keeps_abbreviations_and_decimals_inside() {
        assert_eq!(
            split("Some genes, e.g. BRCA1, matter (see Fig. 2). Rates rose 3.5-fold vs. controls. Done."),
            ["Some genes, e.g. BRCA1, matter (see Fig. 2).", "Rates rose 3.5-fold vs. controls.", "Done."]
        );
        assert_eq!(
            split("As Smith et al. Showed in J. Smith's work, it holds. Next."),
            ["As Smith et al. Showed in J. Smith's work, it holds.", "Next."]
        );
        assert_eq!(
            split("That is, i.e. the rest. A lower start. then this."),
            ["That is, i.e. the rest.", "A lower start. then this."]
        );
    }

    #[test]
    fn closing_quotes_and_brackets_stay_with_their_sentence() {
        assert_eq!(split("He said \"stop.\" Then (it ended.) Fin."), ["He said \"stop.\"", "Then (it ended.)", "Fin."]);
    }

    #[test]
    fn ranges_are_byte_ranges_of_unicode_text() {
        let text = "Größe wächst. Ünter 5 µm!";
        let ranges = split_sentences(text);
        assert_eq!(ranges.len(), 2);
        assert_eq!(&text[ranges[1].clone()], "Ünter 5 µm!");
    }
}
