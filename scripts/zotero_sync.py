#!/usr/bin/env python3
"""A synthetic Zotero library of N items (default 10,000) and the time of a
sync after 10 of them changed (issue 24; target <= 2 s).

The library is a real Zotero 7 database (../shared/data/zotero/pthemis5-z7,
copied; its own items removed) filled with N journal articles through SQL:
title, abstract, date, DOI for half, three authors each, a tag, a
collection. The script ingests it once (the first import), then edits the
title of 10 items as Zotero does (new itemDataValues row, itemData pointed
at it, dateModified/clientDateModified/version bumped), ingests again and
prints both times and the sync's summary line. Only a timing on an idle
machine with a release build is a figure.

usage: scripts/zotero_sync.py [--bin target/release/litindex] [--items 10000] [--keep DIR]
"""

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "..", "shared", "data", "zotero", "pthemis5-z7", "zotero.sqlite")

WORDS = ("retrieval sparse dense lexical graph citation ranking corpus attention model learning quokka zebra "
         "transformer index query expansion feedback neural network protein climate orbit energy").split()


def make_library(folder, n):
    os.makedirs(os.path.join(folder, "storage"), exist_ok=True)
    db = os.path.join(folder, "zotero.sqlite")
    shutil.copyfile(SOURCE, db)
    os.chmod(db, 0o644)
    c = sqlite3.connect(db)
    c.execute("PRAGMA foreign_keys = OFF")
    for t in ("itemData", "itemCreators", "itemTags", "collectionItems", "itemAttachments", "itemNotes",
              "deletedItems", "items", "collections", "tags", "creators"):
        c.execute(f"DELETE FROM {t}")
    ids = lambda sql: c.execute(sql).fetchone()[0]
    article = ids("SELECT itemTypeID FROM itemTypes WHERE typeName = 'journalArticle'")
    field = {f: ids(f"SELECT fieldID FROM fields WHERE fieldName = '{f}'")
             for f in ("title", "abstractNote", "date", "DOI", "publicationTitle")}
    author = ids("SELECT creatorTypeID FROM creatorTypes WHERE creatorType = 'author'")
    c.execute("INSERT INTO collections (collectionName, libraryID, key) VALUES ('Synthetic', 1, 'COLL0001')")
    coll = c.execute("SELECT last_insert_rowid()").fetchone()[0]
    c.execute("INSERT INTO tags (name) VALUES ('synthetic')")
    tag = c.execute("SELECT last_insert_rowid()").fetchone()[0]
    value_ids = {}

    def value(v):
        if v not in value_ids:
            c.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (v,))
            value_ids[v] = c.execute("SELECT valueID FROM itemDataValues WHERE value = ?", (v,)).fetchone()[0]
        return value_ids[v]

    for i in range(n):
        key = f"S{i:07d}"
        c.execute("INSERT INTO items (itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key, version,"
                  " synced) VALUES (?, '2024-01-01 00:00:00', '2024-01-01 00:00:00', '2024-01-01 00:00:00', 1, ?, 0, 0)",
                  (article, key))
        item = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        words = [WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(8)]
        data = {"title": f"Synthetic paper {i} on " + " ".join(words[:4]),
                "abstractNote": "We study " + " ".join(words) + f" in setting {i}.",
                "date": f"{2000 + i % 25}-00-00 {2000 + i % 25}",
                "publicationTitle": f"Journal {i % 50}"}
        if i % 2 == 0:
            data["DOI"] = f"10.5555/synthetic.{i}"
        for f, v in data.items():
            c.execute("INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)", (item, field[f], value(v)))
        for k in range(3):
            last, first = f"Author{(i + k * 101) % 3000}", f"Given{k}"
            c.execute("INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, 0)", (first, last))
            cid = ids(f"SELECT creatorID FROM creators WHERE firstName = '{first}' AND lastName = '{last}'")
            c.execute("INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) VALUES (?, ?, ?, ?)",
                      (item, cid, author, k))
        c.execute("INSERT INTO itemTags (itemID, tagID, type) VALUES (?, ?, 0)", (item, tag))
        c.execute("INSERT INTO collectionItems (collectionID, itemID, orderIndex) VALUES (?, ?, ?)", (coll, item, i))
    c.commit()
    c.close()
    return db


def edit(db, count):
    c = sqlite3.connect(db)
    title = c.execute("SELECT fieldID FROM fields WHERE fieldName = 'title'").fetchone()[0]
    items = [r[0] for r in c.execute("SELECT itemID FROM items ORDER BY itemID LIMIT ?", (count,))]
    for n, item in enumerate(items):
        c.execute("INSERT INTO itemDataValues (value) VALUES (?)", (f"Edited title number {n} of the sync test",))
        v = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("UPDATE itemData SET valueID = ? WHERE itemID = ? AND fieldID = ?", (v, item, title))
        c.execute("UPDATE items SET dateModified = '2030-01-01 00:00:00', clientDateModified = '2030-01-01 00:00:00',"
                  " version = version + 1 WHERE itemID = ?", (item,))
    c.commit()
    c.close()


def ingest(bin_, index, folder):
    started = time.monotonic()
    out = subprocess.run([bin_, "--db", index, "ingest", "--quiet", folder], capture_output=True, text=True)
    secs = time.monotonic() - started
    if out.returncode != 0:
        sys.exit(f"ingest failed ({out.returncode}):\n{out.stderr}")
    return secs, out.stdout.strip().splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "litindex"))
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--changed", type=int, default=10)
    ap.add_argument("--keep", help="build the library and index in DIR (kept) instead of a temporary folder")
    args = ap.parse_args()
    if not os.path.exists(SOURCE):
        sys.exit(f"{SOURCE} is absent (the real Zotero libraries are not part of the repository)")
    work = args.keep or tempfile.mkdtemp(prefix="zotero-sync-")
    folder, index = os.path.join(work, "Zotero"), os.path.join(work, "index.db")
    db = make_library(folder, args.items)
    first, lines = ingest(args.bin, index, folder)
    print(f"first import of {args.items} items: {first:.2f} s")
    print("  " + "\n  ".join(lines))
    edit(db, args.changed)
    sync, lines = ingest(args.bin, index, folder)
    print(f"sync after {args.changed} items changed: {sync:.2f} s (target <= 2 s)")
    print("  " + "\n  ".join(lines))
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
