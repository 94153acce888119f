//! Names compared the way people type them: lowercased, diacritics removed
//! (NFD, combining marks dropped), split into words of letters and digits.
//! Author filters (`author:NAME`) and venue filters (`venue:NAME`) compare
//! these words; the store keys each author by [`surname_key`] so that an
//! author filter reads only the papers of that surname.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// `s` folded into words: "Nguyễn-Đức" → `["nguyen", "đuc"]`.
pub(crate) fn fold_words(s: &str) -> Vec<String> {
    let folded: String = s.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect();
    folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// The last "author" of a list that goes on (BibTeX `and others`): shown
/// and exported as such (`and others` in BibTeX), never an author to filter by.
pub const ET_AL: &str = "et al.";

/// `name` without a written "et al." at its end (`Born, L. et al.`, `et
/// al.`), and whether it had one.
pub fn strip_et_al(name: &str) -> (&str, bool) {
    let t = name.trim();
    let lower = t.to_lowercase();
    for tail in ["et al.", "et al", "et. al."] {
        if lower.ends_with(tail) && (t.len() == tail.len() || lower[..t.len() - tail.len()].ends_with([' ', ','])) {
            return (t[..t.len() - tail.len()].trim_end_matches([' ', ',']), true);
        }
    }
    (t, false)
}

/// Generational suffixes, dropped from the end of a name ("Thacher Jr., H. C.").
const SUFFIXES: [&str; 5] = ["jr", "sr", "ii", "iii", "iv"];

/// An author's name as folded words, "Last, First" read as "First Last",
/// without a generational suffix (`Jr.`, `III`) at the end.
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = match name.split_once(',') {
        Some((last, first)) => fold_words(&format!("{first} {last}")),
        None => fold_words(name),
    };
    while words.len() > 1 && words.last().is_some_and(|w| SUFFIXES.contains(&w.as_str())) {
        words.pop();
    }
    words
}

/// The last word of an author's name (see [`name_words`]), `None` for a
/// name without letters or digits: the key an author filter looks up.
pub(crate) fn surname_key(name: &str) -> Option<String> {
    if name == ET_AL {
        return None;
    }
    name_words(name).pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fold_case_diacritics_and_order() {
        assert_eq!(fold_words("Ánh Nguyễn-Đức"), ["anh", "nguyen", "đuc"]);
        assert_eq!(name_words("Berg, Jan van der"), ["jan", "van", "der", "berg"]);
        assert_eq!(surname_key("Jan van der Berg").as_deref(), Some("berg"));
        assert_eq!(surname_key("Müller, Jörg").as_deref(), Some("muller"));
        assert_eq!(name_words("Thacher Jr., H. C."), ["h", "c", "thacher"]);
        assert_eq!(surname_key("Jr").as_deref(), Some("jr"));
        assert_eq!(surname_key(" .. "), None);
        assert_eq!(surname_key(ET_AL), None);
        assert_eq!(strip_et_al("Born, L. et al."), ("Born, L.", true));
        assert_eq!(strip_et_al("et al."), ("", true));
        assert_eq!(strip_et_al("Petal, Al"), ("Petal, Al", false));
    }
}
