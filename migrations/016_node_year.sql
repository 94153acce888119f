-- 016: each node carries its paper's year beside its doc id. A search's
-- walk reads, for every paper it reaches (tens of thousands at 1M papers),
-- the doc id and year that ranking needs; with the year here that is one
-- lookup of `nodes` by its integer key, where it was that lookup and a
-- second one in `idx_papers_doc_meta`. Kept by the same triggers as `doc`
-- (a paper's year is only written when its row is inserted).
ALTER TABLE nodes ADD COLUMN year INTEGER;
UPDATE nodes SET year = (SELECT p.year FROM papers AS p WHERE p.doc = nodes.doc) WHERE doc IS NOT NULL;

DROP TRIGGER papers_node_insert;
CREATE TRIGGER papers_node_insert AFTER INSERT ON papers BEGIN
    INSERT INTO nodes (id, doc, year) VALUES (new.id, new.doc, new.year)
        ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, year = excluded.year;
END;
DROP TRIGGER papers_node_delete;
CREATE TRIGGER papers_node_delete AFTER DELETE ON papers BEGIN
    UPDATE nodes SET doc = NULL, year = NULL WHERE id = old.id;
END;
-- A paper's year changed in place (no writer does it today; a user's
-- sqlite3 might) follows too.
CREATE TRIGGER papers_node_year AFTER UPDATE OF year ON papers BEGIN
    UPDATE nodes SET year = new.year WHERE id = new.id;
END;
