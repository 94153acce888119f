//! The integer graph's migration (`009_graph_int.sql`) from the schema
//! before it: an index with TEXT `edges` and `links` and rows in every other
//! table is migrated in place, and afterwards shows the same edges and
//! links through the views, walks as the old edge list does, passes the
//! graph's checks, keeps every other table as it was, and takes new links.

use std::collections::{BTreeMap, HashMap};

use rusqlite::Connection;

use super::Store;
use super::migrate::{MIGRATIONS, migrate};
use crate::graph::{Adjacency, Direction, MemoryGraph, Reach, bfs};

/// Rows of `sql`, each as text.
fn rows(conn: &Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        let cells: Vec<String> =
            (0..n).map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).unwrap())).collect();
        Ok(cells.join("|"))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// The tables the graph migration must carry untouched, dumped.
fn others(conn: &Connection) -> Vec<String> {
    let mut out = Vec::new();
    for table in [
        "papers",
        "aliases",
        "records",
        "marks",
        "mark_tags",
        "watches",
        "watch_seen",
        "fetch_responses",
        "paper_authors",
        "embed_models",
        "vectors",
        "merges",
        "disagreements",
        "index_meta",
    ] {
        out.push(table.to_string());
        out.extend(rows(conn, &format!("SELECT * FROM {table} ORDER BY 1, 2")));
    }
    out
}

const OLD_EDGES: [(&str, &str); 6] = [("a", "b"), ("a", "ghost"), ("b", "a"), ("c", "a"), ("c", "b"), ("outside", "c")];

