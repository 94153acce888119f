//! The author list at the head of a reference entry, in the forms styles
//! print it: "First M. Last" (`J. Berges, N. Tetradis, and C. Wetterich,`),
//! inverted "Last, F. M." (`Baptiste, P.; Pape, C. L.; and Nuijten, W.`,
//! AMS's `Bryan, G. H., and R. Rotunno,`), Vancouver "Last FM" (`Kudsk KA,
//! Fabian TC:`, `Asseng S.`), with particles (`van den Beek M`), suffixes
//! (`Anderson FA Jr`), `et al.`, `and others`, `and Coauthors`.
//!
//! The list is read word by word until a word that cannot be part of a name
//! (a lowercase word, a quote, a year, a journal abbreviation that starts the
//! physics style's venue); a name cut short by such a word is kept only up
//! to its last `.` that completes a name ("Asseng S." of "Asseng S. Rising
//! temperatures", "Ng, A. Y." of "Ng, A. Y. Apprenticeship learning").

use regex::Regex;
use std::sync::LazyLock;

/// Lowercase words that belong to a surname.
const PARTICLES: &[&str] = &[
    "van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "le", "la", "dos", "das", "ter", "ten", "bin",
    "ben", "zu", "af", "y",
];

/// Capitalised words that start titles, never names.
const TITLE_WORDS: &[&str] = &[
    "The",
    "An",
    "On",
    "In",
    "Of",
    "For",
    "From",
    "To",
    "Towards",
    "Toward",
    "How",
    "What",
    "Why",
    "When",
    "Where",
    "Which",
    "Who",
    "Is",
    "Are",
    "Do",
    "Does",
    "Can",
    "Using",
    "Learning",
    "Proceedings",
    "Proc",
    "Journal",
    "Report",
    "Technical",
    "Available",
    "Online",
    "Retrieved",
    "Accessed",
    "Vol",
    "Volume",
    "No",
    "Pp",
    "Pages",
    "Chapter",
    "Part",
    "Editor",
    "Editors",
    "Eds",
    "Ed",
    "Et",
    "Al",
    "And",
    "With",
    "Via",
    "Beyond",
    "Toward",
    "Under",
    "Some",
    "New",
    "All",
    "Not",
    "This",
    "These",
    "Our",
    "We",
    "Springer",
    "Elsevier",
    "Wiley",
    "Press",
    "University",
    "IEEE",
    "ACM",
    "Conference",
    "Workshop",
    "Symposium",
    "Transactions",
];

const SUFFIXES: &[&str] = &["Jr", "Sr", "II", "III", "IV", "jr", "Jnr"];

/// The physics style's entry tail with no title: `Phys. Rev. 181, 920
/// (1969).`, `Science Advances 11, eadu6686 (2025)`; the venue may carry
/// commas (`… Section A: Accelerators, Spectrometers, … Equipment 586, 229
/// (2008)`) but no digit.
pub(super) static VENUE_VOLUME_PAGE_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([^\d(]{2,200}?),?\s+([A-Z]?\d{1,5}[A-Z]?)(?:\s*\(\d{1,4}\))?,\s+([A-Za-z]{0,4}\d{1,8}[A-Za-z]?)(?:\s*[–-]\s*[A-Za-z]?\d+)?\s+\((\d{4})\)\s*[.,]?\s*$")
        .expect("venue pattern")
});

/// "M. Katagiri, Nuclear …": a name, not a venue, at the start.
static STARTS_WITH_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\p{Lu}\.\s?-?)+\s*\p{Lu}[\p{L}'’\-]+,|,\s+(?:\p{Lu}\.\s?-?)+\s*\p{Lu}\p{Ll}|\band\s+\p{Lu}\.\s")
        .expect("name pattern")
});

/// The authors at the head of an entry and where they end.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Authors {
    pub names: Vec<String>,
    pub et_al: bool,
    /// Byte offset in the text just past the list (and its punctuation).
    pub end: usize,
    /// The punctuation that closed the list: `,`, `.`, `:` or ` `.
    pub closed_by: char,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Initials,
    Particle,
    Suffix,
}

#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    core: &'a str,
    kind: Kind,
    /// The punctuation after the core (`,`, `.`, `.,`, `;`, `:`).
    tail: &'a str,
    end: usize,
}

struct Person {
    words: Vec<String>,
    has_initials: bool,
    /// An inverted surname ("Baptiste,") waiting for its initials.
    awaiting_initials: bool,
    /// Written "Last, F." (the initials came after the surname).
    inverted: bool,
}

