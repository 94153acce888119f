//! `litindex bench`: build an index from a corpus and time it, then time the
//! query paths, optionally beside SQLite FTS5 over the same text.
//!
//! Build: the library's build path ([`build`], format `paper`) into a
//! fresh file, timed, with the file's size (plus any `-wal`, `-shm` or
//! `-journal`) and the process's peak resident memory (`VmHWM`, reset before
//! each build through `/proc/self/clear_refs` on Linux; null elsewhere). Both
//! builds (litindex, then FTS5) run before any query.
//!
//! Queries (each set run once untimed to warm the caches, then timed; the
//! percentiles are nearest-rank over the per-query times, QPS is queries over
//! the total time):
//!
//! * `bm25_top10`: the query's terms ([`query_terms`]), [`Store::bm25_top_k`]
//!   for 10 and the top-10 selection of what it returns ([`top_k`]: by score,
//!   ties by doc); `bm25_matches_mean`, the papers matching a term, is counted
//!   untimed ([`bm25_scores`]);
//! * `search`: the full two-pass [`search`] as `litindex search` runs it
//!   ([`resolve`]'s defaults), the first page's ids and scores;
//! * `expand2_cte` / `expand2_bfs`: the 2-hop walk, both directions, from the
//!   ids of the top-10 BM25 papers, as one recursive CTE ([`expand_cte`]) and
//!   as a BFS over the stored adjacency ([`bfs`] over [`StoreAdjacency`]);
//! * `search_filtered`: the same searches, each with one filter of a mix
//!   built from the index ([`filter_mix`]): query `i` gets, by `i mod 4`, the
//!   newest fifth of the year range (`year:Y..`), the older half
//!   (`year:..Y`), the surname of the first author of paper `1 + 7919·i mod
//!   N` (`author:`), or that paper's venue (`venue:`; a year filter when it
//!   has none). Its ratio to `search` is the cost of filtering;
//! * `search_process`: the whole-process wall time of
//!   `litindex --db DB search QUERY --format json > /dev/null` for the first
//!   [`PROCESS_QUERIES`] queries.
//!
//! `--reuse` (with `--dir`) times the query sets over the `litindex.db` an
//! earlier run left in the directory, without building (build figures null).
//!
//! FTS5 (`--peer fts5`): `CREATE VIRTUAL TABLE t USING fts5(body, tokenize=…)`
//! in its own file (`unicode61` for `plain`, `porter unicode61` for
//! `english`), `title + " " + abstract` of every record inserted in one
//! transaction; a query is its words (the `plain` split, lowercased, minus
//! the analyzer's stop words, each once) double-quoted and joined with ` OR `
//! (FTS5's own tokenizer then stems them as it stemmed the text), run as
//! `SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t) LIMIT 10`, one
//! cached statement (`store::fts5`).
//!
//! tantivy (`--peer tantivy`, cargo feature `tantivy`): see [`tantivy`]. Its
//! figures fill the `tantivy` column, `tantivy_ratio` is litindex ÷ tantivy;
//! `top1_agreement` and `topk_overlap` say how far its top-k ids agree with
//! litindex's BM25 top-k ([`tantivy::agreement`]). `--top K` times BM25
//! top-K instead of top-10 (figures `bm25_topK_*`; litindex and tantivy only).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;

use crate::analyzer::{Analyzer, indexed_text};
use crate::bm25::query_terms;
use crate::graph::{Direction, bfs};
use crate::ingest::formats::{self, FormatOptions, InputFormat};
use crate::ingest::{IngestOptions, Input, build};
use crate::paper::Item;
use crate::search::{DEFAULT_LIMIT, HitParts, SearchChoices, SearchRequest, bm25_scores, resolve, search, top_k};
use crate::store::fts5::{Fts5Builder, Fts5Reader};
use crate::store::{Store, StoreAdjacency};

#[cfg(feature = "tantivy")]
pub mod tantivy;

mod filters;
mod table;
pub(crate) use filters::filter_mix;
pub use table::write_table;

/// Whether this build can measure tantivy (the cargo feature `tantivy`).
pub const TANTIVY_AVAILABLE: bool = cfg!(feature = "tantivy");

