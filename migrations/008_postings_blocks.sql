-- 008: postings as compressed blocks. One row per (term, paper) cost ~16 bytes
-- plus B-tree overhead per posting and one row visit each when scoring; a
-- block of up to 128 postings is one row: doc ids delta-coded, tf and the
-- paper's length, all as LEB128 varints in `data` (the byte layout is in the
-- README, "Block postings"). `n` is the number of postings in the block,
-- `last_doc` its highest doc id (blocks of a term are read in doc order by
-- the primary key, and the block holding a doc is the first whose last_doc is
-- at least that doc). `max_tf` and `min_len` bound the BM25 contribution of
-- every posting of the block (the score grows with tf and falls with the
-- length), which top-k search uses to skip blocks without decoding them.
--
-- A view cannot decode the blobs: `litindex postings TERM` prints a term's
-- postings instead of the `postings_readable` view.
--
-- The old `postings` rows are encoded into blocks by Rust code that runs right
-- after this file (src/store/migrate.rs), which then drops `postings`.
DROP VIEW IF EXISTS postings_readable;
CREATE TABLE posting_blocks (
    term_id  INTEGER NOT NULL REFERENCES terms (term_id),
    last_doc INTEGER NOT NULL,
    n        INTEGER NOT NULL CHECK (n BETWEEN 1 AND 128),
    max_tf   INTEGER NOT NULL,
    min_len  INTEGER NOT NULL,
    data     BLOB NOT NULL,
    PRIMARY KEY (term_id, last_doc)
) WITHOUT ROWID;
