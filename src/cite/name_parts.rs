//! Author names between the display form the index stores (`Jan van der
//! Berg`) and the `Last, First` form of reference managers.

/// A name split into its family part (with any particles: `van der Berg`)
/// and its given part (`Jan`; empty for a one-word name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub family: String,
    pub given: String,
}

/// Splits a stored name. `Last, First` is taken as written; otherwise the
/// family name is the last word with the lowercase words just before it
/// (`van der`, `de la`), and the rest is the given name.
pub fn split(name: &str) -> Name {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((family, given)) = name.split_once(',') {
        return Name { family: family.trim().to_string(), given: given.trim().to_string() };
    }
    let words: Vec<&str> = name.split(' ').filter(|w| !w.is_empty()).collect();
    if words.len() <= 1 {
        return Name { family: name, given: String::new() };
    }
    let mut start = words.len() - 1;
    while start > 1 && words[start - 1].chars().next().is_some_and(char::is_lowercase) {
        start -= 1;
    }
    Name { family: words[start..].join(" "), given: words[..start].join(" ") }
}

/// The display form of a name a reference manager gave as family and given
/// parts: `Given Family`, or whichever part there is.
pub fn display(family: &str, given: &str) -> String {
    let (family, given) = (family.trim(), given.trim());
    match (family.is_empty(), given.is_empty()) {
        (false, false) => format!("{given} {family}"),
        (false, true) => family.to_string(),
        _ => given.to_string(),
    }
}

/// The display form of a name written `Last, First` or `First Last` (a
/// BibTeX or RIS author).
pub(crate) fn from_written(written: &str) -> String {
    let written = written.split_whitespace().collect::<Vec<_>>().join(" ");
    match written.split_once(',') {
        // `Last, Jr, First`: the suffix goes after the family name.
        Some((family, rest)) => match rest.split_once(',') {
            Some((suffix, given)) => display(&format!("{} {}", family.trim(), suffix.trim()), given),
            None => display(family, rest),
        },
        None => written,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn particles_stay_with_the_family_name() {
        let n = split("Jan van der Berg");
        assert_eq!((n.family.as_str(), n.given.as_str()), ("van der Berg", "Jan"));
        let n = split("Ludwig van Beethoven");
        assert_eq!((n.family.as_str(), n.given.as_str()), ("van Beethoven", "Ludwig"));
        let n = split("Ada  Lovelace");
        assert_eq!((n.family.as_str(), n.given.as_str()), ("Lovelace", "Ada"));
        let n = split("bell hooks");
        assert_eq!((n.family.as_str(), n.given.as_str()), ("hooks", "bell"), "the first word is always given");
        let n = split("Curie, Marie");
        assert_eq!((n.family.as_str(), n.given.as_str()), ("Curie", "Marie"));
        let n = split("张伟");
        assert_eq!((n.family.as_str(), n.given.as_str()), ("张伟", ""));
    }

    #[test]
    fn written_names_become_display_names() {
        assert_eq!(from_written("van der Berg, Jan"), "Jan van der Berg");
        assert_eq!(from_written("Ada Lovelace"), "Ada Lovelace");
        assert_eq!(from_written("King, Jr, Martin Luther"), "Martin Luther King Jr");
        assert_eq!(from_written("Plato"), "Plato");
        assert_eq!(display("Curie", ""), "Curie");
        for name in ["Jan van der Berg", "Ada Lovelace", "Émile Zola", "Ζήνων Ελεάτης", "张伟"] {
            let n = split(name);
            assert_eq!(display(&n.family, &n.given), name, "split and display are inverse");
        }
    }
}
