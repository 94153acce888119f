//! Property tests of indexing and search through the real binary, on random
//! small corpora (the library's API is one of the things issue 22 reshapes;
//! the binary's JSON is the behaviour that must not change):
//!
//! * build = ingest: the same papers through `build --jsonl` and through
//!   `ingest` into a new index give the same index (every table, every row)
//!   and the same rankings.
//! * filtered ⊆ unfiltered: a search with a filter (`--year`, `--author`,
//!   `--must`, `--not`) lists a subset of the same search's merged set
//!   without it, and every hit it lists passes the filter (checked here
//!   against the papers as written, not by litindex).
//!
//! (Threaded = serial dense scan is a property test in src/embed/dense.rs,
//! beside the private serial scan it compares with.)

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common::Paper;
use crate::reliability::{dump, json, ok, run};

/// A small vocabulary, so that words repeat across papers and queries.
const WORDS: &[&str] = &["sparse", "attention", "graph", "citation", "retrieval", "rank", "model", "of", "x1", "42"];
const AUTHORS: &[&str] = &["Ann Lee", "Bo Chen", "Carla Díaz", "Dan Lee", "Eve Smith"];

fn words(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..max).prop_map(|w| w.join(" "))
}

/// Papers `q0`…: random title, abstract, year (or none), authors, and
/// references to each other and to ids outside the corpus.
fn corpus() -> impl Strategy<Value = Vec<Paper>> {
    let paper = (
        words(6),
        words(14),
        prop::option::of(1995i32..2025),
        prop::collection::vec(prop::sample::select(AUTHORS), 0..3),
        prop::collection::vec(0usize..30, 0..4),
    );
    prop::collection::vec(paper, 1..24).prop_map(|papers| {
        let n = papers.len();
        papers
            .into_iter()
            .enumerate()
            .map(|(i, (title, abstract_, year, authors, refs))| Paper {
                id: format!("q{i}"),
                title: if title.is_empty() { format!("untitled {i}") } else { title },
                abstract_,
                year,
                authors: authors.iter().map(|a| a.to_string()).collect(),
                // An index past the corpus is a dangling id.
                references: refs.iter().filter(|&&r| r != i).map(|&r| format!("q{}", r % (n + 3))).collect(),
                citations: vec![],
            })
            .collect()
    })
}

/// Duplicates of some of the papers (same id, other fields), so that both
/// paths also merge records.
fn duplicates() -> impl Strategy<Value = Vec<(usize, String, Option<i32>)>> {
    prop::collection::vec((0usize..24, words(8), prop::option::of(1995i32..2025)), 0..4)
}

