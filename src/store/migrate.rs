//! Numbered migrations from `migrations/`, applied in order in one
//! transaction; the version reached is stored in `PRAGMA user_version`.

use anyhow::Context;
use rusqlite::Connection;

/// Every migration, in order: migration `i` (1-based) brings the schema to version `i`.
/// Never edit one that has shipped; add a new file.
pub(super) const MIGRATIONS: &[(&str, &str)] = &[
    ("001_init.sql", include_str!("../../migrations/001_init.sql")),
    ("002_vectors.sql", include_str!("../../migrations/002_vectors.sql")),
    ("003_performance.sql", include_str!("../../migrations/003_performance.sql")),
    ("004_venue.sql", include_str!("../../migrations/004_venue.sql")),
    ("005_marks.sql", include_str!("../../migrations/005_marks.sql")),
    ("006_fetch.sql", include_str!("../../migrations/006_fetch.sql")),
    ("007_fetch_carried.sql", include_str!("../../migrations/007_fetch_carried.sql")),
    ("008_postings_blocks.sql", include_str!("../../migrations/008_postings_blocks.sql")),
    ("009_graph_int.sql", include_str!("../../migrations/009_graph_int.sql")),
    ("010_fulltext.sql", include_str!("../../migrations/010_fulltext.sql")),
    ("011_references.sql", include_str!("../../migrations/011_references.sql")),
    ("012_screening.sql", include_str!("../../migrations/012_screening.sql")),
    ("013_zotero.sql", include_str!("../../migrations/013_zotero.sql")),
    ("014_passage_vectors.sql", include_str!("../../migrations/014_passage_vectors.sql")),
    ("015_generation.sql", include_str!("../../migrations/015_generation.sql")),
    ("016_node_year.sql", include_str!("../../migrations/016_node_year.sql")),
    ("017_node_meta.sql", include_str!("../../migrations/017_node_meta.sql")),
    ("018_adjacency_lists.sql", include_str!("../../migrations/018_adjacency_lists.sql")),
    ("019_slim_records.sql", include_str!("../../migrations/019_slim_records.sql")),
    ("020_doc_lengths.sql", include_str!("../../migrations/020_doc_lengths.sql")),
    ("021_vector_codes.sql", include_str!("../../migrations/021_vector_codes.sql")),
    ("022_stated_lists.sql", include_str!("../../migrations/022_stated_lists.sql")),
    ("023_title_codes.sql", include_str!("../../migrations/023_title_codes.sql")),
];

/// The schema version this binary writes and reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Applies every migration newer than the database's `user_version`.
pub(crate) fn migrate(conn: &mut Connection) -> anyhow::Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current >= SCHEMA_VERSION {
        return Ok(());
    }
    // Migrations copy rows that already satisfy the foreign keys; checking
    // them again looks up a parent row per copied row. (Only settable
    // outside a transaction; restored after.)
    let foreign_keys: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let out = apply(conn, current);
    conn.pragma_update(None, "foreign_keys", foreign_keys)?;
    out
}

fn apply(conn: &mut Connection, current: i64) -> anyhow::Result<()> {
    let tx = conn.transaction()?;
    for (i, (name, sql)) in MIGRATIONS.iter().enumerate() {
        let version = i as i64 + 1;
        if version <= current {
            continue;
        }
        tx.execute_batch(sql).with_context(|| format!("migration {name} failed"))?;
        if *name == "004_venue.sql" {
            fill_surnames(&tx).context("migration 004_venue.sql failed: cannot fill paper_authors")?;
        }
        if *name == "008_postings_blocks.sql" {
            super::blocks_legacy::convert_row_postings(&tx)
                .context("migration 008_postings_blocks.sql failed: cannot encode the postings as blocks")?;
        }
        if *name == "017_node_meta.sql" {
            super::node_meta::refresh(&tx).context("migration 017_node_meta.sql failed: cannot fill node_meta")?;
        }
        if *name == "020_doc_lengths.sql" {
            super::blocks_legacy::drop_lengths(&tx)
                .context("migration 020_doc_lengths.sql failed: cannot rewrite the postings blocks")?;
            super::lengths::refresh(&tx).context("migration 020_doc_lengths.sql failed: cannot fill the lengths")?;
        }
        if *name == "021_vector_codes.sql" {
            super::vector_codes::refresh(&tx)
                .context("migration 021_vector_codes.sql failed: cannot fill the vector codes")?;
        }
        if *name == "023_title_codes.sql" {
            super::record_data::code_title_keys(&tx)
                .context("migration 023_title_codes.sql failed: cannot code the title signatures")?;
        }
        tx.pragma_update(None, "user_version", version)?;
    }
    tx.commit()?;
    Ok(())
}

