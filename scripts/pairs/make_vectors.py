#!/usr/bin/env python3
# usage: make_vectors.py INDEX EMBEDDED
#   INDEX: a 1M index without vectors; EMBEDDED: any small index `litindex embed` embedded with
#   the model (its embed_models row is copied, so search loads that model for the query).
"""Fills INDEX's vectors with one unit vector per paper for timing hybrid search at 1M: 4,096 distinct
Gaussian vectors (seed 11), row doc uses vector doc % 4096. A timing of the scan, not of
ranking quality. The model row is the real all-MiniLM-L6-v2's (fingerprint from an index it
embedded), so search loads and runs the real model for the query."""
import random, sqlite3, struct, math, sys
db, tiny = sys.argv[1], sys.argv[2]
rng = random.Random(11)
con = sqlite3.connect(db)
con.execute("ATTACH ? AS t", (tiny,))
con.execute("INSERT INTO embed_models SELECT * FROM t.embed_models")
con.execute("CREATE TEMP TABLE base (k INTEGER PRIMARY KEY, v BLOB)")
rows = []
for k in range(4096):
    v = [rng.gauss(0, 1) for _ in range(384)]
    n = math.sqrt(sum(x * x for x in v))
    rows.append((k, struct.pack("<384f", *[x / n for x in v])))
con.executemany("INSERT INTO temp.base VALUES (?, ?)", rows)
con.execute("""INSERT INTO vectors (model_id, doc, text_hash, chunked, vector)
               SELECT 1, p.doc, '', 0, b.v FROM papers AS p JOIN temp.base AS b ON b.k = p.doc % 4096 ORDER BY p.doc""")
con.commit()
print(con.execute("SELECT count(*) FROM vectors").fetchone())
