//! Postings as compressed blocks: the `posting_blocks` table and its codec.
//!
//! A term's postings, sorted by doc id, are cut into blocks of at most
//! [`BLOCK_SIZE`]. A block is one row, keyed by `(term_id, last_doc)`, so one
//! term is one range scan and the block holding a doc is the first whose
//! `last_doc` is at least that doc. Beside the blob a row keeps `n` (its
//! postings), `max_tf` and `min_len`: BM25's term score grows with tf and
//! falls with the document length (`k1 ≥ 0`, `0 ≤ b ≤ 1`), so
//! `score(max_tf, min_len)` bounds every posting of the block whatever N and
//! avgdl are when the index is read (they change with every ingest).
//!
//! The blob (`data`) is, for each posting in doc order, two unsigned LEB128
//! varints: the doc id minus the previous posting's (the first posting's
//! minus 0, so a block decodes alone), and the term frequency. Nothing
//! else: no header, no padding. The document's length is not in the blob
//! (until schema 20 it was, as a third varint): it is stored once per
//! document ([`super::lengths`]), and the decoder looks it up.

use anyhow::Context;
use integer_encoding::VarInt;
use rusqlite::{Connection, OptionalExtension, params};

use super::Posting;
use super::lengths::{Lengths, length_of};

/// The most postings a block holds.
pub(crate) const BLOCK_SIZE: usize = 128;

pub(crate) use super::field::Field;

impl Field {
    /// The statement reading every block of a term, in doc order
    /// (`last_doc, n, max_tf, min_len, data`; the term id is `?1`).
    pub(crate) fn select_all(self) -> &'static str {
        match self {
            Field::Papers => {
                "SELECT last_doc, n, max_tf, min_len, data FROM posting_blocks WHERE term_id = ?1 ORDER BY last_doc"
            }
            Field::Passages => {
                "SELECT last_doc, n, max_tf, min_len, data FROM passage_blocks WHERE term_id = ?1 ORDER BY last_doc"
            }
        }
    }
    fn select_from(self) -> &'static str {
        match self {
            Field::Papers => {
                "SELECT last_doc, n, max_tf, min_len, data FROM posting_blocks WHERE term_id = ?1 AND last_doc >= ?2 ORDER BY last_doc"
            }
            Field::Passages => {
                "SELECT last_doc, n, max_tf, min_len, data FROM passage_blocks WHERE term_id = ?1 AND last_doc >= ?2 ORDER BY last_doc"
            }
        }
    }
    fn select_last(self) -> &'static str {
        match self {
            Field::Papers => {
                "SELECT last_doc, n, max_tf, min_len, data FROM posting_blocks WHERE term_id = ?1 ORDER BY last_doc DESC LIMIT 1"
            }
            Field::Passages => {
                "SELECT last_doc, n, max_tf, min_len, data FROM passage_blocks WHERE term_id = ?1 ORDER BY last_doc DESC LIMIT 1"
            }
        }
    }
    fn select_holding(self) -> &'static str {
        match self {
            Field::Papers => {
                "SELECT last_doc, n, max_tf, min_len, data FROM posting_blocks WHERE term_id = ?1 AND last_doc >= ?2 ORDER BY last_doc LIMIT 1"
            }
            Field::Passages => {
                "SELECT last_doc, n, max_tf, min_len, data FROM passage_blocks WHERE term_id = ?1 AND last_doc >= ?2 ORDER BY last_doc LIMIT 1"
            }
        }
    }
    fn insert(self) -> &'static str {
        match self {
            Field::Papers => {
                "INSERT INTO posting_blocks (term_id, last_doc, n, max_tf, min_len, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            }
            Field::Passages => {
                "INSERT INTO passage_blocks (term_id, last_doc, n, max_tf, min_len, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            }
        }
    }
    fn delete(self) -> &'static str {
        match self {
            Field::Papers => "DELETE FROM posting_blocks WHERE term_id = ?1 AND last_doc = ?2",
            Field::Passages => "DELETE FROM passage_blocks WHERE term_id = ?1 AND last_doc = ?2",
        }
    }
}

/// One stored block: its metadata and its still encoded postings.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub last_doc: i64,
    pub n: u32,
    pub max_tf: u32,
    pub min_len: u32,
    pub data: Vec<u8>,
}

