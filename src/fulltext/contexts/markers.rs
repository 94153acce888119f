//! In-text citation markers found in one paragraph's text: numeric in
//! brackets (`[12]`, `[3–5]`, `[1, 4, 7]`, `[3-5, 9]`), printed raised
//! (superscripts: `Paragraph::raised` ranges of digits, commas and dashes),
//! bracketed labels (`[Smi19]`, `[Smith et al. 2019]`), parenthetical
//! author-year (`(Smith et al., 2019)`, `(Smith and Jones 2019; Lee
//! 2020a)`, `(see Baptiste, Pape, and Nuijten 2001)`) and narrative
//! author-year (`Smith (2019a)`, `Smith et al. (2019, 2020)`, natbib's
//! `Jaffa et al. [2014]`).
//!
//! Never a marker: a bracket holding math (`[0, 1]`, `[0.5, 2]`, `x ∈ [1,
//! 3]`, `a[1]`), a parenthesis holding a year range or no name (`(2019–2020)`,
//! `(n = 2019)`), digits raised inside a formula (`x2`, `10^{12}`).

use regex::Regex;
use std::sync::LazyLock;

/// The most numbers one marker may name (`[1–5000]` is no citation).
const MAX_NUMBERS: usize = 60;

/// One cited work in an author-year marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct AuthorYear {
    /// The first author's surname as printed ("van der Aalst").
    pub surname: String,
    /// The second author's surname when two are named ("Smith and Jones").
    pub second: Option<String>,
    pub year: i32,
    /// The letter after the year ("2019a" -> 'a').
    pub suffix: Option<char>,
    /// The names and year as printed ("Baptiste, Pape, and Nuijten 2001"),
    /// for entries whose label is exactly that.
    pub printed: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cites {
    /// Numbers as printed, ranges expanded.
    Numbers(Vec<u32>),
    /// A bracketed label that is not a number list ("Smi19").
    Labels(Vec<String>),
    AuthorYear(Vec<AuthorYear>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Marker {
    /// Byte range of the marker in the paragraph's text.
    pub start: usize,
    pub end: usize,
    pub cites: Cites,
}

static BRACKET: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\[\]]{1,200})\]").expect("bracket pattern"));
static PAREN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\(([^()]{4,400})\)").expect("paren pattern"));
static NUMBER_LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?)*\s*$")
        .expect("number list pattern")
});
/// A locator after the year: ", p. 5", ", Chapter 6", ", pg. 1773", ", their Eq. 6",
/// "; see their Fig. 11a".
const LOCATOR: &str = r"(?:\s*[,;]\s*(?:see\s+)?(?:their\s+)?(?:p|pp|pg|chap|chapter|ch|sec|section|fig|figs|figure|table|eq|eqs|Chapter|Section|Table|Fig|Figs|Figure|Eq|Eqs)\.?\s*[\dA-Za-z]*\d[\dA-Za-z.–\-]*)?";
/// A surname as printed: capitalised, with particles before it (whole
/// words: the "le" of "while Fire" is none).
const NAME: &str = r"\b(?:(?:van|von|de|der|den|del|della|di|da|du|le|la|Van|Von|De|Der|Den|Del|Di|Da|Du|Le|La)\s+){0,2}\p{Lu}[\p{L}'’\-]*\p{L}";
static NARRATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"({NAME})(?:\s+(?:et\s+al\.?|and\s+colleagues|and\s+({NAME})|&\s+({NAME})))?\s*[(\[]((?:\d{{4}}[a-z]?)(?:\s*[,;]\s*\d{{4}}[a-z]?)*){LOCATOR}[)\]]"
    ))
    .expect("narrative pattern")
});
/// One item of a parenthetical list: names, then years.
static ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?:(?:see|e\.g\.|i\.e\.|cf\.|also|see also|for example|and|but)[,\s]+)*(({NAME})(?:(?:\s*,\s*|\s+)(?:et\s+al\.?|and\s+others))?(?:\s*,?\s+(?:and|&)\s+({NAME}))?(?:(?:\s*,\s*{NAME})*\s*,?\s+(?:and|&)\s+{NAME})?)\s*,?\s+((?:\d{{4}}[a-z]?)(?:\s*,\s*\d{{4}}[a-z]?)*){LOCATOR}\s*$"
    ))
    .expect("item pattern")
});
static YEAR_ONLY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*(\d{{4}})([a-z])?{LOCATOR}\s*$")).expect("year pattern"));

