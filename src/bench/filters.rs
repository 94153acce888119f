//! The filter mix `search_filtered` times (see the module doc of `bench`).

use crate::search::{Filter, YearRange};
use crate::store::Store;

/// One filter per query, built from the index alone (see the module doc).
pub(crate) fn filter_mix(store: &Store, n: usize) -> anyhow::Result<Vec<Filter>> {
    let meta = store.meta()?;
    let (lo, hi) = (meta.min_year.unwrap_or(2000), meta.max_year.unwrap_or(2000));
    let span = hi - lo;
    let recent = Filter { years: Some(YearRange { from: Some(hi - span / 5), to: None }), ..Filter::default() };
    let docs = meta.num_docs.max(1);
    (0..n)
        .map(|i| {
            let pick = 1 + (i as u64).wrapping_mul(7919) % docs;
            let paper = store.paper_by_doc(pick as i64).ok();
            Ok(match i % 4 {
                0 => recent.clone(),
                1 => Filter { years: Some(YearRange { from: None, to: Some(lo + span / 2) }), ..Filter::default() },
                2 => match paper.and_then(|p| p.authors.first().and_then(|a| crate::names::surname_key(a))) {
                    Some(surname) => Filter { authors: vec![surname], ..Filter::default() },
                    None => recent.clone(),
                },
                _ => match paper.and_then(|p| p.venue) {
                    Some(venue) => Filter { venues: vec![venue], ..Filter::default() },
                    None => recent.clone(),
                },
            })
        })
        .collect()
}
