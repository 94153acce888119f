//! The loader: arbitrary bytes (gzip-compressed or not) built into a new
//! index as a file in the sniffed format and in every format, through the
//! same path `litindex build` and `ingest` take, skipping bad records. The
//! index built, if any, must then pass `check`. Nothing may panic; a bad
//! record or a bad file is an error value, never a crash.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litindex::ingest::InputFormat as Format;
use litindex::ingest::{build, IngestOptions, Input};
use litindex::store::Store;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fuzz.input");
    std::fs::write(&file, data).unwrap();
    let opts = IngestOptions {
        paper: Some("arXiv:2101.00001".into()),
        skip_invalid: true,
        ..IngestOptions::default()
    };
    let formats = std::iter::once(None).chain(Format::ALL.into_iter().map(Some));
    for (i, format) in formats.enumerate() {
        let db = dir.path().join(format!("fuzz-{i}.db"));
        // A fault of the file (not this format, truncated gzip) is an error value.
        if build(&db, &[Input::File { path: file.clone(), format }], &opts).is_err() {
            assert!(!db.exists(), "a failed build left {}", db.display());
            continue;
        }
        let report = Store::open(&db).unwrap().check();
        assert!(report.ok, "{format:?}: {:#?}", report.violated().collect::<Vec<_>>());
    }
});
