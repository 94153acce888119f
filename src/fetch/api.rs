//! What `fetch` asks each API and what it reads back from the answers
//! (beyond the papers themselves, which the ingest formats read): the next
//! page, and each paper's id and references for snowballing.
//!
//! - OpenAlex, `GET /works?search=…|filter=…&per_page=N&cursor=…`: cursor
//!   paging, `cursor=*` first, then `meta.next_cursor` until it is null or a
//!   page is empty (docs.openalex.org, "Paging"). Ids in batches:
//!   `filter=openalex:W1|W2…`, `filter=doi:…|…`, citing works `filter=cites:W…`.
//! - Semantic Scholar Graph API, `GET /graph/v1/paper/search?query=…&offset=…
//!   &limit=…&fields=…`: offset paging while the answer has `next`; ids in
//!   batches `POST /graph/v1/paper/batch?fields=…` with `{"ids": [...]}`
//!   (an array back, `null` for an unknown id); snowballing through
//!   `/graph/v1/paper/{id}/references` and `/citations` pages
//!   (`{"data": [{"citedPaper"|"citingPaper": {...}}]}`).
//! - arXiv, `GET /api/query?search_query=…|id_list=…&start=…&max_results=…`:
//!   an Atom feed; paging by `start` while entries come and `start` is below
//!   `opensearch:totalResults` (arXiv API User's Manual, 3.1.1.2).

use serde_json::Value;

use super::Api;
use crate::ingest::InputFormat;

/// OpenAlex's largest page.
pub(crate) const OPENALEX_PAGE: usize = 200;
/// Ids per OpenAlex `filter=…:a|b|…` (OR of values).
pub(crate) const OPENALEX_IDS: usize = 50;
/// Semantic Scholar's largest search page.
pub(crate) const S2_PAGE: usize = 100;
/// Ids per Semantic Scholar batch request (the API takes up to 500).
pub(crate) const S2_IDS: usize = 500;
/// The largest `/references` or `/citations` page.
pub(crate) const S2_LINKS_PAGE: usize = 1000;
/// arXiv results per request (the manual asks for slices of at most a few hundred, 2000 at most).
pub(crate) const ARXIV_PAGE: usize = 100;
/// The paper fields asked of Semantic Scholar.
pub(crate) const S2_FIELDS: &str = "paperId,corpusId,externalIds,title,abstract,year,authors";
/// The fields asked of the batch endpoint: the same, and the references'
/// ids (which the batch endpoint returns, up to 9999 of them), so the
/// edges come along.
pub(crate) const S2_BATCH_FIELDS: &str = "paperId,corpusId,externalIds,title,abstract,year,authors,references.paperId";

/// One request: where to, with what body, and how to read the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub api: Api,
    /// Without `mailto` (added when sent), so a changed address does not invalidate the cache.
    pub url: String,
    /// A POST body (JSON).
    pub body: Option<String>,
    pub format: InputFormat,
    /// The paper a Semantic Scholar `/references` or `/citations` page belongs to.
    pub paper: Option<String>,
}

impl Request {
    pub(crate) fn get(api: Api, url: String, format: InputFormat) -> Request {
        Request { api, url, body: None, format, paper: None }
    }

    /// The cache key: `GET <url>` or `POST <url> <body>`.
    pub fn key(&self) -> String {
        match &self.body {
            None => format!("GET {}", self.url),
            Some(b) => format!("POST {} {b}", self.url),
        }
    }
}

/// A paper an answer holds, in its API's own ids, for snowballing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub api: Api,
    /// `W…` (OpenAlex) or the paper sha (Semantic Scholar).
    pub id: String,
    /// What it cites, in the same kind of id (empty when the answer does not say).
    pub refs: Vec<String>,
}

/// What an answer says besides its papers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Page {
    /// Entries on the page (nulls included).
    pub entries: usize,
    /// OpenAlex: `meta.next_cursor`. S2: `next` (an offset). arXiv: `totalResults`.
    pub next: Option<String>,
    pub found: Vec<Found>,
}

/// Reads `body`, the answer to `req`; an answer that is not what the API
/// sends (malformed JSON, no `results`) is an error naming the request.
pub(crate) fn read_page(req: &Request, body: &[u8]) -> anyhow::Result<Page> {
    let fail = |what: String| anyhow::anyhow!("{}: {what} in the answer to {}", req.api.label(), req.key());
    if req.format == InputFormat::ArxivAtom {
        return arxiv_page(body).ok_or_else(|| fail("not an Atom feed".into()));
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| fail(format!("malformed JSON ({e})")))?;
    match req.api {
        Api::OpenAlex => openalex_page(&value).ok_or_else(|| fail("no `results` list".into())),
        Api::S2 => s2_page(&value).ok_or_else(|| fail("neither a paper list nor a `data` page".into())),
        Api::Arxiv => unreachable!("arXiv answers are Atom"),
    }
}

