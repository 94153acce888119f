//! Citation contexts over a Document built from the input: the text before
//! the first `\0` is the body (paragraphs split at blank lines, superscript
//! ranges taken from the input's bytes, possibly off character boundaries),
//! the lines after it are reference entries, parsed. No panic; every context
//! is a sentence range of its paragraph on a character boundary, citing
//! entries that exist.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litindex::fulltext::{Document, Paragraph, Reference, Section, contexts, refs};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (body, entries) = text.split_once('\0').unwrap_or((&text, "[1] A. Smith, B. Jones. A title. 2019."));
    let paragraphs: Vec<Paragraph> = body
        .split("\n\n")
        .map(|p| {
            let raised = data
                .chunks(2)
                .take(8)
                .map(|c| (c[0] as usize, c[0] as usize + *c.get(1).unwrap_or(&1) as usize % 8))
                .collect();
            Paragraph { text: p.to_string(), page_starts: vec![(0, 1), (p.len() / 2, 2)], raised }
        })
        .collect();
    let references = entries
        .lines()
        .enumerate()
        .map(|(i, raw)| Reference {
            label: (i % 2 == 0).then(|| (i + 1).to_string()),
            raw: raw.to_string(),
            page: 1,
            parsed: refs::parse(raw),
        })
        .collect::<Vec<_>>();
    let doc = Document {
        sections: vec![Section { heading: String::new(), level: 1, paragraphs }],
        references,
        ..Document::default()
    };
    for c in contexts::find(&doc) {
        let text = &doc.sections[c.section].paragraphs[c.paragraph].text;
        assert!(
            c.start < c.end && c.end <= text.len() && text.is_char_boundary(c.start) && text.is_char_boundary(c.end)
        );
        assert!(!c.references.is_empty() && c.references.iter().all(|&r| r < doc.references.len()));
        assert_eq!(c.markers.is_empty(), false);
    }
});
