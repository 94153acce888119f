-- 017: the doc id and year of every node, 256 nodes to a row. A search's
-- walk needs both for every paper it reaches (tens of thousands at 1M
-- papers, spread over the whole `nodes` table); one lookup of `nodes` per
-- reached paper was a quarter of a search process's time there
-- (docs/PERFORMANCE.md). Here they are read a chunk at a time: chunk
-- `c` holds nodes `256·c` to `256·c + 255`, each as 12 bytes in node
-- order, the doc id (8 bytes, little-endian, i64::MIN: none) and the year
-- (4 bytes, little-endian, i32::MIN: none); a chunk ends after its last
-- node. `nodes` stays the source: the triggers below mark the chunk of
-- every node inserted, updated or deleted in `node_meta_dirty`, the store
-- writes those chunks again before each write commits, and a reader takes
-- a chunk still marked (a user's sqlite3 edit) from `nodes` instead.
-- `litindex check` compares the two. (A mark is inserted only when absent:
-- the writer's own conflict policy (`INSERT OR ...` on papers) would
-- override an `OR IGNORE` inside a trigger.)
CREATE TABLE node_meta (
    chunk INTEGER PRIMARY KEY,
    data  BLOB NOT NULL
);
CREATE TABLE node_meta_dirty (
    chunk INTEGER PRIMARY KEY
);
CREATE TRIGGER nodes_meta_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO node_meta_dirty (chunk) SELECT new.node >> 8 WHERE NOT EXISTS (SELECT 1 FROM node_meta_dirty WHERE chunk = new.node >> 8);
END;
CREATE TRIGGER nodes_meta_update AFTER UPDATE OF node, doc, year ON nodes BEGIN
    INSERT INTO node_meta_dirty (chunk) SELECT old.node >> 8 WHERE NOT EXISTS (SELECT 1 FROM node_meta_dirty WHERE chunk = old.node >> 8);
    INSERT INTO node_meta_dirty (chunk) SELECT new.node >> 8 WHERE NOT EXISTS (SELECT 1 FROM node_meta_dirty WHERE chunk = new.node >> 8);
END;
CREATE TRIGGER nodes_meta_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO node_meta_dirty (chunk) SELECT old.node >> 8 WHERE NOT EXISTS (SELECT 1 FROM node_meta_dirty WHERE chunk = old.node >> 8);
END;
INSERT OR IGNORE INTO node_meta_dirty (chunk) SELECT DISTINCT node >> 8 FROM nodes;