impl Block {
    /// Encodes `postings` (sorted by doc, distinct, 1 to [`BLOCK_SIZE`] of them).
    pub fn encode(postings: &[Posting]) -> Block {
        let min_len = postings.iter().map(|p| p.doc_len).min().unwrap_or(0);
        Block::from_pairs(postings.iter().map(|p| (p.doc, p.tf)), min_len)
    }

    /// Encodes `(doc, tf)` pairs (sorted by doc, distinct, 1 to
    /// [`BLOCK_SIZE`] of them) whose documents' shortest length is `min_len`.
    pub(crate) fn from_pairs(pairs: impl ExactSizeIterator<Item = (i64, u32)>, min_len: u32) -> Block {
        let n = pairs.len();
        debug_assert!(n > 0 && n <= BLOCK_SIZE);
        let mut data = Vec::with_capacity(n * 3);
        let mut buf = [0u8; 10];
        let (mut prev, mut max_tf) = (0i64, 0u32);
        for (doc, tf) in pairs {
            debug_assert!(doc > prev);
            for v in [(doc - prev) as u64, u64::from(tf)] {
                let len = v.encode_var(&mut buf);
                data.extend_from_slice(&buf[..len]);
            }
            prev = doc;
            max_tf = max_tf.max(tf);
        }
        Block { last_doc: prev, n: n as u32, max_tf, min_len, data }
    }

    /// The block's postings, each with its document's length from
    /// `lengths`; an error names what is wrong with the blob.
    pub fn decode(&self, lengths: &Lengths) -> anyhow::Result<Vec<Posting>> {
        decode(&self.data, self.n as usize, lengths)
    }

    /// The block's `(doc, tf)` pairs.
    pub(crate) fn pairs(&self) -> anyhow::Result<Vec<(i64, u32)>> {
        let mut out = Vec::with_capacity(self.n as usize);
        decode_with(&self.data, self.n as usize, |doc, tf| {
            out.push((doc, tf));
            Ok(())
        })?;
        Ok(out)
    }
}

/// Decodes `n` postings from a block's blob, which must hold exactly them.
pub fn decode(data: &[u8], n: usize, lengths: &Lengths) -> anyhow::Result<Vec<Posting>> {
    let mut out = Vec::with_capacity(n);
    decode_into(data, n, lengths, &mut out)?;
    Ok(out)
}

/// [`decode`] into `out` (cleared first), which a caller decoding many
/// blocks reuses.
pub fn decode_into(data: &[u8], n: usize, lengths: &Lengths, out: &mut Vec<Posting>) -> anyhow::Result<()> {
    out.clear();
    out.reserve(n);
    decode_with(data, n, |doc, tf| {
        let Some(doc_len) = lengths.get(doc) else { return Err(no_length(doc)) };
        out.push(Posting { doc, tf, doc_len });
        Ok(())
    })
}

/// Calls `each(doc, tf)` for the `n` postings of a block's blob, in order;
/// an error when the blob does not hold exactly them.
#[inline(always)]
fn decode_with(data: &[u8], n: usize, mut each: impl FnMut(i64, u32) -> anyhow::Result<()>) -> anyhow::Result<()> {
    let mut at = 0usize;
    let mut doc = 0i64;
    // The checks are plain branches; an error is built only on the way out.
    for i in 0..n {
        let Some(delta) = varint(data, &mut at) else { return Err(ends_inside(data, "doc delta", i, at)) };
        let Some(tf) = varint(data, &mut at) else { return Err(ends_inside(data, "tf", i, at)) };
        let (Ok(step), Ok(tf)) = (i64::try_from(delta), u32::try_from(tf)) else {
            return Err(out_of_range(i, delta, tf));
        };
        anyhow::ensure!(step >= 1, "posting {i}: doc delta {delta} (doc ids start at 1 and increase)");
        doc = doc.checked_add(step).context("doc id overflows")?;
        each(doc, tf)?;
    }
    anyhow::ensure!(at == data.len(), "block blob has {} bytes after its {n} postings", data.len() - at);
    Ok(())
}

#[cold]
fn no_length(doc: i64) -> anyhow::Error {
    anyhow::anyhow!("doc {doc} has postings but no stored length")
}

