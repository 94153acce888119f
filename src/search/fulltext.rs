//! Full text in a search: a paper's text score with its passages, and the
//! passage search (`search --passages`).
//!
//! **A paper's text score.** A paper with passages (a PDF filed under it)
//! scores
//!
//! ```text
//! text(paper) = BM25(query, title + abstract) + PASSAGE_WEIGHT · max over its body and caption passages of BM25(query, passage)
//! ```
//!
//! where a passage's BM25 uses the passage field's own statistics
//! ([`Store::passage_scores`]). The abstract's passages are left out of the
//! max (the abstract is already in the first term), and so are the
//! reference list's (they hold other papers' titles). `PASSAGE_WEIGHT` < 1
//! weights title and abstract hits above body hits (docs/FULLTEXT.md,
//! "Ranking with full text", says how it was chosen). A paper without
//! passages scores `BM25(query, title + abstract)` alone, the same f64 as
//! before full text existed, and an index without passages takes exactly
//! the path it took before (the combined scores are computed only when
//! some passage matches a query term).
//!
//! **Passage search** ranks passages by their own BM25, then adds to the
//! first [`PHRASE_POOL`] a phrase part, `PHRASE_WEIGHT · best BM25 · share of
//! the query's consecutive word pairs the passage holds in order`, and sorts
//! them again, best first, ties by passage id.
//!
//! **Dense and hybrid passage search** (`search --passages --mode
//! dense|hybrid`, after `embed --passages`): dense ranks the passages by the
//! cosine of their own vector with the query's (exact, over every passage
//! vector of the model); hybrid fuses the BM25 list above (phrase part
//! included) with the dense list, each `dense_k` deep (at least the page's
//! end), by the papers' fusion ([`super::first_stage::fuse`]: min-max
//! `0.5·lexical + 0.5·cosine` over the union, or RRF). Ties by passage id.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::first_stage::fuse;
use super::request::{Fusion, Mode};
use crate::analyzer::Analyzer;
use crate::candidate::{Candidate, DocScores, top_k};
use crate::embed::PassageIndex;
use crate::store::Store;

/// The weight of a paper's best passage in its text score (measured by
/// `examples/passage_weight.rs`: docs/FULLTEXT.md, "Ranking with full text").
pub const PASSAGE_WEIGHT: f64 = 0.3;

/// The best body or caption passage score of each paper with a matching
/// passage, by paper doc id (empty when the index has no passages).
pub fn best_passages(store: &Store, terms: &[(String, u32)]) -> anyhow::Result<DocScores> {
    let mut best = DocScores::default();
    if terms.is_empty() || store.passage_stats()?.num_passages == 0 {
        return Ok(best);
    }
    let scores = store.passage_scores(terms)?;
    let ids: Vec<i64> = scores.keys().copied().collect();
    let papers = store.passage_papers(&ids)?;
    for (passage, score) in scores {
        let Some((doc, kind)) = papers.get(&passage) else { continue };
        if kind == "abstract" || kind == "reference" || score <= 0.0 {
            continue;
        }
        let e = best.entry(*doc).or_insert(0.0);
        if score > *e {
            *e = score;
        }
    }
    Ok(best)
}

/// `scores` (title + abstract BM25 by doc) with `weight ·` each paper's
/// best passage added; papers matching only in a passage join.
pub fn combine(scores: &mut DocScores, best: &DocScores, weight: f64) {
    for (&doc, &b) in best {
        *scores.entry(doc).or_insert(0.0) += weight * b;
    }
}

/// One passage found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassageHit {
    pub passage: i64,
    /// The paper it belongs to (None when its record's paper is not indexed).
    pub paper_id: Option<String>,
    pub title: Option<String>,
    /// The section's heading ("" for text before the first heading and for captions).
    pub section: String,
    pub kind: String,
    pub page_first: u32,
    pub page_last: u32,
    pub text: String,
    /// Byte spans of the words of `text` matching a query term.
    pub spans: Vec<[usize; 2]>,
    pub score: f64,
    /// Character offsets into the document's text (`paper ID --text`).
    pub start: usize,
    pub end: usize,
}

/// How many of the best BM25 passages the phrase part reorders.
pub const PHRASE_POOL: usize = 50;

/// The phrase part's weight: a passage holding every pair of the query's
/// consecutive words, in order, gains this share of the best BM25 score of
/// the query's passages (chosen on the quote lookup's even split; see
/// docs/FULLTEXT.md).
pub const PHRASE_WEIGHT: f64 = 1.0;