/// Reads the author list at the start of `text`.
pub(super) fn scan(text: &str) -> Authors {
    let tokens = tokenize(text);
    let mut out = Authors { closed_by: ' ', ..Authors::default() };
    let mut people: Vec<Person> = Vec::new();
    let mut chunk: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (start, raw) = tokens[i];
        let word = raw.trim_end_matches([',', '.', ';', ':']);
        let lower = word.to_lowercase();
        // et al. / and others / and Coauthors
        let next_lower = tokens.get(i + 1).map(|(_, t)| t.trim_end_matches([',', '.', ';', ':']).to_lowercase());
        let et_al_here = (lower == "et" && next_lower.as_deref() == Some("al"))
            || lower == "et.al"
            || (matches!(lower.as_str(), "and" | "&")
                && matches!(next_lower.as_deref(), Some("others" | "coauthors" | "colleagues")));
        if et_al_here && (!people.is_empty() || !chunk.is_empty()) {
            if !chunk.is_empty() && !finish(&mut people, &chunk) {
                break;
            }
            let (_, last) = tokens[if lower == "et.al" { i } else { i + 1 }];
            out.et_al = true;
            out.end = tokens[if lower == "et.al" { i } else { i + 1 }].0 + last.len();
            out.closed_by = closing(last.trim_start_matches(|c: char| c.is_alphanumeric()));
            chunk.clear();
            break;
        }
        if matches!(lower.as_str(), "and" | "&" | "und") && (!people.is_empty() || !chunk.is_empty()) {
            if !chunk.is_empty() {
                if !finish(&mut people, &chunk) {
                    chunk.clear();
                    break;
                }
                out.end = start;
                out.closed_by = ',';
                chunk.clear();
            }
            i += 1;
            continue;
        }
        if chunk.is_empty()
            && !people.is_empty()
            && out.closed_by == ','
            && VENUE_VOLUME_PAGE_YEAR.is_match(&text[start..])
            && !STARTS_WITH_NAME.is_match(&text[start..])
        {
            break; // the physics style's venue follows the names
        }
        let kind = classify(word, chunk.is_empty());
        let Some(kind) = kind.filter(|_| chunk.len() < 6) else {
            salvage(&mut people, &chunk, &mut out);
            chunk.clear();
            break;
        };
        let tail = &raw[word.len()..];
        let tok = Tok { core: word, kind, tail, end: start + raw.len() };
        chunk.push(tok);
        if tail.contains([',', ';']) {
            if !finish(&mut people, &chunk) {
                chunk.pop();
                salvage(&mut people, &chunk, &mut out);
                chunk.clear();
                break;
            }
            out.end = tok.end;
            out.closed_by = ',';
            chunk.clear();
        } else if tail.contains(':') {
            if finish(&mut people, &chunk) {
                out.end = tok.end;
                out.closed_by = ':';
            }
            chunk.clear();
            break;
        } else if tail.contains('.') {
            let inverted =
                people.last().is_some_and(|p| p.awaiting_initials) && chunk.iter().all(|t| t.kind == Kind::Initials);
            let next_kind =
                tokens.get(i + 1).and_then(|(_, t)| classify(t.trim_end_matches([',', '.', ';', ':']), false));
            let next_joins = next_lower.as_deref().is_some_and(|w| matches!(w, "and" | "&" | "et" | "und"));
            let ends_name = match kind {
                Kind::Initials if inverted => next_kind != Some(Kind::Initials),
                Kind::Initials | Kind::Particle => false,
                Kind::Word | Kind::Suffix => true,
            };
            if ends_name {
                if !finish(&mut people, &chunk) {
                    chunk.clear();
                    break;
                }
                out.end = tok.end;
                out.closed_by = '.';
                chunk.clear();
                if !next_joins {
                    break;
                }
            }
        }
        i += 1;
    }
    if !chunk.is_empty() {
        salvage(&mut people, &chunk, &mut out);
    }
    out.names = people.into_iter().map(|p| p.words.join(" ")).filter(|n| !n.is_empty()).collect();
    out
}

fn closing(tail: &str) -> char {
    if tail.contains([',', ';']) {
        ','
    } else if tail.contains(':') {
        ':'
    } else if tail.contains('.') {
        '.'
    } else {
        ' '
    }
}

