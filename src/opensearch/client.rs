//! A blocking HTTP client for one OpenSearch cluster.
//!
//! Every request has a global timeout; a refused or reset connection, a
//! timeout, a 429 or a 502/503/504 is retried with exponential backoff
//! ([`crate::retry`], the policy `fetch` shares: 250 ms doubled, at most
//! 16 s, no jitter, 4 retries by default; the node may still be starting, or
//! busy merging); any other 4xx or 5xx is an error at once that names the
//! request and the server's `error.reason`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;

use crate::retry::{Attempt, Backoff, Retried};

/// Where an index lives: `opensearch://HOST:PORT/INDEX`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `HOST:PORT`.
    pub host: String,
    pub index: String,
}

impl FromStr for Target {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Target> {
        let rest = s
            .strip_prefix("opensearch://")
            .ok_or_else(|| anyhow::anyhow!("backend `{s}` is not of the form opensearch://HOST:PORT/INDEX"))?;
        let (host, index) = rest
            .split_once('/')
            .ok_or_else(|| anyhow::anyhow!("backend `{s}` names no index: use opensearch://HOST:PORT/INDEX"))?;
        let index = index.trim_end_matches('/');
        let Some((name, port)) = host.rsplit_once(':') else {
            anyhow::bail!("backend `{s}` names no port: use opensearch://HOST:PORT/INDEX");
        };
        if name.is_empty() || port.parse::<u16>().is_err() {
            anyhow::bail!("backend `{s}`: `{host}` is not HOST:PORT");
        }
        check_index_name(index).map_err(|e| anyhow::anyhow!("backend `{s}`: {e}"))?;
        Ok(Target { host: host.to_string(), index: index.to_string() })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "opensearch://{}/{}", self.host, self.index)
    }
}

/// OpenSearch's rules for an index name (lowercase, no path or wildcard
/// characters, not starting with `-`, `_` or `+`), checked before a request.
pub fn check_index_name(name: &str) -> anyhow::Result<()> {
    let bad = |why: &str| anyhow::anyhow!("index name `{name}` {why}");
    if name.is_empty() {
        return Err(bad("is empty"));
    }
    if name.len() > 255 {
        return Err(bad("is longer than 255 bytes"));
    }
    if name.starts_with(['-', '_', '+']) || name == "." || name == ".." {
        return Err(bad("may not start with -, _ or +, nor be . or .."));
    }
    if let Some(c) = name.chars().find(|c| c.is_uppercase() || r#"\/*?"<>| ,#:"#.contains(*c)) {
        return Err(bad(&format!(
            "may not hold `{c}` (OpenSearch wants lowercase, no \\ / * ? \" < > | , # : or space)"
        )));
    }
    Ok(())
}

/// One cluster: an agent with timeouts, and the retry policy.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    host: String,
    backoff: Backoff,
}

/// The first pause between two attempts (doubled on each retry).
const BACKOFF: Duration = Duration::from_millis(250);
/// The longest pause: the sixth doubling of [`BACKOFF`] (16 s).
const MAX_BACKOFF: Duration = BACKOFF.saturating_mul(64);

impl Client {
    /// A client for `host` (`HOST:PORT`), each request limited to `timeout`.
    pub fn new(host: &str, timeout: Duration) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .user_agent(concat!("litindex/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client { agent, host: host.to_string(), backoff: Backoff::new(4, BACKOFF, MAX_BACKOFF, false) }
    }

    /// The cluster's `HOST:PORT`.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Sets how many times a transient failure is retried (default 4).
    pub fn with_retries(mut self, retries: u32) -> Client {
        self.backoff.retries = retries;
        self
    }

    /// `GET path`, the answer as JSON.
    pub fn get(&self, path: &str) -> anyhow::Result<Value> {
        self.send("GET", path, None, "application/json")
    }

    /// `method path` with a JSON body.
    pub fn json(&self, method: &str, path: &str, body: &Value) -> anyhow::Result<Value> {
        self.send(method, path, Some(body.to_string().as_bytes()), "application/json")
    }

    /// `POST path` with an NDJSON body (`_bulk`).
    pub fn ndjson(&self, path: &str, body: &[u8]) -> anyhow::Result<Value> {
        self.send("POST", path, Some(body), "application/x-ndjson")
    }

    fn send(&self, method: &str, path: &str, body: Option<&[u8]>, content_type: &str) -> anyhow::Result<Value> {
        self.backoff.run(&mut Call { client: self, method, path, body, content_type })
    }

    fn attempt(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        content_type: &str,
    ) -> anyhow::Result<Attempt<Value>> {
        let url = format!("http://{}{path}", self.host);
        let result = match (method, body) {
            ("GET", None) => self.agent.get(&url).call(),
            ("DELETE", None) => self.agent.delete(&url).call(),
            ("HEAD", None) => self.agent.head(&url).call(),
            ("PUT", Some(b)) => self.agent.put(&url).header("content-type", content_type).send(b),
            ("POST", Some(b)) => self.agent.post(&url).header("content-type", content_type).send(b),
            ("POST", None) => self.agent.post(&url).send_empty(),
            _ => anyhow::bail!("unsupported request {method} {path}"),
        };
        let mut resp = match result {
            Ok(r) => r,
            Err(e) if transient(&e) => return Ok(Attempt::Transient(describe(&e, &self.host), None)),
            Err(e) => anyhow::bail!("cannot reach OpenSearch for {method} {path}: {}", describe(&e, &self.host)),
        };
        let status = resp.status().as_u16();
        let text = match resp.body_mut().with_config().limit(1 << 30).read_to_string() {
            Ok(t) => t,
            Err(e) if transient(&e) => return Ok(Attempt::Transient(describe(&e, &self.host), None)),
            Err(e) => anyhow::bail!("cannot read OpenSearch's answer to {method} {path}: {e}"),
        };
        if matches!(status, 429 | 502..=504) {
            return Ok(Attempt::Transient(format!("HTTP {status}"), None));
        }
        let value: Value = if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text.clone()))
        };
        if (200..300).contains(&status) {
            return Ok(Attempt::Done(value));
        }
        anyhow::bail!("OpenSearch at {} answered HTTP {status} to {method} {path}: {}", self.host, reason(&value))
    }
}

