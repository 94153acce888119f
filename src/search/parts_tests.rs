//! What a request's [`HitParts`] make the ranker read and build: counted
//! through a [`Retriever`] that wraps the local one, on a real index. The
//! ranking and every score must be the same whatever the parts (f64s
//! compared exactly); only the details and snippets differ. And a page past
//! the first is the same hits as the tail of one longer search.

use std::time::Instant;

use super::feedback::{FeedbackPart, Prepared};
use super::rank::{parsed, rank};
use super::retriever::{Details, FirstList, Local, Merged, PaperScores, Papers, Retriever, Walk};
use super::{HitParts, RetrievalResult, SearchParams, SearchRequest};
use crate::evidence::EvidenceQuery;
use crate::graph::{Direction, Reach};
use crate::ingest::{IngestOptions, Input, build};
use crate::store::{SearchGraph, Store};

/// What the ranker asked of the retriever beyond the ranking itself.
#[derive(Debug, Default, PartialEq)]
struct Asked {
    /// Calls of `details`, and how many papers they named.
    details_calls: usize,
    details_papers: usize,
    /// Calls of `details` that asked for full-text passages.
    passage_calls: usize,
    /// Calls of `evidence_query` (a snippet needs one).
    evidence_queries: usize,
}

/// The local retriever, counting.
struct Counting<'a> {
    inner: Local<'a>,
    asked: Asked,
}

impl<'a> Retriever for Counting<'a> {
    type Doc = i64;
    type Graph = SearchGraph<'a>;

    fn first_stage(&mut self, depth: usize) -> anyhow::Result<FirstList<i64>> {
        self.inner.first_stage(depth)
    }
    fn walk(&mut self, seeds: &[String], reach: Reach) -> anyhow::Result<Walk<i64>> {
        self.inner.walk(seeds, reach)
    }
    fn papers(&mut self, ids: &[&String]) -> anyhow::Result<Papers<i64>> {
        self.inner.papers(ids)
    }
    fn ids(&mut self, docs: &[i64]) -> anyhow::Result<Vec<String>> {
        self.inner.ids(docs)
    }
    fn retain(&mut self, merged: &mut Merged<i64>) -> anyhow::Result<()> {
        self.inner.retain(merged)
    }
    fn scores(&mut self, docs: &[i64]) -> anyhow::Result<Vec<PaperScores>> {
        self.inner.scores(docs)
    }
    fn graph(&self) -> &SearchGraph<'a> {
        self.inner.graph()
    }
    fn years(&self) -> (Option<i32>, Option<i32>) {
        self.inner.years()
    }
    fn details(&mut self, shown: &[(String, i64)], parts: HitParts) -> anyhow::Result<Vec<Details>> {
        self.asked.details_calls += 1;
        self.asked.details_papers += shown.len();
        self.asked.passage_calls += usize::from(parts.snippets());
        self.inner.details(shown, parts)
    }
    fn evidence_query(&mut self, query: &str) -> anyhow::Result<EvidenceQuery> {
        self.asked.evidence_queries += 1;
        self.inner.evidence_query(query)
    }
    fn feedback(&self) -> Option<&Prepared<'_>> {
        self.inner.feedback()
    }
    fn feedback_part(&self, id: &str, doc: i64) -> Option<FeedbackPart> {
        self.inner.feedback_part(id, doc)
    }
}

/// `request` ranked over the counting retriever: the result (its wall time 0) and what was asked.
fn counted(store: &Store, request: &SearchRequest) -> (RetrievalResult, Asked) {
    store
        .snapshot(|| {
            let p = parsed(request)?;
            let mut r = Counting { inner: Local::new(store, &p, None)?, asked: Asked::default() };
            let result = rank(&mut r, &p, &request.query, Instant::now())?;
            Ok((RetrievalResult { wall_time_ms: 0.0, ..result }, r.asked))
        })
        .unwrap()
}

fn mock_store(dir: &std::path::Path) -> Store {
    let db = dir.join("mock.db");
    build(&db, &[Input::Mock], &IngestOptions::default()).unwrap();
    Store::open(&db).unwrap()
}

/// A hit's id, year, score parts (as bits), distance and exclusion.
type Ranked = (String, Option<i32>, [u64; 6], Option<u32>, bool);

/// The hits as their rank and scores only: what `Scores` must keep exactly.
fn ranking(r: &RetrievalResult) -> Vec<Ranked> {
    r.ranked
        .iter()
        .map(|h| {
            let bits = [
                h.bm25_score,
                h.bm25_norm,
                h.graph_score,
                h.recency_score,
                h.final_score,
                h.fused_score.unwrap_or(-1.0),
            ]
            .map(f64::to_bits);
            (h.id.clone(), h.year, bits, h.graph_distance, h.excluded)
        })
        .collect()
}