/// `https://openalex.org/W123` → `W123`.
pub(crate) fn openalex_short(id: &str) -> String {
    id.rsplit('/').next().unwrap_or(id).to_string()
}

fn openalex_page(v: &Value) -> Option<Page> {
    let results = v.get("results")?.as_array()?;
    let next = v.pointer("/meta/next_cursor").and_then(Value::as_str).map(str::to_string);
    let found = results
        .iter()
        .filter_map(|w| {
            let id = openalex_short(w.get("id")?.as_str()?);
            let refs = w
                .get("referenced_works")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(openalex_short).collect())
                .unwrap_or_default();
            Some(Found { api: Api::OpenAlex, id, refs })
        })
        .collect();
    Some(Page { entries: results.len(), next, found })
}

fn s2_page(v: &Value) -> Option<Page> {
    let (entries, next): (&Vec<Value>, Option<String>) = match v {
        Value::Array(a) => (a, None),
        Value::Object(o) => (o.get("data")?.as_array()?, o.get("next").and_then(Value::as_u64).map(|n| n.to_string())),
        _ => return None,
    };
    let found = entries
        .iter()
        .filter_map(|e| {
            let paper = e.get("citedPaper").or_else(|| e.get("citingPaper")).unwrap_or(e);
            let id = paper.get("paperId")?.as_str()?.to_string();
            let refs = paper
                .get("references")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|r| r.get("paperId")?.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            Some(Found { api: Api::S2, id, refs })
        })
        .collect();
    Some(Page { entries: entries.len(), next, found })
}

/// Counts `entry` elements and reads `totalResults` (any namespace
/// prefix); `None` unless it looks like a feed. The ingest's Atom reader
/// reads the entries themselves.
fn arxiv_page(body: &[u8]) -> Option<Page> {
    let text = std::str::from_utf8(body).ok()?;
    let (mut feed, mut entries, mut next) = (false, 0, None);
    for (i, _) in text.match_indices('<') {
        let rest = &text[i + 1..];
        let name_len = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(rest.len());
        let local = rest[..name_len].rsplit(':').next().unwrap_or("");
        match local {
            "feed" => feed = true,
            "entry" => entries += 1,
            "totalResults" if next.is_none() => {
                let open = rest.find('>')? + 1;
                let close = rest[open..].find('<')? + open;
                next = Some(rest[open..close].trim().to_string());
            }
            _ => {}
        }
    }
    feed.then_some(Page { entries, next, found: Vec::new() })
}

/// Percent-encodes a query value (RFC 3986 unreserved characters kept);
/// also the web page's links (`litindex::fetch::encode`).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_query_values() {
        assert_eq!(encode("sparse attention"), "sparse%20attention");
        assert_eq!(encode("doi:10.1/a|b&c=d"), "doi%3A10.1%2Fa%7Cb%26c%3Dd");
        assert_eq!(encode("é"), "%C3%A9");
    }

    #[test]
    fn reads_pages_of_each_api() {
        let oa = Request::get(Api::OpenAlex, "u".into(), InputFormat::OpenAlex);
        let body = br#"{"meta": {"next_cursor": "abc"}, "results": [{"id": "https://openalex.org/W1", "referenced_works": ["https://openalex.org/W2"]}]}"#;
        let page = read_page(&oa, body).unwrap();
        assert_eq!(page.next.as_deref(), Some("abc"));
        assert_eq!(page.found, [Found { api: Api::OpenAlex, id: "W1".into(), refs: vec!["W2".into()] }]);
        let s2 = Request::get(Api::S2, "u".into(), InputFormat::S2);
        let page = read_page(&s2, br#"{"offset": 0, "next": 2, "data": [{"citingPaper": {"paperId": "x"}}]}"#).unwrap();
        assert_eq!((page.entries, page.next.as_deref(), page.found[0].id.as_str()), (1, Some("2"), "x"));
        let page = read_page(&s2, br#"[null, {"paperId": "y", "references": [{"paperId": "z"}, {"paperId": null}]}]"#)
            .unwrap();
        assert_eq!((page.entries, page.found[0].refs.clone()), (2, vec!["z".to_string()]));
        let ax = Request::get(Api::Arxiv, "u".into(), InputFormat::ArxivAtom);
        let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">7</opensearch:totalResults><entry><id>x</id></entry><a:entry xmlns:a="http://www.w3.org/2005/Atom"/></feed>"#;
        let page = read_page(&ax, feed).unwrap();
        assert_eq!((page.entries, page.next.as_deref()), (2, Some("7")));
        let err = read_page(&oa, b"{\"results\": [").unwrap_err().to_string();
        assert!(err.contains("malformed JSON") && err.contains("GET u"), "{err}");
    }
}