/// How many queries the whole-process figure runs.
pub(crate) const PROCESS_QUERIES: usize = 20;
/// How many BM25 papers are kept (and seed the walks).
pub const TOP: usize = 10;
/// How far the walks go.
pub(crate) const HOPS: u32 = 2;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub corpus: PathBuf,
    pub queries: PathBuf,
    pub analyzer: Analyzer,
    /// Also build and query FTS5.
    pub fts5: bool,
    /// Also build and query tantivy (needs the feature; an error without it).
    pub tantivy: bool,
    /// tantivy's indexing threads.
    pub tantivy_threads: usize,
    /// How many BM25 papers the `bm25_top*` figures (and tantivy's) keep: [`TOP`] by default.
    pub top: usize,
    /// Where to build; `None`: a temporary directory, removed afterwards.
    pub dir: Option<PathBuf>,
    /// The `litindex` binary for the whole-process figure; `None` skips it (null).
    pub exe: Option<PathBuf>,
    /// Time the queries over the `litindex.db` an earlier run left in `dir`
    /// instead of building (the build figures are then null).
    pub reuse: bool,
}

/// One measured number, for litindex and for FTS5 where it has a counterpart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub name: String,
    pub unit: &'static str,
    pub litindex: Option<f64>,
    pub fts5: Option<f64>,
    /// litindex / FTS5, when both are there and FTS5's is not zero.
    pub ratio: Option<f64>,
    /// tantivy's figure (`bench --peer tantivy`).
    pub tantivy: Option<f64>,
    /// litindex / tantivy, likewise.
    pub tantivy_ratio: Option<f64>,
}

/// Everything `bench` measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    pub papers: u64,
    pub queries: usize,
    pub figures: Vec<Figure>,
}

impl BenchReport {
    pub fn figure(&self, name: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.name == name)
    }
}

/// Per-query times of one query set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub qps: f64,
}

impl Latency {
    /// Nearest-rank percentiles of `times`; QPS is their count over their sum.
    pub fn of(times: &[Duration]) -> Option<Latency> {
        if times.is_empty() {
            return None;
        }
        let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        let total: f64 = ms.iter().sum::<f64>() / 1000.0;
        Some(Latency {
            p50_ms: nearest_rank(&ms, 50.0),
            p95_ms: nearest_rank(&ms, 95.0),
            p99_ms: nearest_rank(&ms, 99.0),
            qps: if total > 0.0 { ms.len() as f64 / total } else { f64::INFINITY },
        })
    }
}

/// The nearest-rank `p`-th percentile of sorted, non-empty `sorted`.
pub(crate) fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The FTS5 tokenizer matching an analyzer.
pub(crate) fn fts5_tokenizer(analyzer: Analyzer) -> &'static str {
    match analyzer {
        Analyzer::Plain => "unicode61",
        Analyzer::English => "porter unicode61",
    }
}

/// The FTS5 query for `query`: its words minus stop words, each once,
/// double-quoted, joined with ` OR `; `None` when nothing is left.
pub(crate) fn fts5_query(analyzer: Analyzer, query: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    for w in Analyzer::Plain.tokenize(query) {
        if !analyzer.is_stop_word(&w) && !words.contains(&w) {
            words.push(w);
        }
    }
    if words.is_empty() {
        return None;
    }
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect();
    Some(quoted.join(" OR "))
}

/// The process's peak resident set size so far, in bytes (Linux `VmHWM`).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

/// Resets the peak resident set size to the current one (Linux ≥ 4.0).
pub(crate) fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The size of a SQLite database with its side files.
pub fn db_bytes(path: &Path) -> u64 {
    let mut total = 0;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        if let Ok(m) = std::fs::metadata(&p) {
            total += m.len();
        }
    }
    total
}

/// Reads the query file: one query per non-blank line.
pub fn read_queries(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let queries: Vec<String> = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    anyhow::ensure!(!queries.is_empty(), "{} holds no query", path.display());
    Ok(queries)
}

/// Runs `f` over every query once untimed, then once timed.
pub(crate) fn time_queries<T>(
    queries: &[String],
    mut f: impl FnMut(usize, &str) -> anyhow::Result<T>,
) -> anyhow::Result<(Vec<Duration>, Vec<T>)> {
    for (i, q) in queries.iter().enumerate() {
        f(i, q)?;
    }
    let mut times = Vec::with_capacity(queries.len());
    let mut outs = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        let started = Instant::now();
        let out = f(i, q)?;
        times.push(started.elapsed());
        outs.push(out);
    }
    Ok((times, outs))
}

