//! Which papers a search may rank and show: the [`Filter`] (from the query
//! language, [`super::query`], or the `--must`/`--not`/`--author`/`--year`/
//! `--venue` flags) and the [`Gate`] that applies it to doc ids.
//!
//! Every condition must hold (they are ANDed):
//!
//! ```text
//! must      each entry (a word or a phrase), as terms of the index's analyzer, appears
//!           as consecutive terms of the stored title + " " + abstract
//! must_not  no entry does
//! authors   each name matches one of the paper's authors: the query's words equal the
//!           last words of the author's name (surname, "van der Berg", or the full name),
//!           compared lowercased with diacritics removed; "Last, First" is read as "First Last"
//! years     the paper has a year in the range (both ends inclusive, either open)
//! venues    each name's words appear consecutively in the paper's venue (same folding)
//! ids       the paper's id starts with each prefix (case-insensitive)
//! ```
//!
//! A paper that fails is not seeded, pooled or shown; the citation walk still
//! passes through it ([`super::rank`]).

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::Serialize;

use crate::analyzer::{Analyzer, indexed_text};
use crate::api::BadRequest;
use crate::candidate::{Candidate, DocScores, positive, top_k};
use crate::names::{fold_words, name_words};
use crate::search::retriever::{Merged, fill_ids};
use crate::store::{FilterFields, FilterRow, Store};

/// A year range, both ends inclusive; `None` is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct YearRange {
    pub from: Option<i32>,
    pub to: Option<i32>,
}

impl YearRange {
    /// `2019..2023`, `2020..`, `..2015` or `2020`; the error names what is wrong.
    pub fn parse(s: &str) -> Result<YearRange, String> {
        let year = |t: &str| -> Result<Option<i32>, String> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(None);
            }
            if t.len() > 4 || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("`{t}` is not a year (use 1 to 4 digits)"));
            }
            Ok(Some(t.parse().map_err(|_| format!("`{t}` is not a year"))?))
        };
        let range = match s.split_once("..") {
            Some((a, b)) => YearRange { from: year(a)?, to: year(b)? },
            None => {
                let y = year(s)?.ok_or("no year given (use 2019..2023, 2020.., ..2015 or 2020)")?;
                YearRange { from: Some(y), to: Some(y) }
            }
        };
        match range {
            YearRange { from: None, to: None } => Err("an open range on both sides (`..`) filters nothing".into()),
            YearRange { from: Some(a), to: Some(b) } if a > b => Err(format!("the range {a}..{b} is empty")),
            r => Ok(r),
        }
    }

    /// The intersection of two ranges (possibly empty: from > to).
    fn and(self, other: YearRange) -> YearRange {
        let pick = |a: Option<i32>, b: Option<i32>, f: fn(i32, i32) -> i32| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        YearRange { from: pick(self.from, other.from, i32::max), to: pick(self.to, other.to, i32::min) }
    }

    fn contains(self, year: Option<i32>) -> bool {
        year.is_some_and(|y| self.from.is_none_or(|a| y >= a) && self.to.is_none_or(|b| y <= b))
    }
}

impl fmt::Display for YearRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |y: Option<i32>| y.map_or(String::new(), |y| y.to_string());
        write!(f, "{}..{}", end(self.from), end(self.to))
    }
}

/// What a paper must satisfy to be ranked and shown (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Filter {
    /// Words and phrases that must appear (`+word`, `"a phrase"`, `--must`).
    pub must: Vec<String>,
    /// Words and phrases that must not appear (`-word`, `-"a phrase"`, `--not`).
    pub must_not: Vec<String>,
    /// Author names (`author:NAME`, `--author`).
    pub authors: Vec<String>,
    /// Year range (`year:A..B`, `--year`); several intersect.
    pub years: Option<YearRange>,
    /// Venue names (`venue:NAME`, `--venue`).
    pub venues: Vec<String>,
    /// Id prefixes (`id:PREFIX`).
    pub id_prefixes: Vec<String>,
}

impl Filter {
    /// True when it lets every paper through.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Both filters' conditions.
    pub fn and(mut self, other: Filter) -> Filter {
        self.must.extend(other.must);
        self.must_not.extend(other.must_not);
        self.authors.extend(other.authors);
        self.years = match (self.years, other.years) {
            (Some(a), Some(b)) => Some(a.and(b)),
            (a, b) => a.or(b),
        };
        self.venues.extend(other.venues);
        self.id_prefixes.extend(other.id_prefixes);
        self
    }
}

