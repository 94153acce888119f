//! LaTeX in BibTeX values: escaping text for export, and decoding the
//! usual escapes and accent commands on import.

use unicode_normalization::UnicodeNormalization;

/// `s` with LaTeX's special characters escaped so BibTeX and LaTeX print
/// them as they are: `{ } % & $ _ #` get a backslash, `\ ^ ~` become
/// `\textbackslash{}`, `\textasciicircum{}`, `\textasciitilde{}`. Other
/// characters (accents, any script) are left as UTF-8.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '{' | '}' | '%' | '&' | '$' | '_' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\textbackslash{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            // A line break would end nothing in BibTeX, but it is not text.
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The text a BibTeX value means: escapes and accent commands decoded
/// (`\%` → `%`, `{\"o}` and `\"{o}` → `ö`, `\ss` → `ß`), grouping braces
/// dropped, `~` a space, whitespace collapsed; NFC-normalised. A command
/// it does not know is kept as its name without the backslash.
pub fn decode(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' | '}' => i += 1,
            '~' => {
                out.push(' ');
                i += 1;
            }
            '\\' => i = command(&chars, i + 1, &mut out),
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out.nfc().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decodes the command after a backslash at `i`; returns where decoding goes on.
fn command(chars: &[char], i: usize, out: &mut String) -> usize {
    let Some(&c) = chars.get(i) else { return i };
    if !c.is_ascii_alphabetic() {
        if let Some(mark) = accent(c) {
            return accented(chars, i + 1, mark, out);
        }
        // `\%`, `\{`, `\\` (a line break: a space), `\ ` …
        out.push(if c == '\\' { ' ' } else { c });
        return i + 1;
    }
    let mut j = i;
    while j < chars.len() && chars[j].is_ascii_alphabetic() {
        j += 1;
    }
    let name: String = chars[i..j].iter().collect();
    // An empty group after a word command ends it: `\ss{}`.
    let after = if chars.get(j) == Some(&'{') && chars.get(j + 1) == Some(&'}') { j + 2 } else { j };
    // A letter accent written as a word command takes an argument: `\c{c}`, `\v s`.
    if let Some(mark) = word_accent(&name) {
        return accented(chars, j, mark, out);
    }
    let text = word_text(&name).unwrap_or(&name);
    out.push_str(text);
    // A control word eats the spaces after it.
    let mut k = after;
    if after == j {
        while chars.get(k) == Some(&' ') {
            k += 1;
        }
    }
    k
}

/// What a text command without an argument stands for (formatting
/// commands such as `\emph` stand for nothing: their argument is the text).
fn word_text(name: &str) -> Option<&'static str> {
    Some(match name {
        "textbackslash" => "\\",
        "textasciicircum" => "^",
        "textasciitilde" => "~",
        "textunderscore" => "_",
        "textdollar" => "$",
        "textpercent" => "%",
        "textbraceleft" => "{",
        "textbraceright" => "}",
        "ss" => "ß",
        "o" => "ø",
        "O" => "Ø",
        "aa" => "å",
        "AA" => "Å",
        "ae" => "æ",
        "AE" => "Æ",
        "oe" => "œ",
        "OE" => "Œ",
        "l" => "ł",
        "L" => "Ł",
        "i" => "ı",
        "j" => "ȷ",
        "emph" | "textit" | "textbf" | "textsc" | "textrm" | "texttt" | "mathrm" | "url" | "href" | "NoCaseChange" => {
            ""
        }
        _ => return None,
    })
}

/// The combining mark of a one-symbol accent command (`\'`, `\"`, …).
fn accent(c: char) -> Option<char> {
    Some(match c {
        '\'' => '\u{301}',
        '`' => '\u{300}',
        '^' => '\u{302}',
        '"' => '\u{308}',
        '~' => '\u{303}',
        '=' => '\u{304}',
        '.' => '\u{307}',
        _ => return None,
    })
}

/// The combining mark of a letter accent command (`\c`, `\v`, …).
fn word_accent(name: &str) -> Option<char> {
    Some(match name {
        "c" => '\u{327}',
        "v" => '\u{30c}',
        "u" => '\u{306}',
        "H" => '\u{30b}',
        "k" => '\u{328}',
        "r" => '\u{30a}',
        "d" => '\u{323}',
        "b" => '\u{331}',
        _ => return None,
    })
}

/// Puts the letter at `i` (or the first letter of the group at `i`) with `mark` on `out`.
fn accented(chars: &[char], mut i: usize, mark: char, out: &mut String) -> usize {
    while chars.get(i) == Some(&' ') {
        i += 1;
    }
    let braced = chars.get(i) == Some(&'{');
    if braced {
        i += 1;
    }
    let mut base = String::new();
    if chars.get(i) == Some(&'\\') {
        // `\'{\i}`: a dotless i under the accent. Only a word command is
        // read here, never another accent, so no input nests the decoder.
        let start = i + 1;
        i = start;
        while i < chars.len() && chars[i].is_ascii_alphabetic() {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        base = match name.as_str() {
            "i" | "j" => name.clone(),
            other => word_text(other).unwrap_or(other).to_string(),
        };
    } else if let Some(&c) = chars.get(i).filter(|c| **c != '}') {
        base.push(c);
        i += 1;
    }
    out.push_str(&base);
    out.push(mark);
    if braced && chars.get(i) == Some(&'}') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_special_character_survives_escape_then_decode() {
        for s in [
            r"Sets {a, b} at 50% & $5 for x_1 #2 ^ ~ \ done",
            "Ünïcødé naïve café — Ελληνικά, Русский, 中文の題名",
            "plain",
        ] {
            let e = escape(s);
            assert_eq!(decode(&e), s, "{e}");
        }
        assert_eq!(escape("50% & $_#{}"), r"50\% \& \$\_\#\{\}");
    }

    #[test]
    fn accent_commands_decode_to_composed_letters() {
        assert_eq!(decode(r#"Schr{\"o}dinger"#), "Schrödinger");
        assert_eq!(decode(r#"Schr\"{o}dinger"#), "Schrödinger");
        assert_eq!(decode(r"Fran\c{c}ois Caf\'e \v{S}koda {\ss} {\o}"), "François Café Škoda ß ø");
        assert_eq!(decode(r#"na\"{\i}ve"#), "naïve");
        assert_eq!(decode(r"{{Deep}} {L}earning~for \emph{all}"), "Deep Learning for all");
        assert_eq!(decode(r"\ss{}e \ss ig"), "ße ßig");
        assert_eq!(decode(r"\unknown{x}"), "unknownx", "an unknown command keeps its name");
    }

    #[test]
    fn hostile_values_neither_panic_nor_nest() {
        let deep = r"\'".repeat(200_000) + "e";
        assert!(!decode(&deep).is_empty());
        for s in [r"\", r"\'", r"{\'", r"\c", r"\c{", r"\'{\", "{{{{", "}}}}", r"\\\"] {
            let _ = decode(s);
        }
    }
}
