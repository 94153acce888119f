//! The query language: a query string to free text for the first stage and
//! a [`Filter`].
//!
//! ```text
//! +word             must appear (also free text)          -word            must not appear
//! "exact phrase"    must appear as a phrase (also free text)  -"a phrase"  must not appear
//! author:NAME       author:"van der Berg"                 year:2019..2023  year:2020..  year:..2015  year:2020
//! venue:NAME        venue:"Comm. ACM"                     id:PREFIX
//! anything else     free text
//! ```
//!
//! Words are separated by whitespace; a key is matched case-insensitively
//! and a word with another `key:` (`ratio:3`) is free text, as are a `+` or
//! `-` before no letter or digit (`-`, `--`, `-)`), a `+` or `-` before a
//! digit (numbers, ranges and gene names: `-2`, `+3`, `-0.5`, so a pasted
//! claim such as `E2f-1, -2, -3 TKO cells` excludes nothing) and a `-` inside
//! a word (`COVID-19`). A caller that wants no operators at all passes the
//! query as free text ([`SearchRequest::query_syntax`] off: `search
//! --literal`). Errors name the part at fault: an unclosed quote, an empty
//! `author:`, a bad `year:`.

use std::fmt;

use serde::Serialize;

use super::filter::{Filter, YearRange};
use super::request::SearchRequest;

/// A query split into its free text and its filter; serialized as
/// `parsed_query` in a search's result, so every surface can show what a
/// query's operators excluded.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ParsedQuery {
    /// What the first stage scores: the free words, the `+word`s and the phrases' words.
    pub text: String,
    pub filter: Filter,
}

/// A query the language cannot read; its message names the part at fault.
/// A user's mistake: the binary exits 2 for it, whichever command read the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QueryError {}

/// One whitespace-separated part of a query: its text before any quote,
/// and the quoted text when it has one.
struct Part {
    head: String,
    quoted: Option<String>,
}

/// Splits on whitespace outside quotes; a quote opens after the start of a
/// part or after its `+`, `-` or `key:` head, and must close.
fn parts(input: &str) -> Result<Vec<Part>, QueryError> {
    let mut out = Vec::new();
    let mut chars = input.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut head = String::new();
        let mut quoted = None;
        while let Some(&(_, c)) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            if c == '"' {
                let mut q = String::new();
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    if c == '"' {
                        closed = true;
                        break;
                    }
                    q.push(c);
                }
                if !closed {
                    let rest: String = input[start..].chars().take(40).collect();
                    return Err(QueryError(format!("unclosed quote in the query at `{rest}`")));
                }
                quoted = Some(q);
                break;
            }
            head.push(c);
        }
        // Text glued after a closing quote (`"a b"c`) joins the free text.
        let mut tail = String::new();
        while let Some(&(_, c)) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            tail.push(c);
            chars.next();
        }
        out.push(Part { head, quoted });
        if !tail.is_empty() {
            out.push(Part { head: tail, quoted: None });
        }
    }
    Ok(out)
}

/// Parses a query in the language of the module doc.
pub fn parse(input: &str) -> Result<ParsedQuery, QueryError> {
    let mut text: Vec<String> = Vec::new();
    let mut f = Filter::default();
    for Part { head, quoted } in parts(input)? {
        let key = head.split_once(':').map(|(k, v)| (k.to_ascii_lowercase(), v));
        match (key, quoted) {
            (Some((k, v)), q) if ["author", "year", "venue", "id"].contains(&k.as_str()) => {
                let value = match q {
                    Some(q) => format!("{v}{q}"),
                    None => v.to_string(),
                };
                let value = value.trim();
                if value.is_empty() {
                    return Err(QueryError(format!("empty `{k}:` in the query: give a value, e.g. {}", example(&k))));
                }
                match k.as_str() {
                    "author" => f.authors.push(value.to_string()),
                    "venue" => f.venues.push(value.to_string()),
                    "id" => f.id_prefixes.push(value.to_string()),
                    _ => {
                        let r = YearRange::parse(value)
                            .map_err(|e| QueryError(format!("bad filter `year:{value}`: {e}")))?;
                        f = std::mem::take(&mut f).and(Filter { years: Some(r), ..Filter::default() });
                    }
                }
            }
            (_, Some(q)) => match head.as_str() {
                "" | "+" => {
                    if !q.trim().is_empty() {
                        text.push(q.clone());
                        f.must.push(q);
                    }
                }
                "-" => {
                    if !q.trim().is_empty() {
                        f.must_not.push(q);
                    }
                }
                other => {
                    // `word"…"`: a quote inside a word is text, both halves.
                    text.push(other.to_string());
                    text.push(q);
                }
            },
            (_, None) => {
                // `+`/`-` before something without a letter or digit (`--`, `-)`)
                // is text, and so is one before a digit (`-2`, `+3`, `-0.5`).
                let word =
                    |w: &&str| w.chars().any(char::is_alphanumeric) && !w.starts_with(|c: char| c.is_ascii_digit());
                if let Some(w) = head.strip_prefix('+').filter(word) {
                    text.push(w.to_string());
                    f.must.push(w.to_string());
                } else if let Some(w) = head.strip_prefix('-').filter(word) {
                    f.must_not.push(w.to_string());
                } else {
                    text.push(head);
                }
            }
        }
    }
    Ok(ParsedQuery { text: text.join(" "), filter: f })
}

impl SearchRequest {
    /// This request with its query read in the query language: the free
    /// text as the query, the query's filters joined to `filter`.
    pub fn parsed(&self) -> Result<SearchRequest, QueryError> {
        Ok(self.parsed_with_query()?.0)
    }

