//! The reference-entry parser on arbitrary text: no panic, and the fields
//! keep their promises (a DOI is lowercase and starts `10.`, a year is a
//! year, no empty title or author, the same answer every time).

#![no_main]

use libfuzzer_sys::fuzz_target;
use litindex::fulltext::refs;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = refs::parse(&text);
    assert_eq!(parsed, refs::parse(&text));
    if let Some(doi) = &parsed.doi {
        assert!(doi.starts_with("10.") && *doi == doi.to_lowercase(), "{doi:?}");
    }
    if let Some(year) = parsed.year {
        assert!((1600..=2099).contains(&year), "{year}");
    }
    assert!(parsed.title.as_deref().is_none_or(|t| !t.trim().is_empty()));
    assert!(parsed.authors.iter().all(|a| !a.trim().is_empty()));
});
