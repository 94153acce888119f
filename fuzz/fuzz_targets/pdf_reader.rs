//! The PDF reader on arbitrary bytes: `fulltext::read_pdf` returns a
//! document or an error, never panics (a panic inside the PDF crates is
//! caught by the reader; one anywhere else is a crash here), and within a
//! short time limit per input. Seeded with the dev PDFs (scripts/fuzz.sh).

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use litindex::fulltext::{read_pdf, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_file_bytes: 8 * 1024 * 1024,
        max_pages: 50,
        max_decompressed_bytes: 64 * 1024 * 1024,
        timeout: Duration::from_secs(5),
    };
    if let Ok(doc) = read_pdf(data, &limits) {
        // What the document says of itself holds together.
        for s in &doc.sections {
            for p in &s.paragraphs {
                assert!(p.page_starts.first().is_none_or(|(at, _)| *at == 0));
                for &(a, b) in &p.raised {
                    assert!(a < b && b <= p.text.len());
                    assert!(p.text.is_char_boundary(a) && p.text.is_char_boundary(b));
                }
            }
        }
    }
});
