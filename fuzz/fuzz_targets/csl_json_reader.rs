//! The csl-json reader (issue 24): arbitrary bytes read whole as a csl-json
//! file, with encoding detection, LaTeX decoding and every record built.
//! Nothing may panic; a bad record or a bad file is an error value. Seeded
//! from ../shared/data/refsuites by scripts/fuzz.sh.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litindex::ingest::{read_all_for_fuzzing, InputFormat};

fuzz_target!(|data: &[u8]| {
    let _ = read_all_for_fuzzing(InputFormat::CslJson, data.to_vec());
});