impl fmt::Display for Filter {
    /// The filter in the query language, e.g. `+window -"a b" author:"van der Berg" year:2020..`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |s: &str| if s.contains(char::is_whitespace) { format!("\"{s}\"") } else { s.to_string() };
        let mut parts: Vec<String> = Vec::new();
        parts.extend(self.must.iter().map(|w| format!("+{}", quoted(w))));
        parts.extend(self.must_not.iter().map(|w| format!("-{}", quoted(w))));
        parts.extend(self.authors.iter().map(|a| format!("author:{}", quoted(a))));
        parts.extend(self.years.iter().map(|y| format!("year:{y}")));
        parts.extend(self.venues.iter().map(|v| format!("venue:{}", quoted(v))));
        parts.extend(self.id_prefixes.iter().map(|p| format!("id:{}", quoted(p))));
        f.write_str(&parts.join(" "))
    }
}

fn contains_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// A [`Filter`] made ready for testing papers.
struct Rule {
    analyzer: Analyzer,
    must: Vec<Vec<String>>,
    must_not: Vec<Vec<String>>,
    authors: Vec<Vec<String>>,
    years: Option<YearRange>,
    venues: Vec<Vec<String>>,
    ids: Vec<String>,
}

impl Rule {
    fn new(filter: &Filter, analyzer: Analyzer) -> anyhow::Result<Rule> {
        let terms = |list: &[String], sign: &str| -> anyhow::Result<Vec<Vec<String>>> {
            list.iter()
                .map(|w| {
                    let t = analyzer.tokenize(w);
                    if t.is_empty() {
                        return Err(BadRequest(format!(
                            "`{sign}{w}` has no terms under the index's {} analyzer (a stop word?), so it cannot be tested",
                            analyzer.name()
                        ))
                        .into());
                    }
                    Ok(t)
                })
                .collect()
        };
        let names = |list: &[String], what: &str| -> anyhow::Result<Vec<Vec<String>>> {
            list.iter()
                .map(|n| {
                    let w = fold_words(n);
                    if w.is_empty() {
                        return Err(BadRequest(format!("{what}:{n:?} has no letters or digits to match")).into());
                    }
                    Ok(w)
                })
                .collect()
        };
        Ok(Rule {
            analyzer,
            must: terms(&filter.must, "+")?,
            must_not: terms(&filter.must_not, "-")?,
            authors: filter
                .authors
                .iter()
                .map(|n| name_words(n))
                .zip(&filter.authors)
                .map(|(w, n)| {
                    if w.is_empty() {
                        return Err(BadRequest(format!("author:{n:?} has no letters or digits to match")).into());
                    }
                    Ok(w)
                })
                .collect::<anyhow::Result<_>>()?,
            years: filter.years,
            venues: names(&filter.venues, "venue")?,
            ids: filter.id_prefixes.iter().map(|p| p.to_lowercase()).collect(),
        })
    }

    /// True when only years and id prefixes are tested.
    fn years_and_ids_only(&self) -> bool {
        self.authors.is_empty() && self.venues.is_empty() && !self.needs_text()
    }

    fn id_passes(&self, id: &str) -> bool {
        let id = id.to_lowercase();
        self.ids.iter().all(|p| id.starts_with(p.as_str()))
    }

    /// What the store must read for this rule.
    fn fields(&self) -> FilterFields {
        if self.needs_text() {
            FilterFields::Text
        } else if !self.authors.is_empty() {
            FilterFields::Authors
        } else {
            FilterFields::Narrow
        }
    }

    fn needs_text(&self) -> bool {
        !self.must.is_empty() || !self.must_not.is_empty()
    }

    fn passes(&self, row: &FilterRow) -> bool {
        if self.years.is_some_and(|r| !r.contains(row.year)) {
            return false;
        }
        if !self.id_passes(&row.id) {
            return false;
        }
        if !self.venues.is_empty() {
            let venue = fold_words(row.venue.as_deref().unwrap_or(""));
            if !self.venues.iter().all(|v| contains_run(&venue, v)) {
                return false;
            }
        }
        if !self.authors.is_empty() {
            let names: Vec<String> = serde_json::from_str(&row.authors).unwrap_or_default();
            let names: Vec<Vec<String>> = names.iter().map(|n| name_words(n)).collect();
            if !self.authors.iter().all(|q| names.iter().any(|n| n.ends_with(q))) {
                return false;
            }
        }
        if self.needs_text() {
            let terms = self.analyzer.tokenize(&indexed_text(&row.title, &row.abstract_));
            if !self.must.iter().all(|p| contains_run(&terms, p))
                || self.must_not.iter().any(|p| contains_run(&terms, p))
            {
                return false;
            }
        }
        true
    }
}

/// How many papers one statement reads for the gate.
const BATCH: usize = 1000;

