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
    doc_len  INTEGER NOT NULL             -- BM25 document length: tokens in title + ' ' + abstract
);

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
CREATE TABLE disagreements (
    paper_id     TEXT NOT NULL,
    field        TEXT NOT NULL,
    kept         TEXT NOT NULL,
    kept_source  TEXT NOT NULL,
    other        TEXT NOT NULL,
    other_source TEXT NOT NULL
);
CREATE INDEX idx_disagreements_paper_id ON disagreements (paper_id);

-- A readable view of the postings for sqlite3 users.
CREATE VIEW postings_readable AS
    SELECT t.term, p.id AS paper_id, x.tf
    FROM postings AS x
    JOIN terms AS t ON t.term_id = x.term_id
    JOIN papers AS p ON p.doc = x.doc;
