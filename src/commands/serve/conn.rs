//! The connections `serve` accepts: at most [`Limits::max_connections`] at
//! once, and each closed when it stalls. A connection over the cap is
//! answered `503 Service Unavailable` and closed at once. A request's head
//! (request line and headers) must arrive within
//! [`Limits::header_timeout`] of its first byte (of the connection's start,
//! for the first request), so a client that trickles its headers
//! (slowloris) is cut off; and a connection on which no byte moves either
//! way for [`Limits::idle_timeout`] (a kept-alive one the client forgot) is
//! closed. axum's `serve` sets no such timeouts itself (hyper's need a timer
//! it does not give), so they live in the stream the listener hands it.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// The bounds on connections.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
}

/// The listener: a permit per connection.
pub(super) struct Guarded {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    limits: Limits,
}

impl Guarded {
    pub fn new(listener: TcpListener, limits: Limits) -> Guarded {
        Guarded { listener, permits: Arc::new(Semaphore::new(limits.max_connections)), limits }
    }
}

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\nretry-after: 1\r\ncontent-length: 55\r\n\r\ntoo many connections to litindex serve: try again soon\n";

impl axum::serve::Listener for Guarded {
    type Io = Timed;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Timed, SocketAddr) {
        loop {
            let (stream, addr) = match self.listener.accept().await {
                Ok(s) => s,
                Err(_) => {
                    // Out of file descriptors and the like: wait, then go on.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            match self.permits.clone().try_acquire_owned() {
                Ok(permit) => return (Timed::new(stream, permit, self.limits), addr),
                Err(_) => {
                    tokio::spawn(async move {
                        let mut stream = stream;
                        let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(BUSY)).await;
                        let _ = stream.shutdown().await;
                    });
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// A connection with its timeouts; dropping it frees its permit.
pub(super) struct Timed {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    limits: Limits,
    timer: Pin<Box<Sleep>>,
    last_activity: Instant,
    /// When the head being read began (`None`: between requests, no byte yet).
    head_started: Option<Instant>,
    /// Whether a request head is being waited for (else its body, or nothing).
    awaiting_head: bool,
    /// The last bytes read, to find a head's end across reads.
    tail: [u8; 3],
}

impl Timed {
    fn new(stream: TcpStream, permit: OwnedSemaphorePermit, limits: Limits) -> Timed {
        let now = Instant::now();
        Timed {
            stream,
            _permit: permit,
            limits,
            timer: Box::pin(tokio::time::sleep_until(now + limits.idle_timeout)),
            last_activity: now,
            head_started: Some(now),
            awaiting_head: true,
            tail: [0; 3],
        }
    }

    /// When the connection is cut if nothing happens first.
    fn deadline(&self) -> Instant {
        let idle = self.last_activity + self.limits.idle_timeout;
        match (self.awaiting_head, self.head_started) {
            (true, Some(start)) => idle.min(start + self.limits.header_timeout),
            _ => idle,
        }
    }

    /// Pending IO: whether the deadline has passed (then the error to return).
    fn expired(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        let deadline = self.deadline();
        if self.timer.deadline() != deadline {
            self.timer.as_mut().reset(deadline);
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                let what = if self.awaiting_head
                    && self.head_started.is_some_and(|s| deadline >= s + self.limits.header_timeout)
                {
                    "request head not received in time"
                } else {
                    "connection idle"
                };
                Some(io::Error::new(io::ErrorKind::TimedOut, what))
            }
            Poll::Pending => None,
        }
    }

    /// Notes bytes read: activity, and the end of a request head.
    fn saw(&mut self, bytes: &[u8]) {
        let now = Instant::now();
        self.last_activity = now;
        if !self.awaiting_head || bytes.is_empty() {
            return;
        }
        if self.head_started.is_none() {
            self.head_started = Some(now);
        }
        let mut joined = self.tail.to_vec();
        joined.extend_from_slice(bytes);
        if joined.windows(4).any(|w| w == b"\r\n\r\n") {
            self.awaiting_head = false;
        }
        let n = joined.len();
        self.tail.copy_from_slice(&joined[n - 3..]);
    }
}

impl AsyncRead for Timed {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let new = buf.filled()[before..].to_vec();
                self.saw(&new);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match self.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Timed {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.stream).poll_write(cx, data) {
            Poll::Ready(Ok(n)) => {
                // A response is going out: the next request's head is awaited, from its first byte.
                self.last_activity = Instant::now();
                self.awaiting_head = true;
                self.head_started = None;
                self.tail = [0; 3];
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match self.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.stream).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(n)) => {
                self.last_activity = Instant::now();
                self.awaiting_head = true;
                self.head_started = None;
                self.tail = [0; 3];
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match self.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