/// Whitespace-separated tokens with their byte offsets.
fn tokenize(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &text[s..i]));
            }
            if out.len() > 200 {
                return out;
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

fn is_letter(c: char) -> bool {
    c.is_alphabetic() || ('\u{300}'..='\u{36f}').contains(&c)
}

/// What a word of a name is, or `None` for a word no name has.
fn classify(word: &str, first_of_name: bool) -> Option<Kind> {
    let mut chars = word.chars();
    let first = chars.next()?;
    if PARTICLES.contains(&word) {
        return Some(Kind::Particle);
    }
    if SUFFIXES.contains(&word) && !first_of_name {
        return Some(Kind::Suffix);
    }
    if is_initials(word) {
        // "A" alone and with no period starts titles ("A new look").
        return Some(Kind::Initials);
    }
    if !first.is_uppercase() || word.ends_with("'s") || word.ends_with("’s") {
        return None;
    }
    // An initial glued to the surname by the extractor: "C.Arpaci-Dusseau".
    if let Some((initials, rest)) = word.rsplit_once('.') {
        if is_initials(initials) && classify(rest, false) == Some(Kind::Word) {
            return Some(Kind::Word);
        }
    }
    if first_of_name && TITLE_WORDS.contains(&word) {
        return None;
    }
    let letters = word.chars().filter(|c| is_letter(*c)).count();
    let ok = word.chars().all(|c| is_letter(c) || matches!(c, '-' | '\'' | '’'))
        && letters >= 2
        && word.chars().count() <= 24
        && !word.ends_with('-');
    ok.then_some(Kind::Word)
}

/// `P`, `Z.H`, `J.-C`, `A.-H`, `Ch`, and the Vancouver style's capitals
/// with no periods (`KA`, `AN`, `EW`).
fn is_initials(word: &str) -> bool {
    let parts: Vec<&str> = word.split(['.', '-']).filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return false;
    }
    let dotted = word.contains('.');
    let each_initial = parts.iter().all(|p| {
        let mut cs = p.chars();
        let a = cs.next();
        let b = cs.next();
        let c = cs.next();
        match (a, b, c) {
            (Some(a), None, _) => a.is_uppercase(),
            (Some(a), Some(b), None) => a.is_uppercase() && (b.is_lowercase() && dotted || b.is_uppercase() && !dotted),
            (Some(a), Some(b), Some(c)) => {
                !dotted && a.is_uppercase() && b.is_uppercase() && c.is_uppercase() && cs.next().is_none()
            }
            _ => false,
        }
    });
    each_initial && word.chars().all(|c| c.is_alphabetic() || c == '.' || c == '-')
}

/// Adds the finished name of `chunk` to `people`; false when the chunk is
/// no name (the list ends before it).
fn finish(people: &mut Vec<Person>, chunk: &[Tok]) -> bool {
    if chunk.is_empty() {
        return true;
    }
    let has_word = chunk.iter().any(|t| t.kind == Kind::Word);
    let has_initials = chunk.iter().any(|t| t.kind == Kind::Initials);
    if !has_word {
        // Initials after an inverted surname: "Baptiste, P." -> "P. Baptiste".
        if !has_initials {
            return false;
        }
        match people.last_mut() {
            Some(prev) if prev.awaiting_initials => {
                let initials: Vec<String> = chunk.iter().map(|t| with_period(t)).collect();
                let mut words = initials;
                words.append(&mut prev.words);
                prev.words = words;
                prev.has_initials = true;
                prev.awaiting_initials = false;
                prev.inverted = true;
                return true;
            }
            _ => return false,
        }
    }
    // Vancouver: "Kudsk KA", "Anderson FA Jr" -> "KA Kudsk", "FA Anderson Jr".
    let vancouver_at = chunk.iter().rposition(|t| t.kind == Kind::Initials).filter(|&at| {
        at > 0
            && chunk[..at].iter().all(|t| t.kind != Kind::Initials)
            && chunk[at + 1..].iter().all(|t| t.kind == Kind::Suffix)
    });
    let words: Vec<String> = match vancouver_at {
        Some(at) => {
            let mut w = vec![chunk[at].core.to_string()];
            w.extend(chunk[..at].iter().map(|t| t.core.to_string()));
            w.extend(chunk[at + 1..].iter().map(|t| t.core.to_string()));
            w
        }
        None => chunk.iter().map(with_period).collect(),
    };
    let plain_words = chunk.iter().filter(|t| t.kind == Kind::Word).count();
    // Chicago inverts the first author with full first names: "Smith, John
    // A., and Mary Jones" -> "John A. Smith".
    if people.len() == 1
        && people[0].awaiting_initials
        && chunk.len() <= 3
        && chunk[0].kind == Kind::Word
        && !chunk.iter().any(|t| t.kind == Kind::Particle)
    {
        let prev = &mut people[0];
        let mut words: Vec<String> = chunk.iter().map(with_period).collect();
        words.append(&mut prev.words);
        prev.words = words;
        prev.has_initials = true;
        prev.awaiting_initials = false;
        prev.inverted = true;
        return true;
    }
    // One plain word after first-name-first names is a title's first word
    // ("O. Sporns, Structure and function …", "M. T. Thai, Cheap, easy, …").
    let lone_word = !has_initials && chunk.len() == 1;
    if lone_word && !people.is_empty() && !people.iter().any(|p| p.inverted || p.awaiting_initials) {
        return false;
    }
    let inverted_surname = !has_initials
        && chunk.last().is_some_and(|t| t.tail.contains(',') || t.tail.contains(';'))
        && (plain_words == 1 || chunk.iter().any(|t| matches!(t.kind, Kind::Particle | Kind::Suffix)));
    people.push(Person { words, has_initials, awaiting_initials: inverted_surname, inverted: false });
    true
}

