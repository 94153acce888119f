//! `litindex fetch`: papers from the OpenAlex, Semantic Scholar and arXiv
//! APIs into the index, through the same ingest engine as files.
//!
//! A fetch is a list of [jobs](jobs::Job) (searches paged to their limit,
//! batches of ids), then, with [`Expand`], up to two hops of snowballing
//! from what they found ([`expand`]). Each answer is read as its ingest
//! format (`openalex`, `s2`, `arxiv-atom`) and ingested in a transaction of
//! its own, which also stores the answer (compressed, with its request and
//! time) in the index's response cache: a kill loses at most the page in
//! flight, and a rerun takes every page it already has from the cache
//! (neither asking the API nor ingesting again) and asks only for the rest;
//! a page `build` carried over from the index it replaced is ingested from
//! the cache, without asking.
//! `refresh` asks again for everything.
//!
//! HTTP (rate limits, retries, timeouts) is in [`http`]; the library never
//! prints: progress goes to [`FetchOptions::progress`], notes to
//! [`FetchOptions::notes`].

mod api;
mod expand;
mod http;
mod jobs;

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use api::{Request, encode};
pub use http::HttpStats;
pub use jobs::Links;

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::ingest::{IngestOptions, IngestReport, Input, ingest};
use crate::store::fetch::CachedResponse;
use crate::store::{Notes, Store};
use api::{Found, read_page};
use jobs::Job;

/// The three APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    OpenAlex = 0,
    S2 = 1,
    Arxiv = 2,
}

impl Api {
    /// The name stored in the cache (`fetch_responses.api`).
    pub fn name(self) -> &'static str {
        match self {
            Api::OpenAlex => "openalex",
            Api::S2 => "s2",
            Api::Arxiv => "arxiv",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Api::OpenAlex => "OpenAlex",
            Api::S2 => "Semantic Scholar",
            Api::Arxiv => "arXiv",
        }
    }

    /// The published rate limit as an interval between requests: arXiv asks
    /// for one request every 3 s; Semantic Scholar allows about one a
    /// second (with or without a key, for most endpoints); OpenAlex allows
    /// 10 a second.
    pub fn default_interval(self) -> Duration {
        match self {
            Api::OpenAlex => Duration::from_millis(100),
            Api::S2 => Duration::from_millis(1000),
            Api::Arxiv => Duration::from_millis(3000),
        }
    }

    fn accept(self) -> &'static str {
        match self {
            Api::Arxiv => "application/atom+xml",
            _ => "application/json",
        }
    }
}

/// Where each API is (tests and mirrors point these elsewhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bases {
    pub openalex: String,
    pub s2: String,
    pub arxiv: String,
}

impl Default for Bases {
    fn default() -> Bases {
        Bases {
            openalex: "https://api.openalex.org".into(),
            s2: "https://api.semanticscholar.org".into(),
            arxiv: "https://export.arxiv.org".into(),
        }
    }
}

/// Which links a snowball follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expand {
    References,
    Citations,
    Both,
}

/// What to fetch.
#[derive(Debug, Clone, Default)]
pub struct FetchPlan {
    /// OpenAlex works `search=`.
    pub openalex_search: Option<String>,
    /// OpenAlex works `filter=` (their filter syntax, e.g. `publication_year:2023,concepts.id:C41008148`).
    pub openalex_filter: Option<String>,
    /// Semantic Scholar paper search.
    pub s2_search: Option<String>,
    /// arXiv `search_query` (their syntax: `ti:attention AND cat:cs.CL`).
    pub arxiv_search: Option<String>,
    /// Papers by id: `doi:…`, `arXiv:…`, `W…`, `CorpusId:…`, S2 shas.
    pub ids: Vec<String>,
    /// Papers by title (a PDF's reference entry with no id: `--from-gaps`):
    /// one OpenAlex `search=` each, its first hit only. The entry links to
    /// the paper fetched only when their title signatures are equal (and
    /// nothing disagrees), at the end of the ingest (`store::references`).
    pub titles: Vec<String>,
    /// Papers per search.
    pub limit: usize,
    /// Snowballing, its hops (1 or 2), and the most papers requested per hop.
    pub expand: Option<Expand>,
    pub depth: u8,
    pub expand_limit: usize,
}

