//! The tantivy peer of `bench` (cargo feature `tantivy`): an index of the
//! same `title + " " + abstract` built by the `tantivy` crate in a directory
//! of its own, and its BM25 top-k timed the way litindex's is.
//!
//! Schema: `body`, the text, one field (so BM25 document lengths count the
//! same tokens litindex counts), indexed with term frequencies and no
//! positions (litindex's postings hold no positions either), not stored; `id`,
//! the record's id, stored and not indexed. Tokenizer: tantivy's `default`
//! (split on every non-alphanumeric character, drop tokens of 40 bytes or
//! more, lowercase) for `plain`, `en_stem` (the same, then Snowball English
//! stemming, no stop words) for `english`. Writer: [`HEAP_BYTES`] overall,
//! the thread count the caller asks, one commit, then the merges it starts are
//! waited for; the build time includes them.
//!
//! Query ([`query_terms`]): litindex's `plain` split of the query (the split
//! tantivy's tokenizer makes), minus the analyzer's stop words, each word run
//! through the index's tokenizer; a repeated word stays repeated, as
//! litindex's BM25 counts it again. The terms are OR-ed: a [`BooleanQuery`]
//! of `Should` [`TermQuery`]s with frequencies, whose score is the sum of the
//! terms' BM25. Top-k by [`TopDocs`] ordered by score; the timed part is the
//! analysis, the query and the collection of the [`DocAddress`]es (the ids
//! are read from the store afterwards, for [`agreement`]).
//!
//! How its BM25 differs from litindex's (both use
//! `idf = ln(1 + (N − df + 0.5)/(df + 0.5))` over the whole index):
//! tantivy's `k1` is fixed at 1.2 (litindex's default is 1.5, set at build),
//! `b` = 0.75 in both; tantivy stores a document's length as a one-byte
//! "fieldnorm" (exact up to 40 tokens, then buckets ~1/8 wide), and computes
//! in `f32`. Under `english` tantivy keeps stop words in the text, so its
//! document lengths count them where litindex's do not, and it splits
//! `don't` into `don` and `t` where litindex's UAX #29 words keep it whole.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value};
use tantivy::tokenizer::{TextAnalyzer, TokenStream};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, doc};

use super::{BenchReport, BuildFigures, Figure, Latency, peak_rss_bytes, reset_peak_rss, time_queries};
use crate::analyzer::{Analyzer, indexed_text};
use crate::ingest::formats::{self, FormatOptions, InputFormat};
use crate::paper::Item;

/// The writer's overall memory budget (tantivy-py's default heap size).
pub(crate) const HEAP_BYTES: usize = 128_000_000;

/// The tantivy tokenizer matching an analyzer.
pub(crate) fn tokenizer_name(analyzer: Analyzer) -> &'static str {
    match analyzer {
        Analyzer::Plain => "default",
        Analyzer::English => "en_stem",
    }
}

/// The schema: `body` (indexed with frequencies by `tokenizer`, not stored)
/// and `id` (stored only).
fn schema(tokenizer: &str) -> (Schema, Field, Field) {
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default().set_tokenizer(tokenizer).set_index_option(IndexRecordOption::WithFreqs);
    let body = builder.add_text_field("body", TextOptions::default().set_indexing_options(indexing));
    let id = builder.add_text_field("id", STORED);
    (builder.build(), body, id)
}

/// What the tantivy build cost, with how it was run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TantivyBuild {
    pub figures: BuildFigures,
    pub threads: usize,
    /// Segments left after the merges.
    pub segments: usize,
}

