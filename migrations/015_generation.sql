-- 015: a number that changes with every write to the index's content
-- (ingest, build, fetch, embed, a PDF), and not with a write to the user's
-- own tables alone (marks, watches, screening decisions). A long-lived
-- process (the page, the MCP server) keeps what it derived from the
-- content, e.g. a screening review's features, while the number stays the
-- same. It starts at a random value, so a rebuilt file at the same path
-- does not repeat its predecessor's numbers.
CREATE TABLE index_generation (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO index_generation (id, generation) VALUES (1, abs(random() % 1000000000000));
