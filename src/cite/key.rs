//! Citation keys: `surnameYEARfirstword`, ASCII-folded and lowercase,
//! made unique within one export by `a`, `b`, … suffixes in the order the
//! papers are written.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization;

use super::name_parts;

/// Title words a key skips: the first *significant* word names the paper.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "on", "of", "in", "for", "to", "and", "or", "with", "at", "by", "from", "into", "via", "about",
    "is", "are", "do", "does", "towards", "toward",
];

/// ASCII letters and digits of `s`, lowercase: accents dropped (`é` → `e`),
/// letters with no ASCII form dropped (`ß`, CJK).
pub fn fold(s: &str) -> String {
    s.nfkd().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// The key of a paper before deduplication: the first author's folded
/// family name (`anon` without one), the year (`nd` without one) and the
/// first title word that is not a stop word and folds to something.
pub(crate) fn base_key(authors: &[String], year: Option<i32>, title: &str) -> String {
    let surname = authors.first().map(|a| fold(&name_parts::split(a).family)).filter(|s| !s.is_empty());
    let word = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !STOP_WORDS.contains(&w.to_lowercase().as_str()))
        .map(fold)
        .find(|w| !w.is_empty())
        .unwrap_or_default();
    let year = year.map_or_else(|| "nd".to_string(), |y| y.to_string());
    format!("{}{year}{word}", surname.as_deref().unwrap_or("anon"))
}

/// Whether `key` can be written as a BibTeX key and an RIS `ID` as it is.
pub(crate) fn is_safe(key: &str) -> bool {
    !key.is_empty() && key.len() <= 200 && key.chars().all(|c| c.is_ascii_graphic() && !",{}()\"#%'=\\~".contains(c))
}

/// The keys given out so far in one export.
#[derive(Debug, Default)]
pub struct Keys {
    used: HashSet<String>,
}

impl Keys {
    /// `base` if unused, else `base` + the first free suffix of `a`, `b`, …,
    /// `z`, `aa`, `ab`, …; the key is then taken.
    pub fn unique(&mut self, base: &str) -> String {
        let mut key = base.to_string();
        let mut n = 0usize;
        while self.used.contains(&key) {
            key = format!("{base}{}", suffix(n));
            n += 1;
        }
        self.used.insert(key.clone());
        key
    }
}

/// The `n`-th suffix: a … z, aa, ab, …
fn suffix(mut n: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_surname_year_first_significant_word() {
        let a = |s: &str| vec![s.to_string()];
        assert_eq!(base_key(&a("Ashish Vaswani"), Some(2017), "Attention Is All You Need"), "vaswani2017attention");
        assert_eq!(base_key(&a("Jan van der Berg"), Some(2020), "On the Use of Graphs"), "vanderberg2020use");
        assert_eq!(base_key(&a("Émile Ørsted-Zola"), Some(1999), "Über die Quanten"), "rstedzola1999uber");
        assert_eq!(base_key(&[], None, "The"), "anonnd");
        assert_eq!(base_key(&a("张伟"), Some(2021), "深度学习 for Graphs"), "anon2021graphs", "CJK folds to nothing");
    }

    #[test]
    fn duplicates_get_suffixes_in_order() {
        let mut keys = Keys::default();
        let got: Vec<String> = (0..4).map(|_| keys.unique("smith2020deep")).collect();
        assert_eq!(got, ["smith2020deep", "smith2020deepa", "smith2020deepb", "smith2020deepc"]);
        // A natural key equal to a suffixed one does not collide.
        assert_eq!(keys.unique("smith2020deepa"), "smith2020deepaa");
        assert_eq!(suffix(25), "z");
        assert_eq!(suffix(26), "aa");
        assert_eq!(suffix(27), "ab");
    }

    #[test]
    fn unsafe_keys_are_refused() {
        assert!(is_safe("Smith:2020_x"));
        for bad in ["", "a b", "a,b", "a{b", "a%b", "ключ"] {
            assert!(!is_safe(bad), "{bad}");
        }
    }
}
