-- 002: sentence vectors for semantic recall (`litindex embed`).
-- Vectors are little-endian f32 BLOBs of `dim` values, unit length.

-- Each embedding model an index was embedded with. A query must use a model
-- whose fingerprint (BLAKE3 of config.json + model.safetensors) is here.
CREATE TABLE embed_models (
    model_id    INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,             -- readable: the model directory's name
    dim         INTEGER NOT NULL,          -- vector dimension
    dir         TEXT NOT NULL,             -- the directory last used to embed
    fingerprint TEXT NOT NULL UNIQUE,
    max_seq_len INTEGER NOT NULL,          -- tokens an input was cut at
    created_at  TEXT NOT NULL,             -- UTC, RFC 3339
    updated_at  TEXT NOT NULL
);

-- One vector per (model, paper) for `title + " " + abstract`. `text_hash`
-- (BLAKE3 of that text) tells `embed` which papers changed since;
-- `chunked` is 1 once the paper's chunks (below) are stored for this text.
CREATE TABLE vectors (
    model_id  INTEGER NOT NULL REFERENCES embed_models (model_id),
    doc       INTEGER NOT NULL,            -- papers.doc
    text_hash TEXT NOT NULL,
    chunked   INTEGER NOT NULL DEFAULT 0,
    vector    BLOB NOT NULL,
    PRIMARY KEY (model_id, doc)
);

-- Sentence-window chunks of a paper's abstract (~512 characters, one
-- sentence of overlap), each embedded with the title in front, for reranking.
CREATE TABLE chunk_vectors (
    model_id INTEGER NOT NULL REFERENCES embed_models (model_id),
    doc      INTEGER NOT NULL,             -- papers.doc
    position INTEGER NOT NULL,             -- 0, 1, … in the abstract
    start    INTEGER NOT NULL,             -- byte range of the chunk in the abstract
    end      INTEGER NOT NULL,
    vector   BLOB NOT NULL,
    PRIMARY KEY (model_id, doc, position)
);