/// What a build cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuildFigures {
    pub secs: f64,
    pub bytes: u64,
    /// Peak resident memory during the build; `None` where it cannot be measured.
    pub peak_rss: Option<u64>,
    pub papers: u64,
}

/// What litindex's query paths cost.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryFigures {
    pub bm25_top10: Option<Latency>,
    pub search: Option<Latency>,
    pub search_filtered: Option<Latency>,
    pub expand2_cte: Option<Latency>,
    pub expand2_bfs: Option<Latency>,
    pub search_process: Option<Latency>,
    /// Mean number of papers with a positive BM25 score per query.
    pub bm25_matches_mean: f64,
    /// Mean size of the merged set of a search.
    pub search_hits_mean: f64,
    /// Mean size of the merged set of a filtered search.
    pub search_filtered_hits_mean: f64,
    /// Mean number of ids (papers or dangling) within 2 hops of the top-10 seeds.
    pub expand2_nodes_mean: f64,
    /// The paper ids of each query's BM25 top-k, best first.
    pub top_ids: Vec<Vec<String>>,
}

/// Runs the whole benchmark: builds, queries, figures.
pub fn run_bench(opts: &BenchOptions) -> anyhow::Result<BenchReport> {
    let queries = read_queries(&opts.queries)?;
    if opts.reuse {
        let dir = opts.dir.as_ref().ok_or_else(|| anyhow::anyhow!("--reuse needs --dir DIR of an earlier run"))?;
        let db = dir.join("litindex.db");
        anyhow::ensure!(db.is_file(), "{} does not exist: run bench --dir without --reuse first", db.display());
        anyhow::ensure!(!opts.fts5 && !opts.tantivy, "--reuse times litindex's queries only: drop --peer");
        let papers = Store::open(&db)?.meta()?.num_docs;
        let build = BuildFigures { secs: f64::NAN, bytes: db_bytes(&db), peak_rss: None, papers };
        let measured = query_litindex(&db, &queries, opts.exe.as_deref(), opts.top)?;
        let mut out = report(&build, &measured, None, queries.len());
        for f in out.figures.iter_mut().filter(|f| f.name.starts_with("build_")) {
            f.litindex = None;
        }
        name_top(&mut out, opts.top);
        return Ok(out);
    }
    anyhow::ensure!(opts.corpus.is_file(), "cannot read {}: no such file", opts.corpus.display());
    anyhow::ensure!(
        TANTIVY_AVAILABLE || !opts.tantivy,
        "this litindex was built without tantivy: rebuild with `cargo build --release --features tantivy`"
    );
    anyhow::ensure!(
        opts.top == TOP || !opts.fts5,
        "FTS5 is measured at top-{TOP} only: drop --top or fts5 from --peer"
    );
    let tmp;
    let dir: &Path = match &opts.dir {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            d
        }
        None => {
            tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
            tmp.path()
        }
    };
    let db = dir.join("litindex.db");
    let fts_db = dir.join("fts5.db");
    for p in [&db, &fts_db, &dir.join(TANTIVY_DIR)] {
        anyhow::ensure!(!p.exists(), "{} already exists; remove it or pass another --dir", p.display());
    }
    // Both builds first, so neither's peak memory includes what the query
    // phase leaves allocated; FTS5 first, because the allocator keeps
    // litindex's freed build buffers resident and they would count as FTS5's.
    let fts_build = if opts.fts5 { Some(build_fts5(&opts.corpus, &fts_db, opts.analyzer)?) } else { None };
    let peers = Peers::build(opts, dir)?;
    let build = build_litindex(&opts.corpus, &db, opts.analyzer)?;
    let measured = query_litindex(&db, &queries, opts.exe.as_deref(), opts.top)?;
    let fts = match fts_build {
        Some(b) => Some((b, query_fts5(&fts_db, opts.analyzer, &queries)?)),
        None => None,
    };
    let mut out = report(&build, &measured, fts.as_ref(), queries.len());
    name_top(&mut out, opts.top);
    peers.query_into(opts, dir, &queries, &measured, &mut out)?;
    Ok(out)
}

