//! `check`'s invariants over the postings blocks. SQL cannot look inside a
//! block, so these decode every block once in Rust and compare what they
//! hold with `terms` and `papers`: document frequencies, term-frequency sums,
//! the lengths the postings carry, and each block's own metadata.

use std::collections::HashMap;

use rusqlite::Connection;

use super::blocks::{BLOCK_SIZE, Block, Field};
use super::check::{EXAMPLES, InvariantResult};

/// One invariant's violations as they are found.
struct Tally {
    name: &'static str,
    description: &'static str,
    violations: u64,
    examples: Vec<String>,
}

impl Tally {
    fn new(name: &'static str, description: &'static str) -> Tally {
        Tally { name, description, violations: 0, examples: Vec::new() }
    }

    fn add(&mut self, example: impl FnOnce() -> String) {
        self.violations += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(example());
        }
    }

    fn done(self) -> InvariantResult {
        let Tally { name, description, violations, examples } = self;
        InvariantResult { name, description, ok: violations == 0, violations, examples }
    }
}

const INVARIANTS: [(&str, &str); 7] = [
    ("df", "each term's document frequency equals its postings count (and is at least 1)"),
    ("doc-len", "each document length equals the sum of its term frequencies"),
    ("paper-lengths", "the chunks of document lengths (paper_lengths) hold each paper's doc_len, and nothing else"),
    ("tf", "every term frequency is at least 1"),
    ("posting-paper", "every posting belongs to a paper"),
    ("posting-term", "every posting belongs to a term"),
    (
        "blocks",
        "every postings block decodes to 1..=128 postings in doc order, after the term's previous block, \
         and its last_doc, n, max_tf and min_len are those of its postings",
    ),
];

/// The postings invariants, in the order of [`INVARIANTS`].
pub(crate) fn check_postings(conn: &Connection) -> Vec<InvariantResult> {
    match tally(conn) {
        Ok(tallies) => tallies.into_iter().map(Tally::done).collect(),
        Err(e) => INVARIANTS
            .iter()
            .map(|&(name, description)| InvariantResult {
                name,
                description,
                ok: false,
                violations: 1,
                examples: vec![format!("could not be evaluated: {e}")],
            })
            .collect(),
    }
}