#[test]
fn the_graph_migration_keeps_edges_links_walks_and_every_other_table() {
    let before = MIGRATIONS.iter().position(|(name, _)| *name == "009_graph_int.sql").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let mut conn = Connection::open(&path).unwrap();
    for (_, sql) in &MIGRATIONS[..before] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", before as i64).unwrap();
    conn.pragma_update(None, "application_id", super::APPLICATION_ID).unwrap();
    conn.execute_batch(
        r#"INSERT INTO index_meta VALUES (1, 'plain', 1.5, 0.75, 3, 6, 2.0, 2019, 2023, '2026-01-01T00:00:00Z');
           INSERT INTO papers (doc, id, title, year, source, doc_len) VALUES
               (1, 'a', 'x y', 2019, 'paper', 2), (2, 'b', 'x', 2021, 'paper', 1), (3, 'c', 'y z w', 2023, 'paper', 3);
           INSERT INTO aliases VALUES ('a', 'a', 'own'), ('b', 'b', 'own'), ('c', 'c', 'own'), ('doi:10.1/b', 'b', 'doi');
           INSERT INTO paper_authors (doc, surname) VALUES (1, 'lovelace');
           INSERT INTO records (source, source_id, paper_id, format, origin, title_key, data, shared)
               VALUES ('paper', 'a', 'a', 'paper', 't:1', 'x y', '{}', 0);
           INSERT INTO edges VALUES ('a', 'b'), ('a', 'ghost'), ('b', 'a'), ('c', 'a'), ('c', 'b'), ('outside', 'c');
           INSERT INTO links VALUES
               ('paper', 'a', 'a', 'doi:10.1/b'), ('paper', 'a', 'a', 'ghost'), ('paper', 'b', 'b', 'a'),
               ('paper', 'c', 'c', 'a'), ('s2', 'c', 'outside', 'c'), ('edges', '', 'c', 'b'), ('s2', 'c', 'c', 'a');
           INSERT INTO marks VALUES ('a', 'favorite', 'good', '2026-01-01T00:00:00Z');
           INSERT INTO mark_tags VALUES ('a', 'sparse', '2026-01-01T00:00:00Z');
           INSERT INTO watches VALUES ('w', 'sparse', '[]', '2026-01-01T00:00:00Z', NULL);
           INSERT INTO watch_seen VALUES ('w', 'a', 1);
           INSERT INTO fetch_responses (request, api, fetched_at, body, body_len) VALUES ('GET x', 's2', 1, x'00', 1);
           INSERT INTO embed_models VALUES (1, 'm', 2, '/m', 'f', 8, 't', 't');
           INSERT INTO vectors VALUES (1, 1, 'h', 0, x'0000803f0000803f');"#,
    )
    .unwrap();
    let edges = rows(&conn, "SELECT citing, cited FROM edges ORDER BY 1, 2");
    let links = rows(&conn, "SELECT * FROM links ORDER BY 1, 2, 3, 4");
    let kept = others(&conn);

    migrate(&mut conn).unwrap();
    assert_eq!(rows(&conn, "SELECT citing, cited FROM edges ORDER BY 1, 2"), edges, "the edges view");
    assert_eq!(rows(&conn, "SELECT * FROM links ORDER BY 1, 2, 3, 4"), links, "the links view");
    // Schema 23 stores the record's title signature as its code; the rest is as it was.
    let code: Vec<u8> =
        conn.query_row("SELECT title_key FROM records WHERE source_id = 'a'", [], |r| r.get(0)).unwrap();
    assert_eq!(code, super::record_data::title_code("x y"));
    conn.execute("UPDATE records SET title_key = 'x y' WHERE source_id = 'a'", []).unwrap();
    assert_eq!(others(&conn), kept, "the other tables are untouched");
    for (name, ok, examples) in super::check_graph::invariants(&conn).into_iter().map(|i| (i.name, i.ok, i.examples)) {
        assert!(ok, "{name}: {examples:?}");
    }
    drop(conn);

    // Walks over the migrated file equal the BFS over the old edge list.
    let store = Store::open(&path).unwrap();
    let memory = MemoryGraph::new(OLD_EDGES);
    // One search's graph kept across every walk below: what it has read
    // (both directions, any depth) must answer the later walks exactly.
    let kept = super::SearchGraph::new(&store);
    for seed in ["a", "b", "c", "ghost", "outside", "nowhere"] {
        for direction in [Direction::Both, Direction::References, Direction::Citations] {
            for hops in 0..4 {
                let seeds = [seed.to_string()];
                let want: BTreeMap<String, u32> = bfs(&memory, &seeds, hops, direction).unwrap();
                assert_eq!(store.expand_cte(&seeds, hops, direction).unwrap(), want, "cte {seed} {direction} {hops}");
                let stored = bfs(&super::StoreAdjacency(&store), &seeds, hops, direction).unwrap();
                assert_eq!(stored, want, "bfs {seed} {direction} {hops}");
                let fresh = bfs(&super::SearchGraph::new(&store), &seeds, hops, direction).unwrap();
                assert_eq!(fresh, want, "a search's graph, new: {seed} {direction} {hops}");
                assert_eq!(
                    bfs(&kept, &seeds, hops, direction).unwrap(),
                    want,
                    "a search's graph, kept: {seed} {direction} {hops}"
                );
            }
        }
    }
    let graph = super::SearchGraph::new(&store);
    let walk = graph
        .walk_papers(
            &["a".to_string(), "nowhere".to_string()],
            Reach { hops: 1, direction: Direction::Both, fan_out: None },
        )
        .unwrap();
    assert!(walk.via.is_empty(), "no fan-out, no cut");
    assert!(walk.handles.windows(2).all(|w| w[0].0 < w[1].0), "in node order, each once: {:?}", walk.handles);
    let nodes: Vec<i64> = walk.handles.iter().map(|&(n, _)| n).collect();
    let handle: HashMap<i64, Option<i64>> = walk.handles.iter().copied().collect();
    let mut reached: Vec<(String, Option<i64>)> =
        graph.ids_of(&nodes).unwrap().into_iter().map(|(n, id)| (id, handle[&n])).collect();
    reached.sort();
    let ids: Vec<&str> = reached.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "ghost"], "every reached node, by integer");
    assert_eq!(reached[2].1, Some(3), "a reached paper's doc id");
    assert_eq!(reached[3].1, None, "a dangling id is no paper");
    assert_eq!(walk.papers.iter().find(|p| p.0 == 3), Some(&(3, 1, Some(2023))), "its distance and year, by doc id");
    let mut docs: Vec<i64> = walk.papers.iter().map(|p| p.0).collect();
    docs.sort_unstable();
    docs.dedup();
    assert_eq!(docs.len(), walk.papers.len(), "each paper once");
    assert_eq!(walk.papers.len(), reached.iter().filter(|(_, doc)| doc.is_some()).count());
    let unknown: Vec<(&String, &u32)> = walk.ids.iter().collect();
    assert_eq!(unknown, [(&"nowhere".to_string(), &0)], "a seed the graph does not know, by id");
    // A fan-out of 1: `a` cites b and ghost and is cited by b and c; one of
    // each list is followed, the same one through a search's graph and
    // through the plain adjacency, and every paper reached names the cut.
    let cut = super::SearchGraph::new(&store)
        .walk_papers(&["a".to_string()], Reach { hops: 1, direction: Direction::Both, fan_out: Some(1) })
        .unwrap();
    assert_eq!(cut.handles.len(), 3, "the seed and one of each list: {:?}", cut.handles);
    let seed = store.doc_of("a").unwrap();
    let seed_node = cut.handles.iter().find(|(_, d)| *d == seed).map(|(n, _)| *n);
    for (node, via) in &cut.via {
        assert_ne!(Some(*node), seed_node);
        assert!(cut.handles.iter().any(|(n, _)| n == node), "{node} is a reached node");
        assert_eq!(via.total, 2);
        assert_eq!(Some(via.node), seed_node);
    }
    assert_eq!(cut.via.len(), cut.handles.len() - 1, "every node but the seed came through a cut list");
    let a = super::StoreAdjacency(&store).nodes_of(&["a".to_string()]).unwrap()[0].1;
    let plain = crate::graph::bfs_nodes(
        &super::StoreAdjacency(&store),
        &[a],
        Reach { hops: 1, direction: Direction::Both, fan_out: Some(1) },
    )
    .unwrap();
    let mut plain: Vec<i64> = plain.dist.into_keys().collect();
    let mut kept: Vec<i64> = cut.handles.into_iter().map(|(n, _)| n).collect();
    plain.sort();
    kept.sort();
    assert_eq!(plain, kept, "the same sample through either adjacency");
    drop(store);

    // The migrated index takes new links: an edge file line and a re-derivation.
    let conn = Connection::open(&path).unwrap();
    let tx = conn.unchecked_transaction().unwrap();
    let writer = super::ingest_writer::IngestWriter::new(super::Handle::new(&tx)).unwrap();
    assert!(writer.add_link("ghost", "doi:10.1/b").unwrap());
    assert!(!writer.add_link("ghost", "doi:10.1/b").unwrap(), "stated once");
    // A PDF's reference writes its edge as it goes, to a list the link above also changes.
    let (ghost, other) =
        (super::edges::node_of(&tx, "ghost").unwrap(), super::edges::node_of(&tx, "ghost-ref").unwrap());
    assert!(super::edges::insert_link(&tx, ghost, other, 0).unwrap());
    super::edges::derive_one(&tx, ghost, other).unwrap();
    writer.finish(|| {}).unwrap();
    tx.commit().unwrap();
    let n: i64 =
        conn.query_row("SELECT count(*) FROM edges WHERE citing = 'ghost' AND cited = 'b'", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1, "the new link's edge, its cited end resolved through the aliases");
    let n: i64 = conn
        .query_row("SELECT count(*) FROM edges WHERE citing = 'ghost' AND cited = 'ghost-ref'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the edge written while the load ran is kept");
    for i in super::check_graph::invariants(&conn) {
        assert!(i.ok, "{}: {:?}", i.name, i.examples);
    }
}