/// Adds the phrase part to the first [`PHRASE_POOL`] passages of `ranked`
/// (sorted, best first) and sorts them again: BM25 scores each word alone,
/// so a passage quoting the query loses to one that repeats its rarer words.
fn phrase_rerank(store: &Store, analyzer: Analyzer, query: &str, ranked: &mut [(i64, f64)]) -> anyhow::Result<()> {
    let words = analyzer.tokenize(query);
    let pairs: HashSet<(&str, &str)> = words.windows(2).map(|w| (w[0].as_str(), w[1].as_str())).collect();
    let Some(&(_, best)) = ranked.first() else { return Ok(()) };
    if pairs.is_empty() {
        return Ok(());
    }
    let pool = ranked.len().min(PHRASE_POOL);
    let ids: Vec<i64> = ranked[..pool].iter().map(|p| p.0).collect();
    let texts: HashMap<i64, String> = store.passages(&ids)?.into_iter().map(|r| (r.passage, r.text)).collect();
    for (id, score) in &mut ranked[..pool] {
        let tokens = analyzer.tokenize(texts.get(id).map_or("", String::as_str));
        let held: HashSet<(&str, &str)> = tokens.windows(2).map(|w| (w[0].as_str(), w[1].as_str())).collect();
        let share = pairs.iter().filter(|p| held.contains(*p)).count() as f64 / pairs.len() as f64;
        *score += PHRASE_WEIGHT * best * share;
    }
    ranked[..pool].sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(())
}

/// How a dense or hybrid passage search ranks (BM25 needs none of it).
#[derive(Debug, Clone, Copy)]
pub struct PassageSemantic<'a> {
    /// The model and the passage vectors.
    pub index: &'a PassageIndex,
    /// `Dense` or `Hybrid`.
    pub mode: Mode,
    pub fusion: Fusion,
    /// Depth of the dense list, and of the BM25 list hybrid fuses it with.
    pub dense_k: usize,
}

/// Every passage matching a query term, by BM25 and then the phrase part,
/// best first.
fn bm25_ranked(store: &Store, analyzer: Analyzer, query: &str) -> anyhow::Result<Vec<(i64, f64)>> {
    let terms = crate::bm25::query_terms(analyzer, query);
    let mut ranked: Vec<(i64, f64)> = store.passage_scores(&terms)?.into_iter().filter(|(_, s)| *s > 0.0).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    phrase_rerank(store, analyzer, query, &mut ranked)?;
    Ok(ranked)
}

/// The dense or hybrid list (see the module), at least `depth` deep when
/// there are that many, best first.
fn semantic_ranked(
    store: &Store,
    analyzer: Analyzer,
    query: &str,
    s: &PassageSemantic,
    depth: usize,
) -> anyhow::Result<Vec<(i64, f64)>> {
    let qv = s.index.embed_query(query)?;
    let k = s.dense_k.max(depth);
    let dense = s.index.vectors.top_k(&qv, k);
    let list = match s.mode {
        Mode::Dense => dense,
        Mode::Bm25 => anyhow::bail!("a BM25 passage search has no semantic list"),
        Mode::Hybrid => {
            let lexical = bm25_ranked(store, analyzer, query)?;
            let scores: DocScores = lexical.iter().copied().collect();
            let head: Vec<Candidate> = lexical.iter().take(k).map(|&(doc, score)| Candidate { doc, score }).collect();
            let fused = fuse(
                s.fusion,
                &head,
                &dense,
                |union| Ok(union.iter().filter_map(|d| scores.get(d).map(|&x| (*d, x))).collect()),
                |passage| Ok(s.index.vectors.score(passage, &qv).map(f64::from)),
            )?
            .list;
            let n = fused.len();
            top_k(fused, n)
        }
    };
    Ok(list.into_iter().map(|c| (c.doc, c.score)).collect())
}

