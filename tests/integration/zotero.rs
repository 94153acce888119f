//! Zotero libraries (issue 24) with the real binary on the five real
//! libraries of `../shared/data/zotero/` (Zotero 5 to 9), each copied to a
//! temporary folder first (the shared files are never opened by the test's
//! binary, and the copy is checked unchanged after the ingest): what came
//! in, compared with the library's `counts.json` and with counts the test
//! makes itself with SQL on the copy (for the figures `counts.json` gives
//! trash included). `ZOTERO_TABLE=path` writes the table of docs/LIBRARIES.md#zotero-libraries.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use crate::common::{litindex, shared_data, stderr, stdout};

pub(crate) const LIBRARIES: [&str; 5] =
    ["gglin001-z5", "hsteinshiromoto-z6", "san7o-z6", "pthemis5-z7", "chasing-aurora-z9"];

/// Copies a folder (recursively), making the copies writable.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
            let mut perms = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).unwrap();
        }
    }
}

/// A copy of library `name` in a new temporary folder: (folder, library).
pub(crate) fn library_copy(name: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    let src = shared_data(&format!("zotero/{name}"))?;
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join(name);
    copy_dir(&src, &lib);
    Some((dir, lib))
}

pub(crate) fn ingest(db: &Path, args: &[&str]) -> std::process::Output {
    let mut c = litindex();
    c.arg("--db").arg(db).args(["ingest", "--quiet"]).args(args);
    c.output().expect("run litindex")
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The live regular items of a Zotero database, as SQL the test owns (not the reader's).
const LIVE: &str = "(SELECT i.itemID FROM items AS i JOIN itemTypes AS t ON t.itemTypeID = i.itemTypeID
    WHERE t.typeName NOT IN ('attachment', 'note', 'annotation') AND i.itemID NOT IN (SELECT itemID FROM deletedItems))";

/// One figure: its name, the count from `counts.json` (when it has one for
/// live items), the test's own count on the copy, and what litindex read.
pub(crate) struct Row {
    pub name: &'static str,
    pub counts_json: Option<i64>,
    pub counted: i64,
    pub read: i64,
}

/// The figures of one library: counted on the Zotero copy `zdb`, read from the index `idx`.
fn figures(counts: &Value, zdb: &Connection, idx: &Connection) -> Vec<Row> {
    let j = |k: &str| counts[k].as_i64().unwrap_or_else(|| panic!("counts.json has no {k}"));
    let field = |f: &str| {
        format!(
            "SELECT d.itemID FROM itemData AS d JOIN fields AS f ON f.fieldID = d.fieldID
             JOIN itemDataValues AS v ON v.valueID = d.valueID WHERE f.fieldName = '{f}' AND trim(v.value) <> ''"
        )
    };
    let extra_doi = "SELECT d.itemID FROM itemData AS d JOIN fields AS f ON f.fieldID = d.fieldID
             JOIN itemDataValues AS v ON v.valueID = d.valueID WHERE f.fieldName = 'extra' AND v.value LIKE '%DOI:%'";
    let live_child = "AND itemID NOT IN (SELECT itemID FROM deletedItems)";
    let z = |sql: &str| count(zdb, sql);
    let i = |sql: &str| count(idx, sql);
    let zsum =
        |path: &str| i(&format!("SELECT coalesce(sum(json_array_length(data, '$.{path}')), 0) FROM zotero_items"));
    let has_id = |kind: &str| {
        format!(
            "SELECT count(*) FROM records WHERE source = 'zotero' AND EXISTS
             (SELECT 1 FROM json_each(json_extract(data, '$.ids')) WHERE json_extract(value, '$.kind') = '{kind}')"
        )
    };
    let attachments_with = |cond: &str| {
        i(&format!(
            "SELECT count(*) FROM zotero_items AS z, json_each(json_extract(z.data, '$.attachments')) AS a WHERE {cond}"
        ))
    };
    vec![
        Row {
            name: "items (regular, not in trash)",
            counts_json: Some(j("regular_items_not_in_trash")),
            counted: z(&format!("SELECT count(*) FROM {LIVE}")),
            read: i("SELECT count(*) FROM records WHERE source = 'zotero'"),
        },
        Row {
            name: "titles",
            counts_json: Some(j("live_with_title")),
            counted: z(&format!("SELECT count(*) FROM {LIVE} WHERE itemID IN ({})", field("title"))),
            read: i("SELECT count(*) FROM records WHERE source = 'zotero'
                     AND (json_extract(data, '$.title') <> '' OR shared & 1)"),
        },
        Row {
            // A `10.48550/arXiv.*` DOI is read as the arXiv id it names (counted in the arXiv row).
            name: "DOIs (field, or `DOI:` in extra; not arXiv DOIs)",
            counts_json: None,
            counted: z(&format!(
                "SELECT count(*) FROM {LIVE} WHERE itemID IN ({} AND v.value NOT LIKE '10.48550/arXiv.%')
                 OR itemID IN ({extra_doi} AND v.value NOT LIKE '%DOI: 10.48550/arXiv.%')",
                field("DOI")
            )),
            read: i(&has_id("doi")),
        },
        Row {
            name: "abstracts",
            counts_json: Some(j("live_with_abstractNote")),
            counted: z(&format!("SELECT count(*) FROM {LIVE} WHERE itemID IN ({})", field("abstractNote"))),
            read: i("SELECT count(*) FROM records WHERE source = 'zotero'
                     AND (json_extract(data, '$.abstract') <> '' OR shared & 2)"),
        },
        Row {
            name: "creators (slots, every role)",
            counts_json: None,
            counted: z(&format!("SELECT count(*) FROM itemCreators WHERE itemID IN {LIVE}")),
            read: zsum("creators"),
        },
        Row {
            name: "collection memberships",
            counts_json: None,
            counted: z(&format!("SELECT count(*) FROM collectionItems WHERE itemID IN {LIVE}")),
            read: zsum("collections"),
        },
        Row {
            // counts.json's `collections` counts empty ones too (and those holding only trashed items).
            name: "collections holding a live item (as `zotero/…` tags)",
            counts_json: None,
            counted: z(&format!("SELECT count(DISTINCT collectionID) FROM collectionItems WHERE itemID IN {LIVE}")),
            read: i("SELECT count(DISTINCT tag) FROM mark_tags WHERE tag LIKE 'zotero/%'"),
        },
        Row {
            name: "tags on items (`zotero-tag/…`)",
            counts_json: None,
            counted: z(&format!("SELECT count(*) FROM itemTags WHERE itemID IN {LIVE}")),
            read: zsum("tags"),
        },
        Row {
            name: "notes (child, live, not empty)",
            counts_json: None,
            counted: z(&format!(
                "SELECT count(*) FROM itemNotes WHERE parentItemID IN {LIVE} {live_child} AND trim(note) <> ''"
            )),
            read: zsum("notes"),
        },
        Row {
            name: "attachments (child, live)",
            counts_json: None,
            counted: z(&format!("SELECT count(*) FROM itemAttachments WHERE parentItemID IN {LIVE} {live_child}")),
            read: zsum("attachments"),
        },
        Row {
            name: "of them with a storage file on disk",
            counts_json: None,
            counted: -1, // filled by the caller from the folder
            read: attachments_with("json_extract(a.value, '$.exists')"),
        },
        Row {
            name: "arXiv ids (from DOI, `extra`, URL; reported, not compared)",
            counts_json: None,
            counted: -2,
            read: i(&has_id("arxiv")),
        },
    ]
}

/// The child attachments of live items whose `storage:` file exists in `lib`, counted from the folder.
fn files_on_disk(zdb: &Connection, lib: &Path) -> i64 {
    let sql = format!(
        "SELECT i.key, substr(a.path, 9) FROM itemAttachments AS a JOIN items AS i ON i.itemID = a.itemID
         WHERE a.path LIKE 'storage:%' AND a.parentItemID IN {LIVE} AND a.itemID NOT IN (SELECT itemID FROM deletedItems)"
    );
    let mut stmt = zdb.prepare(&sql).unwrap();
    let rows: Vec<(String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
    rows.iter().filter(|(key, file)| lib.join("storage").join(key).join(file).is_file()).count() as i64
}

#[test]
fn the_five_real_libraries_come_in_as_counted() {
    let mut table = String::from(
        "| library | figure | counts.json | counted (test SQL on the copy) | read by litindex |\n|---|---|---:|---:|---:|\n",
    );
    let mut bad = Vec::new();
    for name in LIBRARIES {
        let Some((dir, lib)) = library_copy(name) else { return };
        let counts: Value = serde_json::from_str(&std::fs::read_to_string(lib.join("counts.json")).unwrap()).unwrap();
        let before = std::fs::read(lib.join("zotero.sqlite")).unwrap();
        let db = dir.path().join("i.db");
        let o = ingest(&db, &["--no-attachments", lib.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(
            stdout(&o)
                .contains(&format!("Zotero {}", std::fs::canonicalize(lib.join("zotero.sqlite")).unwrap().display()))
        );
        assert_eq!(std::fs::read(lib.join("zotero.sqlite")).unwrap(), before, "{name}: the library was written");
        let zdb =
            Connection::open_with_flags(lib.join("zotero.sqlite"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let idx = Connection::open(&db).unwrap();
        let mut rows = figures(&counts, &zdb, &idx);
        for r in &mut rows {
            if r.counted == -1 {
                r.counted = files_on_disk(&zdb, &lib);
            } else if r.counted == -2 {
                r.counted = r.read; // reported, not compared: no independent count of arXiv ids
            }
        }
        for r in &rows {
            let shown = r.counts_json.map_or("—".to_string(), |c| c.to_string());
            table.push_str(&format!("| {name} | {} | {shown} | {} | {} |\n", r.name, r.counted, r.read));
            if r.read != r.counted || r.counts_json.is_some_and(|c| c != r.counted) {
                bad.push(format!("{name} {}: counts.json {shown}, counted {}, read {}", r.name, r.counted, r.read));
            }
        }
        // The account data of `settings` (read here by the test only, never shown) is nowhere in the output or the index.
        let secrets: Vec<String> = {
            let mut stmt = zdb.prepare("SELECT value FROM settings WHERE setting = 'account'").unwrap();
            let rows = stmt.query_map([], |r| r.get::<_, rusqlite::types::Value>(0)).unwrap();
            rows.filter_map(|v| match v.unwrap() {
                rusqlite::types::Value::Text(t) if t.len() >= 4 => Some(t),
                rusqlite::types::Value::Integer(i) if i > 999 => Some(i.to_string()),
                _ => None,
            })
            .collect()
        };
        assert!(!secrets.is_empty(), "{name}: the library has account settings to look for");
        let mut raw = std::fs::read(&db).unwrap();
        raw.extend(std::fs::read(dir.path().join("i.db-wal")).unwrap_or_default());
        let index_bytes = String::from_utf8_lossy(&raw).into_owned();
        let printed = format!("{}{}", stdout(&o), stderr(&o));
        let leaked =
            secrets.iter().filter(|s| index_bytes.contains(s.as_str()) || printed.contains(s.as_str())).count();
        assert_eq!(leaked, 0, "{name}: {leaked} account value(s) found in the index or the output (values not shown)");
        drop(zdb);
        assert_eq!(std::fs::read(lib.join("zotero.sqlite")).unwrap(), before, "{name}: the library was written");
        let o = litindex().arg("--db").arg(&db).arg("check").output().unwrap();
        assert!(o.status.success(), "{name}: check: {}", stdout(&o));
    }
    if let Ok(path) = std::env::var("ZOTERO_TABLE") {
        std::fs::write(path, &table).unwrap();
    }
    eprintln!("{table}");
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn a_library_s_pdfs_are_read_and_filed_under_their_item_s_paper() {
    let Some((dir, lib)) = library_copy("chasing-aurora-z9") else { return };
    let db = dir.path().join("i.db");
    let o = ingest(&db, &[lib.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("PDFs: 1 read, 1 attached, 0 new"), "{}", stdout(&o));
    // The missing PDF is a note naming it, not an error.
    assert!(stderr(&o).contains("84QQEUT2") && stderr(&o).contains("is not on disk"), "{}", stderr(&o));
    let idx = Connection::open(&db).unwrap();
    let (papers, docs): (i64, i64) = idx
        .query_row("SELECT (SELECT count(*) FROM papers), (SELECT count(*) FROM documents)", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((papers, docs), (4, 1), "the PDF joined its item's paper");
    let same: i64 = count(
        &idx,
        "SELECT count(*) FROM records AS p JOIN records AS z ON z.paper_id = p.paper_id
         WHERE p.source = 'pdf' AND z.source = 'zotero'",
    );
    assert_eq!(same, 1);
    // `paper` shows what the item holds beside the record.
    let o = litindex().arg("--db").arg(&db).args(["paper", "2602.02603"]).output().unwrap();
    let shown = stdout(&o);
    assert!(shown.contains("zotero      webpage, https://arxiv.org/abs/2602.02603v4"), "{shown}");
    assert!(
        shown.contains("  in        World model") && shown.contains("(missing)") && shown.contains("  note "),
        "{shown}"
    );
    // Read again: nothing changed, nothing read.
    let o = ingest(&db, &[lib.to_str().unwrap()]);
    assert!(stdout(&o).contains("4 items: 0 added, 0 updated, 0 removed, 4 unchanged"), "{}", stdout(&o));
    // The item trashed in Zotero: its paper goes, with its PDF's document and passages.
    let key: String = idx
        .query_row(
            "SELECT z.source_id FROM records AS p JOIN records AS z ON z.paper_id = p.paper_id
             WHERE p.source = 'pdf' AND z.source = 'zotero'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    drop(idx);
    let z = Connection::open(lib.join("zotero.sqlite")).unwrap();
    z.execute(
        "INSERT INTO deletedItems (itemID, dateDeleted) SELECT itemID, '2030-01-01 00:00:00' FROM items WHERE key = ?1",
        [key.trim_start_matches("zotero:")],
    )
    .unwrap();
    drop(z);
    let o = ingest(&db, &[lib.to_str().unwrap()]);
    assert!(stdout(&o).contains("3 items: 0 added, 0 updated, 1 removed, 3 unchanged"), "{}", stdout(&o));
    let idx = Connection::open(&db).unwrap();
    let left: (i64, i64, i64, i64) = idx
        .query_row(
            "SELECT (SELECT count(*) FROM papers), (SELECT count(*) FROM documents), (SELECT count(*) FROM passages),
                    (SELECT count(*) FROM records WHERE source = 'pdf')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(left, (3, 0, 0, 0));
    let o = litindex().arg("--db").arg(&db).arg("check").output().unwrap();
    assert!(o.status.success(), "{}", stdout(&o));
}

#[test]
fn collections_are_tags_a_user_lists_and_exports_by() {
    let Some((dir, lib)) = library_copy("san7o-z6") else { return };
    let db = dir.path().join("i.db");
    assert!(ingest(&db, &["--no-attachments", lib.to_str().unwrap()]).status.success());
    let run = |args: &[&str]| litindex().arg("--db").arg(&db).args(args).output().unwrap();
    let o = run(&["marks", "--tag", "zotero/Computer Science/Distributed Systems"]);
    assert!(stdout(&o).contains("7 marked papers"), "{}", stdout(&o));
    // A nested collection's path, and a tag ending in `/` taking the collections under it.
    let o = run(&["export", "--tag", "zotero/Computer Science/", "--format", "bibtex"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).matches("\n@").count() + usize::from(stdout(&o).starts_with('@')), 8, "{}", stdout(&o));
    let o = run(&["export", "--tag", "zotero-tag/solana", "--format", "bibtex"]);
    assert!(stdout(&o).contains("Fuzz on the Beach"), "{}", stdout(&o));
    let o = run(&["export", "--tag", "zotero/Nothing Here", "--format", "bibtex"]);
    assert!(!o.status.success() && stderr(&o).contains("tagged `zotero/Nothing Here`"), "{}", stderr(&o));
}

/// Every PDF of a real library found on disk is read and filed under its
/// item's paper, or listed as unreadable: gglin001-z5 has 30 on disk.
#[test]
fn every_pdf_found_in_a_real_library_is_attached_or_listed() {
    let Some((dir, lib)) = library_copy("gglin001-z5") else { return };
    let db = dir.path().join("i.db");
    let o = ingest(&db, &[lib.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out.lines().find(|l| l.starts_with("PDFs: ")).unwrap_or_else(|| panic!("{out}"));
    let n: Vec<u64> = line.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    let (read, attached, new, unchanged, failed) = (n[0], n[1], n[2], n[3], n[4]);
    assert_eq!((read + failed, attached, new, unchanged), (30, read, 0, 0), "{line}");
    assert_eq!(stderr(&o).matches("litindex: skipped").count() as u64, failed, "{}", stderr(&o));
    let idx = Connection::open(&db).unwrap();
    assert_eq!(count(&idx, "SELECT count(*) FROM documents") as u64, read);
    assert_eq!(count(&idx, "SELECT count(*) FROM papers"), 47, "no PDF became a paper of its own");
    eprintln!("gglin001-z5: {line}");
}
