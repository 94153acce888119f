-- 022: the links the sources stated as one list per record. Before, every
-- stated link was a `stated_links (citing, cited, origin)` row with a
-- second index by `cited`: 311 + 273 MB of a 1M-paper index, for 19.9M
-- links. A record's links all have the record's own node at one end (the
-- citing end for its references, origin 2·code; the cited end for its
-- citations, 2·code + 1; an edge file's links are kept by their citing
-- node, origin 0), so they are now one row per (that node, origin):
-- `others`, a JSON array of the other ends' nodes in ascending order,
-- without repeats; a row is never empty. Replacing a record's links
-- writes one row. The by-`cited` lookups the index served are answered
-- through the edges the links imply (docs/SCHEMA.md). `stated_links`
-- stays as a view (`json_each` is built into sqlite3), and `links` over it.
CREATE TABLE stated_lists (
    own    INTEGER NOT NULL,
    origin INTEGER NOT NULL,
    others TEXT NOT NULL,
    PRIMARY KEY (own, origin)
) WITHOUT ROWID;
INSERT INTO stated_lists (own, origin, others)
    SELECT own, origin, json_group_array(other ORDER BY other)
    FROM (SELECT CASE WHEN origin % 2 = 1 THEN cited ELSE citing END AS own,
                 CASE WHEN origin % 2 = 1 THEN citing ELSE cited END AS other, origin
          FROM stated_links)
    GROUP BY own, origin;
DROP VIEW links;
DROP TABLE stated_links;
-- A row whose `others` is not JSON (a sqlite3 edit) reads as no links here;
-- `litindex check` reports it (`stated-lists`).
CREATE VIEW stated_links (citing, cited, origin) AS
    SELECT l.own, j.value, l.origin
    FROM stated_lists AS l, json_each(CASE WHEN json_valid(l.others) THEN l.others ELSE '[]' END) AS j
    WHERE l.origin % 2 = 0
    UNION ALL
    SELECT j.value, l.own, l.origin
    FROM stated_lists AS l, json_each(CASE WHEN json_valid(l.others) THEN l.others ELSE '[]' END) AS j
    WHERE l.origin % 2 = 1;
CREATE VIEW links AS
    SELECT CASE WHEN l.origin = 0 THEN 'edges' ELSE s.source END AS origin_source,
           CASE WHEN l.origin = 0 THEN '' WHEN l.origin % 2 = 0 THEN c.id ELSE d.id END AS origin_id,
           c.id AS citing, d.id AS cited
    FROM stated_links AS l
    JOIN nodes AS c ON c.node = l.citing
    JOIN nodes AS d ON d.node = l.cited
    LEFT JOIN link_sources AS s ON s.code = l.origin / 2;
