-- 013: Zotero libraries read in place and kept in sync (issue 24). The
-- papers are ordinary records (`records.source = 'zotero'`, `source_id`
-- `zotero:KEY`); these tables hold what a sync needs to read only what
-- changed, and what a record has no field for.

-- One row per Zotero database ingested (its path, made absolute).
CREATE TABLE zotero_libraries (
    path             TEXT PRIMARY KEY,   -- the zotero.sqlite file
    data_dir         TEXT NOT NULL,      -- the folder whose storage/ attachments are resolved against
    library_version  INTEGER NOT NULL,   -- libraries.version of the user library (0: never synced with zotero.org)
    userdata         INTEGER NOT NULL,   -- the Zotero schema (version.userdata)
    collections      TEXT NOT NULL,      -- fingerprint of the collection tree: when it changes every item is read again
    synced_at        TEXT NOT NULL,      -- UTC, RFC 3339
    added            INTEGER NOT NULL,   -- what the last sync did: items new to the index,
    updated          INTEGER NOT NULL,   -- items changed since the sync before,
    removed          INTEGER NOT NULL,   -- items trashed or deleted in Zotero (their records removed),
    unchanged        INTEGER NOT NULL    -- items not read again
);

-- One row per live item of a library as last read.
CREATE TABLE zotero_items (
    library         TEXT NOT NULL REFERENCES zotero_libraries (path) ON DELETE CASCADE,
    source_id       TEXT NOT NULL,       -- records.source_id (source 'zotero')
    key             TEXT NOT NULL,       -- the Zotero item key (and its storage/KEY folder)
    version         INTEGER NOT NULL,    -- items.version
    date_modified   TEXT NOT NULL,       -- items.dateModified
    client_modified TEXT NOT NULL,       -- items.clientDateModified
    children        TEXT NOT NULL,       -- live notes and attachments: count/latest clientDateModified
    tags            TEXT NOT NULL,       -- JSON array: the mark_tags this item put on its paper
    data            TEXT NOT NULL,       -- JSON: type, url, date as typed, creators with roles, collections, tags, notes, attachments
    PRIMARY KEY (library, source_id)
) WITHOUT ROWID;
CREATE INDEX idx_zotero_items_source_id ON zotero_items (source_id);
