//! The postings blocks as schemas 8 to 19 wrote them, three varints a
//! posting (the doc delta, the term frequency, the document length): what
//! the migrations write (008, from the row postings of schema 7) and read
//! back (020, which drops the lengths from every blob). Nothing else reads
//! this form.

use anyhow::Context;
use integer_encoding::VarInt;
use rusqlite::{Connection, params};

use super::Posting;
use super::blocks::{BLOCK_SIZE, Block, insert_block, varint};

/// A schema-8 block of `postings` (sorted by doc, distinct, 1 to 128).
fn encode_v8(postings: &[Posting]) -> Block {
    let mut data = Vec::with_capacity(postings.len() * 5);
    let mut buf = [0u8; 10];
    let mut prev = 0i64;
    for p in postings {
        for v in [(p.doc - prev) as u64, u64::from(p.tf), u64::from(p.doc_len)] {
            let len = v.encode_var(&mut buf);
            data.extend_from_slice(&buf[..len]);
        }
        prev = p.doc;
    }
    Block {
        last_doc: prev,
        n: postings.len() as u32,
        max_tf: postings.iter().map(|p| p.tf).max().unwrap_or(0),
        min_len: postings.iter().map(|p| p.doc_len).min().unwrap_or(0),
        data,
    }
}

/// The `(doc, tf)` pairs of a schema-8 blob of `n` postings (their lengths
/// read and dropped); an error when it does not hold exactly them.
fn pairs_v8(data: &[u8], n: usize) -> anyhow::Result<Vec<(i64, u32)>> {
    let mut out = Vec::with_capacity(n);
    let (mut at, mut doc) = (0usize, 0i64);
    for i in 0..n {
        let (Some(delta), Some(tf), Some(_len)) = (varint(data, &mut at), varint(data, &mut at), varint(data, &mut at))
        else {
            anyhow::bail!("posting {i} is cut short (byte {at} of {})", data.len());
        };
        let step = i64::try_from(delta).ok().filter(|&s| s >= 1).context("a doc delta out of range")?;
        doc = doc.checked_add(step).context("doc id overflows")?;
        out.push((doc, u32::try_from(tf).context("a tf out of range")?));
    }
    anyhow::ensure!(at == data.len(), "{} bytes after its {n} postings", data.len() - at);
    Ok(out)
}

/// Rewrites the schema-7 `postings` table (one row per posting) as
/// schema-8 blocks, then drops it: the Rust half of migration 008.
pub(crate) fn convert_row_postings(conn: &Connection) -> anyhow::Result<()> {
    {
        let mut stmt = conn.prepare("SELECT term_id, doc, tf, doc_len FROM postings ORDER BY term_id, doc")?;
        let mut rows = stmt.query([])?;
        let mut term: Option<i64> = None;
        let mut held: Vec<Posting> = Vec::with_capacity(BLOCK_SIZE);
        while let Some(r) = rows.next()? {
            let (term_id, p): (i64, Posting) =
                (r.get(0)?, Posting { doc: r.get(1)?, tf: r.get(2)?, doc_len: r.get(3)? });
            if term != Some(term_id) || held.len() == BLOCK_SIZE {
                if let (Some(t), false) = (term, held.is_empty()) {
                    insert_block(conn, t, &encode_v8(&held))?;
                }
                held.clear();
                term = Some(term_id);
            }
            held.push(p);
        }
        if let (Some(t), false) = (term, held.is_empty()) {
            insert_block(conn, t, &encode_v8(&held))?;
        }
    }
    conn.execute_batch("DROP TABLE postings")?;
    Ok(())
}

/// Rewrites every block of both fields without its lengths: the Rust half
/// of migration 020 (the rows' `n`, `max_tf` and `min_len` stay), a batch
/// of rows at a time in key order.
pub(crate) fn drop_lengths(conn: &Connection) -> anyhow::Result<()> {
    const BATCH: i64 = 10_000;
    for table in ["posting_blocks", "passage_blocks"] {
        let select = format!(
            "SELECT term_id, last_doc, n, data FROM {table} WHERE (term_id, last_doc) > (?1, ?2)
             ORDER BY term_id, last_doc LIMIT {BATCH}"
        );
        let update = format!("UPDATE {table} SET data = ?3 WHERE term_id = ?1 AND last_doc = ?2");
        let mut after = (i64::MIN, i64::MIN);
        loop {
            let rows: Vec<(i64, i64, u32, Vec<u8>)> = conn
                .prepare_cached(&select)?
                .query_map(params![after.0, after.1], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<Result<_, _>>()?;
            let Some(last) = rows.last() else { break };
            after = (last.0, last.1);
            let mut put = conn.prepare_cached(&update)?;
            for (term_id, last_doc, n, data) in rows {
                let pairs = pairs_v8(&data, n as usize).with_context(|| {
                    format!("{table}: the block of term {term_id} ending at doc {last_doc} does not decode")
                })?;
                let again = Block::from_pairs(pairs.into_iter(), 0);
                put.execute(params![term_id, last_doc, again.data])?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_8_block_loses_its_lengths_and_nothing_else() {
        let p = [Posting { doc: 5, tf: 2, doc_len: 7 }, Posting { doc: 300, tf: 1, doc_len: 130 }];
        let old = encode_v8(&p);
        assert_eq!(old.data, [5, 2, 7, 0xa7, 0x02, 1, 0x82, 0x01], "schema 8's layout");
        assert_eq!(pairs_v8(&old.data, 2).unwrap(), [(5, 2), (300, 1)]);
        assert!(pairs_v8(&old.data[..7], 2).is_err());
        assert!(pairs_v8(&old.data, 1).is_err());
        assert_eq!(Block::from_pairs(pairs_v8(&old.data, 2).unwrap().into_iter(), 7).data, [5, 2, 0xa7, 0x02, 1]);
    }
}
