-- 010: full text. A PDF read by `ingest` is a row of `documents` (one per
-- file path), filed as a record of source 'pdf' (`records`), so the paper it
-- belongs to is `records.paper_id` of that record: the ingest engine keeps it
-- canonical across merges. Its text is kept as sections and passages; the
-- passages have their own postings and BM25 statistics (a second field
-- beside title + abstract), in the same block layout as `posting_blocks`.

-- One row per PDF file read. A changed file at the same path keeps its row
-- (and `document`); its sections and passages are replaced.
CREATE TABLE documents (
    document    INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,     -- the file, absolute
    hash        TEXT NOT NULL,            -- blake3 of the file's bytes, hex: an unchanged file is skipped
    source_id   TEXT NOT NULL,            -- its record: records (source = 'pdf', source_id)
    pages       INTEGER NOT NULL,
    notes       TEXT NOT NULL DEFAULT '[]',  -- JSON array: why it has less text than it should (encrypted, scanned)
    front       TEXT NOT NULL DEFAULT '{}',  -- JSON: title, authors, abstract, year, doi, arxiv as the PDF printed them
    text        TEXT NOT NULL DEFAULT '',    -- the structured text `litindex paper ID --text` prints; passages' offsets point into it
    ingested_at TEXT NOT NULL             -- UTC, RFC 3339
);
CREATE INDEX idx_documents_source_id ON documents (source_id);

-- The headings of a document's sections, in reading order (`section` is the
-- index into the document's sections; section 0 may have an empty heading:
-- the text before the first heading).
CREATE TABLE sections (
    document INTEGER NOT NULL REFERENCES documents (document),
    section  INTEGER NOT NULL,
    heading  TEXT NOT NULL,
    level    INTEGER NOT NULL,
    PRIMARY KEY (document, section)
) WITHOUT ROWID;

-- Passages of about 512 characters, cut along sentences and paragraphs,
-- never across a section. `start` and `end` are character offsets into the
-- document's text as `litindex paper ID --text` prints it; `len` is the
-- passage's BM25 length (tokens of `text`).
CREATE TABLE passages (
    passage    INTEGER PRIMARY KEY,
    document   INTEGER NOT NULL REFERENCES documents (document),
    seq        INTEGER NOT NULL,          -- order in the document, from 0
    section    INTEGER NOT NULL,          -- index into the document's sections; -1 for the abstract, captions and references
    heading    TEXT NOT NULL,
    paragraph  INTEGER NOT NULL,          -- paragraph number in the section, from 1 (captions: the caption's number)
    page_first INTEGER NOT NULL,
    page_last  INTEGER NOT NULL,
    start      INTEGER NOT NULL,
    end        INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('abstract', 'body', 'caption', 'reference')),  -- abstract: as the PDF printed it; reference: an entry of its reference list
    text       TEXT NOT NULL,
    len        INTEGER NOT NULL
);
CREATE INDEX idx_passages_document ON passages (document, seq);

-- The passages' vocabulary and each term's passage frequency (BM25 df over passages).
CREATE TABLE passage_terms (
    term_id INTEGER PRIMARY KEY,
    term    TEXT NOT NULL UNIQUE,
    df      INTEGER NOT NULL
);

-- Passage postings: exactly the layout of `posting_blocks`, with passage ids
-- where that table has paper doc ids (`last_doc` is the block's highest passage).
CREATE TABLE passage_blocks (
    term_id  INTEGER NOT NULL REFERENCES passage_terms (term_id),
    last_doc INTEGER NOT NULL,
    n        INTEGER NOT NULL CHECK (n BETWEEN 1 AND 128),
    max_tf   INTEGER NOT NULL,
    min_len  INTEGER NOT NULL,
    data     BLOB NOT NULL,
    PRIMARY KEY (term_id, last_doc)
) WITHOUT ROWID;

-- The passages' BM25 statistics: exactly one row (k1 and b are index_meta's).
CREATE TABLE passage_meta (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    num_passages INTEGER NOT NULL,       -- N over passages
    total_len    INTEGER NOT NULL        -- sum of passages.len
);
INSERT INTO passage_meta (id, num_passages, total_len) VALUES (1, 0, 0);
