//! `ingest` of a Zotero library, and every later `ingest` of it: a sync
//! that reads only what changed.
//!
//! The library is read through a checked private copy
//! ([`formats::zotero::Snapshot`]). Its live regular items (not attachments,
//! notes or annotations; not in the trash) are compared with what the last
//! sync stored in `zotero_items` (migration 013) by their stamps:
//! `items.version`, `dateModified`, `clientDateModified`, and the count and
//! latest change of their live notes and attachments. Only a new or changed
//! item is read whole and filed (source `zotero`, id `zotero:KEY`) through
//! the one engine; an item gone from the library or moved to the trash has
//! its record removed (its paper re-derived from the records left, or
//! deleted when none is left). When the collection tree changed (a rename, a
//! move, a collection trashed) every item is read again. All of it happens in
//! the ingest's one transaction: a failure leaves the index as it was.
//!
//! - **Collections and tags** become tags of the paper (`mark_tags`, where
//!   `litindex mark --tag` puts them, so `marks --tag`, `search … tag:` and
//!   exports see them, and `build` carries them): `zotero/PATH` for each
//!   collection (`zotero/Thesis/Chapter 2`; a `/` inside a name is written
//!   `∕`), `zotero-tag/NAME` for each Zotero tag (manual and automatic). A
//!   sync takes off the tags it put on before and no longer reads; tags
//!   the user added in litindex are never touched, nor are marks or
//!   screening decisions.
//! - **Notes, creators with roles, attachments, URL, the date as typed** are
//!   kept in `zotero_items.data` (JSON), not indexed.
//! - **Attachments**: a stored file (`storage:NAME`) is resolved to
//!   `DATA/storage/KEY/NAME`, a linked file is taken as given; a PDF that
//!   exists is read by the PDF reader and filed under the item's paper
//!   (unless `read_pdfs` is off); a missing file is a note, not an error.
//!   Standalone PDFs (no parent item) are read as PDFs of their own. When an
//!   item is trashed or deleted, the documents of its PDFs filed under its
//!   paper are removed with it (passages, references, their record).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::engine::Ingester;
use super::formats::zotero::{Snapshot, Stamp, ZoteroItem, locate};
use crate::paper::PaperId;
use crate::store::documents::{delete_document, document_at, paper_of_record};
use crate::store::zotero::{self as state, ItemRow, ZoteroLibrary};

/// What one Zotero library came to in an ingest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZoteroSummary {
    /// The database read (absolute).
    pub library: String,
    /// `version.userdata`.
    pub userdata: i64,
    /// Live regular items in the library.
    pub items: u64,
    pub added: u64,
    pub updated: u64,
    /// Items trashed or deleted in Zotero since the last sync: records removed.
    pub removed: u64,
    /// Items not read again (same stamps).
    pub unchanged: u64,
    /// Regular items in Zotero's trash (never imported).
    pub in_trash: u64,
    /// Of the items read: collection memberships, Zotero tags, notes,
    /// creators, attachments, attachments with a file that exists, PDFs
    /// among those, attachments whose file is missing.
    pub collections: u64,
    pub tags: u64,
    pub notes: u64,
    pub creators: u64,
    pub attachments: u64,
    pub files_found: u64,
    pub pdfs_found: u64,
    pub files_missing: u64,
    /// The side files copied with the database (`zotero.sqlite-journal`, `-wal`).
    pub side_files: Vec<String>,
    /// What a user should know (a newer schema, missing files), one line each.
    pub messages: Vec<String>,
}

/// How many missing files are named one by one.
const LISTED_MISSING: usize = 20;

