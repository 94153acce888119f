//! `paper`: the core Paper JSON Lines (`id`, `title`, `abstract`, `year`,
//! `authors`, `references`, `citations`, `source`; unknown keys ignored).
//! Ids are kept verbatim unless they have a recognised shape (an arXiv id,
//! a DOI, …), in which case they are normalised like any other.

use super::{json_lines, Format, Input, Items};
use crate::ingest::record::{Item, Record};
use crate::source::jsonl::parse_value;

pub fn read(input: Input) -> Items {
    json_lines(input, Format::Paper, |value| {
        let p = parse_value(value)?;
        Ok(vec![Item::Record(Record::from_paper(p, "paper".into()))])
    })
}