/// The BM25 figures named by the `k` they were timed at (`bm25_top100_p50`
/// with `--top 100`), with or without `--reuse`.
fn name_top(out: &mut BenchReport, top: usize) {
    if top != TOP {
        for f in out.figures.iter_mut() {
            f.name = f.name.replace("bm25_top10", &format!("bm25_top{top}"));
        }
    }
}

/// The directory, under `bench --dir`, of tantivy's index.
pub(crate) const TANTIVY_DIR: &str = "tantivy";

/// The peers other than FTS5 a run builds: tantivy, with the feature.
struct Peers {
    #[cfg(feature = "tantivy")]
    tantivy: Option<tantivy::TantivyBuild>,
}

impl Peers {
    /// Builds the peers `opts` asks for in `dir`.
    fn build(opts: &BenchOptions, dir: &Path) -> anyhow::Result<Peers> {
        #[cfg(feature = "tantivy")]
        {
            let build = || tantivy::build(&opts.corpus, &dir.join(TANTIVY_DIR), opts.analyzer, opts.tantivy_threads);
            Ok(Peers { tantivy: opts.tantivy.then(build).transpose()? })
        }
        #[cfg(not(feature = "tantivy"))]
        {
            let _ = (opts, dir);
            Ok(Peers {})
        }
    }

    /// Times the peers' queries and puts their figures into `out`.
    fn query_into(
        self,
        opts: &BenchOptions,
        dir: &Path,
        queries: &[String],
        measured: &QueryFigures,
        out: &mut BenchReport,
    ) -> anyhow::Result<()> {
        #[cfg(feature = "tantivy")]
        if let Some(build) = self.tantivy {
            let q = tantivy::query(&dir.join(TANTIVY_DIR), opts.analyzer, queries, opts.top)?;
            tantivy::fill_report(out, &build, &q, &measured.top_ids);
        }
        #[cfg(not(feature = "tantivy"))]
        let _ = (self, opts, dir, queries, measured, out);
        Ok(())
    }
}

/// Builds a new litindex index at `db` from `corpus` as `build --jsonl` does.
pub(crate) fn build_litindex(corpus: &Path, db: &Path, analyzer: Analyzer) -> anyhow::Result<BuildFigures> {
    let reset = reset_peak_rss();
    let started = Instant::now();
    let opts = IngestOptions { analyzer, ..IngestOptions::default() };
    build(db, &[Input::File { path: corpus.to_path_buf(), format: Some(InputFormat::Paper) }], &opts)?;
    let secs = started.elapsed().as_secs_f64();
    let peak_rss = if reset { peak_rss_bytes() } else { None };
    let papers = Store::open(db)?.meta()?.num_docs;
    Ok(BuildFigures { secs, bytes: db_bytes(db), peak_rss, papers })
}

