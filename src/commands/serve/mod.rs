//! `litindex serve`: a local web page over the index (axum on tokio, maud
//! templates that escape every interpolated value).
//!
//! `routes.rs` holds the handlers, `pages.rs` the HTML, `graph_svg.rs` the
//! citation neighbourhood drawn as SVG, `export.rs` the BibTeX download.
//! Every request opens the index afresh on a blocking thread and closes it
//! when answered, so an idle server holds no lock and no read transaction,
//! and a running `ingest` (WAL) never waits for it.
//!
//! Security: the `Host` header must name the bound address (or `localhost`
//! on loopback), which defeats DNS rebinding; the write routes exist only with
//! `--allow-writes`, accept only POST, and need the per-process random token
//! the pages embed in their forms (CSRF); the pages carry a
//! Content-Security-Policy that allows no script at all. A request with two
//! `Host` headers is refused (400), and so is a write whose `Origin` or
//! `Sec-Fetch-Site` says it comes from another site (403), token or not.
//! Connections (`conn.rs`): at most `--max-connections` (64) at once, a
//! request head within `--header-timeout` (10 s), closed after
//! `--idle-timeout` (60 s) with no traffic.

mod conn;
mod explore;
mod export;
mod extras;
mod fulltext;
mod graph_svg;
mod pages;
mod routes;
mod screen;

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::cli::ServeArgs;
use litindex::store::Store;

/// What every handler shares.
pub(super) struct App {
    /// The index file, opened per request.
    db: PathBuf,
    /// Whether the write routes and the buttons exist.
    allow_writes: bool,
    /// The CSRF token every POST must carry (hex of 32 random bytes).
    token: String,
    /// The address actually bound (port 0 resolved).
    bound: SocketAddr,
    /// Screening reviews' models, kept between page loads.
    models: litindex::screen::next::Models,
}

impl App {
    /// Opens the index for one request.
    fn open(&self) -> anyhow::Result<Store> {
        Store::open_with_notes(&self.db, &super::print_note)
    }

    /// Whether a request's `Host` header names this server: the bound
    /// address (any IP literal when bound to 0.0.0.0 / ::), or `localhost`
    /// when bound to loopback, with the bound port. A domain name an
    /// attacker controls (DNS rebinding) is refused.
    fn host_allowed(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else { return false };
        if port != self.bound.port() {
            return false;
        }
        let ip = self.bound.ip();
        if name.eq_ignore_ascii_case("localhost") {
            return ip.is_loopback() || ip.is_unspecified();
        }
        match name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
            Ok(asked) => ip.is_unspecified() || asked == ip,
            Err(_) => false,
        }
    }
}

/// `name:port` (or `[v6]:port`) into its parts; no port means 80.
fn split_host(host: &str) -> Option<(&str, u16)> {
    let host = host.trim();
    if host.is_empty() {
        return None;
    }
    match host.rfind(':') {
        // A bare IPv6 literal in brackets has its last colon inside them.
        Some(i) if !host[i..].contains(']') => Some((&host[..i], host[i + 1..].parse().ok()?)),
        _ => Some((host, 80)),
    }
}

/// A fresh random token for this process.
fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no random bytes for the CSRF token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Why a write (any method but GET and HEAD) comes from another site, by
/// the browser's own word: an `Origin` that is not this server's, or a
/// `Sec-Fetch-Site` of `cross-site` or `same-site` (another port or
/// subdomain is another site's page). `None`: nothing says so.
fn cross_site(headers: &axum::http::HeaderMap, host: &str) -> Option<String> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if origin != format!("http://{host}") {
            return Some(format!("the request's Origin `{origin}` is not this page's (http://{host})"));
        }
    }
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if !matches!(site, "same-origin" | "none") {
            return Some(format!("the browser says the request comes from another site (Sec-Fetch-Site: {site})"));
        }
    }
    None
}

/// Refuses a request whose `Host` is not this server (421) or that carries
/// two `Host` headers (400), a write from another site (403), and sets the
/// security headers on every answer.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let hosts = request.headers().get_all(header::HOST).iter().count();
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("").to_string();
    let write = !matches!(request.method(), &axum::http::Method::GET | &axum::http::Method::HEAD);
    let mut response = if hosts > 1 {
        let message = format!("{hosts} Host headers: a request names one host; refused");
        (StatusCode::BAD_REQUEST, message).into_response()
    } else if !app.host_allowed(&host) {
        let message = format!("Host `{host}` is not this server ({}): refused (DNS rebinding guard)", app.bound);
        (StatusCode::MISDIRECTED_REQUEST, message).into_response()
    } else if let Some(why) = write.then(|| cross_site(request.headers(), &host)).flatten() {
        (StatusCode::FORBIDDEN, format!("{why}: a write must come from this page; refused")).into_response()
    } else {
        next.run(request).await
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // `same-origin`, not `no-referrer`: under `no-referrer` a browser sends
    // `Origin: null` with the page's own forms, which the write guard must refuse.
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}

pub fn run(args: &ServeArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let db = store.path().to_path_buf();
    let token = new_token()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the web server's runtime")?;
    runtime.block_on(async {
        let addr = SocketAddr::new(args.bind, args.port);
        let listener =
            tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
        let bound = listener.local_addr()?;
        if !bound.ip().is_loopback() {
            eprintln!(
                "litindex: warning: listening on {bound}, reachable from other machines; anyone who can reach it can read the index{}",
                if args.allow_writes { " (and, with the page's token, mark papers)" } else { "" }
            );
        }
        let host = if bound.ip().is_unspecified() { "127.0.0.1".to_string() } else { bound.ip().to_string() };
        let host = if host.contains(':') { format!("[{host}]") } else { host };
        writeln!(out, "litindex: serving {} on http://{host}:{}/ (Ctrl-C stops)", db.display(), bound.port())?;
        out.flush()?;
        let app = Arc::new(App { db, allow_writes: args.allow_writes, token, bound, models: Default::default() });
        let router = routes::router(app.clone()).layer(axum::middleware::from_fn_with_state(app, guard));
        let limits = conn::Limits {
            max_connections: args.max_connections as usize,
            header_timeout: std::time::Duration::from_secs(args.header_timeout),
            idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        };
        axum::serve(conn::Guarded::new(listener, limits), router).await.context("the web server stopped")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(bound: &str) -> App {
        App {
            db: PathBuf::new(),
            allow_writes: false,
            token: String::new(),
            bound: bound.parse().unwrap(),
            models: Default::default(),
        }
    }

    #[test]
    fn host_header_must_name_the_bound_address() {
        let a = app("127.0.0.1:8470");
        assert!(a.host_allowed("127.0.0.1:8470"));
        assert!(a.host_allowed("localhost:8470"));
        assert!(!a.host_allowed("evil.example:8470"));
        assert!(!a.host_allowed("127.0.0.1:8471"));
        assert!(!a.host_allowed("127.0.0.1"));
        assert!(!a.host_allowed(""));
        assert!(!a.host_allowed("10.0.0.1:8470"));
        let any = app("0.0.0.0:80");
        assert!(any.host_allowed("192.168.1.2"));
        assert!(!any.host_allowed("rebind.example"));
        let v6 = app("[::1]:9000");
        assert!(v6.host_allowed("[::1]:9000"));
        assert!(v6.host_allowed("localhost:9000"));
        assert!(!v6.host_allowed("[::2]:9000"));
    }

    #[test]
    fn tokens_differ() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }
}
