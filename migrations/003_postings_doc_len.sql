-- 003: each posting carries its paper's BM25 document length, so scoring a
-- term is one range scan of `postings`: no lookup into `papers` (whose rows
-- hold the text) per posting. Kept equal to papers.doc_len by every write;
-- `litindex check` verifies it.
ALTER TABLE postings ADD COLUMN doc_len INTEGER NOT NULL DEFAULT 0;
UPDATE postings SET doc_len = (SELECT p.doc_len FROM papers AS p WHERE p.doc = postings.doc);
