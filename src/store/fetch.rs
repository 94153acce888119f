//! The response cache of `litindex fetch` (table `fetch_responses`,
//! `migrations/006_fetch.sql`, `007_fetch_carried.sql`): every response body that was ingested, under
//! the request that got it, zlib-compressed.
//!
//! A response is written by the ingest of the papers read from it, in the
//! same transaction ([`crate::ingest::IngestOptions::responses`]), so a
//! stored response means "these papers are in the index", except one that
//! `build` carried over from the index it replaced ([`carry_responses`],
//! `ingested = 0`), which the next fetch ingests from the cache.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use rusqlite::{Connection, OptionalExtension, params};

use super::check::{EXAMPLES, InvariantResult};
use super::{Handle, Store};

/// One stored response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResponse {
    /// `GET <url>`, or `POST <url> <body>`.
    pub request: String,
    /// `openalex`, `s2` or `arxiv`.
    pub api: String,
    /// Unix seconds.
    pub fetched_at: i64,
    /// The body, uncompressed.
    pub body: Vec<u8>,
    /// Whether its papers are in this index: `false` for a response `build`
    /// carried over from the index it replaced (stored responses are
    /// always written ingested).
    pub ingested: bool,
}

/// Stores `responses` (replacing older ones for the same request) on `conn`,
/// inside the caller's transaction.
pub(crate) fn put_responses(handle: Handle<'_>, responses: &[CachedResponse]) -> anyhow::Result<()> {
    let conn = handle.conn;
    if responses.is_empty() {
        return Ok(());
    }
    let mut stmt = conn.prepare_cached(
        "INSERT OR REPLACE INTO fetch_responses (request, api, fetched_at, body, body_len) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for r in responses {
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(&r.body)?;
        let packed = z.finish()?;
        stmt.execute(params![r.request, r.api, r.fetched_at, packed, r.body.len() as i64])
            .with_context(|| format!("cannot store the response to {}", r.request))?;
    }
    Ok(())
}

fn unpack(request: &str, packed: &[u8], len: i64) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::with_capacity(len.max(0) as usize);
    ZlibDecoder::new(packed)
        .read_to_end(&mut body)
        .with_context(|| format!("the stored response to {request} does not decompress"))?;
    anyhow::ensure!(
        body.len() as i64 == len,
        "the stored response to {request} decompresses to {} bytes, not the {len} recorded",
        body.len()
    );
    Ok(body)
}

impl Store {
    /// The stored response to `request`, if any.
    pub fn cached_response(&self, request: &str) -> anyhow::Result<Option<CachedResponse>> {
        let row: Option<(String, i64, Vec<u8>, i64, bool)> = self
            .conn
            .query_row(
                "SELECT api, fetched_at, body, body_len, ingested FROM fetch_responses WHERE request = ?1",
                [request],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        row.map(|(api, fetched_at, packed, len, ingested)| {
            let body = unpack(request, &packed, len)?;
            Ok(CachedResponse { request: request.to_string(), api, fetched_at, body, ingested })
        })
        .transpose()
    }

    /// How many responses are stored.
    pub fn cached_response_count(&self) -> anyhow::Result<u64> {
        Ok(self.conn.query_row("SELECT count(*) FROM fetch_responses", [], |r| r.get::<_, i64>(0))? as u64)
    }
}

/// Copies the response cache of the index `old` (which `build` is replacing)
/// into the new index on `conn`, row by row (the cache may be large), each
/// marked not ingested: the new index holds only the build's inputs. Nothing
/// to copy when `old` has no cache (its schema predates it).
pub(super) fn carry_responses(old: &Path, conn: &Connection) -> anyhow::Result<u64> {
    let (src, _) = super::open_read_only(old, &|_| {})?;
    let has: i64 = src.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'fetch_responses'",
        [],
        |r| r.get(0),
    )?;
    if has == 0 {
        return Ok(0);
    }
    let mut insert = conn.prepare(
        "INSERT OR IGNORE INTO fetch_responses (request, api, fetched_at, body, body_len, ingested)
         VALUES (?1, ?2, ?3, ?4, ?5, 0)",
    )?;
    let mut stmt = src.prepare("SELECT request, api, fetched_at, body, body_len FROM fetch_responses")?;
    let mut rows = stmt.query([])?;
    let mut n = 0;
    while let Some(r) = rows.next()? {
        let (request, api, at, body, len): (String, String, i64, Vec<u8>, i64) =
            (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
        n += insert.execute(params![request, api, at, body, len])? as u64;
    }
    Ok(n)
}

/// The invariant `fetch_responses`: every stored response decompresses to
/// its recorded length (for `check`).
pub(crate) fn check_responses(conn: &Connection) -> InvariantResult {
    const NAME: &str = "fetch_responses";
    const DESCRIPTION: &str = "every cached fetch response decompresses to its recorded length";
    let scan = || -> rusqlite::Result<(u64, Vec<String>)> {
        let mut stmt = conn.prepare("SELECT request, body, body_len FROM fetch_responses ORDER BY request")?;
        let mut rows = stmt.query([])?;
        let (mut n, mut examples) = (0u64, Vec::new());
        while let Some(r) = rows.next()? {
            let (request, packed, len): (String, Vec<u8>, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
            if let Err(e) = unpack(&request, &packed, len) {
                n += 1;
                if examples.len() < EXAMPLES {
                    examples.push(format!("{e:#}"));
                }
            }
        }
        Ok((n, examples))
    };
    match scan() {
        Ok((n, examples)) => {
            InvariantResult { name: NAME, description: DESCRIPTION, ok: n == 0, violations: n, examples }
        }
        Err(e) => InvariantResult {
            name: NAME,
            description: DESCRIPTION,
            ok: false,
            violations: 1,
            examples: vec![format!("could not be evaluated: {e}")],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{IngestOptions, Input, build};

    #[test]
    fn a_stored_response_reads_back_and_damage_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        build(&db, &[Input::Mock], &IngestOptions::default()).unwrap();
        let resp = CachedResponse {
            request: "GET http://h/works?search=a".into(),
            api: "openalex".into(),
            fetched_at: 1_700_000_000,
            body: b"{\"results\": []}".repeat(40),
            ingested: true,
        };
        let mut index = crate::store::Writable::open(&db, &|_| {}).unwrap();
        index.write(|h| put_responses(h, std::slice::from_ref(&resp))).unwrap();
        let store = Store::open(&db).unwrap();
        assert_eq!(store.cached_response(&resp.request).unwrap(), Some(resp.clone()));
        assert_eq!(store.cached_response("GET http://h/other").unwrap(), None);
        assert_eq!(store.cached_response_count().unwrap(), 1);
        assert!(check_responses(&store.conn).ok);
        drop(store);
        index.conn.execute("UPDATE fetch_responses SET body = x'0102'", []).unwrap();
        let store = Store::open(&db).unwrap();
        assert!(store.cached_response(&resp.request).is_err());
        let damaged = check_responses(&store.conn);
        assert_eq!((damaged.ok, damaged.violations), (false, 1));
        assert!(damaged.examples[0].contains(&resp.request), "{damaged:?}");
    }
}