/// How to fetch.
pub struct FetchOptions<'a> {
    pub bases: Bases,
    /// For OpenAlex's polite pool and the User-Agent.
    pub mailto: Option<String>,
    pub s2_api_key: Option<String>,
    /// Overrides every API's interval between requests.
    pub min_interval: Option<Duration>,
    /// Per request, the whole exchange.
    pub timeout: Duration,
    pub retries: u32,
    /// The first backoff (doubled on each retry).
    pub backoff: Duration,
    /// Ask again for what the cache has.
    pub refresh: bool,
    /// Ask again for cached answers older than this (`None`: they never go stale).
    pub max_age: Option<Duration>,
    /// Skip malformed records of an answer (counted) instead of stopping.
    pub skip_invalid: bool,
    /// Settings for an index this fetch creates.
    pub analyzer: Analyzer,
    pub bm25: Bm25,
    pub progress: Option<&'a dyn Fn(&FetchProgress)>,
    pub notes: Option<Notes<'a>>,
}

impl Default for FetchOptions<'_> {
    fn default() -> Self {
        FetchOptions {
            bases: Bases::default(),
            mailto: None,
            s2_api_key: None,
            min_interval: None,
            timeout: Duration::from_secs(30),
            retries: 5,
            backoff: Duration::from_secs(1),
            refresh: false,
            max_age: None,
            skip_invalid: false,
            analyzer: Analyzer::default(),
            bm25: Bm25::default(),
            progress: None,
            notes: None,
        }
    }
}

/// Where a fetch is.
#[derive(Debug, Clone, Default)]
pub struct FetchProgress {
    /// Pages read, of which from the cache.
    pub pages: u64,
    pub cached_pages: u64,
    /// Records ingested.
    pub records: u64,
    pub http: HttpStats,
    /// Set while waiting (rate limit, backoff, `Retry-After`).
    pub waiting: Option<Duration>,
    /// The request in flight.
    pub current: String,
    /// The snowball hop (0 for the searches and ids themselves).
    pub hop: u8,
}

/// What a fetch did.
#[derive(Debug, Clone, Default)]
pub struct FetchSummary {
    pub pages: u64,
    pub cached_pages: u64,
    pub http: HttpStats,
    /// The ingest reports of the pages, added up.
    pub report: IngestReport,
    /// Papers found per hop (0: the searches and ids).
    pub found_per_hop: Vec<u64>,
    /// Whether the fetch created the index.
    pub created: bool,
}

/// The first request of each job, as `fetch` would send them (later pages
/// and snowball hops depend on the answers).
pub fn dry_run(plan: &FetchPlan, opts: &FetchOptions) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for job in initial_jobs(plan)? {
        if let Some(req) = job.request(&opts.bases) {
            let url = http::wire_url(&req, opts.mailto.as_deref());
            out.push(match &req.body {
                None => format!("GET {url}"),
                Some(b) => format!("POST {url} {b}"),
            });
        }
    }
    Ok(out)
}

fn initial_jobs(plan: &FetchPlan) -> anyhow::Result<Vec<Job>> {
    let mut jobs = Vec::new();
    if let Some(q) = &plan.openalex_search {
        jobs.push(Job::openalex_search(q, plan.limit));
    }
    if let Some(f) = &plan.openalex_filter {
        jobs.push(Job::openalex_filter(f, plan.limit));
    }
    if let Some(q) = &plan.s2_search {
        jobs.push(Job::S2Search { query: q.clone(), offset: 0, remaining: plan.limit });
    }
    if let Some(q) = &plan.arxiv_search {
        jobs.push(Job::arxiv_search(q, plan.limit));
    }
    jobs.extend(jobs::id_jobs(&plan.ids)?);
    jobs.extend(plan.titles.iter().map(|t| Job::openalex_search(t, 1)));
    anyhow::ensure!(!jobs.is_empty(), "nothing to fetch: give ids, --ids-from, --openalex, --s2 or --arxiv");
    Ok(jobs)
}

