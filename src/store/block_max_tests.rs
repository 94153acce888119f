//! The block-max paths against the exhaustive [`Store::bm25_all`] on random
//! corpora, built in one go and changed by ingests and deletions.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rusqlite::Connection;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::candidate::{Candidate, positive};
use crate::store::Store;
use crate::store::create::create_index;
use crate::store::postings_writer::{PaperDraft, PostingsWriter, refresh_meta};

fn draft<'a>(id: &'a str, text: &'a str) -> PaperDraft<'a> {
    PaperDraft {
        id,
        title: text,
        abstract_: "",
        year: None,
        authors: &[],
        source: "paper",
        arxiv_version: None,
        venue: None,
    }
}

/// A new index at `dir/t.db` of `docs` (id, title), built by one writer.
pub(crate) fn build(dir: &Path, docs: &[(String, String)]) -> PathBuf {
    let path = dir.join("t.db");
    create_index(&path, Analyzer::Plain, Bm25::default(), |h| {
        let conn = h.conn;
        let mut w = PostingsWriter::new(Analyzer::Plain);
        for (id, text) in docs {
            w.insert_paper(conn, &draft(id, text))?;
        }
        w.finish(conn)?;
        refresh_meta(conn)
    })
    .unwrap();
    path
}

/// Deletes `gone`, then adds `add`, in one transaction, as an ingest does.
fn change(path: &Path, gone: &[String], add: &[(String, String)]) {
    let mut conn = Connection::open(path).unwrap();
    let tx = conn.transaction().unwrap();
    let mut w = PostingsWriter::new(Analyzer::Plain);
    for id in gone {
        w.delete_paper(&tx, id).unwrap();
    }
    for (id, text) in add {
        w.insert_paper(&tx, &draft(id, text)).unwrap();
    }
    w.finish(&tx).unwrap();
    refresh_meta(&tx).unwrap();
    tx.commit().unwrap();
}

fn bits(mut c: Vec<Candidate>) -> Vec<(i64, u64)> {
    c.sort_by_key(|c| c.doc);
    c.into_iter().map(|c| (c.doc, c.score.to_bits())).collect()
}

/// `bm25_top_k` and `bm25_scores_of` give exactly what `bm25_all` implies.
fn agree(store: &Store, terms: &[(String, u32)], k: usize, asked: &[i64]) -> Result<(), TestCaseError> {
    let all = store.bm25_all(terms).unwrap();
    let want = match crate::candidate::top_k(positive(&all), k).last() {
        Some(cut) => positive(&all).filter(|c| c.score >= cut.score).collect(),
        None => Vec::new(),
    };
    let (got, count) = store.bm25_top_k_counted(terms, k).unwrap();
    prop_assert_eq!(bits(got), bits(want));
    prop_assert!(count.decoded <= count.total);
    let scores = store.bm25_scores_of(terms, asked).unwrap();
    let mut got: Vec<(i64, u64)> = scores.iter().map(|(d, s)| (*d, s.to_bits())).collect();
    got.sort_unstable();
    let mut want: Vec<(i64, u64)> = asked.iter().filter_map(|d| all.get(d).map(|s| (*d, s.to_bits()))).collect();
    want.sort_unstable();
    want.dedup();
    prop_assert_eq!(got, want);
    Ok(())
}

const WORDS: [&str; 10] = ["a", "a", "a", "b", "b", "c", "d", "e", "f", "g"];

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..WORDS.len(), 1..25)
        .prop_map(|w| w.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" "))
}