#[cold]
fn ends_inside(data: &[u8], what: &str, i: usize, at: usize) -> anyhow::Error {
    anyhow::anyhow!("block blob ends inside posting {i}'s {what} (byte {at} of {})", data.len())
}

#[cold]
fn out_of_range(i: usize, delta: u64, tf: u64) -> anyhow::Error {
    if i64::try_from(delta).is_err() {
        anyhow::anyhow!("posting {i}: doc delta {delta} is out of range")
    } else {
        anyhow::anyhow!("posting {i}: tf {tf} is out of range")
    }
}

/// The unsigned LEB128 varint at `data[*at..]` (as [`VarInt::encode_var`]
/// writes it), moving `at` past it; `None` when the blob ends inside it or
/// it runs past 64 bits. Written out rather than `u64::decode_var`, with
/// the one- and two-byte values (a tf, a short delta, a doc length) on the
/// inlined path and the longer ones in [`varint_long`]: this is most of a
/// posting's decoding, and decoding is 40 % of a BM25 top-10 at 1M.
#[inline(always)]
pub(in crate::store) fn varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let b0 = *data.get(*at)?;
    if b0 < 0x80 {
        *at += 1;
        return Some(u64::from(b0));
    }
    let b1 = *data.get(*at + 1)?;
    if b1 < 0x80 {
        *at += 2;
        return Some(u64::from(b0 & 0x7f) | u64::from(b1) << 7);
    }
    varint_long(data, at)
}

/// [`varint`] of three bytes or more (or of a blob that ends inside it).
#[inline(never)]
fn varint_long(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = *data.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some(value);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// `postings` (sorted by doc) cut into blocks of [`BLOCK_SIZE`].
pub fn chunk(postings: &[Posting]) -> impl Iterator<Item = Block> + '_ {
    postings.chunks(BLOCK_SIZE).map(Block::encode)
}

/// The id and document frequency of `term`, or `None` for an unknown term.
pub(crate) fn term_id_df(conn: &Connection, term: &str) -> anyhow::Result<Option<(i64, u64)>> {
    Ok(conn
        .prepare_cached("SELECT term_id, df FROM terms WHERE term = ?1")?
        .query_row([term], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, u64>(1)?)))
        .optional()?)
}

/// Every block of `term_id`, in doc order (one range scan).
pub(crate) fn term_blocks(conn: &Connection, term_id: i64) -> anyhow::Result<Vec<Block>> {
    term_blocks_in(conn, Field::Papers, term_id)
}

