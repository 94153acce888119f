//! Enums a user picks by a word (`--analyzer english`, `--graph-score
//! by-hops`, an MCP argument): each lists its variants once, with the word
//! it is typed as, the other words accepted for it and a line of help. Its
//! `FromStr` and `Display` and the binary's flag parsers (the possible
//! values of `--help` and of the shell completions) all read that list, so
//! the library needs no command-line crate.

/// An enum chosen by name.
pub trait Choice: Sized + Copy + PartialEq + 'static {
    /// What a value names, in messages: `analyzer`, `graph score`.
    const WHAT: &'static str;

    /// Every variant, in the order they are listed.
    fn all() -> &'static [Self];

    /// The word it is typed as (and listed by).
    fn keyword(self) -> &'static str;

    /// Other words accepted for it (old names), never listed.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// One line saying what it is, for help and completions.
    fn help(self) -> &'static str;
}

/// The variant `s` names (its keyword or an alias; exact, case-sensitive).
pub fn choose<T: Choice>(s: &str) -> Option<T> {
    T::all().iter().copied().find(|v| v.keyword() == s || v.aliases().contains(&s))
}

/// The keywords as prose: `a, b or c`.
pub(crate) fn keywords<T: Choice>() -> String {
    let names: Vec<&str> = T::all().iter().map(|v| v.keyword()).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The message for a word that names no variant: ``unknown mode `x` (use bm25, dense or hybrid)``.
pub fn unknown<T: Choice>(s: &str) -> String {
    format!("unknown {} `{s}` (use {})", T::WHAT, keywords::<T>())
}

/// [`choose`], or the [`unknown`] message as an error (for `FromStr`).
pub fn parse<T: Choice>(s: &str) -> anyhow::Result<T> {
    choose(s).ok_or_else(|| anyhow::anyhow!(unknown::<T>(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Pet {
        Cat,
        Dog,
        Eel,
    }

    impl Choice for Pet {
        const WHAT: &'static str = "pet";
        fn all() -> &'static [Pet] {
            &[Pet::Cat, Pet::Dog, Pet::Eel]
        }
        fn keyword(self) -> &'static str {
            match self {
                Pet::Cat => "cat",
                Pet::Dog => "dog",
                Pet::Eel => "eel",
            }
        }
        fn aliases(self) -> &'static [&'static str] {
            if self == Pet::Dog { &["hound"] } else { &[] }
        }
        fn help(self) -> &'static str {
            ""
        }
    }

    #[test]
    fn keywords_and_aliases_choose_and_nothing_else() {
        assert_eq!(choose::<Pet>("cat"), Some(Pet::Cat));
        assert_eq!(choose::<Pet>("hound"), Some(Pet::Dog));
        assert_eq!(choose::<Pet>("Cat"), None);
        assert_eq!(choose::<Pet>(""), None);
        assert_eq!(keywords::<Pet>(), "cat, dog or eel");
        assert_eq!(parse::<Pet>("cow").unwrap_err().to_string(), "unknown pet `cow` (use cat, dog or eel)");
    }
}
