-- 004: marks a user puts on papers, and saved searches with what their last
-- check showed. Paper ids are plain TEXT with no foreign key to `papers`: a
-- mark is the user's, not the index's, so it outlives a rebuild that drops
-- its paper (then it is "dangling": `litindex marks --dangling`).

-- One row per paper and label. `favorite` and `exclude` replace each other.
CREATE TABLE marks (
    paper_id  TEXT NOT NULL,
    label     TEXT NOT NULL CHECK (label IN ('favorite', 'exclude', 'to-read', 'read')),
    note      TEXT NOT NULL DEFAULT '',
    marked_at TEXT NOT NULL,  -- UTC, RFC 3339
    PRIMARY KEY (paper_id, label)
) WITHOUT ROWID;
CREATE INDEX idx_marks_label ON marks (label);

-- Free tags, any number per paper.
CREATE TABLE mark_tags (
    paper_id  TEXT NOT NULL,
    tag       TEXT NOT NULL CHECK (tag <> ''),
    tagged_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
) WITHOUT ROWID;
CREATE INDEX idx_mark_tags_tag ON mark_tags (tag);

-- Saved searches: the query and the search flags as given (a JSON array of
-- strings, parsed again at every check).
CREATE TABLE watches (
    name         TEXT PRIMARY KEY CHECK (name <> ''),
    query        TEXT NOT NULL,
    flags        TEXT NOT NULL DEFAULT '[]',
    created_at   TEXT NOT NULL,
    last_checked TEXT            -- NULL until the first check
);

-- The hits of each watch's last check, with their rank there.
CREATE TABLE watch_seen (
    watch   TEXT NOT NULL REFERENCES watches (name) ON DELETE CASCADE,
    paper_id TEXT NOT NULL,
    rank    INTEGER NOT NULL,
    PRIMARY KEY (watch, paper_id)
) WITHOUT ROWID;
