//! In-text citation markers found in the body and resolved to reference
//! entries, each kept with its sentence.
//!
//! [`markers`] finds the markers of a paragraph; this module resolves them
//! and groups them by sentence (the crate's one splitter,
//! `crate::sentences::split_sentences`). A number resolves by the entries'
//! printed labels when they are numbers, else by position (`[3]` is the
//! third entry). An author-year citation resolves to the entries whose first
//! author's surname (the parsed authors, else the first word of the raw
//! entry) and year match; a letter suffix (`2015b`) picks among several by
//! the suffix printed in the entry, else by order (a the first, b the
//! second); a second author named (`Smith and Jones 2019`) must appear in
//! the entry; an entry whose label is exactly the printed citation (AAAI's
//! `[Baptiste, Pape, and Nuijten 2001]`) matches first. A marker that
//! resolves to no entry is dropped; so is a sentence with none.

mod markers;

use super::{CitationContext, Document, Reference};
use crate::paper::title::normalize;
use crate::sentences::split_sentences;
use markers::{AuthorYear, Cites};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Every sentence of the body that cites, with the entries it cites, in
/// document order.
pub fn find(doc: &Document) -> Vec<CitationContext> {
    let index = RefIndex::new(&doc.references);
    let mut out = Vec::new();
    if doc.references.is_empty() {
        return out;
    }
    for (s, section) in doc.sections.iter().enumerate() {
        for (p, paragraph) in section.paragraphs.iter().enumerate() {
            let text = &paragraph.text;
            let found = markers::find(text, &paragraph.raised);
            if found.is_empty() {
                continue;
            }
            let sentences = joined_across_markers(split_sentences(text), &found);
            let mut by_sentence: Vec<(usize, CitationContext)> = Vec::new();
            for marker in found {
                let cited = index.resolve(&marker.cites);
                if cited.is_empty() {
                    continue;
                }
                let (start, end) = sentences
                    .iter()
                    .find(|r| r.start <= marker.start && marker.start < r.end)
                    .map_or((marker.start, marker.end), |r| (r.start, r.end));
                let at = match by_sentence.iter().position(|(st, _)| *st == start) {
                    Some(at) => at,
                    None => {
                        by_sentence.push((
                            start,
                            CitationContext {
                                section: s,
                                paragraph: p,
                                start,
                                end,
                                page: paragraph.page_at(marker.start),
                                ..CitationContext::default()
                            },
                        ));
                        by_sentence.len() - 1
                    }
                };
                let context = &mut by_sentence[at].1;
                context.markers.push(text[marker.start..marker.end].to_string());
                for r in cited {
                    if !context.references.contains(&r) {
                        context.references.push(r);
                    }
                }
            }
            out.extend(by_sentence.into_iter().map(|(_, c)| c));
        }
    }
    out
}

/// Sentences with any that a marker spans joined ("Bryan and Rotunno (2009,
/// pg. 1773)": the splitter ends one at "pg.").
fn joined_across_markers(
    sentences: Vec<std::ops::Range<usize>>,
    found: &[markers::Marker],
) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(sentences.len());
    for r in sentences {
        match out.last_mut() {
            Some(last) if found.iter().any(|m| m.start < last.end && m.end > last.end) => last.end = r.end,
            _ => out.push(r),
        }
    }
    out
}

static YEAR_SUFFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(1[6-9]\d\d|20\d\d)([a-z])\b").expect("year suffix pattern"));

/// What the entries are found by.
struct RefIndex {
    /// Printed labels, normalised, to entries.
    labels: HashMap<String, usize>,
    /// Whether the labels are numbers (then `[n]` is by label, not position).
    numeric_labels: bool,
    count: usize,
    entries: Vec<Entry>,
}

struct Entry {
    /// The first author's surname, normalised, and the raw entry's first word.
    surnames: Vec<String>,
    year: Option<i32>,
    suffix: Option<char>,
    /// The raw entry, normalised, for the second author and the fallback.
    raw: String,
}

