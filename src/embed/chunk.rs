//! Sentence-window chunks of an abstract, for reranking by the best-matching
//! passage.
//!
//! The abstract is split into sentences by [`split_sentences`], the one
//! splitter of snippets, context packs and the citation check (so `e.g.`,
//! `Fig. 2`, `et al.` and a `.` before a lowercase word end no sentence, and
//! a closing quote or bracket stays with its sentence); a window takes
//! consecutive sentences while it stays within [`CHUNK_CHARS`] characters
//! (always at least one sentence), and the next window starts at the last
//! sentence of the previous one, so neighbouring chunks overlap by one
//! sentence. Each chunk is embedded with the paper's title in front.

use std::collections::HashMap;

use super::dense::dot;
use crate::sentences::split_sentences;

/// The target size of a chunk, in characters.
pub(crate) const CHUNK_CHARS: usize = 512;

/// One chunk: its position in the paper and its byte range in the abstract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub position: usize,
    pub start: usize,
    pub end: usize,
}

/// The sentence windows of `text` (empty for an empty text).
pub fn chunks(text: &str) -> Vec<Chunk> {
    let sents: Vec<(usize, usize)> = split_sentences(text).into_iter().map(|r| (r.start, r.end)).collect();
    let chars = |a: usize, b: usize| text[a..b].chars().count();
    let mut out = Vec::new();
    let mut first = 0;
    while first < sents.len() {
        let mut last = first;
        while last + 1 < sents.len() && chars(sents[first].0, sents[last + 1].1) <= CHUNK_CHARS {
            last += 1;
        }
        out.push(Chunk { position: out.len(), start: sents[first].0, end: sents[last].1 });
        if last + 1 >= sents.len() {
            break;
        }
        // Overlap by one sentence, but always move forward.
        first = if last > first { last } else { last + 1 };
    }
    out
}

/// The text embedded for a chunk: the title, then the chunk.
pub(crate) fn chunk_text(title: &str, abstract_: &str, c: &Chunk) -> String {
    format!("{} {}", title.trim(), &abstract_[c.start..c.end]).trim().to_string()
}

/// Every chunk vector of every paper, contiguous, with each paper's rows.
#[derive(Debug, Clone, Default)]
pub struct ChunkIndex {
    dim: usize,
    data: Vec<f32>,
    rows: HashMap<i64, (usize, usize)>,
    count: usize,
}

impl ChunkIndex {
    pub fn new(dim: usize) -> ChunkIndex {
        ChunkIndex { dim, ..ChunkIndex::default() }
    }

    /// Adds the chunks of one paper (rows of `dim` floats, in position order).
    /// A paper's chunks must be added together.
    pub(crate) fn push_paper(&mut self, doc: i64, vectors: &[f32]) {
        assert_eq!(vectors.len() % self.dim.max(1), 0, "whole rows");
        let first = self.data.len() / self.dim.max(1);
        self.data.extend_from_slice(vectors);
        let n = vectors.len() / self.dim.max(1);
        self.count += n;
        self.rows.insert(doc, (first, first + n));
    }

    /// Papers with chunks.
    pub fn papers(&self) -> usize {
        self.rows.len()
    }

    /// Chunks in all.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The best chunk of `doc` for `query`: (position, cosine), or `None`
    /// when the paper has no chunks.
    pub fn best(&self, doc: i64, query: &[f32]) -> Option<(usize, f32)> {
        let &(a, b) = self.rows.get(&doc)?;
        (a..b)
            .map(|r| (r - a, dot(&self.data[r * self.dim..(r + 1) * self.dim], query)))
            .max_by(|x, y| x.1.total_cmp(&y.1).then_with(|| y.0.cmp(&x.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_never_split_an_abbreviation_or_a_quoted_sentence() {
        // One sentence per window when each is long: the boundaries are the splitter's.
        let pad = format!("Word {}", "word ".repeat(89));
        let text = format!("{pad}e.g. BRCA1 (see Fig. 2) rose. {pad}\"as shown.\" Then {pad}ends here.");
        let parts: Vec<&str> = chunks(&text).iter().map(|c| &text[c.start..c.end]).collect();
        assert_eq!(
            parts,
            [
                format!("{pad}e.g. BRCA1 (see Fig. 2) rose."),
                format!("{pad}\"as shown.\""),
                format!("Then {pad}ends here.")
            ]
        );
    }

    #[test]
    fn windows_stay_under_the_limit_and_overlap_by_one_sentence() {
        // 200 chars, capitalised: a `.` before a lowercase word ends no sentence.
        let sentence = format!("Word {}.", "word ".repeat(39).trim());
        let text = vec![sentence.clone(); 5].join(" ");
        let c = chunks(&text);
        // 200 + 1 + 200 = 401 fits, a third does not: windows [0,1], [1,2], [2,3], [3,4].
        assert_eq!(c.len(), 4);
        for ch in &c {
            assert!(text[ch.start..ch.end].chars().count() <= CHUNK_CHARS);
            assert!(text[ch.start..ch.end].ends_with('.'));
        }
        assert_eq!(c[0].start, 0);
        assert_eq!(c.last().unwrap().end, text.len());
        assert_eq!(c.iter().map(|c| c.position).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(c[1].start, 201, "the second window starts at the second sentence");
    }

    #[test]
    fn a_long_sentence_is_a_chunk_of_its_own_and_short_texts_one_chunk() {
        let long = format!("X{}.", "x".repeat(899));
        let text = format!("Short one. {long} Short two.");
        let c = chunks(&text);
        let parts: Vec<&str> = c.iter().map(|c| &text[c.start..c.end]).collect();
        assert_eq!(parts, ["Short one.", long.as_str(), "Short two."]);
        assert_eq!(chunks("Just this.").len(), 1);
        assert!(chunks("").is_empty());
        assert_eq!(chunk_text("T", "A. B.", &Chunk { position: 0, start: 3, end: 5 }), "T B.");
    }

    #[test]
    fn best_chunk_is_the_maximum() {
        let mut idx = ChunkIndex::new(2);
        idx.push_paper(7, &[1.0, 0.0, 0.0, 1.0, 0.6, 0.8]);
        assert_eq!(idx.best(7, &[0.0, 1.0]), Some((1, 1.0)));
        assert_eq!(idx.best(8, &[0.0, 1.0]), None);
        assert_eq!((idx.papers(), idx.len()), (1, 3));
    }
}