/// Syncs the Zotero library at `path` (a `zotero.sqlite` or the folder
/// holding it) into the ingest; PDFs to read are pushed onto `pdfs` with
/// the paper they belong to.
pub(crate) fn sync(
    ingester: &mut Ingester<'_>,
    path: &Path,
    read_pdfs: bool,
    pdfs: &mut Vec<(PathBuf, Option<PaperId>)>,
) -> anyhow::Result<ZoteroSummary> {
    let (db, data_dir) = locate(path).ok_or_else(|| {
        anyhow::anyhow!("{}: a folder without zotero.sqlite (not a Zotero data folder)", path.display())
    })?;
    let db = std::fs::canonicalize(&db).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", db.display()))?;
    let data_dir = std::fs::canonicalize(&data_dir).unwrap_or(data_dir);
    let snap = Snapshot::open(&db, &data_dir)?;
    let lib = db.display().to_string();
    let mut summary = ZoteroSummary {
        library: lib.clone(),
        userdata: snap.userdata,
        side_files: snap.side_files.clone(),
        ..ZoteroSummary::default()
    };
    if let Some(note) = snap.schema_note() {
        summary.messages.push(note);
    }
    let h = ingester.handle();
    let before = state::library(h, &lib)?;
    let stored = state::items(h, &lib)?;
    let fingerprint = snap.collections_fingerprint()?;
    let reread_all = before.as_ref().is_some_and(|b| b.collections != fingerprint);
    let collections = snap.collection_paths()?;
    let stamps = snap.stamps()?;
    let (in_trash, _) = snap.counts()?;
    summary.in_trash = in_trash;
    summary.items = stamps.len() as u64;

    let mut kinds: HashMap<i64, (bool, i64)> = HashMap::new();
    let mut live: HashSet<String> = HashSet::new();
    let mut missing_listed = 0usize;
    for stamp in &stamps {
        if let std::collections::hash_map::Entry::Vacant(e) = kinds.entry(stamp.library_id) {
            let (kind, version) = snap.library(stamp.library_id)?;
            e.insert((kind == "user", version));
        }
        let user = kinds[&stamp.library_id].0;
        let key = super::formats::zotero::item_id(&stamp.key, stamp.library_id, user).key();
        live.insert(key.clone());
        let old = stored.get(&key);
        if !reread_all && old.is_some_and(|o| same_stamp(o, stamp)) {
            summary.unchanged += 1;
            continue;
        }
        let item = snap.read_item(stamp, &collections, user)?;
        // Read again for a changed collection tree only: unchanged unless its collection tags moved.
        if old.is_some_and(|o| same_stamp(o, stamp) && o.tags == tags_of(&item)) {
            summary.unchanged += 1;
            continue;
        }
        let origin = format!("{lib}#{}", stamp.key);
        file_item(ingester, &lib, &item, old.map(|o| o.tags.as_slice()).unwrap_or(&[]), &origin)?;
        if old.is_some() {
            summary.updated += 1;
        } else {
            summary.added += 1;
        }
        count(&mut summary, &item);
        for a in item.extras.attachments.iter().filter(|a| a.has_file()) {
            let shown =
                a.file.as_deref().map(|f| f.display().to_string()).or_else(|| a.path.clone()).unwrap_or_default();
            if !a.exists {
                if missing_listed < LISTED_MISSING {
                    summary.messages.push(format!(
                        "{origin}: attachment {} ({}) is not on disk: {shown}",
                        a.key,
                        if a.content_type.is_empty() { "no content type" } else { &a.content_type }
                    ));
                }
                missing_listed += 1;
            } else if read_pdfs && a.is_pdf() {
                pdfs.push((a.file.clone().unwrap_or_default(), Some(item.record.source_id.clone())));
            }
        }
    }
    if missing_listed > LISTED_MISSING {
        summary.messages.push(format!("… and {} more attachments not on disk", missing_listed - LISTED_MISSING));
    }
    // Standalone PDFs (no parent item) are PDFs of their own; read each sync, unchanged ones are skipped by hash.
    if read_pdfs {
        for a in snap.attachments(None)? {
            if a.exists && a.is_pdf() {
                pdfs.push((a.file.clone().unwrap_or_default(), None));
            }
        }
    }

    // Trashed or deleted since the last sync.
    let mut gone: Vec<(&String, &state::StoredItem)> = stored.iter().filter(|(k, _)| !live.contains(*k)).collect();
    gone.sort_by(|a, b| a.0.cmp(b.0));
    for (key, old) in gone {
        let h = ingester.handle();
        let paper = state::paper_of(h, key)?;
        if let Some(paper) = &paper {
            state::replace_tags(h, paper, &old.tags, &[])?;
        }
        let files = state::attachment_files(h, &lib, key)?;
        state::delete_item(h, &lib, key)?;
        // Another library holding the same item keeps its record (a library moved away, whose file is gone, does not).
        let held = state::other_holders(h, &lib, key)?.iter().any(|other| Path::new(other).is_file());
        if !held {
            // Its PDFs filed under its paper go with it (a PDF another paper holds stays).
            for file in files {
                let Some(doc) = document_at(h, &file)? else { continue };
                if paper.is_some() && paper_of_record(h, &doc.source_id)? == paper {
                    if let Some(pdf_key) = delete_document(h, &file)? {
                        ingester.remove_record("pdf", &pdf_key)?;
                    }
                }
            }
            ingester.remove_record("zotero", key)?;
        }
        summary.removed += 1;
    }
    let library_version = kinds.values().find(|(user, _)| *user).map_or(0, |(_, v)| *v);
    state::put_library(
        ingester.handle(),
        &ZoteroLibrary {
            path: lib,
            data_dir: data_dir.display().to_string(),
            library_version,
            userdata: snap.userdata,
            collections: fingerprint,
            synced_at: String::new(),
            added: summary.added,
            updated: summary.updated,
            removed: summary.removed,
            unchanged: summary.unchanged,
            items: 0,
        },
    )?;
    Ok(summary)
}