/// [`term_blocks`] of either field.
pub(crate) fn term_blocks_in(conn: &Connection, field: Field, term_id: i64) -> anyhow::Result<Vec<Block>> {
    let mut stmt = conn.prepare_cached(field.select_all())?;
    let rows = stmt.query_map([term_id], block_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn block_row(r: &rusqlite::Row) -> rusqlite::Result<Block> {
    Ok(Block { last_doc: r.get(0)?, n: r.get(1)?, max_tf: r.get(2)?, min_len: r.get(3)?, data: r.get(4)? })
}

/// Every block of `term_id` decoded, in doc order.
pub(crate) fn term_postings(conn: &Connection, term_id: i64, lengths: &Lengths) -> anyhow::Result<Vec<Posting>> {
    term_postings_in(conn, Field::Papers, term_id, lengths)
}

/// [`term_postings`] of either field (`lengths` of that field).
pub(crate) fn term_postings_in(
    conn: &Connection,
    field: Field,
    term_id: i64,
    lengths: &Lengths,
) -> anyhow::Result<Vec<Posting>> {
    let mut out = Vec::new();
    for b in term_blocks_in(conn, field, term_id)? {
        out.extend(b.decode(lengths).with_context(|| format!("term {term_id}, block ending at doc {}", b.last_doc))?);
    }
    Ok(out)
}

pub(crate) fn insert_block(conn: &Connection, term_id: i64, b: &Block) -> anyhow::Result<()> {
    insert_block_in(conn, Field::Papers, term_id, b)
}

fn insert_block_in(conn: &Connection, field: Field, term_id: i64, b: &Block) -> anyhow::Result<()> {
    conn.prepare_cached(field.insert())?.execute(params![term_id, b.last_doc, b.n, b.max_tf, b.min_len, b.data])?;
    Ok(())
}

fn delete_block(conn: &Connection, field: Field, term_id: i64, last_doc: i64) -> anyhow::Result<()> {
    conn.prepare_cached(field.delete())?.execute(params![term_id, last_doc])?;
    Ok(())
}

/// Adds `new` (sorted by doc, distinct) to the postings of `term_id`.
///
/// New papers get the highest doc ids, so `new` usually lies past the term's
/// last block: that block, when not full, is rewritten with the first new
/// postings and the rest become new blocks. Blocks that overlap `new` (a doc
/// id below the term's last one) are decoded, merged and rewritten too.
pub(crate) fn add_postings(conn: &Connection, term_id: i64, new: &[Posting]) -> anyhow::Result<()> {
    add_postings_in(conn, Field::Papers, term_id, new)
}

/// Writes the postings of a term that has none yet (sorted by doc,
/// distinct) as its blocks: [`add_postings`] without looking for blocks to
/// extend.
pub(crate) fn new_postings(conn: &Connection, term_id: i64, new: &[Posting]) -> anyhow::Result<()> {
    new_postings_in(conn, Field::Papers, term_id, new)
}

/// [`new_postings`] into either field's blocks.
fn new_postings_in(conn: &Connection, field: Field, term_id: i64, new: &[Posting]) -> anyhow::Result<()> {
    for b in chunk(new) {
        insert_block_in(conn, field, term_id, &b)?;
    }
    Ok(())
}

/// [`add_postings`] into either field's blocks.
///
/// A rewritten block's shortest length is exact: a block holding all the
/// postings of a block it replaces takes that block's `min_len`, the new
/// postings bring their own lengths, and any other old posting's length is
/// read from its document's row ([`length_of`]).
pub(crate) fn add_postings_in(conn: &Connection, field: Field, term_id: i64, new: &[Posting]) -> anyhow::Result<()> {
    let Some(first) = new.first() else { return Ok(()) };
    let mut tail: Vec<Block> = {
        let mut stmt = conn.prepare_cached(field.select_from())?;
        stmt.query_map(params![term_id, first.doc], block_row)?.collect::<Result<_, _>>()?
    };
    if tail.is_empty() {
        let last = conn.prepare_cached(field.select_last())?.query_row([term_id], block_row).optional()?;
        tail.extend(last.filter(|b| (b.n as usize) < BLOCK_SIZE));
    }
    if tail.is_empty() {
        return new_postings_in(conn, field, term_id, new);
    }
    // (doc, tf, where from: the old block's position, or the new length).
    let mut merged: Vec<(i64, u32, Origin)> = Vec::with_capacity(tail.len() * BLOCK_SIZE + new.len());
    for (i, b) in tail.iter().enumerate() {
        let pairs = b.pairs().with_context(|| format!("index damaged: term {term_id}, block {}", b.last_doc))?;
        merged.extend(pairs.into_iter().map(|(doc, tf)| (doc, tf, Origin::Old(i))));
        delete_block(conn, field, term_id, b.last_doc)?;
    }
    merged.extend(new.iter().map(|p| (p.doc, p.tf, Origin::New(p.doc_len))));
    merged.sort_by_key(|p| p.0);
    if let Some(w) = merged.windows(2).find(|w| w[0].0 == w[1].0) {
        anyhow::bail!("index damaged: term {term_id} would hold doc {} twice", w[0].0);
    }
    for part in merged.chunks(BLOCK_SIZE) {
        let mut min_len = u32::MAX;
        for (i, b) in tail.iter().enumerate() {
            let held = part.iter().filter(|p| p.2 == Origin::Old(i)).count();
            if held == b.n as usize {
                min_len = min_len.min(b.min_len);
            } else if held > 0 {
                for &(doc, _, _) in part.iter().filter(|p| p.2 == Origin::Old(i)) {
                    let len = length_of(conn, field, doc)?
                        .with_context(|| format!("index damaged: term {term_id} holds doc {doc}, which has no row"))?;
                    min_len = min_len.min(len);
                }
            }
        }
        for p in part {
            if let Origin::New(len) = p.2 {
                min_len = min_len.min(len);
            }
        }
        let b = Block::from_pairs(part.iter().map(|p| (p.0, p.1)), min_len);
        insert_block_in(conn, field, term_id, &b)?;
    }
    Ok(())
}

/// Where a posting being merged into a term's blocks comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Origin {
    /// The old block at this position of the tail.
    Old(usize),
    /// The new postings, with its document's length.
    New(u32),
}

/// Removes the posting of `doc` from `term_id`'s blocks (rewriting the block
/// that held it); returns whether there was one. `len` is the document's
/// length: when it is above the block's shortest, that stays the shortest;
/// otherwise the other postings' lengths are read from their rows.
pub(crate) fn remove_posting(conn: &Connection, term_id: i64, doc: i64, len: u32) -> anyhow::Result<bool> {
    remove_posting_in(conn, Field::Papers, term_id, doc, len)
}

/// [`remove_posting`] from either field's blocks.
pub(crate) fn remove_posting_in(
    conn: &Connection,
    field: Field,
    term_id: i64,
    doc: i64,
    len: u32,
) -> anyhow::Result<bool> {
    let block = conn.prepare_cached(field.select_holding())?.query_row(params![term_id, doc], block_row).optional()?;
    let Some(block) = block else { return Ok(false) };
    let mut pairs =
        block.pairs().with_context(|| format!("index damaged: term {term_id}, block {}", block.last_doc))?;
    let Ok(at) = pairs.binary_search_by_key(&doc, |p| p.0) else { return Ok(false) };
    pairs.remove(at);
    delete_block(conn, field, term_id, block.last_doc)?;
    if !pairs.is_empty() {
        let min_len = if len > block.min_len {
            block.min_len
        } else {
            let mut min_len = u32::MAX;
            for &(d, _) in &pairs {
                let l = length_of(conn, field, d)?
                    .with_context(|| format!("index damaged: term {term_id} holds doc {d}, which has no row"))?;
                min_len = min_len.min(l);
            }
            min_len
        };
        insert_block_in(conn, field, term_id, &Block::from_pairs(pairs.into_iter(), min_len))?;
    }
    Ok(true)
}

/// The number of postings stored (the sum of the blocks' `n`).
pub(crate) fn count_postings(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT coalesce(sum(n), 0) FROM posting_blocks", [], |r| r.get(0))
}

/// A term's blocks as `litindex postings` shows them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TermBlocks {
    pub term: String,
    pub df: u64,
    pub blocks: Vec<BlockInfo>,
    /// Every posting, in doc order.
    pub postings: Vec<Posting>,
}

