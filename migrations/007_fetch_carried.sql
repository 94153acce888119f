-- 007: a cached fetch response that `build` carried over from the index it
-- replaced. Its papers are not in the new index (the build read only its own
-- inputs), so the next `fetch` that reaches its request ingests it from the
-- cache, with no request to the API, and marks it ingested again.
ALTER TABLE fetch_responses ADD COLUMN ingested INTEGER NOT NULL DEFAULT 1;