fn same_stamp(old: &state::StoredItem, s: &Stamp) -> bool {
    old.version == s.version
        && old.date_modified == s.date_modified
        && old.client_modified == s.client_modified
        && old.children == s.children
}

/// The tags an item puts on its paper.
pub(crate) fn tags_of(item: &ZoteroItem) -> Vec<String> {
    let mut tags: Vec<String> = item.extras.collections.iter().map(|c| format!("zotero/{c}")).collect();
    tags.extend(
        item.extras.tags.iter().map(|t| t.name.trim()).filter(|t| !t.is_empty()).map(|t| format!("zotero-tag/{t}")),
    );
    tags.sort();
    tags.dedup();
    tags
}

/// Files one item: its record, its tags, its row.
fn file_item(
    ingester: &mut Ingester<'_>,
    lib: &str,
    item: &ZoteroItem,
    old_tags: &[String],
    origin: &str,
) -> anyhow::Result<()> {
    let key = item.record.source_id.key();
    ingester.add_record(item.record.clone(), "zotero", origin)?;
    let h = ingester.handle();
    let paper = state::paper_of(h, &key)?
        .ok_or_else(|| anyhow::anyhow!("{origin}: the item's record was not filed (index damaged?)"))?;
    let tags = tags_of(item);
    state::replace_tags(h, &paper, old_tags, &tags)?;
    let data = serde_json::to_string(&item.extras)?;
    let s = &item.stamp;
    state::put_item(
        h,
        lib,
        &ItemRow {
            source_id: &key,
            key: &s.key,
            version: s.version,
            date_modified: &s.date_modified,
            client_modified: &s.client_modified,
            children: &s.children,
            tags: &tags,
            data: &data,
        },
    )
}

fn count(summary: &mut ZoteroSummary, item: &ZoteroItem) {
    let e = &item.extras;
    summary.collections += e.collections.len() as u64;
    summary.tags += e.tags.len() as u64;
    summary.notes += e.notes.len() as u64;
    summary.creators += e.creators.len() as u64;
    summary.attachments += e.attachments.len() as u64;
    summary.files_found += e.attachments.iter().filter(|a| a.exists).count() as u64;
    summary.pdfs_found += e.attachments.iter().filter(|a| a.exists && a.is_pdf()).count() as u64;
    summary.files_missing += e.attachments.iter().filter(|a| a.has_file() && !a.exists).count() as u64;
}

/// Whether `path` is a Zotero library: a folder holding `zotero.sqlite`, or
/// an SQLite file (the caller then opens it and says if it is not Zotero's).
pub(crate) fn is_library(path: &Path) -> bool {
    if path.is_dir() {
        return path.join("zotero.sqlite").is_file();
    }
    super::formats::zotero::looks_like_sqlite(path)
}