/// Fetches `plan` into the index at `db` (created if absent).
pub fn fetch(db: &Path, plan: &FetchPlan, opts: &FetchOptions) -> anyhow::Result<FetchSummary> {
    let jobs = initial_jobs(plan)?;
    let mut run =
        Run { db, opts, client: http::HttpClient::new(opts), cache: None, summary: FetchSummary::default(), hop: 0 };
    let mut seen: HashSet<(Api, String)> = HashSet::new();
    let mut frontier = Vec::new();
    for job in jobs {
        frontier.extend(run.drain(job)?);
    }
    frontier.retain(|f| seen.insert((f.api, f.id.clone())));
    run.summary.found_per_hop.push(frontier.len() as u64);
    if let Some(how) = plan.expand {
        if frontier.is_empty() && run.summary.pages > 0 {
            run.note("nothing to snowball from: only OpenAlex and Semantic Scholar answers name references");
        }
        for hop in 1..=plan.depth.clamp(1, 2) {
            run.hop = hop;
            let mut next = Vec::new();
            for job in expand::jobs(&frontier, how, plan.expand_limit, &seen) {
                next.extend(run.drain(job)?);
            }
            next.retain(|f| seen.insert((f.api, f.id.clone())));
            run.summary.found_per_hop.push(next.len() as u64);
            frontier = next;
        }
    }
    run.summary.http = run.client.stats;
    Ok(run.summary)
}

struct Run<'a> {
    db: &'a Path,
    opts: &'a FetchOptions<'a>,
    client: http::HttpClient,
    /// The index, for cache lookups, once it exists.
    cache: Option<Store>,
    summary: FetchSummary,
    hop: u8,
}

impl Run<'_> {
    fn note(&self, text: &str) {
        if let Some(n) = self.opts.notes {
            n(text);
        }
    }

    fn report(&self, current: &str) {
        progress(self.opts, &self.summary, self.hop, self.client.stats, current, None);
    }

    /// Runs `job` to its end; returns the papers its answers held.
    fn drain(&mut self, mut job: Job) -> anyhow::Result<Vec<Found>> {
        let mut found = Vec::new();
        while let Some(req) = job.request(&self.opts.bases) {
            let key = req.key();
            // A cached answer not yet ingested was carried over by `build`
            // from the index it replaced: it is ingested now, without asking.
            let cached = self.cached(&key)?;
            let (body, fetched_at, from_cache) = match cached {
                Some(r) if r.ingested => (r.body, None, true),
                Some(r) => (r.body, Some(r.fetched_at), true),
                None => {
                    self.report(&key);
                    let (opts, summary, hop) = (self.opts, &self.summary, self.hop);
                    let wait = |d: Duration, stats: HttpStats| progress(opts, summary, hop, stats, &key, Some(d));
                    match self.client.send(&req, &wait) {
                        Ok(body) => (body, Some(now_secs()), false),
                        Err(e) if self.hop > 0 && e.downcast_ref::<http::NotFound>().is_some() => {
                            self.note(&format!("skipped while snowballing: {e:#}"));
                            break;
                        }
                        Err(e) => return Err(self.keep_note(e)),
                    }
                }
            };
            let page = read_page(&req, &body).map_err(|e| self.keep_note(e))?;
            if let Some(at) = fetched_at {
                self.ingest(&req, body, at).map_err(|e| self.keep_note(e))?;
            }
            if from_cache {
                self.summary.cached_pages += 1;
            }
            self.summary.pages += 1;
            job.advance(&page);
            found.extend(page.found);
            self.report(&key);
        }
        Ok(found)
    }

    /// Adds what was kept to an error that ends the fetch.
    fn keep_note(&self, e: anyhow::Error) -> anyhow::Error {
        e.context(format!(
            "fetch stopped; the {} page(s) before it are in {} (rerun to continue)",
            self.summary.pages,
            self.db.display()
        ))
    }

    fn cached(&mut self, key: &str) -> anyhow::Result<Option<CachedResponse>> {
        if self.opts.refresh {
            return Ok(None);
        }
        if self.cache.is_none() && self.db.exists() {
            self.cache = Some(Store::open_with_notes(self.db, self.opts.notes.unwrap_or(&|_| {}))?);
        }
        let Some(store) = &self.cache else { return Ok(None) };
        let fresh = |r: &CachedResponse| match self.opts.max_age {
            Some(age) => now_secs().saturating_sub(r.fetched_at) < age.as_secs() as i64,
            None => true,
        };
        Ok(store.cached_response(key)?.filter(fresh))
    }

    /// Ingests `body`, the answer to `req` received at `fetched_at`, storing it in the cache.
    fn ingest(&mut self, req: &Request, body: Vec<u8>, fetched_at: i64) -> anyhow::Result<()> {
        let response =
            CachedResponse { request: req.key(), api: req.api.name().into(), fetched_at, body, ingested: true };
        let input = Input::Bytes { label: req.url.clone(), format: req.format, bytes: response.body.clone() };
        let opts = IngestOptions {
            paper: req.paper.clone(),
            skip_invalid: self.opts.skip_invalid,
            analyzer: self.opts.analyzer,
            bm25: self.opts.bm25,
            notes: self.opts.notes,
            responses: std::slice::from_ref(&response),
            ..IngestOptions::default()
        };
        let s = ingest(self.db, &[input], &opts)?;
        self.summary.created |= s.created;
        for skipped in &s.skipped {
            self.note(&format!("skipped {skipped}"));
        }
        add_report(&mut self.summary.report, &s.report);
        Ok(())
    }
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// Tells `opts.progress` where the fetch is.
fn progress(
    opts: &FetchOptions,
    summary: &FetchSummary,
    hop: u8,
    http: HttpStats,
    current: &str,
    waiting: Option<Duration>,
) {
    if let Some(p) = opts.progress {
        p(&FetchProgress {
            pages: summary.pages,
            cached_pages: summary.cached_pages,
            records: summary.report.records,
            http,
            waiting,
            current: current.to_string(),
            hop,
        });
    }
}