/// One request being sent; a transient failure is retried without
/// `Retry-After` (OpenSearch sends none), after the doubling pause alone.
struct Call<'a> {
    client: &'a Client,
    method: &'a str,
    path: &'a str,
    body: Option<&'a [u8]>,
    content_type: &'a str,
}

impl Retried for Call<'_> {
    type Output = Value;

    fn attempt(&mut self) -> anyhow::Result<Attempt<Value>> {
        self.client.attempt(self.method, self.path, self.body, self.content_type)
    }

    fn gave_up(&self, attempts: u32, why: &str) -> anyhow::Error {
        anyhow::anyhow!(
            "OpenSearch at {} gave no answer to {} {} after {attempts} attempt(s): {why}",
            self.client.host,
            self.method,
            self.path
        )
    }
}

/// The server's `error.reason` (with the root cause's when it differs), or the body's start.
fn reason(body: &Value) -> String {
    let err = &body["error"];
    if let Some(r) = err["reason"].as_str() {
        let root = err["root_cause"][0]["reason"].as_str().filter(|root| *root != r);
        let kind = err["type"].as_str().map(|t| format!("{t}: ")).unwrap_or_default();
        return match root {
            Some(root) => format!("{kind}{r} ({root})"),
            None => format!("{kind}{r}"),
        };
    }
    let s = match body {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    s.chars().take(300).collect()
}

fn transient(e: &ureq::Error) -> bool {
    matches!(e, ureq::Error::Timeout(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound)
        || matches!(e, ureq::Error::Io(io) if matches!(io.kind(),
            std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::BrokenPipe
            | std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::TimedOut))
}

fn describe(e: &ureq::Error, host: &str) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("connection refused by {host} (is OpenSearch running there?)")
        }
        ureq::Error::Timeout(t) => format!("timed out ({t})"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        let t: Target = "opensearch://127.0.0.1:9200/papers".parse().unwrap();
        assert_eq!(t, Target { host: "127.0.0.1:9200".into(), index: "papers".into() });
        assert_eq!(t.to_string(), "opensearch://127.0.0.1:9200/papers");
        for bad in [
            "http://x:1/i",
            "opensearch://x:1",
            "opensearch://x/i",
            "opensearch://x:port/i",
            "opensearch://x:1/Big",
            "opensearch://x:1/",
        ] {
            assert!(bad.parse::<Target>().is_err(), "{bad}");
        }
    }

    #[test]
    fn reasons_come_from_the_error_object() {
        let v = serde_json::json!({"error": {"type": "index_not_found_exception", "reason": "no such index [x]",
            "root_cause": [{"reason": "no such index [x]"}]}, "status": 404});
        assert_eq!(reason(&v), "index_not_found_exception: no such index [x]");
        assert_eq!(reason(&Value::String("plain".into())), "plain");
    }

    #[test]
    fn a_refused_connection_says_so() {
        // Port 9 (discard) on loopback: nothing listens there in the tests.
        let c = Client::new("127.0.0.1:9", Duration::from_secs(2)).with_retries(0);
        let err = c.get("/").unwrap_err().to_string();
        assert!(err.contains("127.0.0.1:9"), "{err}");
    }
}