impl RefIndex {
    fn new(references: &[Reference]) -> RefIndex {
        let mut labels = HashMap::new();
        let mut numeric = 0;
        for (i, r) in references.iter().enumerate() {
            if let Some(label) = &r.label {
                let key = normalize(label);
                if key.parse::<u32>().is_ok() {
                    numeric += 1;
                }
                labels.entry(key).or_insert(i);
            }
        }
        let entries = references
            .iter()
            .map(|r| {
                let raw = normalize(&r.raw);
                let mut surnames = Vec::new();
                if let Some(first) = r.parsed.authors.first() {
                    surnames.push(super::refs::surname(first));
                }
                if let Some(word) = raw.split(' ').find(|w| w.parse::<u32>().is_err()) {
                    surnames.push(word.to_string());
                }
                surnames.retain(|s| !s.is_empty());
                let year = r.parsed.year;
                let suffix = YEAR_SUFFIX
                    .captures_iter(&r.raw)
                    .find(|c| year.is_none_or(|y| c.get(1).is_some_and(|m| m.as_str() == y.to_string())))
                    .and_then(|c| c.get(2))
                    .and_then(|m| m.as_str().chars().next());
                Entry { surnames, year, suffix, raw }
            })
            .collect();
        RefIndex { labels, numeric_labels: numeric * 2 > references.len(), count: references.len(), entries }
    }

    /// The entries a marker cites, in its order, without repeats.
    fn resolve(&self, cites: &Cites) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut add = |i: usize| {
            if !out.contains(&i) {
                out.push(i);
            }
        };
        match cites {
            Cites::Numbers(numbers) => {
                for n in numbers {
                    let by_label = self.labels.get(&n.to_string()).copied();
                    let at =
                        if self.numeric_labels { by_label } else { by_label.or_else(|| (*n as usize).checked_sub(1)) };
                    if let Some(i) = at.filter(|&i| i < self.count) {
                        add(i);
                    }
                }
            }
            Cites::Labels(labels) => {
                for l in labels {
                    if let Some(&i) = self.labels.get(&normalize(l)) {
                        add(i);
                    }
                }
            }
            Cites::AuthorYear(items) => {
                for item in items {
                    if let Some(i) = self.author_year(item) {
                        add(i);
                    }
                }
            }
        }
        out
    }

    fn author_year(&self, item: &AuthorYear) -> Option<usize> {
        if let Some(&i) = self.labels.get(&normalize(&item.printed)) {
            return Some(i);
        }
        let surname = normalize(&item.surname);
        let squashed = surname.replace(' ', "");
        let same_name = |e: &Entry| {
            e.surnames
                .iter()
                .any(|s| *s == surname || s.replace(' ', "") == squashed || s.ends_with(&format!(" {surname}")))
        };
        let mut found: Vec<usize> = (0..self.entries.len())
            .filter(|&i| same_name(&self.entries[i]) && self.entries[i].year == Some(item.year))
            .collect();
        if found.is_empty() {
            // Parsing missed: the surname among the raw entry's first words and the year in it.
            let year = item.year.to_string();
            found = (0..self.entries.len())
                .filter(|&i| {
                    let raw = &self.entries[i].raw;
                    let head: Vec<&str> = raw.split(' ').take(12).collect();
                    head.contains(&surname.as_str()) && raw.split(' ').any(|w| w.starts_with(&year))
                })
                .collect();
        }
        if let Some(second) = &item.second {
            let second = normalize(second);
            let with_second: Vec<usize> =
                found.iter().copied().filter(|&i| self.entries[i].raw.split(' ').any(|w| w == second)).collect();
            if !with_second.is_empty() {
                found = with_second;
            }
        }
        if let Some(suffix) = item.suffix {
            if let Some(&i) = found.iter().find(|&&i| self.entries[i].suffix == Some(suffix)) {
                return Some(i);
            }
            let by_order = (suffix as usize).checked_sub('a' as usize).and_then(|k| found.get(k));
            return by_order.or(found.first()).copied();
        }
        found.first().copied()
    }
}

#[cfg(test)]
mod tests;