fn query() -> impl Strategy<Value = Vec<(String, u32)>> {
    // "zz" is in no paper: an unknown term is skipped.
    let word = prop_oneof![Just("a"), Just("b"), Just("c"), Just("d"), Just("g"), Just("zz")];
    proptest::collection::vec((word, 1u32..3), 1..5)
        .prop_map(|t| t.into_iter().map(|(w, c)| (w.to_string(), c)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn top_k_and_scores_of_equal_the_exhaustive_scores(
        texts in proptest::collection::vec(text(), 1..420),
        added in proptest::collection::vec(text(), 0..150),
        gone in proptest::collection::vec(any::<prop::sample::Index>(), 0..60),
        queries in proptest::collection::vec((query(), 1usize..20), 1..6),
        asked in proptest::collection::vec(0i64..600, 0..80),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let docs: Vec<(String, String)> = texts.iter().enumerate().map(|(i, t)| (format!("p{i}"), t.clone())).collect();
        let path = build(dir.path(), &docs);
        {
            let store = Store::open(&path).unwrap();
            for (terms, k) in &queries {
                agree(&store, terms, *k, &asked)?;
            }
        }
        // Deletions rewrite the blocks that held the papers; new papers append.
        let gone: Vec<String> = gone.iter().map(|i| docs[i.index(docs.len())].0.clone()).collect();
        let added: Vec<(String, String)> =
            added.iter().enumerate().map(|(i, t)| (format!("n{i}"), t.clone())).collect();
        change(&path, &gone, &added);
        let store = Store::open(&path).unwrap();
        // (This writer files no aliases or records: only the postings invariants apply.)
        let broken: Vec<_> = super::super::check_blocks::check_postings(&store.conn).into_iter().filter(|i| !i.ok).collect();
        prop_assert!(broken.is_empty(), "{:?}", broken);
        for (terms, k) in &queries {
            agree(&store, terms, *k, &asked)?;
        }
    }
}

#[test]
fn top_k_decodes_fewer_postings_when_blocks_cannot_reach_the_cut() {
    // "x" in 2,000 papers of 20 tokens, and three times in 5 short papers at
    // the end: after those, no other block of "x" can reach the 5th score.
    let mut docs: Vec<(String, String)> =
        (0..2000).map(|i| (format!("p{i}"), format!("x {}", "y ".repeat(19)))).collect();
    docs.extend((0..5).map(|i| (format!("q{i}"), "x x x".to_string())));
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&build(dir.path(), &docs)).unwrap();
    let terms = [("x".to_string(), 1)];
    let (top, count) = store.bm25_top_k_counted(&terms, 5).unwrap();
    assert_eq!(top.len(), 5);
    assert_eq!(count.total, 2005);
    assert!(count.decoded <= 128, "{count:?}");
    // k = 6 needs one of the 2,000 tied papers: every one of them is tied at the cut.
    let (top, count) = store.bm25_top_k_counted(&terms, 6).unwrap();
    assert_eq!((top.len(), count.decoded), (2005, 2005));
}

#[test]
fn empty_queries_and_k_zero_return_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&build(dir.path(), &[("p".to_string(), "a b".to_string())])).unwrap();
    assert!(store.bm25_top_k(&[], 3).unwrap().is_empty());
    assert!(store.bm25_top_k(&[("a".to_string(), 1)], 0).unwrap().is_empty());
    assert!(store.bm25_top_k(&[("zz".to_string(), 1)], 3).unwrap().is_empty());
    assert!(store.bm25_scores_of(&[("a".to_string(), 1)], &[]).unwrap().is_empty());
}

#[test]
fn an_unbounded_k_returns_every_match() {
    // `related` asks for "all of them" with usize::MAX; that must not overflow.
    let dir = tempfile::tempdir().unwrap();
    let docs = [("p".to_string(), "a b".to_string()), ("q".to_string(), "a".to_string())];
    let store = Store::open(&build(dir.path(), &docs)).unwrap();
    assert_eq!(store.bm25_top_k(&[("a".to_string(), 1)], usize::MAX).unwrap().len(), 2);
}

#[test]
fn a_rare_term_spares_the_blocks_of_a_common_one() {
    // "c" in all 2,000 papers, "r" in 5 of them 400 apart (docs 101, 501, …).
    // Until three "r" papers are scored (doc 901) the threshold is below the
    // bound of "c" alone, so its first 8 blocks are decoded; after that "c" is
    // not essential and only its 2 blocks holding the last "r" papers are.
    // Without that, all 2,005 postings would be.
    let docs: Vec<(String, String)> = (0..2000)
        .map(|i| (format!("p{i}"), if i % 400 == 100 { "r c w".to_string() } else { "c w w".to_string() }))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&build(dir.path(), &docs)).unwrap();
    let terms = [("r".to_string(), 1), ("c".to_string(), 1)];
    let (top, count) = store.bm25_top_k_counted(&terms, 3).unwrap();
    assert_eq!(top.len(), 5, "the five papers with both terms tie");
    assert_eq!(count.total, 2005);
    assert!(count.decoded <= 5 + 10 * 128, "{count:?}");
}

