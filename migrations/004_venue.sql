-- 004: where a paper was published, from the sources that say so (arXiv
-- `journal-ref`, Semantic Scholar `venue` / `journal.name`, OpenAlex
-- `primary_location.source.display_name`); NULL when none does. An index
-- migrated from an older schema holds NULL for every paper until its papers
-- are ingested again. `search` filters on it (`venue:NAME`).
ALTER TABLE papers ADD COLUMN venue TEXT;
