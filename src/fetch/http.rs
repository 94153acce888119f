//! The HTTP side of `fetch`: one blocking ureq agent (rustls), a rate
//! limiter per API, and retries.
//!
//! - Spacing: a request to an API starts no sooner than its interval after
//!   the previous request to the same API started (retries included).
//! - Retries ([`crate::retry`], the policy the OpenSearch client shares): a
//!   429 or a 5xx answer, a timeout or a failed connection is retried up to
//!   `retries` times. The wait is the answer's `Retry-After` (in seconds)
//!   when it has one (one longer than [`MAX_RETRY_AFTER`] ends the fetch),
//!   else `backoff · 2^attempt` plus a random jitter in `[0, backoff)`, at
//!   most [`MAX_BACKOFF`]. Any other 4xx is an error at once, with the start
//!   of the body (a 404 is a [`NotFound`]).

use std::time::{Duration, Instant};

use super::{Api, FetchOptions, Request};
use crate::retry::{Attempt, Backoff, Retried};

/// The longest computed backoff between two attempts.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// The longest `Retry-After` honoured; a longer one ends the fetch.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);
/// The largest response body read.
const MAX_BODY: u64 = 256 * 1024 * 1024;

/// Counters a fetch reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HttpStats {
    /// Requests sent (retries included).
    pub requests: u64,
    /// Of those, retries.
    pub retries: u64,
    /// Time spent waiting: rate limits, backoffs and `Retry-After`.
    pub waited: Duration,
}

pub(crate) struct HttpClient {
    agent: ureq::Agent,
    intervals: [Duration; 3],
    last: [Option<Instant>; 3],
    mailto: Option<String>,
    s2_api_key: Option<String>,
    backoff: Backoff,
    pub(crate) stats: HttpStats,
}

/// A 404: the paper (or page) is not there. A snowball hop skips it.
#[derive(Debug)]
pub(crate) struct NotFound(pub String);

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotFound {}

impl HttpClient {
    pub(crate) fn new(opts: &FetchOptions) -> HttpClient {
        let mut agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(opts.timeout))
            .user_agent(user_agent(opts.mailto.as_deref()));
        agent = agent.max_redirects(5);
        let interval = |api: Api| opts.min_interval.unwrap_or_else(|| api.default_interval());
        HttpClient {
            agent: agent.build().into(),
            intervals: [interval(Api::OpenAlex), interval(Api::S2), interval(Api::Arxiv)],
            last: [None; 3],
            mailto: opts.mailto.clone(),
            s2_api_key: opts.s2_api_key.clone(),
            backoff: Backoff::new(opts.retries, opts.backoff, MAX_BACKOFF, true),
            stats: HttpStats::default(),
        }
    }

    /// The URL actually sent: OpenAlex's polite pool wants `mailto`.
    pub(crate) fn wire_url(&self, req: &Request) -> String {
        wire_url(req, self.mailto.as_deref())
    }

    /// Sends `req` until it succeeds or the retries run out; `wait` is told
    /// of every wait before it starts.
    pub(crate) fn send(&mut self, req: &Request, wait: &dyn Fn(Duration, HttpStats)) -> anyhow::Result<Vec<u8>> {
        let backoff = self.backoff.clone();
        backoff.run(&mut Send { client: self, req, wait })
    }

    fn attempt(&mut self, req: &Request) -> anyhow::Result<Attempt<Vec<u8>>> {
        let url = self.wire_url(req);
        let key = if req.api == Api::S2 { self.s2_api_key.as_deref() } else { None };
        let result = match &req.body {
            None => {
                let mut r = self.agent.get(&url).header("accept", req.api.accept());
                if let Some(key) = key {
                    r = r.header("x-api-key", key);
                }
                r.call()
            }
            Some(body) => {
                let mut r = self.agent.post(&url).header("content-type", "application/json");
                if let Some(key) = key {
                    r = r.header("x-api-key", key);
                }
                r.send(body.as_bytes())
            }
        };
        let mut resp = match result {
            Ok(r) => r,
            Err(e) if transient(&e) => return Ok(Attempt::Transient(describe(&e), None)),
            Err(e) => anyhow::bail!("cannot reach {} for {}: {}", req.api.label(), req.key(), describe(&e)),
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = resp.body_mut().with_config().limit(MAX_BODY).read_to_vec();
        match (status, body) {
            (200..=299, Ok(b)) => Ok(Attempt::Done(b)),
            (200..=299, Err(e)) if transient(&e) => Ok(Attempt::Transient(describe(&e), None)),
            (200..=299, Err(e)) => {
                anyhow::bail!("cannot read {}'s answer to {}: {}", req.api.label(), req.key(), describe(&e))
            }
            (429 | 500..=599, _) => Ok(Attempt::Transient(format!("HTTP {status}"), retry_after)),
            (_, body) => {
                let text = body.map(|b| String::from_utf8_lossy(&b).chars().take(300).collect::<String>());
                let message = format!(
                    "{} answered HTTP {status} to {}: {}",
                    req.api.label(),
                    req.key(),
                    text.unwrap_or_default().trim()
                );
                match status {
                    404 => Err(NotFound(message).into()),
                    _ => Err(anyhow::anyhow!(message)),
                }
            }
        }
    }

    /// Sleeps until `api`'s interval since its previous answer has passed.
    fn pace(&mut self, api: Api, wait: &dyn Fn(Duration, HttpStats)) {
        let i = api as usize;
        if let Some(last) = self.last[i] {
            let due = last + self.intervals[i];
            let now = Instant::now();
            if due > now {
                wait(due - now, self.stats);
                std::thread::sleep(due - now);
                self.stats.waited += due - now;
            }
        }
    }
}