/// The bulk derivation gives every node its two lists in one row, an end
/// resolved to its paper's node, a link stated twice once, a link of a
/// paper to itself none, and the rows stored before gone; the same rows
/// however many passes over ranges of nodes it takes.
#[test]
fn the_bulk_derivation_resolves_ends_drops_repeats_and_passes_change_nothing() {
    let mut conn = Connection::open_in_memory().unwrap();
    migrate(&mut conn).unwrap();
    conn.execute_batch(
        "INSERT INTO nodes (node, id) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'doi:b'), (6, 'e'), (7, 'x');
         INSERT INTO aliases VALUES ('doi:b', 'b', 'doi');
         INSERT INTO adjacency_lists (node, cites) VALUES (7, '[1]');",
    )
    .unwrap();
    // a's references name b twice (once by its doi) and c; c's citations
    // name a again and d; b's own record (by its doi) cites b and e; an
    // edge file has e citing a.
    for (own, origin, others) in [(1, 2, vec![2, 3, 5]), (3, 3, vec![1, 4]), (5, 4, vec![2, 6]), (6, 0, vec![1])] {
        super::stated::put(&conn, own, origin, &others).unwrap();
    }
    let expected = [
        "Integer(1)|Text(\"[2,3]\")|Text(\"[6]\")",
        "Integer(2)|Text(\"[6]\")|Text(\"[1]\")",
        "Integer(3)|Null|Text(\"[1,4]\")",
        "Integer(4)|Text(\"[3]\")|Null",
        "Integer(6)|Text(\"[1]\")|Text(\"[2]\")",
    ];
    for pass_pairs in [1, 3, u64::MAX] {
        super::edges::derive_all_in(&conn, pass_pairs).unwrap();
        assert_eq!(
            rows(&conn, "SELECT node, cites, cited_by FROM adjacency_lists ORDER BY node"),
            expected,
            "{pass_pairs}"
        );
    }
}