/// Builds a tantivy index in the new directory `dir` over the corpus's
/// `title + " " + abstract`, with `threads` indexing threads.
pub fn build(corpus: &Path, dir: &Path, analyzer: Analyzer, threads: usize) -> anyhow::Result<TantivyBuild> {
    anyhow::ensure!(!dir.exists(), "{} already exists; remove it or pass another --dir", dir.display());
    let reset = reset_peak_rss();
    let started = Instant::now();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (schema, body, id) = schema(tokenizer_name(analyzer));
    let index = Index::create_in_dir(dir, schema)
        .with_context(|| format!("cannot create a tantivy index in {}", dir.display()))?;
    let mut writer: IndexWriter = index.writer_with_num_threads(threads, HEAP_BYTES)?;
    let mut papers = 0u64;
    let input = formats::open_input(corpus)?;
    for item in formats::read(InputFormat::Paper, input, &FormatOptions::default())? {
        let (item, origin) = item.map_err(|e| anyhow::anyhow!("{e}"))?;
        if let Item::Record(r) = item {
            papers += 1;
            let text = indexed_text(&r.title, &r.abstract_);
            writer
                .add_document(doc!(body => text, id => r.source_id.to_string()))
                .with_context(|| format!("{origin}: cannot add to the tantivy index"))?;
        }
    }
    writer.commit().context("tantivy commit failed")?;
    writer.wait_merging_threads().context("tantivy merge failed")?;
    let secs = started.elapsed().as_secs_f64();
    let peak_rss = if reset { peak_rss_bytes() } else { None };
    let segments = index.searchable_segment_ids()?.len();
    let figures = BuildFigures { secs, bytes: dir_bytes(dir)?, peak_rss, papers };
    Ok(TantivyBuild { figures, threads, segments })
}

/// The total size of the files in `dir` (tantivy's index is flat).
fn dir_bytes(dir: &Path) -> anyhow::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let meta = entry?.metadata()?;
        if meta.is_file() {
            total += meta.len();
        }
    }
    Ok(total)
}

/// The terms tantivy is asked for (see the module doc): the `plain` words of
/// `query` that are not `analyzer`'s stop words, each through `tokenizer`.
pub fn query_terms(analyzer: Analyzer, tokenizer: &mut TextAnalyzer, query: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for word in Analyzer::Plain.tokenize(query) {
        if analyzer.is_stop_word(&word) {
            continue;
        }
        let mut stream = tokenizer.token_stream(&word);
        while let Some(token) = stream.next() {
            terms.push(token.text.clone());
        }
    }
    terms
}

/// The OR of `terms` on `field`, each scored by BM25 (a repeat adds its score again).
pub(crate) fn or_query(field: Field, terms: &[String]) -> BooleanQuery {
    let clauses: Vec<(Occur, Box<dyn Query>)> = terms
        .iter()
        .map(|t| {
            let q = TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(q) as Box<dyn Query>)
        })
        .collect();
    BooleanQuery::new(clauses)
}

/// A tantivy index opened for its top-k query.
pub struct Reader {
    reader: IndexReader,
    tokenizer: TextAnalyzer,
    analyzer: Analyzer,
    body: Field,
    id: Field,
}

impl Reader {
    pub fn open(dir: &Path, analyzer: Analyzer) -> anyhow::Result<Reader> {
        let index =
            Index::open_in_dir(dir).with_context(|| format!("cannot open the tantivy index in {}", dir.display()))?;
        let schema = index.schema();
        let (body, id) = (schema.get_field("body")?, schema.get_field("id")?);
        let name = tokenizer_name(analyzer);
        let tokenizer =
            index.tokenizers().get(name).ok_or_else(|| anyhow::anyhow!("tantivy has no tokenizer `{name}`"))?;
        let reader: IndexReader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(Reader { reader, tokenizer, analyzer, body, id })
    }

    /// The `k` best BM25 matches of `query`, best first.
    pub fn top(&mut self, query: &str, k: usize) -> anyhow::Result<Vec<DocAddress>> {
        let terms = query_terms(self.analyzer, &mut self.tokenizer, query);
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let hits = searcher.search(&or_query(self.body, &terms), &TopDocs::with_limit(k).order_by_score())?;
        Ok(hits.into_iter().map(|(_, addr)| addr).collect())
    }

    /// The stored ids of `addrs`, in order.
    pub fn ids(&self, addrs: &[DocAddress]) -> anyhow::Result<Vec<String>> {
        let searcher = self.reader.searcher();
        addrs
            .iter()
            .map(|a| {
                let d: TantivyDocument = searcher.doc(*a)?;
                Ok(d.get_first(self.id).and_then(|v| v.as_str()).unwrap_or_default().to_string())
            })
            .collect()
    }
}

