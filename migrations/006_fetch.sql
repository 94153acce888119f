-- 004: the responses `litindex fetch` received from OpenAlex, Semantic
-- Scholar and arXiv. A response is stored, in the same transaction as the
-- papers read from it, once it has been ingested: a rerun finds it here and
-- neither asks the API again nor re-ingests it (`fetch --refresh` does
-- both), so an interrupted fetch resumes where it stopped.
CREATE TABLE fetch_responses (
    -- What was asked: `GET <url>`, or `POST <url> <body>` for a batch lookup.
    request    TEXT PRIMARY KEY,
    -- The API it went to: `openalex`, `s2` or `arxiv`.
    api        TEXT NOT NULL,
    -- When the response arrived, Unix seconds (UTC).
    fetched_at INTEGER NOT NULL,
    -- The response body as received, zlib-compressed (`zlib.decompress` in Python).
    body       BLOB NOT NULL,
    -- Its length uncompressed, in bytes.
    body_len   INTEGER NOT NULL
);
