//! Which text a posting or a document length belongs to.

/// The papers' title + abstract (`posting_blocks`, `paper_lengths`, keyed
/// by paper doc id) or the passages' text (`passage_blocks`,
/// `passage_lengths`, keyed by passage id; migrations 010 and 020). The
/// tables of the two have one layout; each statement is written out once
/// per table (`blocks.rs`, `lengths.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Papers,
    Passages,
}
