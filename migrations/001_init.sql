-- 001: the whole index in one file: papers, their BM25 postings and
-- statistics, and the citation graph. Connection-level PRAGMAs live in code.

-- One row per indexed paper. `doc` is a compact integer id used by postings
-- (integers keep the postings table small); `id` is the stable paper id users see.
CREATE TABLE papers (
    doc      INTEGER PRIMARY KEY,
    id       TEXT NOT NULL UNIQUE,
    title    TEXT NOT NULL,
    abstract TEXT NOT NULL DEFAULT '',
    year     INTEGER,
    authors  TEXT NOT NULL DEFAULT '[]',  -- JSON array of names
    source   TEXT NOT NULL,               -- contributing sources, joined by '+'
    doc_len  INTEGER NOT NULL,            -- BM25 document length: tokens in title + ' ' + abstract
    arxiv_version INTEGER                 -- highest arXiv version any source named
);
CREATE INDEX idx_papers_year ON papers (year);

-- The vocabulary with each term's document frequency (BM25 df).
CREATE TABLE terms (
    term_id INTEGER PRIMARY KEY,
    term    TEXT NOT NULL UNIQUE,
    df      INTEGER NOT NULL
);

-- term -> paper -> term frequency, clustered by term so one term's postings
-- are read in a single range scan.
CREATE TABLE postings (
    term_id INTEGER NOT NULL REFERENCES terms (term_id),
    doc     INTEGER NOT NULL REFERENCES papers (doc),
    tf      INTEGER NOT NULL,
    PRIMARY KEY (term_id, doc)
) WITHOUT ROWID;

-- One row per citation: `citing` cites `cited`. Ends need not be papers: an id
-- that is not in `papers` is a dangling node that walks pass through.
-- The primary key serves walks along references; the index serves citations.
CREATE TABLE edges (
    citing TEXT NOT NULL,
    cited  TEXT NOT NULL,
    PRIMARY KEY (citing, cited),
    CHECK (citing <> cited)
) WITHOUT ROWID;
CREATE INDEX idx_edges_cited ON edges (cited, citing);

-- Corpus-level BM25 statistics and build settings: exactly one row.
CREATE TABLE index_meta (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    analyzer  TEXT NOT NULL,
    k1        REAL NOT NULL,
    b         REAL NOT NULL,
    num_docs  INTEGER NOT NULL,  -- N
    total_len INTEGER NOT NULL,  -- sum of doc_len
    avgdl     REAL NOT NULL,     -- total_len / N (0 for an empty index)
    min_year  INTEGER,           -- year range of dated papers, for recency
    max_year  INTEGER,
    built_at  TEXT NOT NULL      -- UTC, RFC 3339
);

-- Fields on which two sources gave different non-empty values for one paper.
-- origin 'build': found while `build` unioned its inputs; 'ingest': between
-- the stored records of a paper, recomputed whenever the paper is re-derived.
CREATE TABLE disagreements (
    paper_id     TEXT NOT NULL,
    field        TEXT NOT NULL,
    kept         TEXT NOT NULL,
    kept_source  TEXT NOT NULL,
    other        TEXT NOT NULL,
    other_source TEXT NOT NULL,
    origin       TEXT NOT NULL DEFAULT 'build'
);
CREATE INDEX idx_disagreements_paper_id ON disagreements (paper_id);

-- Each source's own record of a paper, as read. A paper row is derived from
-- its records (text by source precedence, graph by union); a re-ingested
-- record from the same source replaces the old one.
CREATE TABLE records (
    source    TEXT NOT NULL,   -- arxiv, s2, s2-papers, s2-abstracts, openalex, beir, paper, or a build label
    source_id TEXT NOT NULL,   -- the record's id in its source, normalised
    paper_id  TEXT NOT NULL,   -- the canonical id of the paper it belongs to
    format    TEXT NOT NULL,   -- the input format it was read in
    origin    TEXT NOT NULL,   -- file:line (or file: path) it was last read from
    title_key TEXT,            -- normalised title for fallback matching; NULL when generic or absent
    data      TEXT NOT NULL,   -- the record as JSON
    PRIMARY KEY (source, source_id)
);
CREATE INDEX idx_records_paper_id ON records (paper_id);
CREATE INDEX idx_records_title_key ON records (title_key) WHERE title_key IS NOT NULL;

-- Every known spelling of a paper's ids, normalised, pointing at its
-- canonical id (arXiv > DOI > CorpusId > OpenAlex > S2 sha > own id).
CREATE TABLE aliases (
    alias    TEXT PRIMARY KEY,
    paper_id TEXT NOT NULL,
    kind     TEXT NOT NULL     -- arxiv, doi, corpusid, openalex, s2, own
) WITHOUT ROWID;
CREATE INDEX idx_aliases_paper_id ON aliases (paper_id);

-- Citations as the sources stated them, between normalised ids. `edges` is
-- derived from these by resolving both ends through `aliases`.
CREATE TABLE links (
    origin_source TEXT NOT NULL,  -- the record's source ('edges' for edge files)
    origin_id     TEXT NOT NULL,  -- the record's source_id ('' for edge files)
    citing        TEXT NOT NULL,
    cited         TEXT NOT NULL,
    PRIMARY KEY (origin_source, origin_id, citing, cited)
) WITHOUT ROWID;
CREATE INDEX idx_links_citing ON links (citing);
CREATE INDEX idx_links_cited ON links (cited);

-- Merges that were not a plain shared id: title fallbacks and bridges.
CREATE TABLE merges (
    id       INTEGER PRIMARY KEY,
    paper_id TEXT NOT NULL,  -- the paper the records ended up in
    rule     TEXT NOT NULL,  -- 'title-fallback' or 'bridge'
    record   TEXT NOT NULL,  -- source:source_id of the record that caused it
    other    TEXT NOT NULL,  -- what it was merged with
    detail   TEXT NOT NULL
);
CREATE INDEX idx_merges_paper_id ON merges (paper_id);

-- A readable view of the postings for sqlite3 users.
CREATE VIEW postings_readable AS
    SELECT t.term, p.id AS paper_id, x.tf
    FROM postings AS x
    JOIN terms AS t ON t.term_id = x.term_id
    JOIN papers AS p ON p.doc = x.doc;