/// The passages best matching `query` (BM25, then the phrase part; or the
/// dense or hybrid list `semantic` asks for): `offset` skipped, then
/// `limit`, and how many were ranked in all.
pub fn passage_search(
    store: &Store,
    query: &str,
    offset: usize,
    limit: usize,
    semantic: Option<&PassageSemantic>,
) -> anyhow::Result<(Vec<PassageHit>, usize)> {
    let analyzer = store.meta()?.analyzer()?;
    let ranked = match semantic {
        Some(s) if s.mode != Mode::Bm25 => semantic_ranked(store, analyzer, query, s, offset.saturating_add(limit))?,
        _ => bm25_ranked(store, analyzer, query)?,
    };
    let total = ranked.len();
    let page: Vec<(i64, f64)> = ranked.into_iter().skip(offset).take(limit).collect();
    let ids: Vec<i64> = page.iter().map(|p| p.0).collect();
    let rows = store.passages(&ids)?;
    let evidence = crate::evidence::EvidenceQuery::new(store, query)?;
    let hits = rows
        .into_iter()
        .zip(page)
        .map(|(r, (_, score))| PassageHit {
            spans: crate::evidence::query_spans(&r.text, &evidence),
            passage: r.passage,
            paper_id: r.paper_id,
            title: r.title,
            section: r.heading,
            kind: r.kind,
            page_first: r.page_first,
            page_last: r.page_last,
            text: r.text,
            score,
            start: r.start,
            end: r.end,
        })
        .collect();
    Ok((hits, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::pdf::test_support::{document, file, mock_index};
    use crate::search::{SearchParams, SearchRequest, search};

    fn ranked(store: &Store, query: &str) -> Vec<(String, f64)> {
        let request = SearchRequest::new(query, SearchParams { hops: 0, pool: 200, ..SearchParams::default() });
        search(store, &request, None).unwrap().ranked.into_iter().map(|h| (h.id, h.bm25_score)).collect()
    }

    #[test]
    fn body_text_adds_to_its_paper_only() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        let before = ranked(&Store::open(&db).unwrap(), "sparse attention quokka");
        file(
            &db,
            &[(
                "/pdfs/p003.pdf",
                &document(
                    "Most Attention Heads Can Be Pruned After Training",
                    None,
                    &["The quokka benchmark.", "Sparse attention patterns."],
                ),
            )],
        );
        let store = Store::open(&db).unwrap();
        let after = ranked(&store, "sparse attention quokka");
        // Every paper without full text keeps its score, bit for bit.
        for (id, score) in &before {
            if id != "p003" {
                let now = after.iter().find(|(i, _)| i == id).map(|(_, s)| *s);
                assert_eq!(now.map(f64::to_bits), Some(score.to_bits()), "{id}");
            }
        }
        let old = before.iter().find(|(i, _)| i == "p003").map_or(0.0, |(_, s)| *s);
        let new = after.iter().find(|(i, _)| i == "p003").unwrap().1;
        let best = best_passages(
            &store,
            &crate::bm25::query_terms(crate::analyzer::Analyzer::English, "sparse attention quokka"),
        )
        .unwrap();
        let doc = *best.keys().next().unwrap();
        assert_eq!(best.len(), 1);
        assert!((new - (old + PASSAGE_WEIGHT * best[&doc])).abs() < 1e-9, "{new} vs {old} + w·{}", best[&doc]);
        // A word only the body holds finds the paper, with the page in its snippet.
        assert_eq!(ranked(&store, "quokka").first().map(|h| h.0.as_str()), Some("p003"));
        let request = SearchRequest::new("quokka", SearchParams { hops: 0, ..SearchParams::default() });
        let hit = search(&store, &request, None).unwrap().ranked.remove(0);
        assert_eq!((hit.snippet.as_str(), hit.snippet_page), ("The quokka benchmark.", Some(1)));
        let request = SearchRequest::new("sparse attention", SearchParams { hops: 0, ..SearchParams::default() });
        assert!(
            search(&store, &request, None).unwrap().ranked.iter().all(|h| h.id == "p003" || h.snippet_page.is_none())
        );
        // The abstract's passage does not count twice: the PDF's abstract words alone add nothing.
        let abs =
            best_passages(&store, &crate::bm25::query_terms(crate::analyzer::Analyzer::English, "printed")).unwrap();
        assert!(abs.is_empty());
    }

    #[test]
    fn a_passage_quoting_the_query_ranks_above_one_repeating_its_rarer_words() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        let quote = "Marsupial sleep patterns vary with the season.";
        let long = "Marsupial sleep patterns vary with the season. Field notes from three islands over four \
                    years record burrows, body weights, rainfall, the plants eaten and the hours of daylight.";
        let other = "Season, patterns: marsupial sleep.";
        file(&db, &[("/pdfs/x.pdf", &document("Notes On Marsupials", None, &[other, long]))]);
        let store = Store::open(&db).unwrap();
        let terms = crate::bm25::query_terms(store.meta().unwrap().analyzer().unwrap(), quote);
        let bm25 = store.passage_scores(&terms).unwrap();
        let (hits, _) = passage_search(&store, quote, 0, 10, None).unwrap();
        let (first, second) = (&hits[0], &hits[1]);
        assert!(first.text.starts_with(quote), "{hits:?}");
        // BM25 alone puts the repetitions first; the phrase part turns the order.
        assert!(bm25[&second.passage] > bm25[&first.passage], "{bm25:?}");
        assert!(first.score > second.score);
    }

    #[test]
    fn passage_search_gives_the_page_and_marks_the_words() {
        let dir = tempfile::tempdir().unwrap();
        let db = mock_index(dir.path());
        file(
            &db,
            &[(
                "/pdfs/x.pdf",
                &document("An Unindexed Paper About Marsupials", None, &["Koalas sleep.", "The quokka smiles."]),
            )],
        );
        let store = Store::open(&db).unwrap();
        let (hits, total) = passage_search(&store, "quokka", 0, 10, None).unwrap();
        assert_eq!(total, 1);
        let h = &hits[0];
        assert_eq!((h.page_first, h.page_last, h.section.as_str(), h.kind.as_str()), (2, 2, "1 Introduction", "body"));
        assert_eq!(h.title.as_deref(), Some("An Unindexed Paper About Marsupials"));
        assert_eq!(h.spans.iter().map(|&[s, e]| &h.text[s..e]).collect::<Vec<_>>(), ["quokka"]);
        let (none, total) = passage_search(&store, "wombat", 0, 10, None).unwrap();
        assert!(none.is_empty() && total == 0);
    }
}