/// Applies a filter to doc ids, reading each paper's fields once.
pub(crate) struct Gate<'s> {
    store: &'s Store,
    rule: Option<Rule>,
    /// Tested papers: passes or not, and the year.
    known: HashMap<i64, (bool, Option<i32>)>,
    /// When the filter names authors or id prefixes: the only papers that
    /// can pass (read from `paper_authors` and the id index; each is still
    /// tested in full).
    allowed: Option<HashSet<i64>>,
}

impl<'s> Gate<'s> {
    /// The gate of `filter` (open when it is empty); errors name a `+word`
    /// or `-word` the analyzer drops, or a name without letters.
    pub fn new(store: &'s Store, filter: &Filter, analyzer: Analyzer) -> anyhow::Result<Gate<'s>> {
        let rule = if filter.is_empty() { None } else { Some(Rule::new(filter, analyzer)?) };
        let mut allowed: Option<HashSet<i64>> = None;
        let mut narrow = |docs: Vec<i64>| {
            let docs: HashSet<i64> = docs.into_iter().collect();
            allowed = Some(match allowed.take() {
                Some(a) => a.intersection(&docs).copied().collect(),
                None => docs,
            });
        };
        if let Some(rule) = &rule {
            for words in &rule.authors {
                narrow(store.docs_with_surname(words.last().expect("names have words"))?);
            }
            for (given, lower) in filter.id_prefixes.iter().zip(&rule.ids) {
                let mut docs = store.docs_with_id_prefix(given)?;
                if given != lower {
                    docs.extend(store.docs_with_id_prefix(lower)?);
                }
                narrow(docs);
            }
        }
        Ok(Gate { store, rule, known: HashMap::new(), allowed })
    }

    /// True when every paper passes.
    pub fn is_open(&self) -> bool {
        self.rule.is_none()
    }

    /// Reads and tests the papers of `docs` not tested yet (those outside
    /// `allowed` fail unread).
    fn check(&mut self, docs: impl IntoIterator<Item = i64>) -> anyhow::Result<()> {
        let Some(rule) = &self.rule else { return Ok(()) };
        let mut todo: Vec<i64> = Vec::new();
        for d in docs {
            if self.known.contains_key(&d) {
                continue;
            }
            if self.allowed.as_ref().is_some_and(|a| !a.contains(&d)) {
                self.known.insert(d, (false, None));
            } else {
                todo.push(d);
            }
        }
        todo.sort_unstable();
        todo.dedup();
        for batch in todo.chunks(BATCH) {
            for &d in batch {
                self.known.insert(d, (false, None));
            }
            for row in self.store.filter_rows(batch, rule.fields())? {
                self.known.insert(row.doc, (rule.passes(&row), row.year));
            }
        }
        Ok(())
    }

    /// Whether `doc` passes (`check` must have seen it; an open gate passes all).
    fn passes(&self, doc: i64) -> bool {
        self.rule.is_none() || self.known.get(&doc).is_some_and(|k| k.0)
    }

    /// Keeps the merged papers that pass. A filter of years and id
    /// prefixes only is decided from the merge's years and ids, the ids
    /// read first where missing; any other reads the papers.
    pub fn retain_merged(&mut self, merged: &mut Merged<i64>) -> anyhow::Result<()> {
        let Some(rule) = &self.rule else { return Ok(()) };
        if rule.years_and_ids_only() {
            if !rule.ids.is_empty() {
                let store = self.store;
                fill_ids(merged, |docs| Ok(store.ids_by_doc(docs)?.into_iter().map(|(id, _)| id).collect()))?;
            }
            merged.retain(|_, m| {
                rule.years.is_none_or(|r| r.contains(m.year))
                    && (rule.ids.is_empty() || m.id.as_deref().is_some_and(|id| rule.id_passes(id)))
            });
            return Ok(());
        }
        self.check(merged.keys().copied())?;
        merged.retain(|doc, _| self.passes(*doc));
        Ok(())
    }

    /// Keeps the items whose doc passes.
    pub fn retain<T>(&mut self, items: &mut Vec<T>, doc: impl Fn(&T) -> i64) -> anyhow::Result<()> {
        if self.is_open() {
            return Ok(());
        }
        self.check(items.iter().map(&doc))?;
        items.retain(|t| self.passes(doc(t)));
        Ok(())
    }

    /// The best `k` passing papers of `scores` (positive scores), best
    /// first, and every passing paper tied with the `k`-th. With an
    /// `allowed` set, its papers are the candidates; otherwise papers are
    /// tested from the top down, a growing head at a time, so a filter that
    /// passes many papers tests few.
    pub fn best(&mut self, scores: &DocScores, k: usize) -> anyhow::Result<Vec<Candidate>> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let all: Vec<Candidate> = match &self.allowed {
            Some(a) => a
                .iter()
                .filter_map(|&doc| scores.get(&doc).map(|&score| Candidate { doc, score }))
                .filter(|c| c.score > 0.0)
                .collect(),
            None => positive(scores).collect(),
        };
        let mut n = (4 * k).max(256);
        loop {
            let head = top_k(all.iter().copied(), n);
            self.check(head.iter().map(|c| c.doc))?;
            let passing: Vec<Candidate> = head.iter().copied().filter(|c| self.passes(c.doc)).collect();
            let exhausted = head.len() == all.len();
            if passing.len() >= k {
                let cut = passing[k - 1].score;
                // Done unless a paper past the head could tie the cut.
                if exhausted || head.last().is_some_and(|c| c.score < cut) {
                    return Ok(passing.into_iter().filter(|c| c.score >= cut).collect());
                }
            } else if exhausted {
                return Ok(passing);
            }
            n = n.saturating_mul(4);
        }
    }

