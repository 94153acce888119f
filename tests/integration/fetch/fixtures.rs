//! Answers shaped like each API's documented responses, built per test.
//!
//! - OpenAlex: the Work object (docs.openalex.org, "Work object": `id`,
//!   `doi`, `display_name`, `publication_year`, `ids`, `authorships`,
//!   `referenced_works`, `abstract_inverted_index`) in a list page
//!   `{"meta": {"count", "db_response_time_ms", "page", "per_page",
//!   "next_cursor", "groups_count"}, "results": [...]}` ("Paging": cursor
//!   paging, `next_cursor` null on the last page).
//! - Semantic Scholar Graph API (api.semanticscholar.org/api-docs/graph):
//!   paper search `{"total", "offset", "next", "data": [paper]}` (`next`
//!   absent on the last page); `POST /paper/batch` an array of papers,
//!   `null` for an unknown id; `/paper/{id}/citations`
//!   `{"offset", "data": [{"citingPaper": paper}]}`; a paper with
//!   `paperId`, `corpusId`, `externalIds`, `title`, `abstract`, `year`,
//!   `authors: [{"authorId", "name"}]`.
//! - arXiv (arXiv API User's Manual, 3.2 and 3.3): an Atom feed with
//!   `opensearch:totalResults`, `startIndex`, `itemsPerPage` and one `entry`
//!   per paper (`id` `http://arxiv.org/abs/ID vN`, `published`, `title`,
//!   `summary`, `author/name`, `arxiv:doi`).

use serde_json::{Value, json};

pub fn openalex_work(w: &str, title: &str, doi: Option<&str>, refs: &[&str]) -> Value {
    let doi_url = doi.map(|d| format!("https://doi.org/{d}"));
    json!({
        "id": format!("https://openalex.org/{w}"),
        "doi": doi_url,
        "title": title,
        "display_name": title,
        "publication_year": 2021,
        "publication_date": "2021-01-04",
        "ids": {"openalex": format!("https://openalex.org/{w}"), "doi": doi_url},
        "type": "article",
        "authorships": [{
            "author_position": "first",
            "author": {"id": "https://openalex.org/A5000000001", "display_name": "Ada Lovelace", "orcid": null},
            "institutions": [],
            "raw_author_name": "Ada Lovelace"
        }],
        "cited_by_count": 3,
        "referenced_works": refs.iter().map(|r| format!("https://openalex.org/{r}")).collect::<Vec<_>>(),
        "abstract_inverted_index": {"Sparse": [0], "routing": [1], "of": [2], "experts": [3]}
    })
}

pub fn openalex_page(works: Vec<Value>, next_cursor: Option<&str>) -> String {
    json!({
        "meta": {
            "count": 1000,
            "db_response_time_ms": 12,
            "page": null,
            "per_page": works.len(),
            "next_cursor": next_cursor,
            "groups_count": null
        },
        "results": works,
        "group_by": []
    })
    .to_string()
}

pub fn s2_paper(sha: &str, corpus_id: u64, title: &str, doi: Option<&str>) -> Value {
    let mut ids = json!({"CorpusId": corpus_id});
    if let Some(d) = doi {
        ids["DOI"] = json!(d);
    }
    json!({
        "paperId": sha,
        "corpusId": corpus_id,
        "externalIds": ids,
        "title": title,
        "abstract": "We route each query to a sparse mixture of retrieval experts.",
        "year": 2021,
        "authors": [{"authorId": "1741101", "name": "Ada Lovelace"}]
    })
}

pub fn s2_search_page(offset: u64, next: Option<u64>, data: Vec<Value>) -> String {
    let mut page = json!({"total": 4, "offset": offset, "data": data});
    if let Some(n) = next {
        page["next"] = json!(n);
    }
    page.to_string()
}

/// A 40-hex-digit paper sha made of `c`.
pub fn sha(c: char) -> String {
    std::iter::repeat_n(c, 40).collect()
}

pub fn arxiv_feed(total: usize, start: usize, entries: &[(&str, &str, Option<&str>)]) -> String {
    let mut xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query?search_query%3Dall%3Aelectron" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=all:electron</title>
  <id>http://arxiv.org/api/cHxbiOdZaP56ODnBPIenZhzg5f8</id>
  <updated>2021-03-11T00:00:00-05:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{total}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{start}</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{}</opensearch:itemsPerPage>
"#,
        entries.len()
    );
    for (id, title, doi) in entries {
        xml.push_str(&format!(
            r#"  <entry>
    <id>http://arxiv.org/abs/{id}v1</id>
    <updated>2021-01-04T10:00:00Z</updated>
    <published>2021-01-04T10:00:00Z</published>
    <title>{title}</title>
    <summary>We route each query to a sparse mixture of retrieval experts.</summary>
    <author><name>Ada Lovelace</name></author>
{}    <link href="http://arxiv.org/abs/{id}v1" rel="alternate" type="text/html"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.IR" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
"#,
            doi.map(|d| format!("    <arxiv:doi xmlns:arxiv=\"http://arxiv.org/schemas/atom\">{d}</arxiv:doi>\n"))
                .unwrap_or_default()
        ));
    }
    xml.push_str("</feed>\n");
    xml
}
