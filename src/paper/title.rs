//! Title and author keys for the fallback match, used when two records share
//! no strong id: same normalised title, years within one, same first-author
//! surname.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Titles too generic to match on (compared after normalisation).
const GENERIC_TITLES: &[&str] = &[
    "preface",
    "foreword",
    "introduction",
    "editorial",
    "erratum",
    "corrigendum",
    "correction",
    "reply",
    "response",
    "letter to the editor",
    "book review",
    "abstracts",
    "index",
    "contents",
    "table of contents",
    "front matter",
    "back matter",
    "acknowledgments",
    "acknowledgements",
    "in memoriam",
    "obituary",
    "editorial board",
    "conference program",
    "reply to the comments",
    "author index",
    "subject index",
    "guest editorial",
    "editor s note",
    "announcement",
    "call for papers",
];

/// Removes diacritics, turns punctuation into spaces, lowercases, and
/// collapses whitespace.
pub(crate) fn normalize(s: &str) -> String {
    let folded: String = s
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .flat_map(char::to_lowercase)
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key a title matches on, or `None` for a title too short (under four
/// words) or too generic to identify a paper.
pub fn title_key(title: &str) -> Option<String> {
    let key = normalize(title);
    if key.split(' ').count() < 4 || GENERIC_TITLES.contains(&key.as_str()) {
        return None;
    }
    Some(key)
}

/// The surname of an author as written: "Last, First" → Last; "First Last"
/// → the last word; normalised like a title.
pub(crate) fn surname(author: &str) -> Option<String> {
    let part = match author.split_once(',') {
        Some((last, _)) => last,
        None => author.split_whitespace().last().unwrap_or(""),
    };
    let key = normalize(part);
    (!key.is_empty()).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_diacritics_punctuation_and_case() {
        assert_eq!(normalize("  Sparse   Mixtures: of Retrieval-Experts! "), "sparse mixtures of retrieval experts");
        assert_eq!(normalize("Über Café Naïveté"), "uber cafe naivete");
    }

    #[test]
    fn generic_and_short_titles_have_no_key() {
        assert_eq!(title_key("Preface"), None);
        assert_eq!(title_key("Introduction."), None);
        assert_eq!(title_key("Attention is all you need"), Some("attention is all you need".into()));
        assert_eq!(title_key("Attention is all"), None);
        assert_eq!(title_key("Deep residual learning"), None);
        assert_eq!(title_key("Letter to the Editor"), None);
    }

    #[test]
    fn surnames_from_either_order() {
        assert_eq!(surname("Lovelace, Ada").as_deref(), Some("lovelace"));
        assert_eq!(surname("Ada Lovelace").as_deref(), Some("lovelace"));
        assert_eq!(surname("José García").as_deref(), Some("garcia"));
        assert_eq!(surname("  ").as_deref(), None);
    }
}
