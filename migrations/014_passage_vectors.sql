-- 014: passage vectors (`litindex embed --passages`), for `search --passages
-- --mode dense|hybrid`. One vector per (model, passage) of a body, caption
-- or abstract passage (reference entries are other papers' titles, so they
-- are not embedded); little-endian f32 BLOBs of `embed_models.dim` values,
-- unit length, like `vectors`.
--
-- A re-ingested PDF replaces its passages: their vectors are deleted with
-- them, in the same transaction (store::documents::remove_passages, which
-- also covers connections without foreign keys), and the cascade below says
-- the same to SQLite. `text_hash` (BLAKE3 of the embedded text, as in
-- `vectors`) makes `embed --passages` embed a passage again if its text
-- ever differs from the text its vector was made from.
CREATE TABLE passage_vectors (
    model_id  INTEGER NOT NULL REFERENCES embed_models (model_id),
    passage   INTEGER NOT NULL REFERENCES passages (passage) ON DELETE CASCADE,
    text_hash TEXT NOT NULL,
    vector    BLOB NOT NULL,
    PRIMARY KEY (model_id, passage)
) WITHOUT ROWID;
-- `DELETE FROM passages` looks up the vectors of each deleted passage.
CREATE INDEX idx_passage_vectors_passage ON passage_vectors (passage);
