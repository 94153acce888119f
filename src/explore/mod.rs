//! Exploring from papers: [`related`] (co-citation, bibliographic coupling,
//! BM25 more-like-this) and [`gaps`] (what the index's papers cite but do
//! not hold).

mod gaps;
mod related;

pub use gaps::{Gap, gaps};
pub(crate) use related::SAMPLE;
pub use related::{Method, Related, RelatedResult, related};
