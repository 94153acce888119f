//! A pack's Markdown form, and reading a pack back (JSON or Markdown) for
//! the citation check, which needs only each number's paper id.
//!
//! ```text
//! # Sources
//!
//! Answer the question using only the numbered sources below. …
//!
//! Question: QUESTION
//!
//! [1] Title (2019), arxiv:1234.5678
//!     First evidence sentence.
//!     Second evidence sentence.
//! ```
//!
//! A source line is `[n] title (year), id` (`(n.d.)` without a year); the id
//! is what follows its last `, ` and never holds a space.

use anyhow::{Context, bail};
use serde::Deserialize;

use super::{Pack, Source};

/// What the citation check needs of a source: its number and paper id.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PackSource {
    pub number: usize,
    pub id: String,
}

/// The header of a pack: title, instructions, question.
pub(super) fn header(pack: &Pack) -> String {
    format!("# Sources\n\n{}\n\nQuestion: {}\n", pack.instructions, one_line(&pack.question))
}

/// One source: its line, then its sentences indented, then a blank line.
pub(super) fn source_block(s: &Source) -> String {
    let year = s.year.map_or("n.d.".to_string(), |y| y.to_string());
    let mut out = format!("\n[{}] {} ({year}), {}\n", s.number, one_line(&s.title), s.id);
    for (i, sentence) in s.sentences.iter().enumerate() {
        out.push_str("    ");
        out.push_str(&one_line(sentence));
        if let Some(Some(page)) = s.pages.get(i) {
            out.push_str(&format!(" (p. {page})"));
        }
        out.push('\n');
    }
    out
}

/// `text` with its runs of whitespace (newlines too) made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Deserialize)]
struct JsonPack {
    sources: Vec<PackSource>,
}

/// The sources of a pack file's text: the JSON form of `context` (an object
/// with `sources`) or its Markdown form. `name` names the file in errors.
pub fn parse_pack(text: &str, name: &str) -> anyhow::Result<Vec<PackSource>> {
    let sources = if text.trim_start().starts_with('{') {
        serde_json::from_str::<JsonPack>(text)
            .with_context(|| format!("{name}: not a context pack (JSON with `sources`, each with `number` and `id`)"))?
            .sources
    } else {
        text.lines()
            .enumerate()
            .filter_map(|(i, line)| source_line(line).map(|s| (i, s)))
            .map(|(i, s)| s.with_context(|| format!("{name}:{}: a source line must be `[n] title (year), id`", i + 1)))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    for (i, s) in sources.iter().enumerate() {
        if sources[..i].iter().any(|t| t.number == s.number) {
            bail!("{name}: source [{}] appears twice", s.number);
        }
    }
    if sources.is_empty() {
        bail!("{name}: no sources: expected the output of `litindex context` (JSON or Markdown)");
    }
    Ok(sources)
}

/// A Markdown source line (`None` for any other line): `[n] …, id`.
fn source_line(line: &str) -> Option<anyhow::Result<PackSource>> {
    let rest = line.strip_prefix('[')?;
    let (number, rest) = rest.split_once("] ")?;
    let number: usize = number.parse().ok()?;
    Some(match rest.rsplit_once(", ") {
        Some((_, id)) if !id.trim().is_empty() && !id.trim().contains(' ') => {
            Ok(PackSource { number, id: id.trim().to_string() })
        }
        _ => Err(anyhow::anyhow!("no `, id` at the end of source [{number}]")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_json_packs_read_back() {
        let pack = Pack {
            question: "why\nnot".into(),
            instructions: super::super::INSTRUCTIONS.into(),
            sources: vec![
                Source {
                    number: 1,
                    id: "arxiv:1".into(),
                    title: "A, b".into(),
                    year: Some(2001),
                    sentences: vec!["S.".into()],
                    pages: vec![],
                },
                Source {
                    number: 2,
                    id: "doi:10.1/x".into(),
                    title: "C".into(),
                    year: None,
                    sentences: vec![],
                    pages: vec![],
                },
            ],
            omitted: 0,
            budget_tokens: None,
            estimated_tokens: 0,
        };
        let md = pack.to_markdown();
        assert!(md.contains("Question: why not\n"), "{md}");
        assert!(md.contains("\n[1] A, b (2001), arxiv:1\n    S.\n"), "{md}");
        assert!(md.contains("\n[2] C (n.d.), doi:10.1/x\n"), "{md}");
        let want =
            vec![PackSource { number: 1, id: "arxiv:1".into() }, PackSource { number: 2, id: "doi:10.1/x".into() }];
        assert_eq!(parse_pack(&md, "p.md").unwrap(), want);
        assert_eq!(parse_pack(&serde_json::to_string(&pack).unwrap(), "p.json").unwrap(), want);
    }

    #[test]
    fn bad_packs_name_the_file_and_line() {
        let err = parse_pack("# Sources\n[1] no id here\n", "p.md").unwrap_err().to_string();
        assert!(err.starts_with("p.md:2:"), "{err}");
        let err = parse_pack("{\"sources\": 3}", "p.json").unwrap_err().to_string();
        assert!(err.starts_with("p.json: not a context pack"), "{err}");
        assert!(parse_pack("hello\n", "p.md").unwrap_err().to_string().contains("no sources"));
        let err = parse_pack("[1] A (1), x\n[1] B (2), y\n", "p.md").unwrap_err().to_string();
        assert!(err.contains("[1] appears twice"), "{err}");
    }
}