/// Every marker in `text`, in order, not overlapping; `raised` are the
/// paragraph's superscript byte ranges.
pub(super) fn find(text: &str, raised: &[(usize, usize)]) -> Vec<Marker> {
    let mut out: Vec<Marker> = Vec::new();
    for found in BRACKET.captures_iter(text) {
        let (Some(whole), Some(inner)) = (found.get(0), found.get(1)) else { continue };
        if let Some(cites) = bracket_cites(text, whole.start(), inner.as_str()) {
            out.push(Marker { start: whole.start(), end: whole.end(), cites });
        }
    }
    for found in PAREN.captures_iter(text) {
        let (Some(whole), Some(inner)) = (found.get(0), found.get(1)) else { continue };
        let items = parenthetical(inner.as_str());
        if !items.is_empty() {
            out.push(Marker { start: whole.start(), end: whole.end(), cites: Cites::AuthorYear(items) });
        }
    }
    for found in NARRATIVE.captures_iter(text) {
        let (Some(whole), Some(name), Some(years)) = (found.get(0), found.get(1), found.get(4)) else { continue };
        if TITLE_CASE_WORDS.contains(&name.as_str()) {
            continue;
        }
        let second = found.get(2).or(found.get(3)).map(|m| m.as_str().to_string());
        let items: Vec<AuthorYear> = years
            .as_str()
            .split([',', ';'])
            .filter_map(year_and_suffix)
            .map(|(year, suffix)| AuthorYear {
                surname: name.as_str().to_string(),
                second: second.clone(),
                year,
                suffix,
                printed: format!("{} {}", &whole.as_str()[..name.end() - whole.start()], year),
            })
            .collect();
        if !items.is_empty() {
            out.push(Marker { start: whole.start(), end: whole.end(), cites: Cites::AuthorYear(items) });
        }
    }
    for &(start, end) in raised {
        let Some(inner) = text.get(start..end) else { continue };
        // Digits raised inside a word ("DMF2RG") are part of it.
        let in_word = text[end..].starts_with(char::is_alphabetic);
        if !NUMBER_LIST.is_match(inner) || in_word || !raised_is_citation(text, start) {
            continue;
        }
        if let Some(numbers) = numbers(inner) {
            out.push(Marker { start, end, cites: Cites::Numbers(numbers) });
        }
    }
    out.sort_by_key(|m| (m.start, std::cmp::Reverse(m.end)));
    let mut kept: Vec<Marker> = Vec::with_capacity(out.len());
    for m in out {
        if kept.last().is_none_or(|k| m.start >= k.end) {
            kept.push(m);
        }
    }
    kept
}

/// Capitalised words that are not names before a year in parentheses
/// ("In (2019)", "Table (2019)").
const TITLE_CASE_WORDS: &[&str] = &[
    "In", "The", "Since", "From", "Until", "After", "Before", "During", "Table", "Figure", "Fig", "Eq", "Section",
    "See", "Also", "And",
];