fn add_report(total: &mut IngestReport, r: &IngestReport) {
    total.records += r.records;
    total.added += r.added;
    total.updated += r.updated;
    total.merged += r.merged;
    total.unchanged += r.unchanged;
    total.repeated += r.repeated;
    total.links += r.links;
    total.links_added += r.links_added;
    total.skipped += r.skipped;
    total.skipped_null_ids += r.skipped_null_ids;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Serves `pages` (OpenAlex list pages) in order on 127.0.0.1; returns the base URL.
    fn serve(pages: Vec<String>) -> String {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        std::thread::spawn(move || {
            for (rq, page) in server.incoming_requests().zip(pages) {
                let _ = rq.respond(tiny_http::Response::from_string(page));
            }
        });
        base
    }

    fn page(w: &str, next: Option<&str>) -> String {
        serde_json::json!({"meta": {"next_cursor": next}, "results": [{"id": format!("https://openalex.org/{w}"), "title": format!("Paper {w}")}]})
            .to_string()
    }

    #[test]
    fn progress_reports_pages_records_and_waits() {
        let base = serve(vec![page("W1", Some("c2")), page("W2", None)]);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let seen = RefCell::new(Vec::new());
        let record = |p: &FetchProgress| seen.borrow_mut().push(p.clone());
        let opts = FetchOptions {
            bases: Bases { openalex: base, ..Bases::default() },
            min_interval: Some(Duration::from_millis(800)),
            progress: Some(&record),
            ..FetchOptions::default()
        };
        let plan = FetchPlan { openalex_search: Some("q".into()), limit: 10, ..FetchPlan::default() };
        let summary = fetch(&db, &plan, &opts).unwrap();
        assert_eq!((summary.pages, summary.report.added, summary.http.requests), (2, 2, 2));
        assert!(summary.created);
        let seen = seen.into_inner();
        assert!(
            seen.iter().any(|p| p.waiting.is_some_and(|w| w <= Duration::from_millis(800))),
            "the rate limit's wait"
        );
        let last = seen.last().unwrap();
        assert_eq!((last.pages, last.records, last.http.requests), (2, 2, 2));
        assert!(last.current.starts_with("GET ") && last.current.contains("cursor=c2"), "{}", last.current);
        assert_eq!(Store::open(&db).unwrap().cached_response_count().unwrap(), 2);
    }
}
