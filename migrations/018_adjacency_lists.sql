-- 018: the adjacency as one row per node. Before, every edge was two rows
-- of `adjacency (node, dir, nbr)` (555 MB of a 1M-paper index), and a
-- search's walk read one row per neighbour: 48,715 rows for one query's
-- second hop at 1M, half of a search process's time (docs/PERFORMANCE.md).
-- Now a node's references (`cites`) and its citers (`cited_by`) are each
-- one JSON array of node integers in ascending order, without repeats and
-- without the node itself; NULL when there are none; a row with both NULL
-- is not kept. A walk reads one row per node it expands. `adjacency` and
-- `edges` stay, as views, for sqlite3 users (`json_each` is built into
-- sqlite3); the store reads the table. `litindex check` holds the lists to
-- that form and to each other (every edge in both directions).
CREATE TABLE adjacency_lists (
    node     INTEGER PRIMARY KEY,
    cites    TEXT,
    cited_by TEXT
);
INSERT INTO adjacency_lists (node, cites)
    SELECT node, json_group_array(nbr ORDER BY nbr) FROM adjacency WHERE dir = 0 GROUP BY node;
INSERT INTO adjacency_lists (node, cited_by)
    SELECT node, json_group_array(nbr ORDER BY nbr) FROM adjacency WHERE dir = 1 GROUP BY node
    ON CONFLICT (node) DO UPDATE SET cited_by = excluded.cited_by;
DROP VIEW edges;
DROP TABLE adjacency;
CREATE VIEW adjacency (node, dir, nbr) AS
    SELECT l.node, 0, j.value FROM adjacency_lists AS l, json_each(l.cites) AS j
    UNION ALL
    SELECT l.node, 1, j.value FROM adjacency_lists AS l, json_each(l.cited_by) AS j;
CREATE VIEW edges AS
    SELECT c.id AS citing, d.id AS cited
    FROM adjacency_lists AS l, json_each(l.cites) AS j
    JOIN nodes AS c ON c.node = l.node JOIN nodes AS d ON d.node = j.value;
