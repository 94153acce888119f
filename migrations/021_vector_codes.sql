-- 021: the papers' vectors also kept as int8 codes, 4,096 doc ids to a row,
-- so that a dense or hybrid search reads a quarter of the bytes, in a few
-- hundred large rows rather than a row per paper, and rescores only the
-- papers whose bound says they could be among the best with their f32
-- vectors (`vectors` stays the source; docs/SCHEMA.md gives the layout).
-- Chunk `c` of model `m` holds the vectors of docs `4096·c` to
-- `4096·c + 4095`. The triggers below mark a changed
-- vector's chunk, the store writes those chunks again before each write
-- commits, and a reader takes a chunk still marked (a user's sqlite3 edit)
-- from `vectors` instead. `litindex check` compares them.
CREATE TABLE vector_codes (
    model_id INTEGER NOT NULL,
    chunk    INTEGER NOT NULL,
    data     BLOB NOT NULL,
    PRIMARY KEY (model_id, chunk)
);
CREATE TABLE vector_codes_dirty (
    model_id INTEGER NOT NULL,
    chunk    INTEGER NOT NULL,
    PRIMARY KEY (model_id, chunk)
) WITHOUT ROWID;
-- (NOT EXISTS rather than OR IGNORE: an outer statement's conflict clause,
-- such as `embed`'s upsert, overrides a trigger's OR IGNORE.)
CREATE TRIGGER vectors_codes_insert AFTER INSERT ON vectors BEGIN
    INSERT INTO vector_codes_dirty (model_id, chunk) SELECT new.model_id, new.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM vector_codes_dirty WHERE model_id = new.model_id AND chunk = new.doc >> 12);
END;
CREATE TRIGGER vectors_codes_update AFTER UPDATE OF model_id, doc, vector ON vectors BEGIN
    INSERT INTO vector_codes_dirty (model_id, chunk) SELECT old.model_id, old.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM vector_codes_dirty WHERE model_id = old.model_id AND chunk = old.doc >> 12);
    INSERT INTO vector_codes_dirty (model_id, chunk) SELECT new.model_id, new.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM vector_codes_dirty WHERE model_id = new.model_id AND chunk = new.doc >> 12);
END;
CREATE TRIGGER vectors_codes_delete AFTER DELETE ON vectors BEGIN
    INSERT INTO vector_codes_dirty (model_id, chunk) SELECT old.model_id, old.doc >> 12 WHERE NOT EXISTS (SELECT 1 FROM vector_codes_dirty WHERE model_id = old.model_id AND chunk = old.doc >> 12);
END;
INSERT OR IGNORE INTO vector_codes_dirty (model_id, chunk) SELECT DISTINCT model_id, doc >> 12 FROM vectors;
