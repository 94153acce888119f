//! `zotero`: a Zotero library (`zotero.sqlite`, or the Zotero data folder
//! holding it and `storage/`), read in place, never written.
//!
//! **This module runs SQL on a foreign database**: Zotero's, not ours. The
//! store (`src/store/`) owns litindex's schema; this reader owns Zotero's,
//! and every statement it runs on a Zotero file is in this module
//! ([`items`]). It only ever `SELECT`s, from the tables listed in
//! [`KNOWN_TABLES`]; it never reads the `settings`, `syncedSettings` or
//! `users` tables (account data), never stores or prints them.
//!
//! **A consistent copy, no lock.** Zotero holds its database open with an
//! exclusive lock while it runs, so opening it through SQLite would wait on
//! (or break) that lock. The reader copies the file and its `-journal` /
//! `-wal` (when present) with plain file reads into a private temporary
//! folder (mode 0700, removed when the snapshot is dropped), opens the copy,
//! and checks it (`PRAGMA quick_check`). When the file changed while it was
//! copied (size or modification time moved) or the copy fails its check
//! (half-written), it copies again, up to [`COPY_ATTEMPTS`] times, then says
//! so. The original is never opened by SQLite at all.
//!
//! **By name, never by id.** Item types, fields and creator types are joined
//! by name (`itemTypes.typeName`, `fields.fieldName`,
//! `creatorTypes.creatorType`): their ids differ between Zotero versions.
//! Type-specific fields are mapped onto their base field through
//! `baseFieldMappings` (`proceedingsTitle`/`bookTitle`/… → `publicationTitle`,
//! `issueDate` → `date`, `caseName` → `title`).
//!
//! **Schemas.** Zotero 5 to 9 (`version.userdata` 100 to [`NEWEST_USERDATA`]).
//! An older schema (Zotero 4) is refused with a message; a newer one is read
//! as far as the known tables go, and the tables it has that this reader
//! does not know are named in a note.

mod convert;
mod items;
mod snapshot;

pub(crate) use convert::{ZoteroItem, item_id};
pub(crate) use items::Stamp;
pub(crate) use snapshot::{Snapshot, locate, looks_like_sqlite};

impl Snapshot {
    /// Item `stamp` read whole and converted (`user_library`: it is in the user's own library).
    pub(crate) fn read_item(
        &self,
        stamp: &Stamp,
        collections: &std::collections::HashMap<i64, String>,
        user_library: bool,
    ) -> anyhow::Result<ZoteroItem> {
        Ok(self.item(stamp, collections)?.convert(user_library))
    }
}

/// The newest `version.userdata` this reader was written against (Zotero 9.0.4).
pub(crate) const NEWEST_USERDATA: i64 = 125;
/// The oldest it reads (Zotero 5.0).
pub(crate) const OLDEST_USERDATA: i64 = 100;

/// The tables of a Zotero database this reader knows (reads, or knowingly
/// leaves alone: account data, sync bookkeeping, full-text word lists,
/// feeds, saved searches, the old Zotero 5 annotation tables).
pub(crate) const KNOWN_TABLES: &[&str] = &[
    "annotations",
    "baseFieldMappings",
    "baseFieldMappingsCombined",
    "charsets",
    "collectionItems",
    "collectionRelations",
    "collections",
    "creatorTypes",
    "creators",
    "customBaseFieldMappings",
    "customFields",
    "customItemTypeFields",
    "customItemTypes",
    "dbDebug1",
    "deletedCollections",
    "deletedItems",
    "deletedSearches",
    "feedItems",
    "feeds",
    "fieldFormats",
    "fields",
    "fieldsCombined",
    "fileTypeMimeTypes",
    "fileTypes",
    "fulltextItemWords",
    "fulltextItems",
    "fulltextWords",
    "groupItems",
    "groups",
    "highlights",
    "itemAnnotations",
    "itemAttachments",
    "itemCreators",
    "itemData",
    "itemDataValues",
    "itemNotes",
    "itemRelations",
    "itemTags",
    "itemTypeCreatorTypes",
    "itemTypeFields",
    "itemTypeFieldsCombined",
    "itemTypes",
    "itemTypesCombined",
    "items",
    "libraries",
    "proxies",
    "proxyHosts",
    "publicationsItems",
    "relationPredicates",
    "retractedItems",
    "savedSearchConditions",
    "savedSearches",
    "settings",
    "storageDeleteLog",
    "syncCache",
    "syncDeleteLog",
    "syncObjectTypes",
    "syncQueue",
    "syncedSettings",
    "tags",
    "transactionLog",
    "transactionSets",
    "transactions",
    "translatorCache",
    "users",
    "version",
];

/// The tables a file must have to be read as a Zotero library.
pub(crate) const REQUIRED_TABLES: &[&str] =
    &["items", "itemTypes", "itemData", "itemDataValues", "fields", "creators", "itemCreators", "creatorTypes"];