/// What tantivy's queries cost and returned.
#[derive(Debug, Clone, PartialEq)]
pub struct TantivyQueries {
    pub top: Option<Latency>,
    /// The ids of each query's top-k.
    pub ids: Vec<Vec<String>>,
}

/// Times tantivy's top-`k` over every query (warm pass, then timed pass).
pub fn query(dir: &Path, analyzer: Analyzer, queries: &[String], k: usize) -> anyhow::Result<TantivyQueries> {
    let mut reader = Reader::open(dir, analyzer)?;
    let (times, tops) = time_queries(queries, |_, q| reader.top(q, k))?;
    let ids = tops.iter().map(|t| reader.ids(t)).collect::<anyhow::Result<_>>()?;
    Ok(TantivyQueries { top: Latency::of(&times), ids })
}

/// How far two engines' ranked lists agree, over the queries where the first
/// has at least one hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    /// Share of those queries whose first hit is the same paper.
    pub top1: f64,
    /// Mean of `|A ∩ B| / max(|A|, |B|)`.
    pub overlap: f64,
    /// How many queries were compared.
    pub queries: usize,
}

/// The agreement of `b` with `a`, query by query; `None` when `a` has no hit at all.
pub fn agreement(a: &[Vec<String>], b: &[Vec<String>]) -> Option<Agreement> {
    let (mut same_top, mut overlap, mut n) = (0usize, 0.0, 0usize);
    for (x, y) in a.iter().zip(b) {
        if x.is_empty() {
            continue;
        }
        n += 1;
        if y.first() == x.first() {
            same_top += 1;
        }
        let shared = x.iter().filter(|id| y.contains(id)).count();
        overlap += shared as f64 / x.len().max(y.len()) as f64;
    }
    (n > 0).then_some(Agreement { top1: same_top as f64 / n as f64, overlap: overlap / n as f64, queries: n })
}

