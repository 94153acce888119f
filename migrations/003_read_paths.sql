-- 003: the two lookups a search repeats thousands of times read narrow rows
-- instead of `papers` rows (which hold the text).

-- Each posting carries its paper's BM25 document length, so scoring a term
-- is one range scan of `postings`. Kept equal to papers.doc_len by every
-- write; `litindex check` verifies it.
ALTER TABLE postings ADD COLUMN doc_len INTEGER NOT NULL DEFAULT 0;
UPDATE postings SET doc_len = (SELECT p.doc_len FROM papers AS p WHERE p.doc = postings.doc);

-- Ranking a paper the graph walk reached needs its doc id and year: this
-- index answers `SELECT doc, year FROM papers WHERE id = ?` by itself.
CREATE INDEX idx_papers_id_year ON papers (id, year);