    /// [`SearchRequest::parsed`] and the query as the language read it (what
    /// a result echoes as `parsed_query`); a request whose query is free text
    /// (`query_syntax` off) is returned as it is, its whole query the text.
    pub fn parsed_with_query(&self) -> Result<(SearchRequest, ParsedQuery), QueryError> {
        if !self.query_syntax {
            let q = ParsedQuery { text: self.query.clone(), filter: Filter::default() };
            return Ok((self.clone(), q));
        }
        let q = parse(&self.query).map_err(|e| QueryError(format!("query {:?}: {e}", self.query)))?;
        let request = SearchRequest {
            query: q.text.clone(),
            filter: self.filter.clone().and(q.filter.clone()),
            query_syntax: false,
            ..self.clone()
        };
        Ok((request, q))
    }
}

impl fmt::Display for ParsedQuery {
    /// The echo line's body: `text "…"`, then each filter the query produced
    /// (`must: …; must not: …; author: …; year: …; venue: …; id: …`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "text {:?}", self.text)?;
        let list = |v: &[String]| v.iter().map(|w| format!("{w:?}")).collect::<Vec<_>>().join(", ");
        let fl = &self.filter;
        for (name, v) in [
            ("must", &fl.must),
            ("must not", &fl.must_not),
            ("author", &fl.authors),
            ("venue", &fl.venues),
            ("id", &fl.id_prefixes),
        ] {
            if !v.is_empty() {
                write!(f, "; {name}: {}", list(v))?;
            }
        }
        if let Some(y) = fl.years {
            write!(f, "; year: {y}")?;
        }
        Ok(())
    }
}

fn example(key: &str) -> &'static str {
    match key {
        "author" => "author:smith or author:\"van der Berg\"",
        "year" => "year:2019..2023, year:2020.. or year:..2015",
        "venue" => "venue:neurips",
        _ => "id:2101.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ParsedQuery {
        parse(s).unwrap()
    }

    #[test]
    fn operators_split_text_from_filters() {
        let q =
            p(r#"sparse +attention -dense "local window" author:"van der Berg" year:2019..2023 venue:NeurIPS id:p00"#);
        assert_eq!(q.text, "sparse attention local window");
        assert_eq!(q.filter.must, ["attention", "local window"]);
        assert_eq!(q.filter.must_not, ["dense"]);
        assert_eq!(q.filter.authors, ["van der Berg"]);
        assert_eq!(q.filter.years, Some(YearRange { from: Some(2019), to: Some(2023) }));
        assert_eq!(q.filter.venues, ["NeurIPS"]);
        assert_eq!(q.filter.id_prefixes, ["p00"]);
        assert_eq!(p(r#"-"a b" AUTHOR:smith"#).filter.must_not, ["a b"]);
        assert_eq!(p("year:2020.. year:..2022").filter.years, Some(YearRange { from: Some(2020), to: Some(2022) }));
    }

    #[test]
    fn plain_text_stays_text() {
        for s in [
            "COVID-19 and IL-6",
            "ratio:3 - + x",
            "a  b",
            "'); DROP TABLE papers; --",
            "+) -.",
            "Differentiated E2f-1, -2, -3 TKO cells in the intestine do not exhibit apoptosis.",
            "doses of +3 and -0.5 mg, range -10..+20, -2x",
        ] {
            let q = p(s);
            assert!(q.filter.is_empty(), "{s}");
            assert_eq!(q.text, s.split_whitespace().collect::<Vec<_>>().join(" "));
        }
        assert_eq!(p("").text, "");
    }

    #[test]
    fn a_sign_before_a_digit_is_text_and_before_a_letter_an_operator() {
        let q = p("-2 +3 -0.5 -x2 +y3");
        assert_eq!(q.text, "-2 +3 -0.5 y3");
        assert_eq!(q.filter.must, ["y3"]);
        assert_eq!(q.filter.must_not, ["x2"]);
    }

    #[test]
    fn the_echo_names_the_text_and_each_filter() {
        let q = p(r#"sparse -dense +window author:"van der Berg" year:2020.."#);
        assert_eq!(
            q.to_string(),
            r#"text "sparse window"; must: "window"; must not: "dense"; author: "van der Berg"; year: 2020.."#
        );
        assert_eq!(p("just words").to_string(), r#"text "just words""#);
        let json = serde_json::to_value(&q).unwrap();
        assert_eq!(json["text"], "sparse window");
        assert_eq!(json["filter"]["must_not"][0], "dense");
    }

    #[test]
    fn a_free_text_request_is_not_parsed() {
        let mut r = SearchRequest::new("-x author:", super::super::SearchParams::default());
        let (same, q) = r.parsed_with_query().unwrap();
        assert_eq!((same.query.as_str(), q.text.as_str()), ("-x author:", "-x author:"));
        assert!(q.filter.is_empty());
        r.query_syntax = true;
        assert!(r.parsed_with_query().is_err());
    }

    #[test]
    fn malformed_filters_are_named() {
        for (s, says) in [
            ("x year:20x9", "year:20x9"),
            ("author:", "empty `author:`"),
            ("author:\"\"", "empty `author:`"),
            ("venue: x", "empty `venue:`"),
            ("\"open phrase", "unclosed quote"),
            ("year:2023..2019", "year:2023..2019"),
        ] {
            let e = parse(s).unwrap_err().to_string();
            assert!(e.contains(says), "{s}: {e}");
        }
    }
}
