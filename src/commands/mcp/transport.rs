//! The server's stdin, read line by line with a cap on a line's length.
//!
//! rmcp drops a line over its cap and logs it, so the client that sent it
//! waits for an answer that never comes. Here a task reads stdin first: a
//! line within [`MAX_LINE`] bytes is passed on as it is; a longer one is
//! not kept (only its head and tail, to find its `id`) and is replaced by a
//! short request of the method [`OVERSIZED`] carrying that id, which the
//! server answers with a JSON-RPC error naming the size and the cap. When no
//! id can be found (not among the top-level fields at the line's head or
//! tail), the replacement is a JSON value that is no JSON-RPC message, which
//! rmcp answers with its `Invalid request` error and a null id, as JSON-RPC
//! asks. Either way the client gets an answer and the server goes on.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};

/// The longest request line read, in bytes (rmcp's own cap).
pub(super) const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
/// The method of the request that stands for a line over [`MAX_LINE`].
pub(super) const OVERSIZED: &str = "litindex/oversized_request";
/// How much of an oversized line's head and tail is kept to find its id.
const KEEP: usize = 4096;

/// The reading end of stdin's capped lines (a task copies stdin into it).
pub(super) fn capped_stdin() -> DuplexStream {
    let (reader, writer) = tokio::io::duplex(1 << 16);
    tokio::spawn(copy_lines(tokio::io::stdin(), writer, MAX_LINE));
    reader
}

/// Copies `input`'s lines to `output`, each over `max` bytes replaced by [`replacement`].
async fn copy_lines(input: impl AsyncRead + Unpin, mut output: impl AsyncWrite + Unpin, max: usize) {
    let mut input = BufReader::new(input);
    let mut line: Vec<u8> = Vec::new();
    // An oversized line: its length so far, and its tail.
    let mut over: Option<(usize, Vec<u8>)> = None;
    loop {
        let (consumed, done) = {
            let available = match input.fill_buf().await {
                Ok(a) => a,
                Err(_) => break,
            };
            if available.is_empty() {
                break;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..take];
            // The line's length without its newline, with this chunk.
            let content = line.len() + take - usize::from(newline.is_some());
            match &mut over {
                None if content <= max => line.extend_from_slice(chunk),
                None => {
                    // Over the cap: keep the head already read, then only the tail.
                    let mut tail = Vec::new();
                    push_tail(&mut tail, chunk);
                    over = Some((line.len() + take, tail));
                    line.truncate(KEEP);
                }
                Some((len, tail)) => {
                    *len += take;
                    push_tail(tail, chunk);
                }
            }
            (take, newline.is_some())
        };
        input.consume(consumed);
        if done {
            let out = match over.take() {
                None => std::mem::take(&mut line),
                Some((len, tail)) => {
                    let r = replacement(&line, &tail, len.saturating_sub(1), max);
                    line.clear();
                    r
                }
            };
            if output.write_all(&out).await.is_err() {
                return;
            }
        }
    }
    // A last line without a newline is passed on (rmcp drops it, as before).
    if over.is_none() && !line.is_empty() {
        let _ = output.write_all(&line).await;
    }
    let _ = output.shutdown().await;
}

fn push_tail(tail: &mut Vec<u8>, chunk: &[u8]) {
    tail.extend_from_slice(chunk);
    if tail.len() > KEEP {
        tail.drain(..tail.len() - KEEP);
    }
}

/// The line that stands for an oversized one of `len` bytes.
fn replacement(head: &[u8], tail: &[u8], len: usize, max: usize) -> Vec<u8> {
    let params = serde_json::json!({"bytes": len, "limit": max});
    let v = match top_level_id(head, false).or_else(|| top_level_id(tail, true)) {
        Some(id) => serde_json::json!({"jsonrpc": "2.0", "id": id, "method": OVERSIZED, "params": params}),
        None => serde_json::json!({"litindex": "a request line over the limit, with no id found", "params": params}),
    };
    let mut out = v.to_string().into_bytes();
    out.push(b'\n');
    out
}

/// The `id` of a JSON-RPC object found in a piece of its text: `head` is its
/// start (`from_end` false) or its end. The id must be a number or a plain
/// string, and at the object's top level.
fn top_level_id(text: &[u8], from_end: bool) -> Option<serde_json::Value> {
    let s = String::from_utf8_lossy(text);
    let s = s.trim_end_matches(['\n', '\r']);
    let mut found = None;
    let mut search = 0;
    while let Some(at) = s[search..].find("\"id\"").map(|i| i + search) {
        search = at + 4;
        let rest = s[at + 4..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else { continue };
        let rest = rest.trim_start();
        let value_len = if let Some(r) = rest.strip_prefix('"') {
            match r.find('"') {
                Some(end) if !r[..end].contains('\\') => end + 2,
                _ => continue,
            }
        } else {
            rest.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(rest.len())
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&rest[..value_len]) else { continue };
        if !(value.is_number() || value.is_string()) {
            continue;
        }
        // At the top level: depth 1 from the start, or one `}` to close after it.
        let top = if from_end {
            let after = &rest[value_len..];
            after.matches('}').count() == after.matches('{').count() + 1
        } else {
            let before = &s[..at];
            before.starts_with('{') && before.matches('{').count() == before.matches('}').count() + 1
        };
        if top {
            found = Some(value);
            if !from_end {
                break;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8], max: usize) -> Vec<serde_json::Value> {
        let (mut reader, writer) = tokio::io::duplex(1 << 16);
        let input = input.to_vec();
        let task = tokio::spawn(async move { copy_lines(&input[..], writer, max).await });
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut reader, &mut out).await.unwrap();
        task.await.unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn lines_within_the_cap_pass_and_longer_ones_are_replaced_with_their_id() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let small = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
            let big_first =
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"x":"{}"}}}}"#, "a".repeat(300));
            let big_last = format!(
                r#"{{"method":"tools/call","params":{{"id":3,"x":"{}"}},"jsonrpc":"2.0","id":"k9"}}"#,
                "b".repeat(300)
            );
            let big_none = format!(r#"{{"method":"x","params":{{"x":"{}"}}}}"#, "c".repeat(300));
            let input = format!("{small}\n{big_first}\n{big_last}\n{big_none}\n{small}\n");
            let out = run(input.as_bytes(), 100).await;
            assert_eq!(out.len(), 5, "{out:?}");
            assert_eq!(out[0]["method"], "ping");
            assert_eq!(out[1]["method"], OVERSIZED);
            assert_eq!(out[1]["id"], 7);
            assert_eq!(out[1]["params"]["bytes"], big_first.len());
            assert_eq!(out[2]["id"], "k9", "the top-level id at the tail, not the one in params");
            assert!(out[3].get("id").is_none() && out[3].get("jsonrpc").is_none(), "{}", out[3]);
            assert_eq!(out[4]["method"], "ping");
            // A line of exactly the cap passes.
            let pad = 100 - r#"{"jsonrpc":"2.0","id":2,"method":""}"#.len();
            let exact = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"{}"}}"#, "m".repeat(pad));
            assert_eq!(exact.len(), 100);
            let out = run(format!("{exact}\n").as_bytes(), 100).await;
            assert_eq!(out[0]["id"], 2);
            assert_ne!(out[0]["method"], OVERSIZED);
        });
    }
}
