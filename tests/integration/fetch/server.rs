//! A local HTTP server for the fetch tests (tiny_http on 127.0.0.1, one
//! thread per request): it records every request with the time it arrived
//! and answers with what the test's handler says.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub method: String,
    /// Path and query, as sent.
    pub url: String,
    pub body: String,
    pub headers: Vec<(String, String)>,
    pub at: Instant,
}

impl Hit {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The value of query parameter `name`, percent-decoded.
    pub fn param(&self, name: &str) -> Option<String> {
        let query = self.url.split_once('?')?.1;
        query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == name).then(|| decode(v))
        })
    }

    pub fn path(&self) -> &str {
        self.url.split('?').next().unwrap_or("")
    }
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// What the server answers.
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
    /// Waited before answering.
    pub delay: Duration,
}

impl Reply {
    pub fn ok(body: impl Into<Vec<u8>>) -> Reply {
        Reply { status: 200, body: body.into(), headers: Vec::new(), delay: Duration::ZERO }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply { status, ..Reply::ok(body) }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&Hit) -> Reply + Send + Sync;

pub struct MockApi {
    /// `http://127.0.0.1:PORT`, the base URL of every API it plays.
    pub base: String,
    hits: Arc<Mutex<Vec<Hit>>>,
    server: Arc<tiny_http::Server>,
}

impl MockApi {
    pub fn start(handler: impl Fn(&Hit) -> Reply + Send + Sync + 'static) -> MockApi {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (srv, log) = (server.clone(), hits.clone());
        thread::spawn(move || {
            for mut rq in srv.incoming_requests() {
                let mut body = String::new();
                let _ = rq.as_reader().read_to_string(&mut body);
                let hit = Hit {
                    method: rq.method().to_string(),
                    url: rq.url().to_string(),
                    body,
                    headers: rq.headers().iter().map(|h| (h.field.to_string(), h.value.to_string())).collect(),
                    at: Instant::now(),
                };
                log.lock().unwrap().push(hit.clone());
                let handler = handler.clone();
                thread::spawn(move || {
                    let reply = handler(&hit);
                    thread::sleep(reply.delay);
                    let mut resp = tiny_http::Response::from_data(reply.body).with_status_code(reply.status);
                    for (k, v) in reply.headers {
                        resp.add_header(tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap());
                    }
                    let _ = rq.respond(resp);
                });
            }
        });
        MockApi { base: format!("http://127.0.0.1:{port}"), hits, server }
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    /// Waits (up to 20 s) until `pred` holds for the hits.
    pub fn wait_for(&self, pred: impl Fn(&[Hit]) -> bool) {
        let start = Instant::now();
        while !pred(&self.hits()) {
            assert!(start.elapsed() < Duration::from_secs(20), "the server never saw the expected requests");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.server.unblock();
    }
}