/// Times litindex's query paths over an existing index.
pub(crate) fn query_litindex(
    db: &Path,
    queries: &[String],
    exe: Option<&Path>,
    top: usize,
) -> anyhow::Result<QueryFigures> {
    let store = Store::open(db)?;
    let analyzer = store.meta()?.analyzer()?;
    let (bm25_times, tops) =
        time_queries(queries, |_, q| Ok(top_k(store.bm25_top_k(&query_terms(analyzer, q), top)?, top)))?;
    let matches: Vec<usize> =
        queries.iter().map(|q| Ok(bm25_scores(&store, q)?.len())).collect::<anyhow::Result<_>>()?;
    // The search `litindex search` runs on this index (its defaults), its first page's ids and
    // scores only (as `run` and `eval` ask: no details read, no snippet built).
    let choices = SearchChoices { limit: Some(DEFAULT_LIMIT), ..SearchChoices::new("") };
    let resolved = resolve(&store, &choices, &crate::embed::Models::default())?;
    let request = SearchRequest { parts: HitParts::Scores, ..resolved.request };
    let semantic = resolved.semantic.as_ref();
    let (search_times, hits) =
        time_queries(queries, |_, q| Ok(search(&store, &request.with_query(q), semantic)?.hit_count))?;
    let filters = filter_mix(&store, queries.len())?;
    let (filtered_times, filtered_hits) = time_queries(queries, |i, q| {
        let r = SearchRequest { filter: filters[i].clone(), ..request.with_query(q) };
        Ok(search(&store, &r, semantic)?.hit_count)
    })?;
    let top_ids: Vec<Vec<String>> = tops
        .iter()
        .map(|top| top.iter().map(|c| Ok(store.paper_by_doc(c.doc)?.id)).collect())
        .collect::<anyhow::Result<_>>()?;
    let seeds: Vec<Vec<String>> = top_ids.iter().map(|ids| ids.iter().take(TOP).cloned().collect()).collect();
    let (cte_times, reached) =
        time_queries(queries, |i, _| Ok(store.expand_cte(&seeds[i], HOPS, Direction::Both)?.len()))?;
    let adjacency = StoreAdjacency(&store);
    let (bfs_times, _) = time_queries(queries, |i, _| Ok(bfs(&adjacency, &seeds[i], HOPS, Direction::Both)?.len()))?;
    let search_process = match exe {
        Some(exe) => {
            let first = &queries[..queries.len().min(PROCESS_QUERIES)];
            let (times, _) = time_queries(first, |_, q| search_process(exe, db, q))?;
            Latency::of(&times)
        }
        None => None,
    };
    let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
    Ok(QueryFigures {
        bm25_top10: Latency::of(&bm25_times),
        search: Latency::of(&search_times),
        search_filtered: Latency::of(&filtered_times),
        expand2_cte: Latency::of(&cte_times),
        expand2_bfs: Latency::of(&bfs_times),
        search_process,
        bm25_matches_mean: mean(&matches),
        search_hits_mean: mean(&hits),
        search_filtered_hits_mean: mean(&filtered_hits),
        expand2_nodes_mean: mean(&reached),
        top_ids,
    })
}

/// Times the FTS5 top-10 query over an FTS5 file made by [`build_fts5`].
pub(crate) fn query_fts5(path: &Path, analyzer: Analyzer, queries: &[String]) -> anyhow::Result<Option<Latency>> {
    let fts = Fts5Reader::open(path)?;
    let matches: Vec<Option<String>> = queries.iter().map(|q| fts5_query(analyzer, q)).collect();
    let (times, _) = time_queries(queries, |i, _| match &matches[i] {
        Some(m) => Ok(fts.top10(m)?.len()),
        None => Ok(0),
    })?;
    Ok(Latency::of(&times))
}

/// The figures of a run: litindex's, and FTS5's where it has a counterpart.
pub fn report(
    build: &BuildFigures,
    measured: &QueryFigures,
    fts: Option<&(BuildFigures, Option<Latency>)>,
    queries: usize,
) -> BenchReport {
    let mut figures: Vec<Figure> = Vec::new();
    let mut push = |name: &str, unit: &'static str, litindex: Option<f64>, fts5: Option<f64>| {
        let ratio = match (litindex, fts5) {
            (Some(a), Some(b)) if b != 0.0 && a.is_finite() && b.is_finite() => Some(a / b),
            _ => None,
        };
        figures.push(Figure {
            name: name.to_string(),
            unit,
            litindex,
            fts5,
            ratio,
            tantivy: None,
            tantivy_ratio: None,
        });
    };
    let fb = fts.map(|(b, _)| b);
    let fl = fts.and_then(|(_, l)| *l);
    let per_s = |b: &BuildFigures| b.papers as f64 / b.secs.max(1e-9);
    let per_paper = |b: &BuildFigures| b.bytes as f64 / b.papers.max(1) as f64;
    push("build_s", "s", Some(build.secs), fb.map(|b| b.secs));
    push("build_papers_per_s", "papers/s", Some(per_s(build)), fb.map(per_s));
    push("db_bytes", "bytes", Some(build.bytes as f64), fb.map(|b| b.bytes as f64));
    push("bytes_per_paper", "bytes", Some(per_paper(build)), fb.map(per_paper));
    push("peak_rss_bytes", "bytes", build.peak_rss.map(|b| b as f64), fb.and_then(|b| b.peak_rss.map(|x| x as f64)));
    let mut latency = |name: &str, lit: Option<Latency>, peer: Option<Latency>| {
        push(&format!("{name}_p50"), "ms", lit.map(|l| l.p50_ms), peer.map(|l| l.p50_ms));
        push(&format!("{name}_p95"), "ms", lit.map(|l| l.p95_ms), peer.map(|l| l.p95_ms));
        push(&format!("{name}_p99"), "ms", lit.map(|l| l.p99_ms), peer.map(|l| l.p99_ms));
        push(&format!("{name}_qps"), "queries/s", lit.map(|l| l.qps), peer.map(|l| l.qps));
    };
    latency("bm25_top10", measured.bm25_top10, fl);
    latency("search", measured.search, None);
    latency("search_filtered", measured.search_filtered, None);
    latency("expand2_cte", measured.expand2_cte, None);
    latency("expand2_bfs", measured.expand2_bfs, None);
    let ratio = match (measured.search_filtered, measured.search) {
        (Some(f), Some(s)) if s.p50_ms > 0.0 => Some(f.p50_ms / s.p50_ms),
        _ => None,
    };
    push("filtered_over_plain_p50", "ratio", ratio, None);
    let process = measured.search_process;
    push("search_process_p50", "ms", process.map(|l| l.p50_ms), None);
    push("search_process_p95", "ms", process.map(|l| l.p95_ms), None);
    push("bm25_matches_mean", "papers", Some(measured.bm25_matches_mean), None);
    push("search_hits_mean", "papers", Some(measured.search_hits_mean), None);
    push("search_filtered_hits_mean", "papers", Some(measured.search_filtered_hits_mean), None);
    push("expand2_nodes_mean", "nodes", Some(measured.expand2_nodes_mean), None);
    BenchReport { papers: build.papers, queries, figures }
}

