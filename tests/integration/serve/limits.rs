//! `serve`'s hardening over raw HTTP (issue 27): two `Host` headers are
//! refused; a write whose `Origin` or `Sec-Fetch-Site` says another site is
//! refused even with the page's token; a request head that does not arrive
//! within `--header-timeout` (sent slowly or not at all) and a connection
//! idle for `--idle-timeout` are closed; one connection over
//! `--max-connections` is answered 503 and the server goes on.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::{Server, hostile_index, labels, token_of};

/// Sends `raw` as it is and reads the answer: the status (0: closed unanswered) and the text.
fn raw(addr: &str, raw: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(raw.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    (text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0), text)
}

/// Whether the server closes `s` within `within` (EOF or a reset), reading whatever it sends.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true,
        }
    }
}

#[test]
fn serve_refuses_two_host_headers_and_cross_site_writes() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &["--allow-writes"]);
    let a = &server.addr;
    let (status, text) =
        raw(a, &format!("GET /?q=sparse HTTP/1.1\r\nHost: {a}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("Host headers") && !text.contains("sparse attention"), "{text}");
    let (status, _) =
        raw(a, &format!("GET / HTTP/1.1\r\nHost: evil.example\r\nHost: {a}\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 400);

    let token = token_of(&server.get("/paper?id=xss1").body);
    let form = format!("id=xss1&label=read&token={token}");
    let post = |extra: &str| {
        raw(
            a,
            &format!(
                "POST /mark HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\n{extra}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
                form.len()
            ),
        )
    };
    for extra in [
        "Origin: http://evil.example\r\n".to_string(),
        "Origin: null\r\n".to_string(),
        format!("Origin: https://{a}\r\n"),
        "Sec-Fetch-Site: cross-site\r\n".to_string(),
        "Sec-Fetch-Site: same-site\r\n".to_string(),
        format!("Origin: http://{a}\r\nSec-Fetch-Site: cross-site\r\n"),
    ] {
        let (status, text) = post(&extra);
        assert_eq!(status, 403, "{extra:?}: {text}");
        assert!(text.contains("another site") || text.contains("not this page"), "{text}");
    }
    assert!(labels(&db, "xss1").is_empty(), "no cross-site write went through");
    // The page's own form: same origin (and no header at all, as curl sends).
    let (status, text) = post(&format!("Origin: http://{a}\r\nSec-Fetch-Site: same-origin\r\n"));
    assert_eq!(status, 303, "{text}");
    assert_eq!(labels(&db, "xss1"), ["read"]);
    assert_eq!(post("").0, 303);
}

#[test]
fn serve_closes_slow_heads_and_idle_connections() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &["--header-timeout", "1", "--idle-timeout", "3"]);
    let a = &server.addr;

    // A head that never ends: closed after the header timeout, long before the idle one would.
    let start = Instant::now();
    let mut s = TcpStream::connect(a).unwrap();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {a}\r\n").as_bytes()).unwrap();
    assert!(closed_within(&mut s, Duration::from_secs(20)), "an unfinished head is cut off");
    let took = start.elapsed();
    assert!(took < Duration::from_millis(2900), "cut by the 1 s head timeout, not the 3 s idle one: {took:?}");

    // A head trickled a byte every 200 ms (never idle): still cut by the head timeout.
    let mut s = TcpStream::connect(a).unwrap();
    let head = format!("GET /?q=sparse HTTP/1.1\r\nHost: {a}\r\nX-Slow: {}\r\n\r\n", "y".repeat(40));
    let mut cut = false;
    for b in head.as_bytes() {
        if s.write_all(&[*b]).is_err() {
            cut = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(cut || closed_within(&mut s, Duration::from_secs(1)), "a trickled head is cut off");

    // A kept-alive connection: answered, then closed once idle.
    let mut s = TcpStream::connect(a).unwrap();
    s.write_all(format!("GET /?q=sparse HTTP/1.1\r\nHost: {a}\r\n\r\n").as_bytes()).unwrap();
    let mut buf = [0u8; 65536];
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let n = s.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let start = Instant::now();
    assert!(closed_within(&mut s, Duration::from_secs(20)), "an idle connection is closed");
    assert!(start.elapsed() >= Duration::from_millis(2500), "not before the idle timeout: {:?}", start.elapsed());
    assert_eq!(server.get("/?q=sparse").status, 200, "the server goes on");
}

#[test]
fn serve_answers_one_connection_over_the_cap_with_503() {
    let (_dir, db) = hostile_index();
    let server = Server::start(&db, &["--max-connections", "2", "--header-timeout", "30"]);
    let a = &server.addr;
    let held: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(a).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, text) = raw(a, &format!("GET / HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("too many connections"), "{text}");
    drop(held);
    // The held connections' permits come back once they close.
    let mut ok = false;
    for _ in 0..50 {
        if server.get("/?q=sparse").status == 200 {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ok, "served again after the held connections closed");
}
