//! Prints what the PDF reader makes of each file given: front matter, the
//! sections with their paragraphs and pages, captions, reference entries, citation contexts.
//! `cargo run --example pdf_dump -- FILE.pdf...`

use litindex::fulltext::{Limits, read_pdf};

fn main() {
    for path in std::env::args().skip(1) {
        println!("==== {path}");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("ERROR {e}");
                continue;
            }
        };
        match read_pdf(&bytes, &Limits::default()) {
            Err(e) => println!("ERROR {e}"),
            Ok(d) => {
                println!(
                    "pages {}\ntitle {:?}\nauthors {:?}\nyear {:?} doi {:?} arxiv {:?}\nnotes {:?}\nabstract {:?}",
                    d.pages, d.title, d.authors, d.year, d.doi, d.arxiv, d.notes, d.abstract_
                );
                for s in &d.sections {
                    println!("\n## [{}] {}", s.level, s.heading);
                    for p in &s.paragraphs {
                        println!("  p{:?} raised{:?} {}", p.page_starts, p.raised, p.text);
                    }
                }
                for c in &d.captions {
                    println!("CAPTION p{} {}", c.page, c.text);
                }
                for (i, r) in d.references.iter().enumerate() {
                    println!("REF #{i} {:?} p{} {}\n    TITLE {:?}", r.label, r.page, r.raw, r.parsed.title);
                }
                for c in &d.contexts {
                    let text = d
                        .sections
                        .get(c.section)
                        .and_then(|s| s.paragraphs.get(c.paragraph))
                        .and_then(|p| p.text.get(c.start..c.end))
                        .unwrap_or("");
                    println!("CONTEXT p{} {:?} -> {:?} {}", c.page, c.markers, c.references, text);
                }
            }
        }
    }
}
