-- 023: a title signature is stored as its code, not its text. A record's
-- `title_key` (and a PDF reference entry's) held the normalised title, 59
-- bytes on average at 1M gen papers, once in the row and again in
-- `idx_records_title_key` (134 MB together); it is only ever compared for
-- equality. It is now the first 8 bytes of BLAKE3 of that text, as a blob
-- (the store's `title_code`; the Rust half of this migration rewrites the
-- stored ones). A match on the code is checked against the titles
-- themselves where it decides a merge.
SELECT 1;
