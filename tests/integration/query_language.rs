//! The query language and its filters, through the real binary: each
//! operator on the built-in mock corpus and on CACM, malformed filters
//! (exit 2, named), the filter-versus-walk rule on a small graph, venues
//! from the `paper` format, and the property that a filter without free
//! text of its own restricts the unfiltered ranking when the walk is off.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{run_in, shared_data, stderr, stdout};
use litindex::analyzer::{Analyzer, indexed_text};
use litindex::names::name_words;
use litindex::store::Store;

/// `litindex --db DB search ARGS… --format json --limit 100000`, parsed.
fn search(dir: &Path, db: &str, args: &[&str]) -> Value {
    let mut all = vec!["--db", db, "search"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json", "--limit", "100000"]);
    let o = run_in(dir, &all);
    assert!(o.status.success(), "search {args:?} failed: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn ids(r: &Value) -> Vec<String> {
    r["ranked"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

/// The mock index, built by the binary in a new directory.
fn mock() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // `plain`, the analyzer these tests were written for (the default before issue 22).
    let o = run_in(dir.path(), &["--db", "m.db", "build", "-q", "--analyzer", "plain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

/// A paper's indexed terms (title + abstract through the index's analyzer).
fn terms(store: &Store, id: &str) -> Vec<String> {
    let p = store.paper(id).unwrap().unwrap();
    let analyzer: Analyzer = store.meta().unwrap().analyzer().unwrap();
    analyzer.tokenize(&indexed_text(&p.title, &p.abstract_))
}

fn has_run(terms: &[String], run: &[&str]) -> bool {
    terms.windows(run.len()).any(|w| w.iter().zip(run).all(|(a, b)| a == b))
}

#[test]
fn plus_minus_and_phrases_test_the_stored_text() {
    let dir = mock();
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    let all = search(dir.path(), "m.db", &["attention", "--hops", "0", "--pool", "1000"]);
    let must = search(dir.path(), "m.db", &["attention +window"]);
    assert!(!ids(&must).is_empty());
    for id in ids(&must) {
        assert!(terms(&store, &id).contains(&"window".to_string()), "{id} lacks `window`");
    }
    let not = search(dir.path(), "m.db", &["attention -sparse", "--hops", "0", "--pool", "1000"]);
    assert!(!ids(&not).is_empty());
    for id in ids(&not) {
        assert!(!terms(&store, &id).contains(&"sparse".to_string()), "{id} has `sparse`");
    }
    assert!(not["hit_count"].as_u64() < all["hit_count"].as_u64());

    // p002 and p010 hold both words, never as the phrase "sparse attention".
    let phrase = search(dir.path(), "m.db", &["\"sparse attention\""]);
    let shown = ids(&phrase);
    assert!(!shown.is_empty());
    for id in &shown {
        assert!(has_run(&terms(&store, id), &["sparse", "attention"]), "{id}");
    }
    for id in ["p002", "p010"] {
        let t = terms(&store, id);
        assert!(t.contains(&"sparse".into()) && t.contains(&"attention".into()), "{id} holds both words");
        assert!(!shown.contains(&id.to_string()), "{id} has the words but not the phrase");
        assert!(
            ids(&search(dir.path(), "m.db", &["sparse attention", "--hops", "0", "--pool", "100"]))
                .contains(&id.to_string())
        );
    }
    // A negated phrase drops exactly the papers that hold it.
    let unphrase = search(dir.path(), "m.db", &["attention -\"sparse attention\"", "--hops", "0", "--pool", "200"]);
    for id in ids(&unphrase) {
        assert!(!has_run(&terms(&store, &id), &["sparse", "attention"]), "{id}");
    }
    assert!(ids(&unphrase).contains(&"p002".to_string()));
}

#[test]
fn author_year_and_id_filters_on_the_mock_corpus() {
    let dir = mock();
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    let authored = |id: &str, surname: &str| {
        store
            .paper(id)
            .unwrap()
            .unwrap()
            .authors
            .iter()
            .any(|a| name_words(a).last().map(String::as_str) == Some(surname))
    };
    let base = ids(&search(dir.path(), "m.db", &["sparse attention author:castellano"]));
    assert!(!base.is_empty());
    for id in &base {
        assert!(authored(id, "castellano"), "{id}");
    }
    for spelling in
        ["author:CASTELLANO", "author:\"Mira Castellano\"", "author:Castellanó", "author:\"castellano, mira\""]
    {
        assert_eq!(ids(&search(dir.path(), "m.db", &[&format!("sparse attention {spelling}")])), base, "{spelling}");
    }
    // A first name alone is not a surname.
    assert_eq!(search(dir.path(), "m.db", &["sparse attention author:mira"])["hit_count"], 0);

    for (filter, lo, hi) in [("year:2020..2022", 2020, 2022), ("year:2022..", 2022, 9999), ("year:..2019", 0, 2019)] {
        let r = search(dir.path(), "m.db", &[&format!("attention {filter}")]);
        assert!(!ids(&r).is_empty(), "{filter}");
        for h in r["ranked"].as_array().unwrap() {
            let y = h["year"].as_i64().unwrap();
            assert!((lo..=hi).contains(&y), "{filter}: {h}");
        }
    }
    let r = search(dir.path(), "m.db", &["attention id:p00"]);
    assert!(!ids(&r).is_empty());
    assert!(ids(&r).iter().all(|id| id.starts_with("p00")), "{r}");
    assert!(ids(&r).len() < 10);

    // The flags are the same filters.
    let words = ids(&search(dir.path(), "m.db", &["attention +window -sparse author:castellano year:2019.."]));
    let flags = ids(&search(
        dir.path(),
        "m.db",
        &["attention window", "--must", "window", "--not", "sparse", "--author", "Castellano", "--year", "2019.."],
    ));
    assert_eq!(words, flags);
}

#[test]
fn a_query_of_filters_only_lists_the_newest_papers_that_pass() {
    let dir = mock();
    // The old defaults (by-hops, the pool of --top-k): the query's seeds alone.
    let r = search(dir.path(), "m.db", &["year:..2020", "--hops", "0", "--graph-score", "by-hops", "--pool", "10"]);
    let years: Vec<i64> = r["ranked"].as_array().unwrap().iter().map(|h| h["year"].as_i64().unwrap()).collect();
    assert_eq!(years.len(), 10, "the ten newest seeds: {r}");
    assert!(years.iter().all(|&y| y <= 2020));
    assert!(years.windows(2).all(|w| w[0] >= w[1]), "newest first: {years:?}");
    assert_eq!(years[0], 2020);
    // With the walk, every hit still passes.
    let r = search(dir.path(), "m.db", &["author:castellano"]);
    assert!(r["hit_count"].as_u64().unwrap() > 0);
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    for id in ids(&r) {
        let p = store.paper(&id).unwrap().unwrap();
        assert!(p.authors.iter().any(|a| a.contains("Castellano")), "{id}");
    }
}

#[test]
fn malformed_filters_exit_2_naming_them() {
    let dir = mock();
    for (args, says) in [
        (vec!["attention year:20x9"], "year:20x9"),
        (vec!["attention year:2023..2019"], "2023..2019"),
        (vec!["author: attention"], "empty `author:`"),
        (vec!["venue:\"\" x"], "empty `venue:`"),
        (vec!["\"sparse attention"], "unclosed quote"),
        (vec!["x", "--year", "20x9"], "20x9"),
        (vec!["x", "--author", " "], "--author needs a value"),
    ] {
        let mut all = vec!["--db", "m.db", "search"];
        all.extend(args.iter().copied());
        let o = run_in(dir.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "one line: {}", stderr(&o));
    }
}

/// Writes Paper JSON Lines and builds them with the binary.
fn build_lines(dir: &Path, db: &str, papers: &[Value]) {
    let lines: Vec<String> = papers.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("p.jsonl"), lines.join("\n")).unwrap();
    let o = run_in(dir, &["--db", db, "build", "-q", "--jsonl", "p.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn the_walk_passes_through_papers_the_filter_hides() {
    let dir = tempfile::tempdir().unwrap();
    // Two new papers that both cite an old survey; only `new1` has the query's words.
    build_lines(
        dir.path(),
        "g.db",
        &[
            json!({"id": "survey", "title": "An old overview", "abstract": "Everything up to then.", "year": 1990}),
            json!({"id": "new1", "title": "Quantum widgets", "abstract": "Widgets, quantum ones.", "year": 2021, "references": ["survey"]}),
            json!({"id": "new2", "title": "Frobnicator design", "abstract": "A frobnicator.", "year": 2022, "references": ["survey"]}),
            json!({"id": "new3", "title": "Unlinked", "abstract": "Nothing cites it.", "year": 2023}),
        ],
    );
    let hops = |r: &Value| -> BTreeSet<(String, Option<u64>)> {
        r["ranked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["id"].as_str().unwrap().into(), h["graph_distance"].as_u64()))
            .collect()
    };
    let set = |v: &[(&str, u64)]| -> BTreeSet<(String, Option<u64>)> {
        v.iter().map(|&(id, d)| (id.to_string(), Some(d))).collect()
    };
    let plain = search(dir.path(), "g.db", &["quantum widgets"]);
    assert_eq!(hops(&plain), set(&[("new1", 0), ("survey", 1), ("new2", 2)]));
    let filtered = search(dir.path(), "g.db", &["quantum widgets year:2020.."]);
    assert_eq!(hops(&filtered), set(&[("new1", 0), ("new2", 2)]), "{filtered}");
    assert_eq!(filtered["hit_count"], 2);
    let scores: Vec<f64> =
        filtered["ranked"].as_array().unwrap().iter().map(|h| h["final_score"].as_f64().unwrap()).collect();
    let mean = scores.iter().sum::<f64>() / 2.0;
    assert!((filtered["average_score"].as_f64().unwrap() - mean).abs() < 1e-12, "the average is over the shown set");
    // Without the walk the survey's neighbour is not reached.
    assert_eq!(ids(&search(dir.path(), "g.db", &["quantum widgets year:2020..", "--hops", "0"])), ["new1"]);
}

#[test]
fn venues_come_from_the_records_and_filter() {
    let dir = tempfile::tempdir().unwrap();
    build_lines(
        dir.path(),
        "v.db",
        &[
            json!({"id": "a", "title": "Sorting networks", "year": 1970, "venue": "Communications of the ACM"}),
            json!({"id": "b", "title": "Sorting by merging", "year": 1971, "venue": "J. Algorithms"}),
            json!({"id": "c", "title": "Sorting in parallel", "year": 1972}),
        ],
    );
    assert_eq!(ids(&search(dir.path(), "v.db", &["sorting venue:\"communications of the acm\""])), ["a"]);
    assert_eq!(ids(&search(dir.path(), "v.db", &["sorting", "--venue", "ALGORITHMS"])), ["b"]);
    let r = search(dir.path(), "v.db", &["sorting venue:acm"]);
    assert_eq!(r["ranked"][0]["venue"], "Communications of the ACM");
    let o = run_in(dir.path(), &["--db", "v.db", "paper", "c", "--format", "json"]);
    let p: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(p["venue"].is_null(), "{p}");
    let o = run_in(dir.path(), &["--db", "v.db", "paper", "b"]);
    assert!(stdout(&o).contains("venue       J. Algorithms"), "{}", stdout(&o));
}

/// A filter of years, authors or id prefixes (no words of its own) gives the
/// unfiltered ranking restricted to the papers that pass, when the walk is
/// off and the whole match list is pooled (and ranked by BM25 alone).
fn restriction_holds(dir: &Path, db: &str, queries: &[&str], filters: &[String]) {
    let flat = ["--hops", "0", "--pool", "100000", "--top-k", "100000", "--weights", "1,0,0"];
    let store = Store::open(&dir.join(db)).unwrap();
    let mut checked = 0;
    for q in queries {
        let mut args = vec![*q];
        args.extend_from_slice(&flat);
        let all = ids(&search(dir, db, &args));
        for f in filters {
            let text = format!("{q} {f}");
            let mut args = vec![text.as_str()];
            args.extend_from_slice(&flat);
            let got = ids(&search(dir, db, &args));
            let want: Vec<String> = all.iter().filter(|id| passes(&store, id, f)).cloned().collect();
            assert_eq!(got, want, "{text}");
            checked += usize::from(!want.is_empty());
        }
    }
    assert!(checked >= filters.len(), "too few filters kept a paper ({checked})");
}

/// What the test expects of one filter word, written apart from the crate's filter (only the
/// folding of author names is the crate's, `name_words`).
fn passes(store: &Store, id: &str, filter: &str) -> bool {
    let p = store.paper(id).unwrap().unwrap();
    let (key, value) = filter.split_once(':').unwrap();
    match key {
        "year" => {
            let (a, b) = value.split_once("..").unwrap();
            let y = match p.year {
                Some(y) => y,
                None => return false,
            };
            (a.is_empty() || y >= a.parse().unwrap()) && (b.is_empty() || y <= b.parse().unwrap())
        }
        "author" => p.authors.iter().any(|a| name_words(a).last() == Some(&value.to_lowercase())),
        "id" => id.starts_with(value),
        _ => unreachable!("{filter}"),
    }
}

#[test]
fn filtered_rankings_restrict_the_unfiltered_one_on_the_mock_corpus() {
    let dir = mock();
    let filters: Vec<String> =
        ["year:2020..", "year:..2019", "year:2021..2022", "author:castellano", "author:volkov", "id:p01", "id:p0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    restriction_holds(
        dir.path(),
        "m.db",
        &["sparse attention", "retrieval augmented generation", "adapters"],
        &filters,
    );
}

/// CACM (3,204 papers with years and authors) built by the binary, or `None` without the data.
fn cacm() -> Option<tempfile::TempDir> {
    let data = shared_data("cacm")?;
    let dir = tempfile::tempdir().unwrap();
    let papers = data.join("papers.jsonl");
    let edges = data.join("citations_directed.tsv");
    let ingest =
        ["--db", "c.db", "ingest", "-q", "--analyzer", "plain", papers.to_str().unwrap(), edges.to_str().unwrap()];
    let o = run_in(dir.path(), &ingest);
    assert!(o.status.success(), "{}", stderr(&o));
    Some(dir)
}

#[test]
fn filters_on_cacm_years_and_authors() {
    let Some(dir) = cacm() else { return };
    let store = Store::open(&dir.path().join("c.db")).unwrap();
    // Wirth's papers: every hit has him as an author, and the walk still runs.
    let r = search(dir.path(), "c.db", &["programming language author:wirth"]);
    let shown = ids(&r);
    assert!(shown.len() >= 3, "{r}");
    for id in &shown {
        assert!(passes(&store, id, "author:wirth"), "{id}");
    }
    // "Thacher Jr., H. C.": the suffix is not the surname.
    let r = search(dir.path(), "c.db", &["author:thacher"]);
    assert!(r["hit_count"].as_u64().unwrap() >= 10, "{r}");
    let r = search(dir.path(), "c.db", &["algorithm year:1970..1972"]);
    assert!(!ids(&r).is_empty());
    for h in r["ranked"].as_array().unwrap() {
        assert!((1970..=1972).contains(&h["year"].as_i64().unwrap()), "{h}");
    }
    let must = ids(&search(dir.path(), "c.db", &["sorting +merge -tape"]));
    assert!(!must.is_empty());
    for id in &must {
        let t = terms(&store, id);
        assert!(t.contains(&"merge".into()) && !t.contains(&"tape".into()), "{id}");
    }
    let distinct: BTreeSet<&String> = must.iter().collect();
    assert_eq!(distinct.len(), must.len());
}

#[test]
fn filtered_rankings_restrict_the_unfiltered_one_on_cacm() {
    let Some(dir) = cacm() else { return };
    let filters: Vec<String> =
        ["year:1975..", "year:..1965", "year:1968..1970", "author:wirth", "author:knuth", "id:1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    restriction_holds(dir.path(), "c.db", &["parallel processing", "sorting algorithm", "compiler"], &filters);
}

#[test]
fn run_and_eval_read_the_language_only_when_told() {
    let dir = mock();
    std::fs::write(dir.path().join("q.jsonl"), json!({"_id": "1", "text": "attention year:2022.."}).to_string())
        .unwrap();
    let run = |extra: &[&str]| {
        let mut all = vec!["--db", "m.db", "run", "--queries", "q.jsonl", "--format", "jsonl", "--limit", "1000"];
        all.extend_from_slice(extra);
        let o = run_in(dir.path(), &all);
        assert!(o.status.success(), "{}", stderr(&o));
        let line: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        line["ranked"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    let year = |id: &String| store.paper(id).unwrap().unwrap().year.unwrap();
    let parsed = run(&["--query-syntax"]);
    assert!(!parsed.is_empty());
    assert!(parsed.iter().all(|id| year(id) >= 2022), "{parsed:?}");
    let literal = run(&[]);
    assert!(literal.iter().any(|id| year(id) < 2022), "without --query-syntax the text is free text");
    // The flags apply to every query of the file either way.
    assert!(run(&["--year", "..2020"]).iter().all(|id| year(id) <= 2020));

    std::fs::write(dir.path().join("bad.jsonl"), json!({"_id": "1", "text": "attention year:20x9"}).to_string())
        .unwrap();
    std::fs::write(dir.path().join("qrels.tsv"), "1\tp001\t1\n").unwrap();
    let o = run_in(
        dir.path(),
        &["--db", "m.db", "eval", "--queries", "bad.jsonl", "--qrels", "qrels.tsv", "--query-syntax"],
    );
    // A malformed query is a user's mistake, exit 2, as in `search` (it was 1 before issue 22).
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("year:20x9"), "{}", stderr(&o));
    let o = run_in(dir.path(), &["--db", "m.db", "eval", "--queries", "bad.jsonl", "--qrels", "qrels.tsv"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `search ARGS… --format json` as the user would run it (no added limit), parsed.
fn search_as_typed(dir: &Path, db: &str, args: &[&str]) -> Value {
    let mut all = vec!["--db", db, "search"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let o = run_in(dir, &all);
    assert!(o.status.success(), "search {args:?} failed: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn a_sign_before_a_digit_is_text_and_excludes_nothing() {
    let dir = mock();
    // `-2` and `+3` are text: the query equals the same words without operators.
    let signed = search(dir.path(), "m.db", &["attention -2 +3 -0.5"]);
    let free = search(dir.path(), "m.db", &["attention -2 +3 -0.5", "--literal"]);
    assert_eq!(ids(&signed), ids(&free));
    assert!(signed["parsed_query"]["filter"]["must_not"].as_array().unwrap().is_empty(), "{}", signed["parsed_query"]);
    assert!(signed["parsed_query"]["filter"]["must"].as_array().unwrap().is_empty());
    assert_eq!(signed["parsed_query"]["text"], "attention -2 +3 -0.5");
    // A sign before a letter is still an operator.
    let not = search(dir.path(), "m.db", &["attention -sparse"]);
    assert_eq!(not["parsed_query"]["filter"]["must_not"], json!(["sparse"]));
    assert_ne!(ids(&not), ids(&search(dir.path(), "m.db", &["attention -sparse", "--literal"])));
}

#[test]
fn literal_takes_the_whole_query_as_free_text() {
    let dir = mock();
    // Under --literal every operator is text: no filter, and the words ranked as typed.
    let lit = search(dir.path(), "m.db", &["sparse -attention +window year:20x9 \"open", "--literal"]);
    assert!(lit["hit_count"].as_u64().unwrap() > 0, "{lit}");
    assert_eq!(lit["parsed_query"]["text"], "sparse -attention +window year:20x9 \"open");
    assert_eq!(
        lit["parsed_query"]["filter"],
        json!({"must": [], "must_not": [], "authors": [], "years": null,
        "venues": [], "id_prefixes": []})
    );
    let store = Store::open(&dir.path().join("m.db")).unwrap();
    assert!(ids(&lit).iter().any(|id| terms(&store, id).contains(&"attention".to_string())), "-attention is text");
    // The same words without operators rank the same.
    let words = search(dir.path(), "m.db", &["sparse attention window year:20x9 open", "--literal"]);
    assert_eq!(ids(&lit), ids(&words));
}

#[test]
fn the_filters_a_query_produced_are_echoed() {
    let dir = mock();
    let o = run_in(dir.path(), &["--db", "m.db", "search", "attention -sparse +window year:2020.."]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).trim(),
        r#"query: text "attention window"; must: "window"; must not: "sparse"; year: 2020.."#,
        "one line on stderr"
    );
    // No filter, no echo; JSON carries it instead of stderr.
    let o = run_in(dir.path(), &["--db", "m.db", "search", "attention"]);
    assert_eq!(stderr(&o), "", "{}", stderr(&o));
    let o = run_in(dir.path(), &["--db", "m.db", "search", "attention -sparse", "--format", "json"]);
    assert_eq!(stderr(&o), "");
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["query"], "attention -sparse", "the query as typed");
    assert_eq!(v["parsed_query"]["text"], "attention");
    assert_eq!(v["parsed_query"]["filter"]["must_not"], json!(["sparse"]));
}

#[test]
fn a_malformed_query_exits_2_from_search_and_eval_alike() {
    let dir = mock();
    std::fs::write(dir.path().join("bad.jsonl"), json!({"_id": "1", "text": "attention year:20x9"}).to_string())
        .unwrap();
    std::fs::write(dir.path().join("qrels.tsv"), "1\tp001\t1\n").unwrap();
    for args in [
        vec!["search", "attention year:20x9"],
        vec!["eval", "--queries", "bad.jsonl", "--qrels", "qrels.tsv", "--query-syntax"],
        vec!["run", "--queries", "bad.jsonl", "--query-syntax"],
    ] {
        let mut all = vec!["--db", "m.db"];
        all.extend(args.iter().copied());
        let o = run_in(dir.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("year:20x9"), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    }
}

/// The claim of issue 22: `-2, -3` are not must-not filters, so the claim as
/// typed ranks exactly as its free text (BM25 plus the walk, `--literal`);
/// and the pool covers the limit: `vitamin` lists all 60 papers BM25 matches.
#[test]
fn a_pasted_claim_on_scifact_ranks_as_its_free_text_and_vitamin_lists_all_60() {
    let dir = tempfile::tempdir().unwrap();
    let Some((db, _)) = crate::common::scifact_english() else { return };
    let db = db.to_str().unwrap();
    let claim = "Differentiated E2f-1, -2, -3 TKO cells in the intestine do not exhibit apoptosis.";
    let typed = search_as_typed(dir.path(), db, &[claim, "--limit", "100"]);
    let literal = search_as_typed(dir.path(), db, &[claim, "--limit", "100", "--literal"]);
    assert!(ids(&typed).len() >= 50, "{}", ids(&typed).len());
    assert_eq!(ids(&typed), ids(&literal));
    assert_eq!(typed["hit_count"], literal["hit_count"]);
    assert!(typed["parsed_query"]["filter"]["must_not"].as_array().unwrap().is_empty());
    // `search vitamin --limit 100` lists every paper BM25 matches (60), not the ten seeds.
    let all = search_as_typed(dir.path(), db, &["vitamin", "--hops", "0", "--pool", "100000", "--limit", "100000"]);
    let matches = all["ranked"].as_array().unwrap().iter().filter(|h| h["bm25_score"].as_f64() > Some(0.0)).count();
    assert_eq!(matches, 60, "the issue's count");
    let shown = search_as_typed(dir.path(), db, &["vitamin", "--limit", "100"]);
    assert_eq!(shown["hit_count"], 60);
    assert_eq!(ids(&shown).len(), 60);
}
