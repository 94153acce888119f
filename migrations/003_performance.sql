-- 003: performance at scale. The two lookups a search repeats thousands of
-- times read narrow rows instead of `papers` rows (which hold the text), and
-- `links` loses one of its two indexes.

-- Each posting carries its paper's BM25 document length, so scoring a term
-- is one range scan of `postings`. Kept equal to papers.doc_len by every
-- write; `litindex check` verifies it.
ALTER TABLE postings ADD COLUMN doc_len INTEGER NOT NULL DEFAULT 0;
UPDATE postings SET doc_len = (SELECT p.doc_len FROM papers AS p WHERE p.doc = postings.doc);

-- Ranking a paper the graph walk reached needs its doc id and year: this
-- index answers `SELECT doc, year FROM papers WHERE id = ?` by itself.
CREATE INDEX idx_papers_id_year ON papers (id, year);

-- `links` keyed by (citing, cited, origin): the primary key serves lookups by
-- the citing id, so one index (cited) is enough where there were two. A
-- record's links all have the record's own id at one end, so replacing them
-- looks them up through those two keys.
CREATE TABLE links_v3 (
    origin_source TEXT NOT NULL,  -- the record's source ('edges' for edge files)
    origin_id     TEXT NOT NULL,  -- the record's source_id ('' for edge files)
    citing        TEXT NOT NULL,
    cited         TEXT NOT NULL,
    PRIMARY KEY (citing, cited, origin_source, origin_id)
) WITHOUT ROWID;
INSERT INTO links_v3 (origin_source, origin_id, citing, cited)
    SELECT origin_source, origin_id, citing, cited FROM links ORDER BY citing, cited, origin_source, origin_id;
DROP TABLE links;
ALTER TABLE links_v3 RENAME TO links;
CREATE INDEX idx_links_cited ON links (cited);

-- A record's title and abstract are not stored twice: when the paper row
-- holds exactly the text taken from this record, `data` holds "" for it and
-- `shared` says so (bit 1: title, bit 2: abstract). Older records keep their
-- text (`shared` 0).
ALTER TABLE records ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
