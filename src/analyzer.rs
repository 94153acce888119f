//! Text analysis: turning titles, abstracts and queries into index terms.
//!
//! The analyzer is chosen at build time and stored in the database, so a query
//! is always analysed the same way as the documents it is matched against.

use std::fmt;
use std::str::FromStr;

/// A named text analyzer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Analyzer {
    /// Lowercase, split on every non-alphanumeric character (Unicode aware),
    /// no stemming, no stop words.
    #[default]
    Plain,
}

impl Analyzer {
    /// The name stored in the database and accepted on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Analyzer::Plain => "plain",
        }
    }

    /// Splits `text` into terms, in order, keeping repeats.
    pub fn tokenize(self, text: &str) -> Vec<String> {
        match self {
            Analyzer::Plain => plain_tokens(text),
        }
    }
}

impl fmt::Display for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Analyzer {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "plain" => Ok(Analyzer::Plain),
            other => anyhow::bail!("unknown analyzer `{other}` (known: plain)"),
        }
    }
}

/// The `plain` analyzer: every maximal run of alphanumeric characters
/// (`char::is_alphanumeric`, so letters and digits of any script) is a token,
/// lowercased with full Unicode case mapping.
fn plain_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect()
}

/// The text of a paper that is indexed: `title + " " + abstract`.
pub fn indexed_text(title: &str, abstract_: &str) -> String {
    let mut s = String::with_capacity(title.len() + 1 + abstract_.len());
    s.push_str(title);
    s.push(' ');
    s.push_str(abstract_);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        Analyzer::Plain.tokenize(s)
    }

    #[test]
    fn lowercases_and_splits_on_punctuation() {
        assert_eq!(toks("Sparse-Attention, for LONG sequences!"), ["sparse", "attention", "for", "long", "sequences"]);
    }

    #[test]
    fn keeps_digits_and_mixed_tokens() {
        assert_eq!(toks("GPT-4 beats BERT2 in 2023"), ["gpt", "4", "beats", "bert2", "in", "2023"]);
    }

    #[test]
    fn unicode_letters_are_tokens() {
        assert_eq!(toks("Zoë Müller: Ünïcode ÉTUDE"), ["zoë", "müller", "ünïcode", "étude"]);
        assert_eq!(toks("注意力机制"), ["注意力机制"]);
        assert_eq!(toks("Ωμέγα—δέλτα"), ["ωμέγα", "δέλτα"]);
    }

    #[test]
    fn empty_and_punctuation_only_give_no_tokens() {
        assert!(toks("").is_empty());
        assert!(toks("   \t\n").is_empty());
        assert!(toks("?!.,;:-- ()").is_empty());
    }

    #[test]
    fn repeats_are_kept_in_order() {
        assert_eq!(toks("a b a"), ["a", "b", "a"]);
    }

    #[test]
    fn analyzer_names_round_trip() {
        assert_eq!("plain".parse::<Analyzer>().unwrap(), Analyzer::Plain);
        assert!("porter".parse::<Analyzer>().is_err());
    }
}
