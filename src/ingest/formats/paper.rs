//! `paper`: the core Paper JSON Lines (`id`, `title`, `abstract`, `year`,
//! `authors`, `references`, `citations`, `source`; unknown keys ignored).
//! Ids are kept verbatim unless they have a recognised shape (an arXiv id,
//! a DOI, …), in which case they are normalised like any other.

use super::{json_lines, Format, Input, Items};
use crate::ingest::ids::PaperId;
use crate::ingest::record::{Item, Record};
use crate::source::jsonl::parse_value;

pub fn read(input: Input) -> Items {
    json_lines(input, Format::Paper, |value| {
        let p = parse_value(value)?;
        let source_id = PaperId::parse(&p.id);
        let arxiv_version = PaperId::parse_arxiv(&p.id).and_then(|(_, v)| v);
        Ok(vec![Item::Record(Record {
            source: "paper".into(),
            source_id,
            ids: Vec::new(),
            title: p.title,
            abstract_: p.abstract_,
            year: p.year,
            authors: p.authors,
            references: p.references.iter().map(|r| PaperId::parse(r)).collect(),
            citations: p.citations.iter().map(|c| PaperId::parse(c)).collect(),
            arxiv_version,
        })])
    })
}
