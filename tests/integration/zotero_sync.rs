//! Zotero sync and bad input (issue 24), with the real binary on copies of
//! the real libraries of `../shared/data/zotero/`, changed through SQL as
//! Zotero changes them.

use std::path::Path;

use rusqlite::{Connection, params};

use super::zotero::{ingest, library_copy};
use crate::common::{litindex, stderr, stdout};

fn query<T: rusqlite::types::FromSql>(db: &Path, sql: &str) -> T {
    let c = Connection::open(db).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn paper_of(db: &Path, key: &str) -> Option<String> {
    let c = Connection::open(db).unwrap();
    c.query_row(
        "SELECT paper_id FROM records WHERE source = 'zotero' AND source_id = ?1",
        [format!("zotero:{key}")],
        |r| r.get(0),
    )
    .ok()
}

fn run(db: &Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).args(args).output().unwrap()
}

/// Sets item `id`'s modification stamps as Zotero does on an edit.
fn touch(z: &Connection, id: i64) {
    z.execute(
        "UPDATE items SET dateModified = '2030-01-01 00:00:00', clientDateModified = '2030-01-01 00:00:00',
         version = version + 1, synced = 0 WHERE itemID = ?1",
        [id],
    )
    .unwrap();
}

#[test]
fn a_sync_reads_what_changed_and_keeps_the_user_s_marks() {
    let Some((dir, lib)) = library_copy("hsteinshiromoto-z6") else { return };
    let db = dir.path().join("i.db");
    let libarg = lib.to_str().unwrap();
    let o = ingest(&db, &["--no-attachments", libarg]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("38 items: 38 added, 0 updated, 0 removed, 0 unchanged"), "{}", stdout(&o));
    // The user's marks and tags in litindex.
    for args in [
        &["mark", "zotero:DWVTR4GB", "favorite", "--tag", "mine"][..],
        &["mark", "zotero:9PWIL7JY", "to-read"][..],
        &["mark", "zotero:H2G2WHW3", "read"][..],
    ] {
        let o = run(&db, args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }

    // Zotero's changes, through SQL: a title edited (3), a tag added (13), an
    // item trashed (7), one deleted for good (9), one added.
    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    z.execute("INSERT INTO itemDataValues (value) VALUES ('A Title Edited In Zotero Zyzzyva')", []).unwrap();
    let value = z.last_insert_rowid();
    z.execute(
        "UPDATE itemData SET valueID = ?1 WHERE itemID = 3 AND fieldID = (SELECT fieldID FROM fields WHERE fieldName = 'title')",
        [value],
    )
    .unwrap();
    touch(&z, 3);
    z.execute("INSERT INTO tags (name) VALUES ('fresh-from-zotero')", []).unwrap();
    let tag = z.last_insert_rowid();
    z.execute("INSERT INTO itemTags (itemID, tagID, type) VALUES (13, ?1, 0)", [tag]).unwrap();
    touch(&z, 13);
    z.execute("INSERT INTO deletedItems (itemID, dateDeleted) VALUES (7, '2030-01-01 00:00:00')", []).unwrap();
    for sql in [
        "DELETE FROM itemData WHERE itemID = 9",
        "DELETE FROM itemCreators WHERE itemID = 9",
        "DELETE FROM itemTags WHERE itemID = 9",
        "DELETE FROM collectionItems WHERE itemID = 9",
        "UPDATE itemAttachments SET parentItemID = NULL WHERE parentItemID = 9",
        "UPDATE itemNotes SET parentItemID = NULL WHERE parentItemID = 9",
        "DELETE FROM items WHERE itemID = 9",
    ] {
        z.execute(sql, []).unwrap();
    }
    z.execute(
        "INSERT INTO items (itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key, version, synced)
         VALUES ((SELECT itemTypeID FROM itemTypes WHERE typeName = 'journalArticle'), '2030-01-01 00:00:00',
                 '2030-01-01 00:00:00', '2030-01-01 00:00:00', 1, 'NEWITEM1', 0, 0)",
        [],
    )
    .unwrap();
    let new = z.last_insert_rowid();
    z.execute("INSERT INTO itemDataValues (value) VALUES ('Quokkas In The Zotero Sync Test')", []).unwrap();
    let v = z.last_insert_rowid();
    z.execute(
        "INSERT INTO itemData (itemID, fieldID, valueID) VALUES (?1, (SELECT fieldID FROM fields WHERE fieldName = 'title'), ?2)",
        params![new, v],
    )
    .unwrap();
    drop(z);

    let o = ingest(&db, &["--no-attachments", libarg]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("37 items: 1 added, 2 updated, 2 removed, 34 unchanged"), "{}", stdout(&o));
    // Exactly those three read: the new one added, the edited one updated, the re-tagged one's record unchanged.
    assert!(
        stdout(&o).contains(": 3 records: 1 added, 1 updated, 0 merged, 0 repeated, 1 unchanged"),
        "{}",
        stdout(&o)
    );
    let now = paper_of(&db, "DWVTR4GB").unwrap();
    let title: String = query(&db, &format!("SELECT title FROM papers WHERE id = '{now}'"));
    assert_eq!(title, "A Title Edited In Zotero Zyzzyva");
    assert_eq!(paper_of(&db, "9PWIL7JY"), None, "the trashed item's record is removed");
    assert_eq!(paper_of(&db, "MH97KZ75"), None, "the deleted item's record is removed");
    let papers: i64 = query(&db, "SELECT count(*) FROM papers");
    assert_eq!(papers, 37);
    let s = run(&db, &["search", "quokkas", "--format", "json"]);
    assert!(stdout(&s).contains("Quokkas In The Zotero Sync Test"), "{}", stdout(&s));
    // The new Zotero tag is on its paper; the user's marks and tags are kept.
    let p13 = paper_of(&db, "H2G2WHW3").unwrap();
    let fresh: i64 = query(
        &db,
        &format!("SELECT count(*) FROM mark_tags WHERE paper_id = '{p13}' AND tag = 'zotero-tag/fresh-from-zotero'"),
    );
    assert_eq!(fresh, 1);
    let kept: i64 = query(
        &db,
        &format!(
            "SELECT (SELECT count(*) FROM marks WHERE paper_id = '{now}' AND label = 'favorite')
                  + (SELECT count(*) FROM mark_tags WHERE paper_id = '{now}' AND tag = 'mine')
                  + (SELECT count(*) FROM marks WHERE paper_id = '{p13}' AND label = 'read')"
        ),
    );
    assert_eq!(kept, 3, "marks and tags made in litindex survive the sync");
    let dangling = run(&db, &["marks", "--dangling"]);
    assert!(stdout(&dangling).contains("to-read"), "the trashed paper's mark is kept, dangling: {}", stdout(&dangling));
    let o = run(&db, &["check"]);
    assert!(o.status.success(), "{}", stdout(&o));
    let st = run(&db, &["stats"]);
    assert!(
        stdout(&st).contains("1 added, 2 updated, 2 removed"),
        "stats says what the last sync did: {}",
        stdout(&st)
    );

    // Nothing changed: nothing read.
    let o = ingest(&db, &["--no-attachments", libarg]);
    assert!(stdout(&o).contains("37 items: 0 added, 0 updated, 0 removed, 37 unchanged"), "{}", stdout(&o));
    assert!(stdout(&o).contains(": 0 records"), "{}", stdout(&o));

    // A collection renamed (no item's stamps move): every item read again, its members' tags follow.
    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    let (old_name, members): (String, i64) = z
        .query_row(
            "SELECT collectionName, (SELECT count(*) FROM collectionItems AS ci JOIN items AS i ON i.itemID = ci.itemID
             WHERE ci.collectionID = c.collectionID AND i.itemID NOT IN (SELECT itemID FROM deletedItems)) FROM collections AS c",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    z.execute("UPDATE collections SET collectionName = 'Renamed In Zotero'", []).unwrap();
    drop(z);
    let o = ingest(&db, &["--no-attachments", libarg]);
    let want = format!("37 items: 0 added, {members} updated, 0 removed, {} unchanged", 37 - members);
    assert!(stdout(&o).contains(&want), "{want}: {}", stdout(&o));
    let renamed: i64 = query(&db, "SELECT count(*) FROM mark_tags WHERE tag = 'zotero/Renamed In Zotero'");
    let gone: i64 = query(&db, &format!("SELECT count(*) FROM mark_tags WHERE tag = 'zotero/{old_name}'"));
    assert_eq!((renamed, gone), (members, 0));
}

#[test]
fn a_file_that_is_not_a_zotero_library_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.db");
    let text = dir.path().join("zotero.sqlite");
    std::fs::write(&text, "not a database\n").unwrap();
    let o = ingest(&db, &["--format", "zotero", text.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("is not a Zotero database: it is not an SQLite file"), "{}", stderr(&o));
    assert!(!db.exists(), "nothing half-written");
    // An SQLite file of another program (here: a litindex index), sniffed by `auto`.
    let other = dir.path().join("other.db");
    assert!(run(&other, &["build", "--mock"]).status.success());
    let o = ingest(&db, &[other.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("is an SQLite database but not a Zotero library: it has no items"), "{err}");
    assert!(!db.exists());
    // A folder without zotero.sqlite, named as zotero.
    let o = ingest(&db, &["--format", "zotero", dir.path().join("..").to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("without zotero.sqlite"), "{}", stderr(&o));
}

#[test]
fn a_newer_schema_is_read_with_a_note_and_zotero_4_is_refused() {
    let Some((dir, lib)) = library_copy("chasing-aurora-z9") else { return };
    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    z.execute("UPDATE version SET version = 140 WHERE schema = 'userdata'", []).unwrap();
    z.execute("CREATE TABLE itemFuture (itemID INT, thing TEXT)", []).unwrap();
    drop(z);
    let db = dir.path().join("i.db");
    let o = ingest(&db, &["--no-attachments", lib.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("userdata 140 (this litindex knows up to 125): read the known tables; not read: itemFuture"),
        "{err}"
    );
    assert!(stdout(&o).contains("4 items: 4 added"), "{}", stdout(&o));

    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    z.execute("UPDATE version SET version = 77 WHERE schema = 'userdata'", []).unwrap();
    drop(z);
    let before: i64 = query(&db, "SELECT count(*) FROM records");
    let o = ingest(&db, &["--no-attachments", lib.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("Zotero 4 (or older) library (schema userdata 77)"), "{}", stderr(&o));
    assert_eq!(query::<i64>(&db, "SELECT count(*) FROM records"), before, "the index is as it was");
}

#[test]
fn a_half_written_file_is_an_error_and_a_locked_one_is_read() {
    let Some((dir, lib)) = library_copy("pthemis5-z7") else { return };
    let db = dir.path().join("i.db");
    // Zotero running: its exclusive lock held while litindex reads (a copy; no lock taken or waited on).
    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    z.pragma_update(None, "locking_mode", "EXCLUSIVE").unwrap();
    z.execute_batch("BEGIN EXCLUSIVE; UPDATE items SET synced = synced WHERE itemID = 1;").unwrap();
    let o = ingest(&db, &["--no-attachments", lib.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("194 items: 194 added"), "{}", stdout(&o));
    z.execute_batch("COMMIT").unwrap();
    drop(z);
    let papers: i64 = query(&db, "SELECT count(*) FROM papers");

    // Half-written: the file cut in the middle of a page.
    let file = lib.join("zotero.sqlite");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2 + 1000]).unwrap();
    let o = ingest(&db, &["--no-attachments", lib.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("could not read a consistent copy in 3 attempts") && err.contains("nothing was ingested"),
        "{err}"
    );
    assert_eq!(query::<i64>(&db, "SELECT count(*) FROM papers"), papers, "the index is as it was");
    assert_eq!(query::<i64>(&db, "SELECT count(*) FROM zotero_items"), 194);
}

/// A sync that dies before its commit leaves the index as it was, and the next one does the same work.
#[test]
fn a_sync_that_dies_before_its_commit_changes_nothing() {
    if !litindex::failpoint::ENABLED {
        crate::common::skip(crate::common::Need::Failpoints, "the failpoints are compiled out");
        return;
    }
    let Some((dir, lib)) = library_copy("chasing-aurora-z9") else { return };
    let db = dir.path().join("i.db");
    let libarg = lib.to_str().unwrap();
    assert!(ingest(&db, &["--no-attachments", libarg]).status.success());
    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    z.execute(
        "INSERT INTO deletedItems (itemID, dateDeleted) SELECT itemID, '2030-01-01 00:00:00' FROM items WHERE key = 'BAHAEV5E'",
        [],
    )
    .unwrap();
    drop(z);
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["ingest", "--quiet", "--no-attachments", libarg])
        .env("LITINDEX_FAILPOINT", "before-commit")
        .output()
        .unwrap();
    assert!(o.status.code().is_none(), "expected death by abort: {}", stderr(&o));
    let state = |db: &Path| -> (i64, i64, i64) {
        (
            query(db, "SELECT count(*) FROM papers"),
            query(db, "SELECT count(*) FROM zotero_items"),
            query(db, "SELECT count(*) FROM records WHERE source_id = 'zotero:BAHAEV5E'"),
        )
    };
    assert_eq!(state(&db), (4, 4, 1), "the index is as it was");
    let o = ingest(&db, &["--no-attachments", libarg]);
    assert!(stdout(&o).contains("3 items: 0 added, 0 updated, 1 removed, 3 unchanged"), "{}", stdout(&o));
    assert_eq!(state(&db), (3, 3, 0));
}

/// A PDF attachment that cannot be read is listed and skipped: the library still comes in.
#[test]
fn an_unreadable_pdf_attachment_is_skipped_with_its_name() {
    let Some((dir, lib)) = library_copy("chasing-aurora-z9") else { return };
    let mut pdfs = Vec::new();
    for folder in std::fs::read_dir(lib.join("storage")).unwrap() {
        for f in std::fs::read_dir(folder.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "pdf") {
                pdfs.push(p);
            }
        }
    }
    assert_eq!(pdfs.len(), 1);
    std::fs::write(&pdfs[0], b"%PDF-1.4\nnot really a pdf").unwrap();
    let db = dir.path().join("i.db");
    let o = ingest(&db, &[lib.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 items: 4 added") && stdout(&o).contains("1 failed"), "{}", stdout(&o));
    let name = pdfs[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(stderr(&o).contains("litindex: skipped") && stderr(&o).contains(&name), "{}", stderr(&o));
}