#[test]
fn a_paper_that_lacks_the_larger_other_term_spares_the_smaller_ones_block() {
    // "b" in all 2,000 papers, "a" in the even ones (a larger bound than
    // "b"'s), "r" in paper 0 with both and in papers 401, 801, 1201 and 1601
    // with "b" only; every paper three tokens long. Once paper 0 sets the cut
    // (k = 1), "a" and "b" are looked up for each later "r" paper, "a" first:
    // it lacks "a", and "r" plus the bound of "b" is below the cut, so the
    // block of "b" is not decoded for it. Without that: 5 + 2·128 + 4·2·128
    // = 1,285 postings decoded; with it, 5 + 2·128 + 4·128 = 773.
    let docs: Vec<(String, String)> = (0..2000)
        .map(|i| {
            let text = match i {
                0 => "r a b",
                401 | 801 | 1201 | 1601 => "r b w",
                _ if i % 2 == 0 => "a b w",
                _ => "b w w",
            };
            (format!("p{i}"), text.to_string())
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&build(dir.path(), &docs)).unwrap();
    let terms = [("r".to_string(), 1), ("a".to_string(), 1), ("b".to_string(), 1)];
    let (top, count) = store.bm25_top_k_counted(&terms, 1).unwrap();
    assert_eq!(top.len(), 1);
    assert_eq!(count.total, 5 + 1000 + 2000);
    assert!(count.decoded <= 5 + 6 * 128, "{count:?}");
    agree(&store, &terms, 1, &[]).unwrap();
}

#[test]
fn a_damaged_block_among_many_is_named_and_its_neighbours_decode_as_stored() {
    // "x" in 1,000 papers: 8 blocks, read into one buffer. The third block's
    // blob cut short: a search decoding it fails and names it; one that
    // needs only the blocks around it is not disturbed.
    let docs: Vec<(String, String)> = (0..1000)
        .map(|i| (format!("p{i}"), if i == 900 { "x x x x".to_string() } else { format!("x {}", "y ".repeat(9)) }))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), &docs);
    let terms = [("x".to_string(), 1)];
    let all = bits(Store::open(&path).unwrap().bm25_top_k(&terms, 1000).unwrap());
    let raw = Connection::open(&path).unwrap();
    let third: i64 = raw
        .query_row(
            "SELECT b.last_doc FROM posting_blocks b JOIN terms t ON t.term_id = b.term_id
             WHERE t.term = 'x' ORDER BY b.last_doc LIMIT 1 OFFSET 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let before = raw
        .execute(
            "UPDATE posting_blocks SET data = substr(data, 1, 5)
             WHERE last_doc = ?1 AND term_id = (SELECT term_id FROM terms WHERE term = 'x')",
            [third],
        )
        .unwrap();
    assert_eq!(before, 1);
    let store = Store::open(&path).unwrap();
    // The best paper (doc 901, in the 8th block) alone: the damaged block's bound cannot reach it.
    let best = store.bm25_top_k(&terms, 1).unwrap();
    let want: Vec<(i64, u64)> = all.iter().copied().filter(|&(doc, _)| doc == 901).collect();
    assert_eq!(bits(best.clone()), want, "{best:?}");
    let err = store.bm25_top_k(&terms, 1000).unwrap_err();
    assert!(format!("{err:#}").contains(&format!("index damaged: block ending at doc {third}")), "{err:#}");
}

#[test]
fn a_damaged_df_asks_for_no_more_room_than_a_cap() {
    // A df far past the papers (a damaged `terms` row): the search reads the
    // blocks there are, without reserving room for the df.
    let docs: Vec<(String, String)> = (0..300).map(|i| (format!("p{i}"), "x y".to_string())).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), &docs);
    Connection::open(&path).unwrap().execute("UPDATE terms SET df = 9223372036854775807 WHERE term = 'x'", []).unwrap();
    let store = Store::open(&path).unwrap();
    let (top, count) = store.bm25_top_k_counted(&[("x".to_string(), 1)], 1000).unwrap();
    assert_eq!(count.total, 300);
    assert!(top.len() <= 300);
}
