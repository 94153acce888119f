//! Deriving a paper from its records, and folding a repeated record into
//! the first: pure functions of records, with no I/O, so the rules are
//! tested on their own.
//!
//! **Precedence.** A paper's records are ordered by [`text_rank`] (arXiv >
//! Semantic Scholar > OpenAlex > BEIR / Paper), then source and id. Each text
//! field (`title`, `abstract`, `year`, `authors`) takes the first non-empty
//! value in that order; every other record's different value is a
//! [`Disagreement`] (whitespace runs count as one space). The canonical id is
//! the strongest of all the records' ids by [`PaperId::priority`], ties by
//! key. References and citations are not part of the paper row: they are
//! links, unioned over the records.
//!
//! **Repeats.** Within one command, a second record of the same source with
//! the same id is folded into the first ([`fold`]): the first non-empty
//! value of each text field wins, id and link lists are unioned, and each
//! conflict is a disagreement.

use std::collections::BTreeSet;

use crate::paper::{Disagreement, Filed, PaperId, Record, text_rank};

/// A paper as its records make it.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    pub canonical: String,
    /// Every id of every record: the paper's aliases.
    pub ids: BTreeSet<PaperId>,
    pub title: String,
    pub abstract_: String,
    pub year: Option<i32>,
    pub authors: Vec<String>,
    /// The contributing sources in precedence order, joined by `+`.
    pub source: String,
    pub arxiv_version: Option<u32>,
    /// The venue of the first record (in precedence order) that names one.
    pub venue: Option<String>,
    /// The positions (in the ordered records) of the records the title and
    /// the abstract were taken from.
    pub title_from: Option<usize>,
    pub abstract_from: Option<usize>,
    pub disagreements: Vec<Disagreement>,
}

/// Orders a paper's records by precedence: text rank, then source, then id.
pub fn order(records: &mut [Filed]) {
    records.sort_by_cached_key(|f| (text_rank(&f.record.source), f.record.source.clone(), f.record.source_id.key()));
}

/// Derives the paper of `records`, which [`order`] has ordered; `None` for no records.
pub fn derive(records: &[Filed]) -> Option<Derived> {
    let recs: Vec<&Record> = records.iter().map(|f| &f.record).collect();
    let ids: BTreeSet<PaperId> = recs.iter().flat_map(|r| r.all_ids()).collect();
    let canonical = ids.iter().min_by(|a, b| (a.priority(), a.key()).cmp(&(b.priority(), b.key())))?.key();
    let title_from = recs.iter().position(|r| !r.title.trim().is_empty());
    let abstract_from = recs.iter().position(|r| !r.abstract_.trim().is_empty());
    let year = recs.iter().find_map(|r| r.year);
    let authors = recs.iter().find(|r| !r.authors.is_empty()).map(|r| r.authors.clone()).unwrap_or_default();
    let mut sources: Vec<&str> = Vec::new();
    for r in &recs {
        if !sources.contains(&r.source.as_str()) {
            sources.push(&r.source);
        }
    }
    let mut disagreements = Vec::new();
    for (field, get) in FIELDS {
        let mut values = recs.iter().filter_map(|r| get(r).map(|v| (v, &r.source)));
        let Some((kept, kept_source)) = values.next() else { continue };
        for (other, other_source) in values {
            if other != kept {
                disagreements.push(Disagreement {
                    field,
                    kept: kept.clone(),
                    kept_source: kept_source.clone(),
                    other,
                    other_source: other_source.clone(),
                });
            }
        }
    }
    Some(Derived {
        canonical,
        ids,
        title: title_from.map_or_else(String::new, |i| recs[i].title.clone()),
        abstract_: abstract_from.map_or_else(String::new, |i| recs[i].abstract_.clone()),
        year,
        authors,
        source: sources.join("+"),
        arxiv_version: recs.iter().filter_map(|r| r.arxiv_version).max(),
        venue: recs.iter().find_map(|r| r.venue.clone().filter(|v| !v.trim().is_empty())),
        title_from,
        abstract_from,
        disagreements,
    })
}

type Getter = fn(&Record) -> Option<String>;

