//! The built-in deterministic demo corpus: 100 papers on five topics, served
//! by two mock clients shaped like the real services.
//!
//! * [`ArxivMock`] gives text: title, abstract, year, authors (no graph).
//! * [`SemanticScholarMock`] gives the graph: references and citations, plus
//!   its own title and year, which disagree with arXiv on a few papers.
//!
//! The data lives in `data/mock_corpus.json`, compiled into the binary.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::{RecordError, Source};
use crate::paper::Paper;

const MOCK_JSON: &str = include_str!("../../data/mock_corpus.json");

/// One of the five mock topics.
#[derive(Debug, Clone, Deserialize)]
pub struct MockTopic {
    pub name: String,
    /// A short query that finds the topic's papers.
    pub query: String,
    /// The topic's usual content words.
    pub vocabulary: Vec<String>,
    /// The paper that shares none of that vocabulary but is linked to the
    /// topic by citations: only the graph pass can find it.
    pub gap_paper: String,
}

#[derive(Debug, Deserialize)]
struct MockPaper {
    id: String,
    topic: usize,
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
    topics: Vec<MockTopic>,
    papers: Vec<MockPaper>,
}

fn corpus() -> &'static MockCorpus {
    static CORPUS: OnceLock<MockCorpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        serde_json::from_str(MOCK_JSON).expect("data/mock_corpus.json is compiled in and checked by tests")
    })
}

/// The five topics with their gap papers; the paper ids of topic `i` are
/// those whose `topic` is `i`.
pub fn mock_topics() -> Vec<(MockTopic, Vec<String>)> {
    let c = corpus();
    c.topics
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let ids = c.papers.iter().filter(|p| p.topic == i).map(|p| p.id.clone()).collect();
            (t.clone(), ids)
        })
        .collect()
}

/// Mock arXiv client: text fields only.
#[derive(Debug, Default, Clone, Copy)]
pub struct ArxivMock;

impl Source for ArxivMock {
    fn name(&self) -> String {
        "arxiv".into()
    }

    fn records(&self) -> anyhow::Result<Box<dyn Iterator<Item = Result<Paper, RecordError>> + '_>> {
        Ok(Box::new(corpus().papers.iter().map(|p| {
            Ok(Paper {
                id: p.id.clone(),
                title: p.title.clone(),
                abstract_: p.abstract_.clone(),
                year: Some(p.year),
                authors: p.authors.clone(),
                references: Vec::new(),
                citations: Vec::new(),
                source: "arxiv".into(),
            })
        })))
    }
}

/// Mock Semantic Scholar client: references and citations, its own title and
/// year, no abstract and no authors.
#[derive(Debug, Default, Clone, Copy)]
pub struct SemanticScholarMock;

impl Source for SemanticScholarMock {
    fn name(&self) -> String {
        "s2".into()
    }

    fn records(&self) -> anyhow::Result<Box<dyn Iterator<Item = Result<Paper, RecordError>> + '_>> {
        let papers = &corpus().papers;
        // S2 answers both directions: citations are the inverse of references.
        let mut cited_by: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for p in papers {
            for r in &p.references {
                cited_by.entry(r.as_str()).or_default().push(p.id.clone());
            }
        }
        Ok(Box::new(papers.iter().map(move |p| {
            Ok(Paper {
                id: p.id.clone(),
                title: p.s2_title.clone().unwrap_or_else(|| p.title.clone()),
                abstract_: String::new(),
                year: Some(p.s2_year.unwrap_or(p.year)),
                authors: Vec::new(),
                references: p.references.clone(),
                citations: cited_by.get(p.id.as_str()).cloned().unwrap_or_default(),
                source: "s2".into(),
            })
        })))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::analyzer::Analyzer;

    fn all(source: &dyn Source) -> Vec<Paper> {
        source.records().unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn corpus_has_100_unique_ids_on_five_topics() {
        let papers = all(&ArxivMock);
        assert_eq!(papers.len(), 100);
        let ids: BTreeSet<_> = papers.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids.len(), 100);
        let expected: BTreeSet<String> = (1..=100).map(|i| format!("p{i:03}")).collect();
        assert_eq!(ids, expected.iter().map(String::as_str).collect());
        let topics = mock_topics();
        assert_eq!(topics.len(), 5);
        for (_, ids) in &topics {
            assert_eq!(ids.len(), 20);
        }
    }

    #[test]
    fn arxiv_mock_gives_text_and_no_graph() {
        for p in all(&ArxivMock) {
            assert!(!p.title.is_empty() && !p.abstract_.is_empty(), "{}", p.id);
            assert!(p.year.is_some() && !p.authors.is_empty(), "{}", p.id);
            assert!(p.references.is_empty() && p.citations.is_empty(), "{}", p.id);
            assert_eq!(p.source, "arxiv");
        }
    }

    #[test]
    fn s2_mock_gives_graph_and_no_abstract() {
        let papers = all(&SemanticScholarMock);
        assert_eq!(papers.len(), 100);
        for p in &papers {
            assert!(p.abstract_.is_empty() && p.authors.is_empty(), "{}", p.id);
            assert!(!p.title.is_empty() && p.year.is_some(), "{}", p.id);
            assert_eq!(p.source, "s2");
        }
        assert!(papers.iter().any(|p| !p.references.is_empty()));
        // citations are the exact inverse of references among corpus papers.
        let refs: BTreeSet<(String, String)> =
            papers.iter().flat_map(|p| p.references.iter().map(move |r| (p.id.clone(), r.clone()))).collect();
        let cites: BTreeSet<(String, String)> =
            papers.iter().flat_map(|p| p.citations.iter().map(move |c| (c.clone(), p.id.clone()))).collect();
        let ids: BTreeSet<&str> = papers.iter().map(|p| p.id.as_str()).collect();
        let internal: BTreeSet<_> = refs.iter().filter(|(_, to)| ids.contains(to.as_str())).cloned().collect();
        assert_eq!(internal, cites);
    }

    #[test]
    fn sources_disagree_on_a_few_papers() {
        let a = all(&ArxivMock);
        let s = all(&SemanticScholarMock);
        let titles = a.iter().zip(&s).filter(|(a, s)| a.title != s.title).count();
        let years = a.iter().zip(&s).filter(|(a, s)| a.year != s.year).count();
        assert!((1..=10).contains(&titles), "{titles} title disagreements");
        assert!((1..=10).contains(&years), "{years} year disagreements");
    }

    #[test]
    fn gap_papers_share_no_word_with_their_topic_vocabulary() {
        let papers = all(&ArxivMock);
        for (topic, ids) in mock_topics() {
            assert!(ids.contains(&topic.gap_paper), "{} not in topic {}", topic.gap_paper, topic.name);
            let gap = papers.iter().find(|p| p.id == topic.gap_paper).unwrap();
            let words: BTreeSet<String> =
                Analyzer::Plain.tokenize(&format!("{} {}", gap.title, gap.abstract_)).into_iter().collect();
            let query = Analyzer::Plain.tokenize(&topic.query);
            for w in topic.vocabulary.iter().chain(&query) {
                assert!(!words.contains(w), "gap paper {} contains `{w}`", gap.id);
            }
        }
    }
}
