//! The built-in demo corpus as one more input: 100 papers on five topics
//! (`data/mock_corpus.json`, compiled into the binary), read as the records
//! two sources would give.
//!
//! * `arxiv` records give text: title, abstract, year, authors (no graph).
//! * `s2` records give the graph: references and citations (the inverse of
//!   the references), plus Semantic Scholar's own title and year, which
//!   disagree with arXiv's on a few papers.
//!
//! Each paper's two records come one after the other, so the papers get doc
//! ids in corpus order. Each topic has one paper that shares no word with
//! the topic's usual vocabulary but is linked to it by citations: only the
//! graph pass finds it.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Items, Located};
use crate::paper::{Item, PaperId, Record};

/// The input name of the built-in corpus: its records' `format`, and the
/// file part of their `origin`.
pub(crate) const MOCK: &str = "mock";

const MOCK_JSON: &str = include_str!("../../../data/mock_corpus.json");

#[derive(Debug, Deserialize)]
struct MockPaper {
    id: String,
    title: String,
    #[serde(rename = "abstract")]
    abstract_: String,
    year: i32,
    authors: Vec<String>,
    references: Vec<String>,
    s2_title: Option<String>,
    s2_year: Option<i32>,
}

#[derive(Debug, Deserialize)]
struct MockCorpus {
    papers: Vec<MockPaper>,
}

/// The records of the built-in corpus.
pub(crate) fn read_mock() -> Items {
    let corpus: MockCorpus =
        serde_json::from_str(MOCK_JSON).expect("data/mock_corpus.json is compiled in and checked by tests");
    let mut cited_by: BTreeMap<String, Vec<PaperId>> = BTreeMap::new();
    for p in &corpus.papers {
        for r in &p.references {
            cited_by.entry(r.clone()).or_default().push(PaperId::parse(&p.id));
        }
    }
    let mut items: Vec<Located> = Vec::with_capacity(2 * corpus.papers.len());
    for (i, p) in corpus.papers.into_iter().enumerate() {
        let id = PaperId::parse(&p.id);
        let s2 = Record {
            source: "s2".into(),
            source_id: id.clone(),
            title: p.s2_title.unwrap_or_else(|| p.title.clone()),
            year: Some(p.s2_year.unwrap_or(p.year)),
            references: p.references.iter().map(|r| PaperId::parse(r)).collect(),
            citations: cited_by.remove(&p.id).unwrap_or_default(),
            ..Record::default()
        };
        let arxiv = Record {
            source: "arxiv".into(),
            source_id: id,
            title: p.title,
            abstract_: p.abstract_,
            year: Some(p.year),
            authors: p.authors,
            ..Record::default()
        };
        let origin = format!("{MOCK}:{}", i + 1);
        items.push((Item::Record(arxiv), origin.clone()));
        items.push((Item::Record(s2), origin));
    }
    Box::new(items.into_iter().map(Ok))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn records(source: &str) -> Vec<Record> {
        read_mock()
            .map(|item| match item.unwrap().0 {
                Item::Record(r) => r,
                Item::Link(_) => panic!("the mock corpus has no bare links"),
            })
            .filter(|r| r.source == source)
            .collect()
    }

    #[test]
    fn corpus_has_100_unique_ids() {
        let ids: BTreeSet<String> = records("arxiv").iter().map(|r| r.source_id.key()).collect();
        let expected: BTreeSet<String> = (1..=100).map(|i| format!("p{i:03}")).collect();
        assert_eq!(ids, expected);
    }

    #[test]
    fn arxiv_gives_text_and_s2_the_graph() {
        for r in records("arxiv") {
            assert!(!r.title.is_empty() && !r.abstract_.is_empty() && r.year.is_some() && !r.authors.is_empty());
            assert!(r.references.is_empty() && r.citations.is_empty());
        }
        let s2 = records("s2");
        assert_eq!(s2.len(), 100);
        assert!(s2.iter().all(|r| r.abstract_.is_empty() && r.authors.is_empty() && !r.title.is_empty()));
        // Citations are the exact inverse of references among corpus papers.
        let ids: BTreeSet<String> = s2.iter().map(|r| r.source_id.key()).collect();
        let refs: BTreeSet<(String, String)> = s2
            .iter()
            .flat_map(|r| r.references.iter().map(move |x| (r.source_id.key(), x.key())))
            .filter(|(_, to)| ids.contains(to))
            .collect();
        let cites: BTreeSet<(String, String)> =
            s2.iter().flat_map(|r| r.citations.iter().map(move |c| (c.key(), r.source_id.key()))).collect();
        assert!(!refs.is_empty());
        assert_eq!(refs, cites);
    }

    #[test]
    fn sources_disagree_on_a_few_papers() {
        let (a, s) = (records("arxiv"), records("s2"));
        let titles = a.iter().zip(&s).filter(|(a, s)| a.title != s.title).count();
        let years = a.iter().zip(&s).filter(|(a, s)| a.year != s.year).count();
        assert!((1..=10).contains(&titles), "{titles} title disagreements");
        assert!((1..=10).contains(&years), "{years} year disagreements");
    }
}
