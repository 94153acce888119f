-- 012: screening reviews (issue 26). A review is a named set of candidate
-- papers and the include/exclude decisions a user made on them. As with
-- marks, papers are named by TEXT ids with no foreign key to `papers`: a
-- review is the user's, not the index's, and outlives a rebuild (`build`
-- carries these rows into the new file). Each candidate keeps the id the
-- user was given (`given_id`, e.g. an OpenAlex W id from a review's list)
-- beside the canonical id it resolved to (`paper_id`, kept up to date by
-- merges), so a merged paper keeps every record id it stands for and
-- decisions and exports can name the ids a user was given.

CREATE TABLE screen_reviews (
    name       TEXT PRIMARY KEY CHECK (name <> ''),
    origin     TEXT NOT NULL,   -- how the candidates were chosen: `query: …`, `ids-from: FILE`, `source: NAME`, `all`
    created_at TEXT NOT NULL    -- UTC, RFC 3339
);

-- One row per candidate of a review; `pos` is the order they were added in
-- (a query's rank), the order `screen next` falls back to before the first
-- include and exclude.
CREATE TABLE screen_candidates (
    review   TEXT NOT NULL REFERENCES screen_reviews (name) ON DELETE CASCADE,
    given_id TEXT NOT NULL CHECK (given_id <> ''),
    paper_id TEXT NOT NULL,
    pos      INTEGER NOT NULL,
    PRIMARY KEY (review, given_id)
) WITHOUT ROWID;
CREATE INDEX idx_screen_candidates_paper_id ON screen_candidates (paper_id);

-- The decisions: at most one per candidate (a new one replaces it); `seq`
-- numbers them in the order they were made (the model's training order).
CREATE TABLE screen_decisions (
    review     TEXT NOT NULL,
    given_id   TEXT NOT NULL,
    label      TEXT NOT NULL CHECK (label IN ('include', 'exclude')),
    note       TEXT NOT NULL DEFAULT '',
    reason     TEXT NOT NULL DEFAULT '',   -- a free tag (e.g. `wrong-population`)
    seq        INTEGER NOT NULL,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (review, given_id),
    FOREIGN KEY (review, given_id) REFERENCES screen_candidates (review, given_id) ON DELETE CASCADE
) WITHOUT ROWID;