#[test]
fn a_request_for_scores_reads_no_details_and_builds_no_snippet() {
    let dir = tempfile::tempdir().unwrap();
    let store = mock_store(dir.path());
    let params = SearchParams { pool: 100, ..SearchParams::default() };
    for query in ["sparse attention", "retrieval augmented generation", "pruning heads", "graph neural networks"] {
        let full = SearchRequest { limit: Some(100), ..SearchRequest::new(query, params) };
        let (all, asked_all) = counted(&store, &full);
        assert!(!all.ranked.is_empty(), "{query}: the comparison is not of empty lists");
        // The default builds everything, for the shown hits only (one call each).
        assert_eq!(full.parts, HitParts::Snippets);
        assert_eq!(
            asked_all,
            Asked { details_calls: 1, details_papers: all.ranked.len(), passage_calls: 1, evidence_queries: 1 }
        );
        assert!(all.ranked.iter().any(|h| !h.snippet.is_empty()), "{query}: some hit has a snippet");
        assert!(all.ranked.iter().all(|h| !h.title.is_empty()));

        let (scores, asked) = counted(&store, &SearchRequest { parts: HitParts::Scores, ..full.clone() });
        assert_eq!(asked, Asked::default(), "{query}: ids and scores only ask for nothing more");
        assert_eq!(ranking(&scores), ranking(&all), "{query}: the same ranking, bit for bit");
        assert_eq!((scores.hit_count, scores.top_score.to_bits()), (all.hit_count, all.top_score.to_bits()));
        assert_eq!(scores.average_score.to_bits(), all.average_score.to_bits());
        for h in &scores.ranked {
            assert!(h.snippet.is_empty() && h.snippet_spans.is_empty() && h.snippet_page.is_none(), "{h:?}");
            assert!(h.title.is_empty() && h.authors.is_empty() && h.references.is_empty() && h.venue.is_none());
        }

        let (details, asked) = counted(&store, &SearchRequest { parts: HitParts::Details, ..full.clone() });
        assert_eq!(
            asked,
            Asked { details_calls: 1, details_papers: all.ranked.len(), passage_calls: 0, evidence_queries: 0 }
        );
        assert_eq!(ranking(&details), ranking(&all));
        for (d, a) in details.ranked.iter().zip(&all.ranked) {
            assert_eq!((&d.title, &d.authors, &d.venue), (&a.title, &a.authors, &a.venue));
            assert!(d.snippet.is_empty());
            assert!(d.references.is_empty() && a.references.is_empty(), "only Full reads the references: {}", d.id);
        }

        // Everything, the references too: the default's hits with each one's cited ids.
        let (everything, asked) = counted(&store, &SearchRequest { parts: HitParts::Full, ..full.clone() });
        assert_eq!(asked, asked_all, "{query}: the same reads as the default, for the shown hits only");
        assert_eq!(ranking(&everything), ranking(&all));
        for (e, a) in everything.ranked.iter().zip(&all.ranked) {
            assert_eq!(e.references, store.linked(&e.id, Direction::References).unwrap(), "{}", e.id);
            assert_eq!((&e.title, &e.snippet, &e.snippet_spans), (&a.title, &a.snippet, &a.snippet_spans));
        }
        assert!(everything.ranked.iter().any(|h| !h.references.is_empty()), "{query}: some hit cites a paper");
    }
}

#[test]
fn a_page_past_the_first_reads_only_its_own_hits_and_equals_the_tail_of_a_longer_search() {
    let dir = tempfile::tempdir().unwrap();
    let store = mock_store(dir.path());
    // Deep enough for two pages of 3 on the mock corpus.
    let params = SearchParams { pool: 100, ..SearchParams::default() };
    let whole = SearchRequest { limit: Some(6), ..SearchRequest::new("attention", params) };
    let (all, _) = counted(&store, &whole);
    assert_eq!(all.ranked.len(), 6, "the query has two pages of 3");
    let (page, asked) = counted(&store, &SearchRequest { offset: 3, limit: Some(3), ..whole.clone() });
    assert_eq!(page.ranked, all.ranked[3..], "page 2 is hits 4 to 6, every field");
    assert_eq!(asked.details_papers, 3, "details of the page only");
    assert_eq!(page.hit_count, all.hit_count);
}

/// `parts_for` builds the snippets of the hits it names only, the others'
/// details still read: the web page's one search for its page and facets.
#[test]
fn parts_for_gives_the_named_hits_everything_and_the_others_their_details() {
    let dir = tempfile::tempdir().unwrap();
    let store = mock_store(dir.path());
    let params = SearchParams { pool: 100, ..SearchParams::default() };
    let whole = SearchRequest { limit: Some(9), ..SearchRequest::new("attention", params) };
    let (all, asked_all) = counted(&store, &whole);
    assert_eq!(all.ranked.len(), 9, "the query has nine hits");
    assert!(all.ranked[3..6].iter().all(|h| !h.snippet.is_empty()), "the compared hits have snippets");
    let (details, _) = counted(&store, &SearchRequest { parts: HitParts::Details, ..whole.clone() });
    for (range, calls) in [(3..6, 3), (0..2, 2), (7..20, 2), (0..9, 1), (4..4, 2)] {
        let (some, asked) = counted(&store, &SearchRequest { parts_for: Some(range.clone()), ..whole.clone() });
        assert_eq!(ranking(&some), ranking(&all), "{range:?}: the same ranking");
        for (at, h) in some.ranked.iter().enumerate() {
            let want = if range.contains(&at) { &all.ranked[at] } else { &details.ranked[at] };
            assert_eq!(h, want, "{range:?}: hit {at}");
        }
        let evidence = usize::from(range.start < 9 && range.start < range.end);
        let want =
            Asked { details_calls: calls, details_papers: 9, passage_calls: evidence, evidence_queries: evidence };
        assert_eq!(asked, want, "{range:?}");
    }
    assert_eq!(asked_all.details_calls, 1);
}