fn write_jsonl(path: &Path, papers: &[Paper]) {
    let lines: Vec<String> = papers.iter().map(|p| serde_json::to_string(p).unwrap()).collect();
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// The ranked hits (ids, every score and field) of `query` with `flags`.
fn search(db: &Path, query: &str, flags: &[&str]) -> Vec<Value> {
    let mut args = vec!["search", query, "--format", "json"];
    args.extend(flags);
    json(&run(db, &args))["ranked"].as_array().unwrap().clone()
}

fn ids(hits: &[Value]) -> BTreeSet<String> {
    hits.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

/// The `plain` analyzer's tokens: lowercase, split on every non-alphanumeric.
fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(String::from).collect()
}

/// One filter of the search flags, and whether a paper passes it.
#[derive(Debug, Clone)]
enum Filter {
    Year(i32, i32),
    Author(&'static str),
    Must(&'static str),
    Not(&'static str),
}

impl Filter {
    fn flags(&self) -> Vec<String> {
        match self {
            Filter::Year(a, b) => vec!["--year".into(), format!("{a}..{b}")],
            Filter::Author(name) => vec!["--author".into(), name.to_string()],
            Filter::Must(w) => vec!["--must".into(), w.to_string()],
            Filter::Not(w) => vec!["--not".into(), w.to_string()],
        }
    }

    fn passes(&self, p: &Paper) -> bool {
        let text = || tokens(&format!("{} {}", p.title, p.abstract_));
        match *self {
            Filter::Year(a, b) => p.year.is_some_and(|y| (a..=b).contains(&y)),
            // A surname (the last word), case ignored.
            Filter::Author(name) => p.authors.iter().any(|a| a.rsplit(' ').next().unwrap().eq_ignore_ascii_case(name)),
            Filter::Must(w) => text().iter().any(|t| t == w),
            Filter::Not(w) => !text().iter().any(|t| t == w),
        }
    }
}

fn filter() -> impl Strategy<Value = Filter> {
    let word = prop::sample::select(WORDS);
    prop_oneof![
        (1995i32..2025, 0i32..12).prop_map(|(a, span)| Filter::Year(a, a + span)),
        prop::sample::select(&["Lee", "Chen", "Smith", "Nobody"][..]).prop_map(Filter::Author),
        word.clone().prop_map(Filter::Must),
        word.prop_map(Filter::Not),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// build = ingest: one file of papers (duplicates merged) through
    /// `build --jsonl` and through `ingest` into a new index.
    #[test]
    fn build_and_ingest_into_a_new_index_give_the_same_index(
        mut papers in corpus(),
        dups in duplicates(),
        queries in prop::collection::vec(words(4), 1..4),
    ) {
        for (i, abstract_, year) in dups {
            let of = &papers[i % papers.len()];
            papers.push(Paper { id: of.id.clone(), title: of.title.clone(), abstract_, year, ..Paper::default() });
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("papers.jsonl");
        write_jsonl(&file, &papers);
        let built = dir.path().join("built.db");
        let ingested = dir.path().join("ingested.db");
        ok(&run(&built, &["build", "--jsonl", file.to_str().unwrap()]));
        ok(&run(&ingested, &["ingest", "--quiet", file.to_str().unwrap()]));
        // The fields that may differ: when each was made (index_meta.built_at,
        // to the second), and the generation (a change counter from a random start).
        for db in [&built, &ingested] {
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.execute("UPDATE index_meta SET built_at = 'then'", []).unwrap();
            conn.execute("UPDATE index_generation SET generation = 0", []).unwrap();
        }
        let (a, b) = (dump(&built), dump(&ingested));
        prop_assert!(a == b, "build and ingest made different indexes:\nbuild:\n{}\ningest:\n{}", a, b);
        for q in queries.iter().filter(|q| !q.is_empty()) {
            let flags = ["--limit", "100", "--pool", "100", "--hops", "2"];
            prop_assert_eq!(search(&built, q, &flags), search(&ingested, q, &flags), "query {:?}", q);
        }
    }

    /// filtered ⊆ unfiltered: with every BM25 match a seed and in the pool
    /// (`--top-k` and `--pool` past the corpus), the filtered merged set is
    /// within the unfiltered one, and each of its hits passes the filter.
    #[test]
    fn a_filtered_search_lists_a_subset_of_the_unfiltered_one_each_hit_passing(
        papers in corpus(),
        searches in prop::collection::vec((words(4), filter(), 0u32..3), 1..5),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("papers.jsonl");
        write_jsonl(&file, &papers);
        let db = dir.path().join("f.db");
        ok(&run(&db, &["ingest", "--quiet", "--analyzer", "plain", file.to_str().unwrap()]));
        for (q, f, hops) in searches.iter().filter(|(q, ..)| !q.is_empty()) {
            let hops = hops.to_string();
            let flags = ["--top-k", "100", "--pool", "100", "--limit", "100", "--hops", &hops];
            let all = ids(&search(&db, q, &flags));
            let mut filtered_flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
            filtered_flags.extend(f.flags());
            let filtered_flags: Vec<&str> = filtered_flags.iter().map(String::as_str).collect();
            let filtered = ids(&search(&db, q, &filtered_flags));
            prop_assert!(filtered.is_subset(&all), "{q:?} {f:?} hops {hops}: {filtered:?} not within {all:?}");
            for id in &filtered {
                let paper = papers.iter().find(|p| &p.id == id).unwrap();
                prop_assert!(f.passes(paper), "{q:?} {f:?}: {paper:?} does not pass");
            }
        }
    }
}