/// Puts tantivy's figures into `report`: beside litindex's for the build
/// and the BM25 top-k (with litindex ÷ tantivy), and its own rows for the
/// threads, the segments and the agreement with `litindex_ids`.
pub(crate) fn fill_report(
    report: &mut BenchReport,
    build: &TantivyBuild,
    queries: &TantivyQueries,
    litindex_ids: &[Vec<String>],
) {
    let b = &build.figures;
    let mut values: Vec<(String, f64)> = vec![
        ("build_s".into(), b.secs),
        ("build_papers_per_s".into(), b.papers as f64 / b.secs.max(1e-9)),
        ("db_bytes".into(), b.bytes as f64),
        ("bytes_per_paper".into(), b.bytes as f64 / b.papers.max(1) as f64),
    ];
    if let Some(rss) = b.peak_rss {
        values.push(("peak_rss_bytes".into(), rss as f64));
    }
    // The BM25 figures are named bm25_topK_* (bm25_top10_* by default).
    if let Some(l) = queries.top {
        let k = report.figures.iter().find_map(|f| f.name.strip_suffix("_p50").filter(|n| n.starts_with("bm25_top")));
        let k = k.unwrap_or("bm25_top10").to_string();
        for (suffix, v) in [("p50", l.p50_ms), ("p95", l.p95_ms), ("p99", l.p99_ms), ("qps", l.qps)] {
            values.push((format!("{k}_{suffix}"), v));
        }
    }
    for (name, v) in values {
        if let Some(f) = report.figures.iter_mut().find(|f| f.name == name) {
            f.tantivy = Some(v);
            f.tantivy_ratio = match f.litindex {
                Some(a) if v != 0.0 && a.is_finite() && v.is_finite() => Some(a / v),
                _ => None,
            };
        }
    }
    let mut own = |name: &str, unit: &'static str, v: f64| {
        let f = Figure {
            name: name.to_string(),
            unit,
            litindex: None,
            fts5: None,
            ratio: None,
            tantivy: Some(v),
            tantivy_ratio: None,
        };
        report.figures.push(f);
    };
    own("tantivy_threads", "threads", build.threads as f64);
    own("tantivy_segments", "segments", build.segments as f64);
    if let Some(a) = agreement(litindex_ids, &queries.ids) {
        own("top1_agreement", "share", a.top1);
        own("topk_overlap", "share", a.overlap);
        own("agreement_queries", "queries", a.queries as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyzer_for(a: Analyzer) -> TextAnalyzer {
        Index::create_in_ram(schema(tokenizer_name(a)).0).tokenizers().get(tokenizer_name(a)).unwrap()
    }

    #[test]
    fn query_terms_follow_litindex_analyzers() {
        let mut plain = analyzer_for(Analyzer::Plain);
        assert_eq!(
            query_terms(Analyzer::Plain, &mut plain, "Sparse the-Attention sparse"),
            ["sparse", "the", "attention", "sparse"]
        );
        let mut english = analyzer_for(Analyzer::English);
        assert_eq!(query_terms(Analyzer::English, &mut english, "The running of Attention"), ["run", "attent"]);
        // Every term English gives is the stem litindex's english analyzer makes.
        let q = "Graphs of citations ranking papers, learned routing";
        assert_eq!(query_terms(Analyzer::English, &mut english, q), Analyzer::English.tokenize(q));
        assert!(query_terms(Analyzer::English, &mut english, "the of and").is_empty());
        assert!(query_terms(Analyzer::Plain, &mut plain, "?!").is_empty());
    }

    #[test]
    fn or_query_sums_bm25_over_any_term() {
        let (schema, body, id) = schema("default");
        let index = Index::create_in_ram(schema);
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let texts = ["alpha beta", "alpha gamma gamma", "delta", "beta beta delta"];
        for (i, t) in texts.iter().enumerate() {
            writer.add_document(doc!(body => *t, id => format!("d{i}"))).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let terms = vec!["alpha".to_string(), "gamma".to_string()];
        let hits = searcher.search(&or_query(body, &terms), &TopDocs::with_limit(10).order_by_score()).unwrap();
        // Docs 0 and 1 match (either term); 1 matches both.
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].1.doc_id, 1);
        // BM25 by hand, k1 = 1.2, b = 0.75, N = 4, avgdl = 9/4.
        let (n, avgdl) = (4.0f64, 9.0 / 4.0);
        let idf = |df: f64| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let tf = |f: f64, dl: f64| f * 2.2 / (f + 1.2 * (0.25 + 0.75 * dl / avgdl));
        let doc1 = idf(2.0) * tf(1.0, 3.0) + idf(1.0) * tf(2.0, 3.0);
        let doc0 = idf(2.0) * tf(1.0, 2.0);
        assert!((hits[0].0 as f64 - doc1).abs() < 1e-4, "{} vs {doc1}", hits[0].0);
        assert!((hits[1].0 as f64 - doc0).abs() < 1e-4, "{} vs {doc0}", hits[1].0);
        // A repeated term counts again.
        let twice = vec!["delta".to_string(), "delta".to_string()];
        let once = searcher.search(&or_query(body, &twice[..1]), &TopDocs::with_limit(1).order_by_score()).unwrap();
        let rep = searcher.search(&or_query(body, &twice), &TopDocs::with_limit(1).order_by_score()).unwrap();
        assert!((rep[0].0 - 2.0 * once[0].0).abs() < 1e-5);
    }

    #[test]
    fn agreement_counts_first_hits_and_overlap() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let a = vec![s(&["a", "b"]), s(&["c"]), s(&[])];
        let b = vec![s(&["a", "c"]), s(&["d", "c"]), s(&["x"])];
        let g = agreement(&a, &b).unwrap();
        assert_eq!(g.queries, 2);
        assert_eq!(g.top1, 0.5);
        assert!((g.overlap - 0.5).abs() < 1e-12);
        assert!(agreement(&[s(&[])], &[s(&["a"])]).is_none());
    }
}