/// The `paper_authors` rows of the papers indexed before schema 4 (the
/// folding of names is Rust code, not SQL).
fn fill_surnames(conn: &Connection) -> anyhow::Result<()> {
    let mut stmt = conn.prepare("SELECT doc, authors FROM papers")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (doc, authors) = row?;
        let authors: Vec<String> = serde_json::from_str(&authors)
            .with_context(|| format!("paper doc {doc}: authors column is not a JSON array of strings"))?;
        super::postings_writer::insert_surnames(conn, doc, &authors)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database at schema `version` (its first `version` migrations applied).
    fn at_version(version: usize) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        for (_, sql) in &MIGRATIONS[..version] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", version as i64).unwrap();
        conn
    }

    /// A database at the schema just before migration `name`.
    fn before(name: &str) -> Connection {
        at_version(MIGRATIONS.iter().position(|(n, _)| *n == name).unwrap())
    }

    #[test]
    fn migrates_an_empty_database_to_the_latest_version() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        for table in [
            "papers",
            "terms",
            "posting_blocks",
            "nodes",
            "adjacency_lists",
            "stated_lists",
            "link_sources",
            "index_meta",
            "disagreements",
            "embed_models",
            "vectors",
            "chunk_vectors",
            "fetch_responses",
            "marks",
            "mark_tags",
            "watches",
            "watch_seen",
        ] {
            let n: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(n, 1, "{table}");
        }
        // Running again is a no-op.
        migrate(&mut conn).unwrap();
    }

    /// An index of schema 20 with vectors gets the codes of every vector
    /// of its model's dimension, and no chunk is left marked.
    #[test]
    fn the_vector_codes_migration_codes_every_vector() {
        let mut conn = before("021_vector_codes.sql");
        conn.execute_batch(
            "INSERT INTO embed_models VALUES (1, 'm', 2, '/m', 'f', 8, 't', 't');
             INSERT INTO vectors VALUES (1, 1, 'h', 0, x'0000803f00000000'), (1, 5000, 'h', 0, x'000000000000803f'),
                                        (1, 5001, 'h', 0, x'0000803f0000');",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let chunks: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT model_id, chunk, length(data) FROM vector_codes ORDER BY chunk")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // One vector in chunk 0, one in chunk 1 (doc 5001's six bytes are not two floats): 4 + 12 bytes each.
        assert_eq!(chunks, [(1, 0, 16), (1, 1, 16)]);
        let dirty: i64 = conn.query_row("SELECT count(*) FROM vector_codes_dirty", [], |r| r.get(0)).unwrap();
        assert_eq!(dirty, 0);
        assert_eq!(super::super::vector_codes::stale_chunks(&conn, 10).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn the_venue_migration_keeps_papers_and_keys_their_authors() {
        let mut conn = before("004_venue.sql");
        conn.execute_batch(
            r#"INSERT INTO papers (doc, id, title, authors, source, doc_len) VALUES
                 (1, 'a', 'x', '["Jan van der Berg", "Müller, Jörg"]', 'paper', 1),
                 (2, 'b', 'x', '[]', 'paper', 1);"#,
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let keys: Vec<(i64, String)> = conn
            .prepare("SELECT doc, surname FROM paper_authors ORDER BY doc, surname")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(keys, [(1, "berg".to_string()), (1, "muller".to_string())]);
        let venues: i64 = conn.query_row("SELECT count(*) FROM papers WHERE venue IS NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(venues, 2, "venue is empty until the papers are ingested again");
    }

    #[test]
    fn version_3_copies_document_lengths_and_rekeys_links() {
        let mut conn = at_version(2);
        conn.execute_batch(
            "INSERT INTO papers (doc, id, title, source, doc_len) VALUES (1, 'a', 'x y', 'paper', 2), (2, 'b', 'x', 'paper', 7);
             INSERT INTO terms (term_id, term, df) VALUES (1, 'x', 2), (2, 'y', 1);
             INSERT INTO postings (term_id, doc, tf) VALUES (1, 1, 1), (2, 1, 1), (1, 2, 7);
             INSERT INTO links VALUES ('paper', 'a', 'a', 'b'), ('edges', '', 'c', 'a'), ('paper', 'b', 'c', 'b');",
        )
        .unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrate(&mut conn).unwrap();
        let foreign_keys: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
        assert!(foreign_keys, "the connection's setting is restored");
        // Schema 3 gave each posting its paper's length; schema 8 carries it into the blocks.
        // Schema 20 keeps the lengths once per paper, and the blocks read them back.
        let lengths = super::super::lengths::Lengths::load(&conn, super::super::blocks::Field::Papers).unwrap();
        let lens: Vec<(i64, i64, u32)> = [1, 2]
            .into_iter()
            .flat_map(|t| {
                let postings = super::super::blocks::term_postings(&conn, t, &lengths).unwrap();
                postings.into_iter().map(move |p| (t, p.doc, p.doc_len))
            })
            .collect();
        assert_eq!(lens, [(1, 1, 2), (1, 2, 7), (2, 1, 2)]);
        let links: Vec<String> = conn
            .prepare(
                "SELECT origin_source || ':' || origin_id || ':' || citing || '>' || cited FROM links ORDER BY citing",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(links, ["paper:a:a>b", "edges::c>a", "paper:b:c>b"]);
        // 022 keeps them as one list per (record's node, origin): a's references, b's citations, c's edge file line.
        let lists: Vec<String> = conn
            .prepare(
                "SELECT n.id || ':' || (l.origin % 2) || ':' || l.others FROM stated_lists AS l
                 JOIN nodes AS n ON n.node = l.own ORDER BY n.id",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let node =
            |id: &str| -> i64 { conn.query_row("SELECT node FROM nodes WHERE id = ?1", [id], |r| r.get(0)).unwrap() };
        let (a, b, c) = (node("a"), node("b"), node("c"));
        assert_eq!(lists, [format!("a:0:[{b}]"), format!("b:1:[{c}]"), format!("c:0:[{a}]")]);
    }

    #[test]
    fn schema_3_postings_become_blocks_through_schema_8() {
        let at = MIGRATIONS.iter().position(|(name, _)| *name == "008_postings_blocks.sql").unwrap();
        let mut conn = at_version(3);
        // 300 papers; term 1 in every one (3 blocks: 128, 128, 44), term 2 in
        // every seventh (42: one block), term 3 in paper 150 only.
        let tx = conn.transaction().unwrap();
        tx.execute_batch("INSERT INTO terms (term_id, term, df) VALUES (1, 'a', 300), (2, 'b', 42), (3, 'c', 1)")
            .unwrap();
        let mut want: Vec<(i64, i64, u32, u32)> = Vec::new();
        for doc in 1..=300i64 {
            let len = (doc % 40 + 5) as u32;
            tx.execute(
                "INSERT INTO papers (doc, id, title, source, doc_len) VALUES (?1, ?2, 'x', 'paper', ?3)",
                rusqlite::params![doc, format!("p{doc}"), len],
            )
            .unwrap();
            for (term, tf) in [(1, 1 + (doc % 3) as u32), (2, 2), (3, 9)] {
                if term == 1 || (term == 2 && doc % 7 == 0) || (term == 3 && doc == 150) {
                    tx.execute(
                        "INSERT INTO postings (term_id, doc, tf, doc_len) VALUES (?1, ?2, ?3, ?4)",
                        rusqlite::params![term, doc, tf, len],
                    )
                    .unwrap();
                    want.push((term, doc, tf, len));
                }
            }
        }
        tx.commit().unwrap();
        want.sort_unstable();
        migrate(&mut conn).unwrap();
        assert_eq!(conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap(), SCHEMA_VERSION);
        assert!(SCHEMA_VERSION > at as i64, "the blocks migration is among those applied");
        let gone: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE name IN ('postings', 'postings_readable')", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(gone, 0, "the row table and its view are dropped");
        let mut got = Vec::new();
        let lengths = super::super::lengths::Lengths::load(&conn, super::super::blocks::Field::Papers).unwrap();
        for term in 1..=3 {
            for p in super::super::blocks::term_postings(&conn, term, &lengths).unwrap() {
                got.push((term, p.doc, p.tf, p.doc_len));
            }
        }
        assert_eq!(got, want);
        let sizes: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT term_id, n, last_doc FROM posting_blocks ORDER BY term_id, last_doc")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(sizes, [(1, 128, 128), (1, 128, 256), (1, 44, 300), (2, 42, 294), (3, 1, 150)]);
        assert!(
            super::super::check::check(&conn).invariants.iter().filter(|i| i.name.starts_with("block")).all(|i| i.ok)
        );
    }
}