fn tally(conn: &Connection) -> anyhow::Result<Vec<Tally>> {
    let [mut df, mut doc_len, mut lengths, mut tf, mut posting_paper, mut posting_term, mut blocks] =
        INVARIANTS.map(|(name, description)| Tally::new(name, description));

    let mut papers: HashMap<i64, (String, i64)> = HashMap::new();
    let mut stmt = conn.prepare("SELECT doc, id, doc_len FROM papers")?;
    for row in stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))? {
        let (doc, paper) = row?;
        papers.insert(doc, paper);
    }
    let mut terms: HashMap<i64, (String, i64)> = HashMap::new();
    let mut stmt = conn.prepare("SELECT term_id, term, df FROM terms")?;
    for row in stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))? {
        let (id, term) = row?;
        terms.insert(id, term);
    }

    let mut counted: HashMap<i64, i64> = HashMap::new();
    let mut tf_sums: HashMap<i64, i64> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT term_id, last_doc, n, max_tf, min_len, data FROM posting_blocks ORDER BY term_id, last_doc")?;
    let mut rows = stmt.query([])?;
    let mut previous: Option<(i64, i64)> = None;
    while let Some(r) = rows.next()? {
        let term_id: i64 = r.get(0)?;
        let block = Block { last_doc: r.get(1)?, n: r.get(2)?, max_tf: r.get(3)?, min_len: r.get(4)?, data: r.get(5)? };
        let at = || format!("term_id {term_id}, block ending at doc {}", block.last_doc);
        let after = previous.filter(|(t, _)| *t == term_id).map_or(0, |(_, last)| last);
        previous = Some((term_id, block.last_doc));
        if block.n == 0 || block.n as usize > BLOCK_SIZE {
            blocks.add(|| format!("{}: n is {}", at(), block.n));
        }
        let pairs = match block.pairs() {
            Ok(p) => p,
            Err(e) => {
                blocks.add(|| format!("{}: does not decode: {e}", at()));
                continue;
            }
        };
        // The shortest length as the papers' rows give it (a posting of no
        // paper is reported below, and left out of it).
        let min_len = pairs.iter().filter_map(|(d, _)| papers.get(d)).map(|p| p.1).min();
        let again = Block::from_pairs(pairs.iter().copied(), min_len.map_or(block.min_len, |l| l as u32));
        if pairs.first().is_some_and(|p| p.0 <= after) {
            blocks.add(|| format!("{}: starts at doc {}, not after the previous block's {after}", at(), pairs[0].0));
        }
        if (again.last_doc, again.max_tf, again.min_len) != (block.last_doc, block.max_tf, block.min_len) {
            blocks.add(|| {
                format!(
                    "{}: holds last doc {}, max tf {}, min length {}; the row says {}, {}, {}",
                    at(),
                    again.last_doc,
                    again.max_tf,
                    again.min_len,
                    block.last_doc,
                    block.max_tf,
                    block.min_len
                )
            });
        }
        *counted.entry(term_id).or_default() += pairs.len() as i64;
        if !terms.contains_key(&term_id) {
            for p in &pairs {
                posting_term.add(|| format!("posting (term_id {term_id}, doc {}): no term has id {term_id}", p.0));
            }
        }
        for &(doc, f) in &pairs {
            if f < 1 {
                tf.add(|| format!("posting (term_id {term_id}, doc {doc}) has tf {f}"));
            }
            *tf_sums.entry(doc).or_default() += i64::from(f);
            if !papers.contains_key(&doc) {
                posting_paper.add(|| format!("posting (term_id {term_id}, doc {doc}): no paper has doc {doc}"));
            }
        }
    }

    let mut by_term: Vec<(&String, i64, i64)> = terms
        .iter()
        .map(|(id, (term, stored))| (term, *stored, counted.get(id).copied().unwrap_or(0)))
        .filter(|&(_, stored, n)| stored != n || n == 0)
        .collect();
    by_term.sort();
    for (term, stored, n) in by_term {
        df.add(|| format!("term {term:?}: df {stored}, {n} postings"));
    }
    let mut by_paper: Vec<(&String, i64, i64)> =
        papers.iter().map(|(doc, (id, len))| (id, *len, tf_sums.get(doc).copied().unwrap_or(0))).collect();
    by_paper.sort();
    for &(id, len, sum) in &by_paper {
        if len != sum {
            doc_len.add(|| format!("paper {id:?}: doc_len {len}, term frequencies sum to {sum}"));
        }
    }
    for (chunk, what) in super::lengths::stale_chunks(conn, Field::Papers, usize::MAX)? {
        lengths.add(|| format!("chunk {chunk}: {what}"));
    }
    Ok(vec![df, doc_len, lengths, tf, posting_paper, posting_term, blocks])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of 300 papers: "common" in each (three blocks), "rare" in one.
    fn index(dir: &std::path::Path) -> Connection {
        let docs: Vec<(String, String)> = (0..300)
            .map(|i| (format!("p{i:03}"), format!("common words{}", if i == 7 { " rare" } else { "" })))
            .collect();
        Connection::open(super::super::block_max::tests::build(dir, &docs)).unwrap()
    }

    fn broken(conn: &Connection) -> Vec<(&'static str, Vec<String>)> {
        check_postings(conn).into_iter().filter(|i| !i.ok).map(|i| (i.name, i.examples)).collect()
    }

    #[test]
    fn a_sound_index_passes_and_damage_to_a_block_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let conn = index(dir.path());
        assert_eq!(broken(&conn), []);
        let common: i64 = conn.query_row("SELECT term_id FROM terms WHERE term = 'common'", [], |r| r.get(0)).unwrap();
        let blocks: Vec<(i64, i64)> = conn
            .prepare("SELECT n, last_doc FROM posting_blocks WHERE term_id = ?1 ORDER BY last_doc")
            .unwrap()
            .query_map([common], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(blocks.iter().map(|b| b.0).collect::<Vec<_>>(), [128, 128, 44]);

        // A wrong bound: max_tf lowered would let top-k skip a block wrongly.
        conn.execute(
            "UPDATE posting_blocks SET max_tf = 0 WHERE term_id = ?1 AND last_doc = ?2",
            [common, blocks[1].1],
        )
        .unwrap();
        let b = broken(&conn);
        assert_eq!(b.len(), 1, "{b:?}");
        assert_eq!(b[0].0, "blocks");
        assert!(b[0].1[0].contains("max tf 1") && b[0].1[0].contains("the row says"), "{b:?}");
        conn.execute(
            "UPDATE posting_blocks SET max_tf = 1 WHERE term_id = ?1 AND last_doc = ?2",
            [common, blocks[1].1],
        )
        .unwrap();
        // A shortest length above the block's shortest paper: the same.
        conn.execute(
            "UPDATE posting_blocks SET min_len = min_len + 1 WHERE term_id = ?1 AND last_doc = ?2",
            [common, blocks[1].1],
        )
        .unwrap();
        let b = broken(&conn);
        assert_eq!(b.iter().map(|b| b.0).collect::<Vec<_>>(), ["blocks"], "{b:?}");
        assert!(b[0].1[0].contains("min length 2; the row says") && b[0].1[0].ends_with(", 1, 3"), "{b:?}");
        conn.execute(
            "UPDATE posting_blocks SET min_len = min_len - 1 WHERE term_id = ?1 AND last_doc = ?2",
            [common, blocks[1].1],
        )
        .unwrap();
        assert_eq!(broken(&conn), []);

        // A truncated blob: the block fails to decode, so its postings are missing from df and the lengths.
        conn.execute(
            "UPDATE posting_blocks SET data = substr(data, 1, length(data) - 1) WHERE term_id = ?1 AND last_doc = ?2",
            [common, blocks[0].1],
        )
        .unwrap();
        let names: Vec<&str> = broken(&conn).iter().map(|b| b.0).collect();
        assert_eq!(names, ["df", "doc-len", "blocks"]);
        assert!(broken(&conn)[2].1[0].contains("does not decode"), "{:?}", broken(&conn));
        assert_eq!(broken(&conn)[0].1, ["term \"common\": df 300, 172 postings"]);
    }

    #[test]
    fn a_wrong_df_and_blocks_out_of_order_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let conn = index(dir.path());
        conn.execute("UPDATE terms SET df = df + 1 WHERE term = 'rare'", []).unwrap();
        assert_eq!(broken(&conn), [("df", vec!["term \"rare\": df 2, 1 postings".to_string()])]);
        conn.execute("UPDATE terms SET df = df - 1 WHERE term = 'rare'", []).unwrap();
        // The second block of "common" claims to end before the first one's docs.
        let common: i64 = conn.query_row("SELECT term_id FROM terms WHERE term = 'common'", [], |r| r.get(0)).unwrap();
        conn.execute("UPDATE posting_blocks SET last_doc = 1 WHERE term_id = ?1 AND last_doc = 256", [common]).unwrap();
        let b = broken(&conn);
        assert_eq!(b.iter().map(|b| b.0).collect::<Vec<_>>(), ["blocks"], "{b:?}");
        assert!(b[0].1.iter().any(|e| e.contains("not after the previous block")), "{b:?}");
    }
}
