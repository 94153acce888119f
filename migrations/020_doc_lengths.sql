-- 020: a document's length is stored once, not in each of its postings.
-- Until now a block's blob held three varints a posting (the doc delta,
-- the term frequency, the document length); the length, repeated in each
-- of a paper's ~130 postings, was 43 % of the blobs' bytes. The blobs now
-- hold two (the Rust half of this migration rewrites every block of both
-- fields), and the lengths are kept 4,096 documents to a row: chunk `c`
-- holds docs `4096·c` to `4096·c + 4095` as one byte giving the width of
-- an entry (2 or 4), then one little-endian entry per doc up to the
-- chunk's last, all ones for a doc id without a document.
-- `papers.doc_len` and `passages.len` stay the source: the triggers below
-- mark a changed row's chunk, the store writes those chunks again before
-- each write commits, and a reader takes a chunk still marked (a user's
-- sqlite3 edit) from the source instead. `litindex check` compares them.
CREATE TABLE paper_lengths (
    chunk INTEGER PRIMARY KEY,
    data  BLOB NOT NULL
);
CREATE TABLE paper_lengths_dirty (
    chunk INTEGER PRIMARY KEY
);
CREATE TABLE passage_lengths (
    chunk INTEGER PRIMARY KEY,
    data  BLOB NOT NULL
);
CREATE TABLE passage_lengths_dirty (
    chunk INTEGER PRIMARY KEY
);
CREATE TRIGGER papers_lengths_insert AFTER INSERT ON papers BEGIN
    INSERT INTO paper_lengths_dirty (chunk) SELECT new.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM paper_lengths_dirty WHERE chunk = new.doc >> 12);
END;
CREATE TRIGGER papers_lengths_update AFTER UPDATE OF doc, doc_len ON papers BEGIN
    INSERT INTO paper_lengths_dirty (chunk) SELECT old.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM paper_lengths_dirty WHERE chunk = old.doc >> 12);
    INSERT INTO paper_lengths_dirty (chunk) SELECT new.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM paper_lengths_dirty WHERE chunk = new.doc >> 12);
END;
CREATE TRIGGER papers_lengths_delete AFTER DELETE ON papers BEGIN
    INSERT INTO paper_lengths_dirty (chunk) SELECT old.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM paper_lengths_dirty WHERE chunk = old.doc >> 12);
END;
CREATE TRIGGER passages_lengths_insert AFTER INSERT ON passages BEGIN
    INSERT INTO passage_lengths_dirty (chunk) SELECT new.passage >> 12 WHERE NOT EXISTS (SELECT 1 FROM passage_lengths_dirty WHERE chunk = new.passage >> 12);
END;
CREATE TRIGGER passages_lengths_update AFTER UPDATE OF passage, len ON passages BEGIN
    INSERT INTO passage_lengths_dirty (chunk) SELECT old.passage >> 12 WHERE NOT EXISTS (SELECT 1 FROM passage_lengths_dirty WHERE chunk = old.passage >> 12);
    INSERT INTO passage_lengths_dirty (chunk) SELECT new.passage >> 12 WHERE NOT EXISTS (SELECT 1 FROM passage_lengths_dirty WHERE chunk = new.passage >> 12);
END;
CREATE TRIGGER passages_lengths_delete AFTER DELETE ON passages BEGIN
    INSERT INTO passage_lengths_dirty (chunk) SELECT old.passage >> 12 WHERE NOT EXISTS (SELECT 1 FROM passage_lengths_dirty WHERE chunk = old.passage >> 12);
END;
INSERT OR IGNORE INTO paper_lengths_dirty (chunk) SELECT DISTINCT doc >> 12 FROM papers;
INSERT OR IGNORE INTO passage_lengths_dirty (chunk) SELECT DISTINCT passage >> 12 FROM passages;