fn with_period(t: &Tok) -> String {
    if t.kind == Kind::Initials && t.tail.starts_with('.') && !t.core.ends_with('.') {
        format!("{}.", t.core)
    } else {
        t.core.to_string()
    }
}

/// A name cut short by a word no name has: keeps it up to its last `.`
/// that completes a name, else drops it.
fn salvage(people: &mut Vec<Person>, chunk: &[Tok], out: &mut Authors) {
    for k in (0..chunk.len()).rev() {
        if !chunk[k].tail.contains('.') {
            continue;
        }
        let prefix = &chunk[..=k];
        let has_word = prefix.iter().any(|t| t.kind == Kind::Word);
        let inverted =
            people.last().is_some_and(|p| p.awaiting_initials) && prefix.iter().all(|t| t.kind == Kind::Initials);
        let vancouver = has_word && prefix.last().is_some_and(|t| t.kind == Kind::Initials) && prefix.len() >= 2;
        if (inverted || vancouver) && finish(people, prefix) {
            out.end = chunk[k].end;
            out.closed_by = '.';
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> (Vec<String>, bool, &str) {
        let a = scan(text);
        (a.names, a.et_al, &text[a.end..])
    }

    #[test]
    fn first_last_lists() {
        let (n, _, rest) = names("J. Berges, N. Tetradis, and C. Wetterich, “Nonperturbative renormalization flow”");
        assert_eq!(n, ["J. Berges", "N. Tetradis", "C. Wetterich"]);
        assert_eq!(rest, " “Nonperturbative renormalization flow”");
        let (n, _, rest) = names("Chi-Kin Chau, Khaled Elbassioni, and Majid Khonji. Truthful mechanisms for");
        assert_eq!(n, ["Chi-Kin Chau", "Khaled Elbassioni", "Majid Khonji"]);
        assert_eq!(rest, " Truthful mechanisms for");
        let (n, _, _) = names("Per K Andersen, Ornulf Borgan, Richard D Gill, and Niels Keiding. Statistical models");
        assert_eq!(n, ["Per K Andersen", "Ornulf Borgan", "Richard D Gill", "Niels Keiding"]);
        let (n, _, rest) = names("Z.H. Zhou and M.L. Zhang. Multi-instance multi-label learning");
        assert_eq!(n, ["Z.H. Zhou", "M.L. Zhang"]);
        assert_eq!(rest, " Multi-instance multi-label learning");
        let (n, _, rest) = names("OHDSI. The Book of OHDSI");
        assert_eq!(n, ["OHDSI"]);
        assert_eq!(rest, " The Book of OHDSI");
    }

    #[test]
    fn inverted_lists() {
        let (n, _, rest) = names("Baptiste, P.; Pape, C. L.; and Nuijten, W. 2001. Constraint-Based Scheduling.");
        assert_eq!(n, ["P. Baptiste", "C. L. Pape", "W. Nuijten"]);
        assert_eq!(rest, " 2001. Constraint-Based Scheduling.");
        let (n, _, rest) = names("Bryan, G. H., and R. Rotunno, 2009: The maximum intensity");
        assert_eq!(n, ["G. H. Bryan", "R. Rotunno"]);
        assert_eq!(rest, " 2009: The maximum intensity");
        let (n, _, rest) =
            names("Abbeel, P. and Ng, A. Y. Apprenticeship learning via inverse reinforcement learning.");
        assert_eq!(n, ["P. Abbeel", "A. Y. Ng"]);
        assert_eq!(rest, " Apprenticeship learning via inverse reinforcement learning.");
        let (n, _, _) = names("Barbosa, S., Cosley, D., Sharma, A., & Cesar Jr, R. M. (2016). Averaging");
        assert_eq!(n, ["S. Barbosa", "D. Cosley", "A. Sharma", "R. M. Cesar Jr"]);
        let (n, _, _) = names("Van der Aalst, W. 1996. Petri net based scheduling.");
        assert_eq!(n, ["W. Van der Aalst"]);
        let (n, et_al, rest) = names("Doyle, J. D., and Coauthors, 2017: A view");
        assert_eq!(n, ["J. D. Doyle"]);
        assert!(et_al);
        assert_eq!(rest, " 2017: A view");
    }

    #[test]
    fn vancouver_lists() {
        let (n, _, rest) = names("Kudsk KA, Fabian TC, Baum S, Voeller G: Silent deep vein thrombosis");
        assert_eq!(n, ["KA Kudsk", "TC Fabian", "S Baum", "G Voeller"]);
        assert_eq!(rest, " Silent deep vein thrombosis");
        let (n, _, rest) = names("Asseng S. Rising temperatures reduce global wheat production.");
        assert_eq!(n, ["S Asseng"]);
        assert_eq!(rest, " Rising temperatures reduce global wheat production.");
        let (n, _, _) = names("Afgan E, Baker D, van den Beek M, Anderson FA Jr, Goecks J. 2016. The Galaxy platform");
        assert_eq!(n, ["E Afgan", "D Baker", "M van den Beek", "FA Anderson Jr", "J Goecks"]);
    }

    #[test]
    fn et_al_and_the_end_of_the_list() {
        let (n, et_al, rest) =
            names("F. A. Masoudi, J. S. Rumsfeld, E. P. Havranek et al., “Age, functional capacity”");
        assert_eq!(n, ["F. A. Masoudi", "J. S. Rumsfeld", "E. P. Havranek"]);
        assert!(et_al);
        assert_eq!(rest, " “Age, functional capacity”");
        // The physics style: the venue follows the names.
        let (n, _, rest) = names("R. M. Moon, T. Riste, and W. C. Koehler, Phys. Rev. 181, 920 (1969).");
        assert_eq!(n, ["R. M. Moon", "T. Riste", "W. C. Koehler"]);
        assert_eq!(rest, " Phys. Rev. 181, 920 (1969).");
        let (n, _, rest) = names(
            "P. A. Estevez, P. Vera, K. Saito, Selecting the most influential nodes in social networks, in: Neural Networks, 2007.",
        );
        assert_eq!(n, ["P. A. Estevez", "P. Vera", "K. Saito"]);
        assert_eq!(rest, " Selecting the most influential nodes in social networks, in: Neural Networks, 2007.");
        // sp_superscripttest.pdf, sp_map-reduce.pdf
        let (n, _, rest) = names("O. Sporns, Structure and function of complex brain networks, Dialogues");
        assert_eq!(
            (n, rest),
            (vec!["O. Sporns".to_string()], " Structure and function of complex brain networks, Dialogues")
        );
        let (n, _, _) =
            names("T. N. Dinh, D. T. Nguyen, M. T. Thai, Cheap, easy, and massively effective viral marketing");
        assert_eq!(n, ["T. N. Dinh", "D. T. Nguyen", "M. T. Thai"]);
        let (n, _, _) = names("A. N. Langville, C. D. Meyer, Google’s PageRank and beyond: the science");
        assert_eq!(n, ["A. N. Langville", "C. D. Meyer"]);
        let (n, _, _) = names("John Bent, Douglas Thain, Andrea C.Arpaci-Dusseau, and Miron Livny. Explicit control");
        assert_eq!(n, ["John Bent", "Douglas Thain", "Andrea C.Arpaci-Dusseau", "Miron Livny"]);
        let (n, _, _) = names("National Electrical Code (NEC) NFPA 70-2005.");
        assert!(n.is_empty());
        let (n, _, _) = names("RCall.jl.");
        assert!(n.is_empty());
    }
}
