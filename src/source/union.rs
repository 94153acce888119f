//! Unioning records of the same paper from several sources.
//!
//! Precedence, one rule for every source: sources are read in the order given
//! (`--mock` first: arXiv, then Semantic Scholar; then each `--jsonl` file in
//! command-line order; lines in file order). For the text fields (`title`,
//! `abstract`, `year`, `authors`) the first non-empty value wins and a later
//! record only fills a field that is still empty; a later, different
//! non-empty value is kept as a [`Disagreement`]. So text comes from arXiv and
//! the graph from Semantic Scholar, whose graph fields arXiv leaves empty. The
//! graph fields (`references`, `citations`) are the union of every record's.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::{RecordError, Source};
use crate::paper::Paper;

/// A field on which two sources gave different non-empty values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    pub paper_id: String,
    pub field: &'static str,
    /// The value kept, and the source it came from.
    pub kept: String,
    pub kept_source: String,
    /// The value passed over, and its source.
    pub other: String,
    pub other_source: String,
}

/// Papers unioned on id, with every disagreement seen.
#[derive(Debug, Default)]
pub struct Union {
    papers: BTreeMap<String, Merged>,
    disagreements: Vec<Disagreement>,
}

/// A paper being merged, with which source set each text field.
#[derive(Debug, Default)]
struct Merged {
    paper: Paper,
    title_from: String,
    abstract_from: String,
    year_from: String,
    authors_from: String,
    sources: Vec<String>,
    seen_refs: HashSet<String>,
    seen_cites: HashSet<String>,
}

impl Union {
    pub fn new() -> Union {
        Union::default()
    }

    /// Reads every record of `source` into the union. Stops at the first bad
    /// record: a build must not silently drop data.
    pub fn add_source(&mut self, source: &dyn Source) -> anyhow::Result<usize> {
        let mut n = 0;
        for record in source.records()? {
            let paper = record.map_err(|e: RecordError| anyhow::anyhow!(e))?;
            self.add(paper);
            n += 1;
        }
        Ok(n)
    }

    /// Merges one record.
    pub fn add(&mut self, rec: Paper) {
        let m = self
            .papers
            .entry(rec.id.clone())
            .or_insert_with(|| Merged { paper: Paper { id: rec.id.clone(), ..Paper::default() }, ..Merged::default() });
        if !m.sources.contains(&rec.source) {
            m.sources.push(rec.source.clone());
        }
        let id = &rec.id;
        let src = &rec.source;
        let d = &mut self.disagreements;
        merge_text(d, id, "title", &mut m.paper.title, &mut m.title_from, rec.title, src);
        merge_text(d, id, "abstract", &mut m.paper.abstract_, &mut m.abstract_from, rec.abstract_, src);
        if let Some(y) = rec.year {
            match m.paper.year {
                None => {
                    m.paper.year = Some(y);
                    m.year_from = src.clone();
                }
                Some(kept) if kept != y => d.push(Disagreement {
                    paper_id: id.clone(),
                    field: "year",
                    kept: kept.to_string(),
                    kept_source: m.year_from.clone(),
                    other: y.to_string(),
                    other_source: src.clone(),
                }),
                Some(_) => {}
            }
        }
        if !rec.authors.is_empty() {
            if m.paper.authors.is_empty() {
                m.paper.authors = rec.authors;
                m.authors_from = src.clone();
            } else if m.paper.authors != rec.authors {
                d.push(Disagreement {
                    paper_id: id.clone(),
                    field: "authors",
                    kept: m.paper.authors.join("; "),
                    kept_source: m.authors_from.clone(),
                    other: rec.authors.join("; "),
                    other_source: src.clone(),
                });
            }
        }
        for r in rec.references {
            if m.seen_refs.insert(r.clone()) {
                m.paper.references.push(r);
            }
        }
        for c in rec.citations {
            if m.seen_cites.insert(c.clone()) {
                m.paper.citations.push(c);
            }
        }
    }

    /// How many distinct papers are held.
    pub fn len(&self) -> usize {
        self.papers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.papers.is_empty()
    }

    /// The merged papers, by id, and the disagreements in the order seen.
    pub fn finish(self) -> (Vec<Paper>, Vec<Disagreement>) {
        let papers = self
            .papers
            .into_values()
            .map(|mut m| {
                m.paper.source = m.sources.join("+");
                m.paper
            })
            .collect();
        (papers, self.disagreements)
    }
}

fn merge_text(
    d: &mut Vec<Disagreement>,
    id: &str,
    field: &'static str,
    kept: &mut String,
    kept_from: &mut String,
    new: String,
    src: &str,
) {
    if new.is_empty() {
        return;
    }
    if kept.is_empty() {
        *kept = new;
        *kept_from = src.to_string();
    } else if *kept != new {
        d.push(Disagreement {
            paper_id: id.to_string(),
            field,
            kept: kept.clone(),
            kept_source: kept_from.clone(),
            other: new,
            other_source: src.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{ArxivMock, SemanticScholarMock};

    fn rec(id: &str, title: &str, year: Option<i32>, source: &str) -> Paper {
        Paper { id: id.into(), title: title.into(), year, source: source.into(), ..Paper::default() }
    }

    #[test]
    fn first_non_empty_wins_and_later_fills_gaps() {
        let mut u = Union::new();
        u.add(rec("a", "First title", None, "one"));
        u.add(Paper { abstract_: "Filled later.".into(), ..rec("a", "Other title", Some(2020), "two") });
        let (papers, d) = u.finish();
        assert_eq!(papers.len(), 1);
        assert_eq!(papers[0].title, "First title");
        assert_eq!(papers[0].abstract_, "Filled later.");
        assert_eq!(papers[0].year, Some(2020));
        assert_eq!(papers[0].source, "one+two");
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].field, d[0].kept.as_str(), d[0].other.as_str()), ("title", "First title", "Other title"));
    }

    #[test]
    fn graph_fields_are_unioned_without_duplicates() {
        let mut u = Union::new();
        u.add(Paper { references: vec!["b".into(), "c".into()], ..rec("a", "T", None, "x") });
        u.add(Paper {
            references: vec!["c".into(), "d".into()],
            citations: vec!["e".into()],
            ..rec("a", "T", None, "x")
        });
        let (papers, d) = u.finish();
        assert_eq!(papers[0].references, ["b", "c", "d"]);
        assert_eq!(papers[0].citations, ["e"]);
        assert!(d.is_empty());
    }

    #[test]
    fn mocks_union_to_arxiv_text_and_s2_graph() {
        let mut u = Union::new();
        u.add_source(&ArxivMock).unwrap();
        u.add_source(&SemanticScholarMock).unwrap();
        let (papers, d) = u.finish();
        assert_eq!(papers.len(), 100);
        let arxiv: Vec<Paper> = ArxivMock.records().unwrap().map(Result::unwrap).collect();
        for (m, a) in papers.iter().zip(&arxiv) {
            assert_eq!((&m.title, m.year), (&a.title, a.year), "text comes from arXiv");
            assert_eq!(m.source, "arxiv+s2");
        }
        assert!(papers.iter().any(|p| !p.references.is_empty()), "graph comes from S2");
        assert!(d.iter().any(|d| d.field == "title") && d.iter().any(|d| d.field == "year"));
        assert!(d.iter().all(|d| d.kept_source == "arxiv" && d.other_source == "s2"));
    }
}
