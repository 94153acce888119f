//! Tests of the format layer as a whole: format names, and every format
//! over every fixture in `tests/fixtures/ingest/` (sniffing, reading,
//! damaged copies).

use std::io::Write;
use std::path::Path;

use super::*;
use crate::paper::Link;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest")).join(name)
}

#[test]
fn format_names_round_trip() {
    for f in InputFormat::ALL {
        assert_eq!(f.name().parse::<InputFormat>().unwrap(), f);
    }
    assert!("endnote".parse::<InputFormat>().is_err());
}

#[test]
fn collapse_whitespace() {
    assert_eq!(collapse_ws("  A\n  title\twith   gaps "), "A title with gaps");
}

/// `sniff` over every fixture of this directory (and small inline Paper and
/// edges files).
#[test]
fn sniff_recognises_every_fixture() {
    let expected = [
        ("beir_corpus.jsonl", InputFormat::Beir),
        ("arxiv_oai.jsonl", InputFormat::ArxivOai),
        ("arxiv_atom.xml", InputFormat::ArxivAtom),
        ("arxiv_atom_error.xml", InputFormat::ArxivAtom),
        ("s2_paper.json", InputFormat::S2),
        ("s2_batch.json", InputFormat::S2),
        ("s2_batch_array.json", InputFormat::S2),
        ("s2_references.json", InputFormat::S2),
        ("s2_citations.json", InputFormat::S2),
        ("s2_papers.jsonl", InputFormat::S2Papers),
        ("s2_abstracts.jsonl", InputFormat::S2Abstracts),
        ("s2_citations.jsonl", InputFormat::S2Citations),
        ("openalex_work.json", InputFormat::OpenAlex),
        ("openalex_list.json", InputFormat::OpenAlex),
        ("openalex_works.jsonl", InputFormat::OpenAlex),
        ("edges.tsv", InputFormat::Edges),
        ("library.bib", InputFormat::Bibtex),
        ("library.ris", InputFormat::Ris),
        ("library_csl.json", InputFormat::CslJson),
    ];
    let mut wrong = Vec::new();
    for (name, format) in expected {
        let got = sniff(&mut open_input(&fixture(name)).unwrap());
        if got.as_ref().ok() != Some(&format) {
            wrong.push(format!("{name}: expected {format}, got {got:?}"));
        }
    }
    for (text, format) in [
        ("{\"id\": \"p001\", \"title\": \"A paper\", \"year\": 2020}\n", InputFormat::Paper),
        ("p001\tp002\np002\tp003\n", InputFormat::Edges),
    ] {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f.flush().unwrap();
        let got = sniff(&mut open_input(f.path()).unwrap());
        if got.as_ref().ok() != Some(&format) {
            wrong.push(format!("inline {format}: got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Every fixture, read with the format `sniff` picks, parses without a
/// single error (the shared paper and its neighbours are all well formed).
#[test]
fn every_fixture_parses_cleanly_through_read() {
    let names = [
        "beir_corpus.jsonl",
        "arxiv_oai.jsonl",
        "arxiv_atom.xml",
        "s2_paper.json",
        "s2_batch.json",
        "s2_batch_array.json",
        "s2_papers.jsonl",
        "s2_abstracts.jsonl",
        "s2_citations.jsonl",
        "openalex_work.json",
        "openalex_list.json",
        "openalex_works.jsonl",
        "edges.tsv",
        "library.bib",
        "library.ris",
        "library_csl.json",
    ];
    for name in names {
        let mut input = open_input(&fixture(name)).unwrap();
        let format = sniff(&mut input).unwrap();
        let items: Vec<_> = super::read(format, input, &FormatOptions::default()).unwrap().collect();
        assert!(!items.is_empty(), "{name}");
        for item in items {
            assert!(item.is_ok(), "{name}: {}", item.unwrap_err());
        }
    }
    // The edges fixture names the shared paper under two spellings.
    let links: Vec<Item> =
        crate::ingest::formats::edges::read(open_input(&fixture("edges.tsv")).unwrap()).map(|r| r.unwrap().0).collect();
    assert_eq!(
        links,
        vec![
            Item::Link(Link {
                citing: PaperId::Arxiv("2101.00001".into()),
                cited: PaperId::OpenAlex("W2000000002".into())
            }),
            Item::Link(Link {
                citing: PaperId::Doi("10.1234/shared.paper.2021".into()),
                cited: PaperId::CorpusId(1111)
            }),
        ]
    );
}

/// Every format over truncated and corrupted copies of every fixture:
/// errors are fine, panics are not.
#[test]
fn no_format_panics_on_damaged_fixtures() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ingest"));
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let mut variants: Vec<Vec<u8>> = Vec::new();
        for k in 1..6 {
            variants.push(bytes[..bytes.len() * k / 6].to_vec());
        }
        for _ in 0..6 {
            let mut v = bytes.clone();
            for _ in 0..4 {
                let i = (next() % v.len() as u64) as usize;
                v[i] = [b'"', b'{', b']', b'<', b'>', b'\n', b'\t', 0xc3, 0xff, b'0'][(next() % 10) as usize];
            }
            variants.push(v);
        }
        for v in variants {
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(&v).unwrap();
            f.flush().unwrap();
            for format in InputFormat::ALL {
                let opts = FormatOptions { paper: Some(PaperId::CorpusId(1)), ..FormatOptions::default() };
                if let Ok(items) = super::read(format, open_input(f.path()).unwrap(), &opts) {
                    for item in items.take(10_000) {
                        if matches!(item, Err(ReadError::File(_))) {
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// `sniff` on the compact (one-line) form of each whole-document fixture,
/// which is what the APIs actually send. Ignored: a compact OpenAlex list
/// page `{"meta": …, "results": [...]}` is not recognised (its top-level
/// keys name no format, and the whole-text fallback is only tried when
/// the first line is not a complete object).
#[test]
fn sniff_recognises_compact_documents() {
    for (name, format) in [
        ("s2_paper.json", InputFormat::S2),
        ("s2_batch.json", InputFormat::S2),
        ("s2_references.json", InputFormat::S2),
        ("openalex_work.json", InputFormat::OpenAlex),
        ("openalex_list.json", InputFormat::OpenAlex),
    ] {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture(name)).unwrap()).unwrap();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(v.to_string().as_bytes()).unwrap();
        f.flush().unwrap();
        assert_eq!(sniff(&mut open_input(f.path()).unwrap()).ok(), Some(format), "compact {name}");
    }
}

/// Each library format's venue comes from the first of its venue fields
/// that is present (BibTeX `journal`, `journaltitle`, `booktitle`; RIS `JO`,
/// `JF`, `T2`, `JA`; CSL `container-title`), and a blank or absent one is none.
#[test]
fn library_formats_read_the_venue_from_their_fields_in_order() {
    let cases = [
        (
            InputFormat::Bibtex,
            "@inproceedings{k, title = {T}, booktitle = {Proc. {ACL} \\& more}}\n",
            Some("Proc. ACL & more"),
        ),
        (InputFormat::Bibtex, "@article{k, title = {T}, booktitle = {B}, journaltitle = {J. X}}\n", Some("J. X")),
        (InputFormat::Bibtex, "@article{k, title = {T}, journaltitle = {J. X}, journal = {J}}\n", Some("J")),
        (InputFormat::Bibtex, "@misc{k, title = {T}, journal = {  }}\n", None),
        (InputFormat::Ris, "TY  - JOUR\nID  - k\nTI  - T\nT2  - Second\nJF  - Full\nER  - \n", Some("Full")),
        (InputFormat::Ris, "TY  - JOUR\nID  - k\nTI  - T\nJA  - Abbr\nT2  - Second\nER  - \n", Some("Second")),
        (InputFormat::Ris, "TY  - GEN\nID  - k\nTI  - T\nER  - \n", None),
        (InputFormat::CslJson, r#"[{"id": "k", "title": "T", "container-title": "  J.   Y "}]"#, Some("J. Y")),
        (InputFormat::CslJson, r#"[{"id": "k", "title": "T"}]"#, None),
    ];
    for (format, text, venue) in cases {
        let input = memory_input("lib", text.as_bytes().to_vec());
        let items: Vec<_> = super::read(format, input, &FormatOptions::default()).unwrap().collect();
        let [Ok((Item::Record(r), _))] = &items[..] else { panic!("{text}: {items:?}") };
        assert_eq!(r.venue.as_deref(), venue, "{text}");
    }
}

/// The library readers on proptest's random and mutated files: never a
/// panic (the fuzz targets `bibtex_reader`, `ris_reader`, `csl_json_reader`
/// run the same function for longer).
mod library_readers_arbitrary {
    use super::super::{InputFormat, read_all};
    use proptest::prelude::*;

    const BIB: &str = "@string{j = \"J\"}\n% c @x\n@article{k, title = {T\\textendash{}$\\mu$ -- ``q''}, author = {A, B and others}, journal = j # {x}, crossref = {p}, xdata = {p}}\n@proceedings{p, title = {P}, year = 2020}\n";
    const RIS: &str = "1.\nTY  - JOUR\nAU  - Last, First\nTI  - Title\n  wrapped\nPY  - 2020\nER  - \n";
    const CSL: &str = "[{\"id\": \"a\", \"type\": \"book\", \"title\": \"T\", \"issued\": {\"literal\": \"x\"}, \"author\": [{\"literal\": \"et al.\"}]}]";

    fn mutated(seed: &'static str) -> impl Strategy<Value = Vec<u8>> {
        (proptest::collection::vec((any::<u16>(), any::<u8>(), 0u8..3), 0..12)).prop_map(move |edits| {
            let mut b = seed.as_bytes().to_vec();
            for (at, byte, op) in edits {
                let i = usize::from(at) % (b.len() + 1);
                match op {
                    0 => b.insert(i, byte),
                    1 if i < b.len() => {
                        b.remove(i);
                    }
                    _ if i < b.len() => b[i] = byte,
                    _ => {}
                }
            }
            b
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]
        #[test]
        fn mutated_library_files_never_panic(bib in mutated(BIB), ris in mutated(RIS), csl in mutated(CSL), raw in proptest::collection::vec(any::<u8>(), 0..256)) {
            for format in [InputFormat::Bibtex, InputFormat::Ris, InputFormat::CslJson] {
                for bytes in [&bib, &ris, &csl, &raw] {
                    let _ = read_all(format, bytes.clone());
                }
            }
        }
    }
}