/// One block's metadata and size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BlockInfo {
    pub last_doc: i64,
    pub n: u32,
    pub max_tf: u32,
    pub min_len: u32,
    /// The length of its `data` blob.
    pub bytes: usize,
}

impl super::Store {
    /// The blocks and decoded postings of `term` (an indexed term, as the
    /// analyzer wrote it), or `None` when it is not indexed.
    pub fn term_blocks(&self, term: &str) -> anyhow::Result<Option<TermBlocks>> {
        let Some((term_id, df)) = term_id_df(&self.conn, term)? else { return Ok(None) };
        let blocks = term_blocks(&self.conn, term_id)?;
        let lengths = self.lengths(Field::Papers)?;
        let mut postings = Vec::new();
        for b in &blocks {
            postings.extend(
                b.decode(&lengths).with_context(|| format!("term `{term}`: block ending at doc {}", b.last_doc))?,
            );
        }
        let blocks = blocks
            .iter()
            .map(|b| BlockInfo {
                last_doc: b.last_doc,
                n: b.n,
                max_tf: b.max_tf,
                min_len: b.min_len,
                bytes: b.data.len(),
            })
            .collect();
        Ok(Some(TermBlocks { term: term.to_string(), df, blocks, postings }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn postings(docs: impl IntoIterator<Item = i64>) -> Vec<Posting> {
        docs.into_iter().map(|d| Posting { doc: d, tf: (d % 7 + 1) as u32, doc_len: (d % 300 + 3) as u32 }).collect()
    }

    /// The lengths `postings` carry.
    fn lengths_of(postings: &[Posting]) -> Lengths {
        Lengths::from_pairs(postings.iter().map(|p| (p.doc, p.doc_len)))
    }

    #[test]
    fn a_block_is_laid_out_as_documented() {
        // docs 5 and 300, tf 2 and 1, lengths 7 and 130: varints 5 2, 295 1;
        // the lengths only in the row's min_len.
        let p = [Posting { doc: 5, tf: 2, doc_len: 7 }, Posting { doc: 300, tf: 1, doc_len: 130 }];
        let b = Block::encode(&p);
        assert_eq!(b.data, [5, 2, 0xa7, 0x02, 1]);
        assert_eq!((b.last_doc, b.n, b.max_tf, b.min_len), (300, 2, 2, 7));
        assert_eq!(b.decode(&lengths_of(&p)).unwrap(), p);
        assert_eq!(b.pairs().unwrap(), [(5, 2), (300, 1)]);
        let err = b.decode(&Lengths::from_pairs([(5, 7)])).unwrap_err().to_string();
        assert_eq!(err, "doc 300 has postings but no stored length");
    }

    #[test]
    fn blocks_are_cut_at_128() {
        for (count, sizes) in [(1usize, vec![1u32]), (128, vec![128]), (129, vec![128, 1]), (257, vec![128, 128, 1])] {
            let p = postings(1..=count as i64);
            let blocks: Vec<Block> = chunk(&p).collect();
            assert_eq!(blocks.iter().map(|b| b.n).collect::<Vec<_>>(), sizes, "{count}");
            let back: Vec<Posting> = blocks.iter().flat_map(|b| b.decode(&lengths_of(&p)).unwrap()).collect();
            assert_eq!(back, p);
            assert_eq!(blocks.last().unwrap().last_doc, count as i64);
        }
    }

    #[test]
    fn a_damaged_blob_is_an_error_not_a_panic() {
        let p = postings([3, 9, 1_000_000]);
        let (b, l) = (Block::encode(&p), lengths_of(&p));
        assert!(decode(&b.data[..b.data.len() - 1], 3, &l).is_err(), "truncated");
        assert!(decode(&b.data, 4, &l).is_err(), "n too large");
        assert!(decode(&b.data, 2, &l).is_err(), "bytes left over");
        assert!(decode(&[0x80; 12], 1, &l).is_err(), "a varint that never ends");
        assert!(decode(&[0, 1], 1, &l).is_err(), "doc 0");
    }

    proptest! {
        /// The varint reader reads what `VarInt::encode_var` wrote, and
        /// only that: any value (one, two and three bytes long as often as
        /// the rest: the reader has a path for each), and any bytes after it.
        #[test]
        fn varints_read_what_the_encoder_wrote(v in prop_oneof![0u64..0x80, 0x80u64..0x4000, 0x4000u64..0x20_0000, any::<u64>()], tail in proptest::collection::vec(any::<u8>(), 0..4)) {
            let mut buf = [0u8; 10];
            let len = v.encode_var(&mut buf);
            let mut data = buf[..len].to_vec();
            data.extend_from_slice(&tail);
            let mut at = 0;
            prop_assert_eq!(varint(&data, &mut at), Some(v));
            prop_assert_eq!(at, len);
            let mut at = 0;
            prop_assert_eq!(varint(&data[..len - 1], &mut at), None);
        }

        #[test]
        fn blocks_round_trip(mut docs in proptest::collection::btree_set(1i64..5_000_000, 1..400),
                             tfs in proptest::collection::vec(1u32..100_000, 400),
                             lens in proptest::collection::vec(0u32..u32::MAX - 1, 400)) {
            let p: Vec<Posting> = std::mem::take(&mut docs).into_iter().enumerate()
                .map(|(i, doc)| Posting { doc, tf: tfs[i], doc_len: lens[i] }).collect();
            let blocks: Vec<Block> = chunk(&p).collect();
            prop_assert!(blocks.iter().all(|b| b.n as usize <= BLOCK_SIZE));
            let l = lengths_of(&p);
            for b in &blocks {
                let d = b.decode(&l).unwrap();
                prop_assert_eq!(b.max_tf, d.iter().map(|p| p.tf).max().unwrap());
                prop_assert_eq!(b.min_len, d.iter().map(|p| p.doc_len).min().unwrap());
                prop_assert_eq!(b.last_doc, d.last().unwrap().doc);
            }
            let back: Vec<Posting> = blocks.iter().flat_map(|b| b.decode(&l).unwrap()).collect();
            prop_assert_eq!(back, p);
        }
    }
}
