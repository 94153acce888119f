//! What every surface bounds the same way: the longest text and the most
//! ids one request may carry, the walk depths, the page sizes, and
//! [`Page`], an offset and a size, the one way a list is paged (a search's
//! page past the first is ranked with [`crate::search::SearchRequest::offset`],
//! not cut from a longer list).

use super::error::BadRequest;
use crate::graph::FanOut;

/// The longest string a request from MCP or the web page may carry (a query, an id, a note), in characters.
pub(crate) const MAX_TEXT: usize = 4096;
/// The most ids one request may name.
pub(crate) const MAX_IDS: usize = 100;
/// The farthest offset a page may start at (deeper pages re-rank too much).
pub const MAX_OFFSET: usize = 10_000;
/// The deepest walk `neighbors` takes.
pub const MAX_NEIGHBOR_HOPS: u32 = 10;
/// The deepest walk a search takes.
pub use crate::search::MAX_SEARCH_HOPS;

/// A list's page size: the default and the most one page may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSize {
    pub default: usize,
    pub max: usize,
}

/// A search's page (MCP's `search_papers`).
pub const SEARCH_PAGE: PageSize = PageSize { default: 10, max: 50 };
/// A search's page on the web page.
pub const WEB_SEARCH_PAGE: PageSize = PageSize { default: 20, max: 100 };
/// A neighbourhood's page.
pub const NEIGHBORS_PAGE: PageSize = PageSize { default: 100, max: 500 };
/// A `related` or `gaps` page.
pub const LIST_PAGE: PageSize = PageSize { default: 20, max: 100 };
/// How many sources a context pack gathers.
pub const CONTEXT_SOURCES: PageSize = PageSize { default: 8, max: 50 };

/// Where a page starts and how many items it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub size: usize,
}

impl Page {
    /// A page of `size` (the default when `None`; 1 to the bound's max) from `offset` (at most [`MAX_OFFSET`]).
    pub fn new(offset: usize, size: Option<u64>, bound: PageSize) -> Result<Page, BadRequest> {
        if offset > MAX_OFFSET {
            return Err(BadRequest(format!("offset {offset} is out of range: use 0 to {MAX_OFFSET}")));
        }
        Ok(Page { offset, size: limit(size, bound)? })
    }

    /// This page of a list computed whole, and whether items follow it.
    pub fn of<T>(&self, items: Vec<T>) -> (Vec<T>, bool) {
        let more = items.len() > self.offset + self.size;
        (items.into_iter().skip(self.offset).take(self.size).collect(), more)
    }

    /// The offset of the page after this one.
    pub fn next_offset(&self) -> usize {
        self.offset + self.size
    }
}

/// A page size or count: `value` or the bound's default, 1 to its max.
pub fn limit(value: Option<u64>, bound: PageSize) -> Result<usize, BadRequest> {
    match value {
        None => Ok(bound.default),
        Some(n) if (1..=bound.max as u64).contains(&n) => Ok(n as usize),
        Some(n) => Err(BadRequest(format!("limit {n} is out of range: use 1 to {}", bound.max))),
    }
}

/// A string argument checked for length.
pub fn text<'a>(name: &str, value: &'a str) -> Result<&'a str, BadRequest> {
    let n = value.chars().count();
    if n > MAX_TEXT {
        return Err(BadRequest(format!("{name} is {n} characters long: at most {MAX_TEXT} are accepted")));
    }
    Ok(value)
}

/// A list of ids checked for count and each for length; `at_least_one`: an empty list is refused.
pub fn ids(name: &str, values: &[String], at_least_one: bool) -> Result<(), BadRequest> {
    if at_least_one && values.is_empty() {
        return Err(BadRequest(format!("{name} needs at least one id")));
    }
    if values.len() > MAX_IDS {
        return Err(BadRequest(format!("{name} names {} ids: at most {MAX_IDS} are accepted", values.len())));
    }
    values.iter().try_for_each(|v| text(name, v).map(drop))
}

/// A walk depth: 0 to `max`; `why` says what to do instead ("for search: use 0 to 2 (…)").
pub fn hops(value: u64, max: u32, why: &str) -> Result<u32, BadRequest> {
    if value <= u64::from(max) {
        Ok(value as u32)
    } else if why.is_empty() {
        Err(BadRequest(format!("hops {value} is out of range: use 0 to {max}")))
    } else {
        Err(BadRequest(format!("hops {value} is out of range {why}")))
    }
}

/// A walk's fan-out as every surface reads it (`--fan-out`, MCP's
/// `fan_out`, the web form's field): a number from 1 up, or `all` (every
/// link; [`crate::graph::FanOut`]).
pub fn fan_out(value: &str) -> Result<FanOut, BadRequest> {
    let v = value.trim();
    if v.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    match v.parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(BadRequest(format!("`{}` is not a fan-out: use a number from 1 up, or `all`", super::error::clip(v)))),
    }
}

/// Why a search's walk stops at [`MAX_SEARCH_HOPS`] (the CLI says the same).
pub(crate) const SEARCH_HOPS_WHY: &str = "for search: use 0 to 2 (`litindex neighbors` walks further)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_bounds() {
        let p = Page::new(2, Some(3), LIST_PAGE).unwrap();
        assert_eq!(p.of((0..10).collect()), (vec![2, 3, 4], true));
        assert_eq!(p.of((0..5).collect()), (vec![2, 3, 4], false));
        assert!(Page::new(0, Some(0), LIST_PAGE).is_err());
        assert!(Page::new(MAX_OFFSET + 1, None, LIST_PAGE).is_err());
        assert_eq!(limit(None, SEARCH_PAGE), Ok(10));
        assert!(text("q", &"x".repeat(MAX_TEXT + 1)).unwrap_err().0.contains("at most 4096"));
        assert!(ids("ids", &[], true).is_err());
        assert_eq!(hops(2, 2, SEARCH_HOPS_WHY), Ok(2));
        assert!(hops(7, 2, SEARCH_HOPS_WHY).unwrap_err().0.contains("7 is out of range for search"));
    }

    #[test]
    fn fan_outs() {
        assert_eq!(fan_out("100"), Ok(Some(100)));
        assert_eq!(fan_out(" 1 "), Ok(Some(1)));
        assert_eq!(fan_out("All"), Ok(None));
        for bad in ["0", "-3", "", "many", "2.5"] {
            let e = fan_out(bad).unwrap_err().0;
            assert!(e.contains("is not a fan-out: use a number from 1 up, or `all`"), "{bad}: {e}");
        }
    }
}
