-- 009: the citation graph by integer. Every id the graph names (an indexed
-- paper, a dangling id, or an alias spelling a source used in a link) is a
-- row of `nodes` with an integer; the adjacency is stored once per
-- direction by those integers, and the links the sources stated are keyed
-- by them too. Before, citations were stored four times with TEXT ids
-- (`edges` and its index, `links` and its index) and a walk looked every
-- reached id up through a TEXT index. `edges` and `links` become views that
-- show the same rows by id, for sqlite3 users.

-- One row per id the graph knows. `doc` is the paper's `papers.doc` while
-- the id is an indexed paper (kept by the triggers below), NULL otherwise,
-- so a reached node's doc id (and through `idx_papers_doc_meta` its year)
-- is an integer lookup.
CREATE TABLE nodes (
    node INTEGER PRIMARY KEY,
    id   TEXT NOT NULL UNIQUE,
    doc  INTEGER
);
INSERT INTO nodes (id, doc) SELECT id, doc FROM papers ORDER BY doc;
INSERT OR IGNORE INTO nodes (id)
    SELECT citing FROM edges UNION SELECT cited FROM edges
    UNION SELECT citing FROM links UNION SELECT cited FROM links;

CREATE TRIGGER papers_node_insert AFTER INSERT ON papers BEGIN
    INSERT INTO nodes (id, doc) VALUES (new.id, new.doc)
        ON CONFLICT (id) DO UPDATE SET doc = excluded.doc;
END;
CREATE TRIGGER papers_node_delete AFTER DELETE ON papers BEGIN
    UPDATE nodes SET doc = NULL WHERE id = old.id;
END;

-- The derived graph, both directions: (node, 0, nbr) = node cites nbr,
-- (node, 1, nbr) = nbr cites node. Every edge is stored once per direction
-- (`litindex check` verifies the symmetry), so a walk either way is one
-- range scan of the primary key per node. Integers in a WITHOUT ROWID
-- table: the `dir` column costs no payload byte (SQLite stores 0 and 1 in
-- the record header).
CREATE TABLE adjacency (
    node INTEGER NOT NULL,
    dir  INTEGER NOT NULL CHECK (dir IN (0, 1)),
    nbr  INTEGER NOT NULL,
    PRIMARY KEY (node, dir, nbr),
    CHECK (node <> nbr)
) WITHOUT ROWID;
INSERT INTO adjacency (node, dir, nbr)
    SELECT a.node, 0, b.node FROM edges AS e JOIN nodes AS a ON a.id = e.citing JOIN nodes AS b ON b.id = e.cited
    ORDER BY 1, 3;
INSERT INTO adjacency (node, dir, nbr)
    SELECT b.node, 1, a.node FROM edges AS e JOIN nodes AS a ON a.id = e.citing JOIN nodes AS b ON b.id = e.cited
    ORDER BY 1, 3;

-- The sources that stated links, by a small integer.
CREATE TABLE link_sources (
    code   INTEGER PRIMARY KEY,
    source TEXT NOT NULL UNIQUE
);
INSERT INTO link_sources (source) SELECT DISTINCT origin_source FROM links WHERE origin_id <> '' ORDER BY 1;

-- Citations as the sources stated them, before alias resolution, by node.
-- A record's links all have the record's own id at one end, so the origin
-- record is (source, which end): origin = 2·code + 0 when the record's id
-- is `citing` (its references), 2·code + 1 when it is `cited` (its
-- citations); 0 for edge files.
CREATE TABLE stated_links (
    citing INTEGER NOT NULL,
    cited  INTEGER NOT NULL,
    origin INTEGER NOT NULL,
    PRIMARY KEY (citing, cited, origin)
) WITHOUT ROWID;
INSERT INTO stated_links (citing, cited, origin)
    SELECT c.node, d.node,
           CASE WHEN l.origin_id = '' THEN 0 ELSE 2 * s.code + (l.origin_id <> l.citing) END
    FROM links AS l
    JOIN nodes AS c ON c.id = l.citing
    JOIN nodes AS d ON d.id = l.cited
    LEFT JOIN link_sources AS s ON s.source = l.origin_source
    ORDER BY 1, 2, 3;
CREATE INDEX idx_stated_links_cited ON stated_links (cited);

DROP TABLE edges;
DROP TABLE links;

-- The old tables, by id, for sqlite3 users.
CREATE VIEW edges AS
    SELECT c.id AS citing, d.id AS cited
    FROM adjacency AS a JOIN nodes AS c ON c.node = a.node JOIN nodes AS d ON d.node = a.nbr
    WHERE a.dir = 0;
CREATE VIEW links AS
    SELECT CASE WHEN l.origin = 0 THEN 'edges' ELSE s.source END AS origin_source,
           CASE WHEN l.origin = 0 THEN '' WHEN l.origin % 2 = 0 THEN c.id ELSE d.id END AS origin_id,
           c.id AS citing, d.id AS cited
    FROM stated_links AS l
    JOIN nodes AS c ON c.node = l.citing
    JOIN nodes AS d ON d.node = l.cited
    LEFT JOIN link_sources AS s ON s.code = l.origin / 2;

-- Reached papers are looked up by integer now (`nodes.doc`); this second
-- copy of every paper id is no longer read.
DROP INDEX idx_papers_id_year;
