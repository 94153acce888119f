//! The loader: arbitrary bytes (gzip-compressed or not) read in the sniffed
//! format and in every format, and every record read filed by the ingest
//! engine into a scratch index, which must then pass `check`. Nothing may
//! panic; a bad record or a bad file is an error value, never a crash.

#![no_main]

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Cursor};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use litindex::analyzer::Analyzer;
use litindex::bm25::Bm25;
use litindex::ingest::formats::{self, Format, FormatOptions, Input, ReadError};
use litindex::ingest::ids::PaperId;
use litindex::ingest::record::Item;
use litindex::ingest::Ingester;
use rusqlite::Connection;

fn input(data: &[u8]) -> Input {
    let reader: Box<dyn BufRead> = if data.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(Cursor::new(data.to_vec()))))
    } else {
        Box::new(Cursor::new(data.to_vec()))
    };
    Input {
        path: PathBuf::from("fuzz.jsonl"),
        reader,
        bytes_read: Arc::new(AtomicU64::new(0)),
        total_bytes: data.len() as u64,
    }
}

thread_local! {
    /// An empty index, reused: each input is filed in a transaction that is rolled back.
    static INDEX: RefCell<(tempfile::TempDir, Connection)> = RefCell::new({
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz.db");
        litindex::store::create_index(&path, Analyzer::Plain, Bm25::default(), |_| Ok(())).unwrap();
        let conn = litindex::store::open_for_writing(&path).unwrap();
        (dir, conn)
    });
}

fuzz_target!(|data: &[u8]| {
    let mut probe = input(data);
    let sniffed = formats::sniff(&mut probe).ok();
    let opts = FormatOptions { paper: Some(PaperId::parse("arXiv:2101.00001")), ..FormatOptions::default() };
    for format in sniffed.into_iter().chain(Format::ALL) {
        let Ok(items) = formats::read(format, input(data), &opts) else { continue };
        INDEX.with(|index| {
            let mut index = index.borrow_mut();
            let tx = index.1.transaction().unwrap();
            let mut ingester = Ingester::new(&tx).unwrap();
            for item in items.take(2_000) {
                match item {
                    Ok((Item::Record(rec), origin)) => {
                        assert!(!origin.is_empty());
                        // An engine error (e.g. an empty id) is a value, not a panic.
                        let _ = ingester.add_record(rec, format.name(), &origin);
                    }
                    Ok((Item::Link(link), _)) => {
                        let _ = ingester.add_link(&link);
                    }
                    Err(ReadError::Record(e)) => assert!(!e.to_string().is_empty()),
                    Err(ReadError::File(_)) => break,
                }
            }
            ingester.finish().unwrap();
            let report = litindex::store::check(&tx);
            assert!(report.ok, "{format}: {:#?}", report.violated().collect::<Vec<_>>());
            // Dropped without commit: rolled back.
        });
    }
});