/// The text fields, each as the string its disagreements compare and show.
const FIELDS: [(&str, Getter); 4] = [
    ("title", |r| Some(collapse(&r.title)).filter(|s| !s.is_empty())),
    ("abstract", |r| Some(collapse(&r.abstract_)).filter(|s| !s.is_empty())),
    ("year", |r| r.year.map(|y| y.to_string())),
    ("authors", |r| Some(r.authors.join("; ")).filter(|s| !s.is_empty())),
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Folds `later`, a second record of the same source and id read by the
/// same command, into `first`: the record they make together, and the
/// fields on which they conflict.
pub fn fold(first: &Record, later: Record) -> (Record, Vec<Disagreement>) {
    let mut out = first.clone();
    let mut conflicts = Vec::new();
    let source = &first.source;
    let mut conflict = |field: &'static str, kept: String, other: String| {
        conflicts.push(Disagreement { field, kept, kept_source: source.clone(), other, other_source: source.clone() })
    };
    for (field, get) in FIELDS {
        if let (Some(kept), Some(other)) = (get(first), get(&later)) {
            if kept != other {
                conflict(field, kept, other);
            }
        }
    }
    if out.title.trim().is_empty() {
        out.title = later.title;
    }
    if out.abstract_.trim().is_empty() {
        out.abstract_ = later.abstract_;
    }
    out.year = out.year.or(later.year);
    if out.authors.is_empty() {
        out.authors = later.authors;
    }
    for (list, more) in
        [(&mut out.ids, later.ids), (&mut out.references, later.references), (&mut out.citations, later.citations)]
    {
        for id in more {
            if !list.contains(&id) {
                list.push(id);
            }
        }
    }
    out.arxiv_version = out.arxiv_version.max(later.arxiv_version);
    if out.venue.is_none() {
        out.venue = later.venue;
    }
    (out, conflicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(source: &str, id: &str, title: &str, year: Option<i32>) -> Record {
        Record { source: source.into(), source_id: PaperId::parse(id), title: title.into(), year, ..Record::default() }
    }

    fn filed(r: Record) -> Filed {
        Filed { record: r, format: "test".into() }
    }

    #[test]
    fn text_by_precedence_and_every_other_value_a_disagreement() {
        let mut records = vec![
            filed(Record { abstract_: "From the paper file.".into(), ..rec("paper", "x1", "Own  title", Some(2020)) }),
            filed(rec("s2", "CorpusId:7", "S2 title", Some(2021))),
            filed(Record { authors: vec!["A. Author".into()], ..rec("arxiv", "2101.00001", "", None) }),
        ];
        order(&mut records);
        assert_eq!(records.iter().map(|f| f.record.source.as_str()).collect::<Vec<_>>(), ["arxiv", "s2", "paper"]);
        let d = derive(&records).unwrap();
        assert_eq!(d.canonical, "2101.00001", "arXiv beats CorpusId beats an own id");
        assert_eq!(d.title, "S2 title", "arXiv's title is empty, so S2's is next");
        assert_eq!((d.title_from, d.abstract_from), (Some(1), Some(2)));
        assert_eq!(d.abstract_, "From the paper file.");
        assert_eq!(d.year, Some(2021));
        assert_eq!(d.authors, ["A. Author"]);
        assert_eq!(d.source, "arxiv+s2+paper");
        assert_eq!(d.ids.len(), 3);
        let shown: Vec<(&str, &str, &str, &str)> = d
            .disagreements
            .iter()
            .map(|x| (x.field, x.kept.as_str(), x.other.as_str(), x.other_source.as_str()))
            .collect();
        assert_eq!(shown, [("title", "S2 title", "Own title", "paper"), ("year", "2021", "2020", "paper")]);
    }

    #[test]
    fn whitespace_alone_is_no_disagreement_and_no_records_no_paper() {
        let mut records =
            vec![filed(rec("s2", "CorpusId:1", "A  title\n", None)), filed(rec("openalex", "W1", "A title", None))];
        order(&mut records);
        assert!(derive(&records).unwrap().disagreements.is_empty());
        assert_eq!(derive(&[]), None);
    }

    #[test]
    fn canonical_ties_go_by_key() {
        let records = vec![filed(rec("paper", "b", "T", None)), filed(rec("beir", "a", "T", None))];
        assert_eq!(derive(&records).unwrap().canonical, "a");
    }

    #[test]
    fn a_repeat_fills_gaps_unions_lists_and_counts_conflicts() {
        let first = Record { references: vec![PaperId::parse("r1")], ..rec("paper", "x", "First title", None) };
        let later = Record {
            abstract_: "Only the repeat has one.".into(),
            references: vec![PaperId::parse("r2"), PaperId::parse("r1")],
            citations: vec![PaperId::parse("c1")],
            arxiv_version: Some(3),
            ..rec("paper", "x", "Second title", Some(1999))
        };
        let (folded, conflicts) = fold(&first, later);
        assert_eq!(folded.title, "First title");
        assert_eq!(folded.abstract_, "Only the repeat has one.");
        assert_eq!(folded.year, Some(1999));
        assert_eq!(folded.references, [PaperId::parse("r1"), PaperId::parse("r2")]);
        assert_eq!(folded.citations, [PaperId::parse("c1")]);
        assert_eq!(folded.arxiv_version, Some(3));
        assert_eq!(conflicts.len(), 1);
        assert_eq!(
            (conflicts[0].field, conflicts[0].kept.as_str(), conflicts[0].other.as_str()),
            ("title", "First title", "Second title")
        );
        let (same, none) = fold(&folded, folded.clone());
        assert_eq!(same, folded);
        assert!(none.is_empty());
    }
}