/// One `litindex --db DB search QUERY --format json > /dev/null`.
fn search_process(exe: &Path, db: &Path, query: &str) -> anyhow::Result<()> {
    let status = Command::new(exe)
        .env_remove("LITINDEX_DB")
        .arg("--db")
        .arg(db)
        .args(["search", "--format", "json", "--", query])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    anyhow::ensure!(status.success(), "`litindex search {query:?}` failed ({status})");
    Ok(())
}

/// Builds a new FTS5 file at `path` over the corpus's `title + " " + abstract`.
pub(crate) fn build_fts5(corpus: &Path, path: &Path, analyzer: Analyzer) -> anyhow::Result<BuildFigures> {
    let reset = reset_peak_rss();
    let started = Instant::now();
    let fts = Fts5Builder::create(path, fts5_tokenizer(analyzer))?;
    let mut papers = 0u64;
    fts.fill(|insert| {
        let input = formats::open_input(corpus)?;
        for item in formats::read(InputFormat::Paper, input, &FormatOptions::default())? {
            let (item, origin) = item.map_err(|e| anyhow::anyhow!("{e}"))?;
            if let Item::Record(r) = item {
                papers += 1;
                insert(papers as i64, &indexed_text(&r.title, &r.abstract_))
                    .with_context(|| format!("{origin}: cannot insert into FTS5"))?;
            }
        }
        Ok(())
    })?;
    let secs = started.elapsed().as_secs_f64();
    let peak_rss = if reset { peak_rss_bytes() } else { None };
    Ok(BuildFigures { secs, bytes: db_bytes(path), peak_rss, papers })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 50.0), 50.0);
        assert_eq!(nearest_rank(&v, 95.0), 95.0);
        assert_eq!(nearest_rank(&v, 99.0), 99.0);
        assert_eq!(nearest_rank(&[3.0], 99.0), 3.0);
        let l = Latency::of(&[Duration::from_millis(10), Duration::from_millis(30)]).unwrap();
        assert_eq!(l.p50_ms, 10.0);
        assert_eq!(l.p99_ms, 30.0);
        assert!((l.qps - 50.0).abs() < 1e-9);
    }

    #[test]
    fn fts5_queries_quote_terms_and_drop_stop_words() {
        assert_eq!(
            fts5_query(Analyzer::Plain, "Sparse the-attention").unwrap(),
            "\"sparse\" OR \"the\" OR \"attention\""
        );
        assert_eq!(fts5_query(Analyzer::English, "the sparse attention").unwrap(), "\"sparse\" OR \"attention\"");
        assert_eq!(fts5_query(Analyzer::Plain, "a a b").unwrap(), "\"a\" OR \"b\"");
        assert!(fts5_query(Analyzer::English, "the of").is_none());
        assert!(fts5_query(Analyzer::Plain, "?!").is_none());
    }
}