    /// The newest `k` passing papers (year descending, papers without a year
    /// last, then by doc id): the list of a query without free text, each
    /// with score 0.
    pub fn newest(&mut self, k: usize) -> anyhow::Result<Vec<Candidate>> {
        if let Some(allowed) = &self.allowed {
            let docs: Vec<i64> = allowed.iter().copied().collect();
            self.check(docs.iter().copied())?;
            let mut pass: Vec<(Option<i32>, i64)> =
                docs.iter().filter(|&&d| self.passes(d)).map(|&d| (self.known[&d].1, d)).collect();
            pass.sort_by(|a, b| b.0.is_some().cmp(&a.0.is_some()).then(b.0.cmp(&a.0)).then(a.1.cmp(&b.1)));
            return Ok(pass.into_iter().take(k).map(|(_, doc)| Candidate { doc, score: 0.0 }).collect());
        }
        let mut out = Vec::new();
        let (mut offset, mut n) = (0, (4 * k).max(256));
        while out.len() < k {
            let docs = self.store.docs_by_recency(offset, n)?;
            self.check(docs.iter().copied())?;
            out.extend(docs.iter().filter(|&&d| self.passes(d)).map(|&doc| Candidate { doc, score: 0.0 }));
            if docs.len() < n {
                break;
            }
            offset += n;
            n = n.saturating_mul(4);
        }
        out.truncate(k);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_print_in_the_query_language() {
        let q = crate::search::parse_query(r#"x +a -"b c" author:"van der Berg" year:2020.. venue:acl id:p0"#).unwrap();
        assert_eq!(q.filter.to_string(), r#"+a -"b c" author:"van der Berg" year:2020.. venue:acl id:p0"#);
        assert_eq!(crate::search::parse_query(&q.filter.to_string()).unwrap().filter, q.filter);
    }

    #[test]
    fn year_ranges_parse_and_reject_bad_ones() {
        let r = |a, b| YearRange { from: a, to: b };
        assert_eq!(YearRange::parse("2019..2023"), Ok(r(Some(2019), Some(2023))));
        assert_eq!(YearRange::parse("2020.."), Ok(r(Some(2020), None)));
        assert_eq!(YearRange::parse("..2015"), Ok(r(None, Some(2015))));
        assert_eq!(YearRange::parse("2020"), Ok(r(Some(2020), Some(2020))));
        for bad in ["20x9", "..", "", "2023..2019", "12345", "2020..20x1", "-5"] {
            assert!(YearRange::parse(bad).is_err(), "{bad}");
        }
        assert!(r(Some(2019), Some(2023)).contains(Some(2023)));
        assert!(!r(Some(2019), Some(2023)).contains(Some(2024)));
        assert!(!r(Some(2019), None).contains(None));
        assert_eq!(r(Some(2010), Some(2020)).and(r(Some(2015), None)), r(Some(2015), Some(2020)));
    }

    #[test]
    fn runs_are_consecutive_words() {
        let n = name_words("Jan van der Berg");
        for q in ["berg", "van der Berg", "JAN VAN DER BERG"] {
            assert!(n.ends_with(&fold_words(q)), "{q}");
        }
        assert!(!n.ends_with(&fold_words("jan")));
        assert!(contains_run(&fold_words("Proc. NeurIPS 2020"), &fold_words("neurips")));
        assert!(!contains_run(&fold_words("ICML"), &fold_words("neurips")));
        assert!(!contains_run(&fold_words("ICML"), &[]));
    }
}
