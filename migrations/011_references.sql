-- 011: a PDF's reference list and its citation contexts, and the links into
-- the citation graph they state. Each table hangs off `documents` (010): a
-- changed file keeps its `document`, and re-ingesting it replaces its rows
-- here and its stated links (origin: the `pdf` record's references, so the
-- `links` view shows them as stated by ('pdf', documents.source_id)).

-- One row per entry of a document's reference list, in printed order, with
-- the fields the reference parser found and what the entry was matched to.
-- An entry nothing can be parsed from is kept too (its `raw` text, no target).
CREATE TABLE doc_references (
    document   INTEGER NOT NULL REFERENCES documents (document),
    position   INTEGER NOT NULL,          -- from 0, in printed order
    label      TEXT,                      -- the printed label without brackets ("12", "Smi19")
    raw        TEXT NOT NULL,             -- the entry as printed
    page       INTEGER NOT NULL,
    title      TEXT,                      -- parsed fields: NULL when the style prints none or the parser missed it
    authors    TEXT NOT NULL DEFAULT '[]',  -- JSON array, in printed order
    et_al      INTEGER NOT NULL DEFAULT 0,
    year       INTEGER,
    venue      TEXT,
    doi        TEXT,                      -- lowercase, no https://doi.org/
    arxiv      TEXT,                      -- unversioned
    title_key  TEXT,                      -- the title signature (paper::title::title_key) it matches on
    -- The id the PDF's stated link names: the matched paper (its id when
    -- matched), else a dangling id (the DOI, else the arXiv id, else `ref:`
    -- and 16 hex digits of BLAKE3 of the normalised title). NULL: nothing
    -- identifies the entry; it states no link.
    target     TEXT,
    -- How it matched an indexed paper (doi, arxiv: exact on the id; title:
    -- exact on the title signature, the evidence says what agreed); NULL when
    -- it matched none (then `target` is dangling, or NULL).
    matched_by TEXT CHECK (matched_by IN ('doi', 'arxiv', 'title')),
    -- For a title match, what agreed; for a near miss that was refused (the
    -- title matches a paper but its year, first author or DOI disagree, or
    -- it matches several papers), why.
    evidence   TEXT,
    PRIMARY KEY (document, position)
) WITHOUT ROWID;
-- `paper ID`'s "cited in context", `gaps`' titles: entries by what they name.
CREATE INDEX idx_doc_references_target ON doc_references (target) WHERE target IS NOT NULL;
-- The entries an ingest tries again (a paper with their title may have arrived).
CREATE INDEX idx_doc_references_unmatched ON doc_references (title_key)
    WHERE matched_by IS NULL AND title_key IS NOT NULL;

-- One row per sentence of the body that cites, in document order.
CREATE TABLE citation_contexts (
    document  INTEGER NOT NULL REFERENCES documents (document),
    context   INTEGER NOT NULL,           -- from 0, in document order
    section   INTEGER NOT NULL,           -- index into the document's sections (`sections.section`)
    heading   TEXT NOT NULL,              -- that section's heading ('' before the first)
    paragraph INTEGER NOT NULL,           -- index into the section's paragraphs, from 0
    start     INTEGER NOT NULL,           -- the sentence's byte range in the paragraph
    end       INTEGER NOT NULL,
    page      INTEGER NOT NULL,
    sentence  TEXT NOT NULL,
    markers   TEXT NOT NULL DEFAULT '[]', -- JSON array: the markers as printed ("[3-5]", "(Smith et al., 2019)")
    PRIMARY KEY (document, context)
) WITHOUT ROWID;

-- Which reference entries each context cites.
CREATE TABLE context_references (
    document INTEGER NOT NULL,
    position INTEGER NOT NULL,            -- doc_references.position
    context  INTEGER NOT NULL,            -- citation_contexts.context
    PRIMARY KEY (document, position, context)
) WITHOUT ROWID;

-- For sqlite3 users: every sentence in which a paper (with full text) cites
-- another paper or a dangling id, with its page and section.
CREATE VIEW citing_sentences AS
    SELECT r.paper_id AS citing,
           coalesce((SELECT x.paper_id FROM aliases AS x WHERE x.alias = e.target), e.target) AS cited,
           e.position AS reference, e.label, c.page, c.heading, c.sentence
    FROM context_references AS cr
    JOIN doc_references AS e ON e.document = cr.document AND e.position = cr.position
    JOIN citation_contexts AS c ON c.document = cr.document AND c.context = cr.context
    JOIN documents AS d ON d.document = cr.document
    JOIN records AS r ON r.source = 'pdf' AND r.source_id = d.source_id
    WHERE e.target IS NOT NULL;