/// One request being sent: each attempt waits for the API's interval first.
struct Send<'a> {
    client: &'a mut HttpClient,
    req: &'a Request,
    wait: &'a dyn Fn(Duration, HttpStats),
}

impl Retried for Send<'_> {
    type Output = Vec<u8>;

    fn attempt(&mut self) -> anyhow::Result<Attempt<Vec<u8>>> {
        let (client, req) = (&mut *self.client, self.req);
        client.pace(req.api, self.wait);
        client.stats.requests += 1;
        let outcome = client.attempt(req);
        // The interval runs from the end of this answer: the API then sees
        // at least the interval between two arrivals, however long the
        // connection, the transfer or a loaded machine took.
        client.last[req.api as usize] = Some(Instant::now());
        outcome
    }

    fn gave_up(&self, attempts: u32, why: &str) -> anyhow::Error {
        anyhow::anyhow!(
            "{} gave no usable answer to {} after {attempts} attempt(s): {why}",
            self.req.api.label(),
            self.req.key()
        )
    }

    fn pausing(&mut self, pause: Duration, asked: bool) -> anyhow::Result<()> {
        if asked && pause > MAX_RETRY_AFTER {
            anyhow::bail!(
                "{} asks to retry {} in {} s (Retry-After), longer than litindex waits; try again later",
                self.req.api.label(),
                self.req.key(),
                pause.as_secs()
            );
        }
        (self.wait)(pause, self.client.stats);
        Ok(())
    }

    fn paused(&mut self, pause: Duration) {
        self.client.stats.waited += pause;
        self.client.stats.retries += 1;
    }
}

/// `litindex/<version>`, with `(mailto:…)` when an address is given.
pub(crate) fn user_agent(mailto: Option<&str>) -> String {
    let base = format!("litindex/{}", env!("CARGO_PKG_VERSION"));
    match mailto {
        Some(m) => format!("{base} (mailto:{m})"),
        None => base,
    }
}

pub(crate) fn wire_url(req: &Request, mailto: Option<&str>) -> String {
    match (req.api, mailto) {
        (Api::OpenAlex, Some(m)) => {
            let sep = if req.url.contains('?') { '&' } else { '?' };
            format!("{}{sep}mailto={}", req.url, super::api::encode(m))
        }
        _ => req.url.clone(),
    }
}

fn transient(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Timeout(_) | ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound
    )
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => format!("timed out ({e})"),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::InputFormat;

    #[test]
    fn the_published_limits_are_the_default_intervals() {
        let client = HttpClient::new(&FetchOptions::default());
        assert_eq!(client.intervals, [Duration::from_millis(100), Duration::from_secs(1), Duration::from_secs(3)]);
        let opts = FetchOptions { min_interval: Some(Duration::from_millis(7)), ..FetchOptions::default() };
        assert_eq!(HttpClient::new(&opts).intervals, [Duration::from_millis(7); 3]);
    }

    #[test]
    fn backoff_doubles_with_jitter_below_one_base_and_is_capped() {
        let opts = FetchOptions { backoff: Duration::from_millis(100), ..FetchOptions::default() };
        let client = HttpClient::new(&opts);
        assert_eq!(client.backoff.retries, opts.retries);
        for attempt in 0..4 {
            let d = client.backoff.pause(attempt);
            let base = Duration::from_millis(100 << attempt);
            assert!(d >= base && d < base + Duration::from_millis(100), "attempt {attempt}: {d:?}");
        }
        assert_eq!(client.backoff.pause(30), MAX_BACKOFF);
    }

    #[test]
    fn mailto_goes_into_the_user_agent_and_openalex_urls_only() {
        assert_eq!(user_agent(None), format!("litindex/{}", env!("CARGO_PKG_VERSION")));
        assert!(user_agent(Some("a@b.org")).ends_with(" (mailto:a@b.org)"));
        let oa = Request::get(Api::OpenAlex, "http://h/works?search=x".into(), InputFormat::OpenAlex);
        assert_eq!(wire_url(&oa, Some("a@b.org")), "http://h/works?search=x&mailto=a%40b.org");
        let s2 = Request::get(Api::S2, "http://h/graph/v1/paper/search?query=x".into(), InputFormat::S2);
        assert_eq!(wire_url(&s2, Some("a@b.org")), s2.url);
    }
}