fn bracket_cites(text: &str, start: usize, inner: &str) -> Option<Cites> {
    if NUMBER_LIST.is_match(inner) {
        // Math: "x[1]", "∈ [0, 1]", "= [2, 3]".
        let before = text[..start].trim_end();
        let adjacent = !text[..start].ends_with(char::is_whitespace);
        let word_before = text[..start].rsplit(char::is_whitespace).next().unwrap_or("");
        if before.ends_with(['∈', '=', '<', '>', '≤', '≥', '+', '*', '/', '^', '_', '×', '⊂', '⊆', '∪', '∩', '−'])
            || adjacent && word_before.chars().count() <= 2 && word_before.chars().any(char::is_alphanumeric)
        {
            return None;
        }
        let numbers = numbers(inner)?;
        if numbers.contains(&0) {
            return None;
        }
        return Some(Cites::Numbers(numbers));
    }
    // A bracketed author-year ("[Smith et al. 2019]") or a label ("[Smi19]").
    let items = parenthetical(inner);
    if !items.is_empty() {
        return Some(Cites::AuthorYear(items));
    }
    let labels: Vec<String> = inner.split([',', ';']).map(|l| l.trim().to_string()).collect();
    let label_like = labels.iter().all(|l| {
        (2..=20).contains(&l.chars().count())
            && l.chars().next().is_some_and(char::is_uppercase)
            && l.chars().all(|c| c.is_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && l.chars().any(|c| c.is_ascii_digit())
    });
    (label_like && !labels.is_empty()).then_some(Cites::Labels(labels))
}

/// Whether digits printed raised at `start` are a citation: not right after
/// a one-letter or numeric token (`x2`, `10¹²`, `m2`), not after an operator.
fn raised_is_citation(text: &str, start: usize) -> bool {
    let Some(before) = text.get(..start) else { return false };
    let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
    if word.is_empty() {
        return before
            .trim_end()
            .ends_with(|c: char| c.is_alphabetic() || matches!(c, '.' | ',' | ')' | ']' | ';' | ':'));
    }
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let math = word.chars().any(|c| c.is_ascii_digit() || matches!(c, '=' | '+' | '^' | '_' | '(' | '/' | '*'));
    let punctuated = word.ends_with(['.', ',', ')', ']', ';', ':']);
    // A name with a digit in it, then punctuation: "(DMF2RG),4".
    let name = letters >= 3 && punctuated && !word.contains(['=', '+', '^', '_', '/', '*']);
    (!math || name) && (letters >= 2 || punctuated)
}

/// The numbers of a list (`3–5, 9` -> 3, 4, 5, 9), `None` when a range is
/// backwards or the list names too many.
fn numbers(inner: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in inner.split([',', ';']) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let bounds: Vec<&str> = part.split(['-', '–', '—']).map(str::trim).collect();
        match bounds.as_slice() {
            [one] => out.push(one.parse().ok()?),
            [from, to] => {
                let (from, to): (u32, u32) = (from.parse().ok()?, to.parse().ok()?);
                if to < from || (to - from) as usize > MAX_NUMBERS {
                    return None;
                }
                out.extend(from..=to);
            }
            _ => return None,
        }
        if out.len() > MAX_NUMBERS {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

fn year_and_suffix(text: &str) -> Option<(i32, Option<char>)> {
    let found = YEAR_ONLY.captures(text)?;
    let year: i32 = found.get(1)?.as_str().parse().ok()?;
    if !(1600..=2099).contains(&year) {
        return None;
    }
    Some((year, found.get(2).and_then(|m| m.as_str().chars().next())))
}

static YEAR_COMMA: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d{4}[a-z]?\s*,\s*").expect("year comma pattern"));

/// An item cut after each year that a comma and a capitalised name follow
/// ("Fleming and Harrington, 2011, Murtaugh et al., 1994": natbib's
/// `\citep{a,b}` in a style that separates works by commas).
fn comma_separated(item: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in YEAR_COMMA.find_iter(item) {
        if item[m.end()..].starts_with(|c: char| c.is_uppercase()) {
            out.push(item[start..m.end()].trim_end().trim_end_matches(','));
            start = m.end();
        }
    }
    out.push(&item[start..]);
    out
}

/// The cited works of a parenthetical list ("Smith et al., 2019; Lee
/// 2020a, 2021"); a year alone inherits the names before it. Empty when an
/// item is no citation (then the parenthesis is no marker).
fn parenthetical(inner: &str) -> Vec<AuthorYear> {
    let mut out: Vec<AuthorYear> = Vec::new();
    let items = inner.split(';').flat_map(|item| {
        let item = item.trim();
        if ITEM.is_match(item) { vec![item] } else { comma_separated(item) }
    });
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if let Some(found) = ITEM.captures(item) {
            let (Some(names), Some(first), Some(years)) = (found.get(1), found.get(2), found.get(4)) else { continue };
            if TITLE_CASE_WORDS.contains(&first.as_str()) {
                return Vec::new();
            }
            let second = found.get(3).map(|m| m.as_str().to_string());
            for y in years.as_str().split(',') {
                if let Some((year, suffix)) = year_and_suffix(y) {
                    out.push(AuthorYear {
                        surname: first.as_str().to_string(),
                        second: second.clone(),
                        year,
                        suffix,
                        printed: format!("{} {}", names.as_str().trim_end_matches([',', ' ']), y.trim()),
                    });
                }
            }
        } else if let Some((year, suffix)) = year_and_suffix(item) {
            // A year alone inherits the names before it; first in the list
            // it is the narrative's own ("Hurricane Patricia (2015; Rogers et al. 2017)").
            if let Some(prev) = out.last().cloned() {
                out.push(AuthorYear { year, suffix, ..prev });
            }
        } else if !out.is_empty() {
            // "(Smith 2019; and the survey in Section 2)": keep what parsed.
            continue;
        } else {
            return Vec::new();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(text: &str) -> Vec<&str> {
        find(text, &[]).into_iter().map(|m| &text[m.start..m.end]).collect()
    }

    #[test]
    fn numeric_brackets() {
        let text = "As shown [12], and in [3–5] and [1, 4, 7] or [3-5, 9].";
        assert_eq!(printed(text), ["[12]", "[3–5]", "[1, 4, 7]", "[3-5, 9]"]);
        let m = find(text, &[]);
        assert_eq!(m[3].cites, Cites::Numbers(vec![3, 4, 5, 9]));
        assert!(printed("for x ∈ [0, 1] and a[1] = [2, 3], y [0.5, 1]").is_empty());
        assert!(printed("the range [5-2] is backwards, [1-900] too wide").is_empty());
    }

    #[test]
    fn author_year_markers() {
        let text = "Known (Smith et al., 2019). Also (Smith and Jones 2019; Lee 2020a). Smith (2019a) said, as Lee et al. (2018, 2020) did.";
        assert_eq!(
            printed(text),
            ["(Smith et al., 2019)", "(Smith and Jones 2019; Lee 2020a)", "Smith (2019a)", "Lee et al. (2018, 2020)"]
        );
        let m = find(text, &[]);
        let Cites::AuthorYear(items) = &m[1].cites else { panic!("{:?}", m[1]) };
        assert_eq!(items[0].surname, "Smith");
        assert_eq!(items[0].second.as_deref(), Some("Jones"));
        assert_eq!((items[1].surname.as_str(), items[1].year, items[1].suffix), ("Lee", 2020, Some('a')));
        let Cites::AuthorYear(items) = &m[3].cites else { panic!() };
        assert_eq!(items.len(), 2);
        // latex_icaps19.pdf: AAAI's list of three names.
        let text =
            "effective in solving a wide range of problems (Baptiste, Pape, and Nuijten 2001; Lallouet et al. 2010).";
        let m = find(text, &[]);
        let Cites::AuthorYear(items) = &m[0].cites else { panic!("{m:?}") };
        assert_eq!(items[0].printed, "Baptiste, Pape, and Nuijten 2001");
        assert_eq!(items[1].surname, "Lallouet");
        // latex_lights.pdf (natbib with square brackets)
        let text = "For instance, Jaffa et al. [2014] only considers 3 outcomes, a Breslow like estimator [Breslow, 1972] from Andrew and Gao [2007]:";
        assert_eq!(printed(text), ["Jaffa et al. [2014]", "[Breslow, 1972]", "Andrew and Gao [2007]"]);
        // latex_jas2018.pdf
        let text = "observed in Hurricane Patricia (2015; Rogers et al. 2017), as in Bryan and Rotunno (2009b, their Eq. 6) and (Kepert 2010, their Fig. 3).";
        assert_eq!(
            printed(text),
            ["(2015; Rogers et al. 2017)", "Bryan and Rotunno (2009b, their Eq. 6)", "(Kepert 2010, their Fig. 3)"]
        );
        // latex_missingdata.pdf: "le" inside "while" is no particle.
        let m = find("while Fire and Guestrin (2016a) and", &[]);
        let Cites::AuthorYear(items) = &m[0].cites else { panic!("{m:?}") };
        assert_eq!(items[0].surname, "Fire");
        // latex_lights.pdf: works separated by commas; latex_jas2018.pdf: a note after a semicolon.
        let text = "the original dataset [Fleming and Harrington, 2011, Murtaugh et al., 1994]from the trial, as Bu et al. (2014; see their Fig. 11a) found.";
        assert_eq!(
            printed(text),
            ["[Fleming and Harrington, 2011, Murtaugh et al., 1994]", "Bu et al. (2014; see their Fig. 11a)"]
        );
        let m = find(text, &[]);
        let Cites::AuthorYear(items) = &m[0].cites else { panic!("{m:?}") };
        let names: Vec<(&str, i32)> = items.iter().map(|i| (i.surname.as_str(), i.year)).collect();
        assert_eq!(names, [("Fleming", 2011), ("Murtaugh", 1994)]);
        assert_eq!(items[0].second.as_deref(), Some("Harrington"));
        let text = "(Senderovich et al. 2015a; 2015b) and (see van der Aalst 2011)";
        let m = find(text, &[]);
        let Cites::AuthorYear(items) = &m[0].cites else { panic!("{m:?}") };
        assert_eq!(items[1].suffix, Some('b'));
        assert_eq!(items[1].surname, "Senderovich");
        let Cites::AuthorYear(items) = &m[1].cites else { panic!("{m:?}") };
        assert_eq!(items[0].surname, "van der Aalst");
    }

    #[test]
    fn not_markers() {
        assert!(printed("from (2019–2020) and (n = 2019) in (Table 3, 2019) at 2019 (2020)").is_empty());
        assert!(printed("In (2019) the rate rose").is_empty());
    }

    #[test]
    fn superscripts() {
        let text = "Networks matter12,14 and more3–5. A formula x2 and 10¹² stay.";
        let a = text.find("12,14").unwrap();
        let b = text.find("3–5").unwrap();
        let x = text.find("x2").unwrap() + 1;
        let raised = [(a, a + 5), (b, b + "3–5".len()), (x, x + 1), (1, 3)];
        let m = find(text, &raised);
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(m[0].cites, Cites::Numbers(vec![12, 14]));
        assert_eq!(m[1].cites, Cites::Numbers(vec![3, 4, 5]));
        // latex_frg.pdf: a name with a raised digit in it, then its citation.
        let text = "the combination (DMF2RG),4 and DMF2RG,4 where";
        let raised: Vec<(usize, usize)> = text.match_indices(['2', '4']).map(|(i, d)| (i, i + d.len())).collect();
        let m = find(text, &raised);
        assert_eq!(
            m.iter().map(|m| &m.cites).collect::<Vec<_>>(),
            [&Cites::Numbers(vec![4]), &Cites::Numbers(vec![4])]
        );
        // Ranges off character boundaries are ignored, not a panic.
        let text = "Größe1";
        assert!(find(text, &[(2, 3), (0, 99)]).is_empty());
    }
}
