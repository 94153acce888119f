-- 004: where a paper was published, from the sources that say so (arXiv
-- `journal-ref`, Semantic Scholar `venue` / `journal.name`, OpenAlex
-- `primary_location.source.display_name`); NULL when none does. An index
-- migrated from an older schema holds NULL for every paper until its papers
-- are ingested again. `search` filters on it (`venue:NAME`).
ALTER TABLE papers ADD COLUMN venue TEXT;

-- Each paper's authors by surname (the last word of the name, lowercased,
-- diacritics removed: `names::surname_key`), so that `author:NAME` reads the
-- papers of that surname instead of every paper. Written with the paper row;
-- filled for the papers already indexed right after this file runs
-- (`store::migrate`).
CREATE TABLE paper_authors (
    doc     INTEGER NOT NULL REFERENCES papers (doc),
    surname TEXT NOT NULL,
    PRIMARY KEY (doc, surname)
) WITHOUT ROWID;
CREATE INDEX idx_paper_authors_surname ON paper_authors (surname, doc);

-- What a filter tests of a paper other than its authors and text, in narrow
-- rows: a filtered search tests every paper the walk reaches, and reading
-- those through `papers` rows (which hold the text) costs several times more.
CREATE INDEX idx_papers_doc_meta ON papers (doc, id, year, venue);
