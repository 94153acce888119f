//! A job is a run of requests whose next page depends on the last answer:
//! a search paged to its limit, a batch of ids, one paper's links.

use super::api::{
    ARXIV_PAGE, OPENALEX_IDS, OPENALEX_PAGE, Page, Request, S2_BATCH_FIELDS, S2_FIELDS, S2_IDS, S2_LINKS_PAGE, S2_PAGE,
    encode,
};
use super::{Api, Bases};
use crate::ingest::InputFormat;
use crate::paper::PaperId;

/// Which way a snowball goes from a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    References,
    Citations,
}

impl Links {
    fn s2_path(self) -> &'static str {
        match self {
            Links::References => "references",
            Links::Citations => "citations",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Job {
    /// `/works?{param}` (a `search=` or `filter=` pair, encoded), cursor paging.
    OpenAlex { param: String, cursor: Option<String>, remaining: usize },
    /// `/graph/v1/paper/search?query=…`, offset paging.
    S2Search { query: String, offset: usize, remaining: usize },
    /// One `POST /graph/v1/paper/batch`.
    S2Batch { ids: Vec<String>, done: bool },
    /// One page of a paper's references or citations.
    S2Links { paper: String, links: Links, limit: usize, done: bool },
    /// `/api/query?{param}` (`search_query=` or `id_list=`), paging by `start`.
    Arxiv { param: String, start: usize, remaining: usize },
}

impl Job {
    pub(crate) fn openalex_search(query: &str, limit: usize) -> Job {
        Job::OpenAlex { param: format!("search={}", encode(query)), cursor: Some("*".into()), remaining: limit }
    }

    pub(crate) fn openalex_filter(filter: &str, limit: usize) -> Job {
        Job::OpenAlex { param: format!("filter={}", encode(filter)), cursor: Some("*".into()), remaining: limit }
    }

    pub(crate) fn arxiv_search(query: &str, limit: usize) -> Job {
        Job::Arxiv { param: format!("search_query={}", encode(query)), start: 0, remaining: limit }
    }

    /// The next request, or `None` when the job is done.
    pub(crate) fn request(&self, bases: &Bases) -> Option<Request> {
        match self {
            Job::OpenAlex { param, cursor: Some(c), remaining } if *remaining > 0 => Some(Request::get(
                Api::OpenAlex,
                format!(
                    "{}/works?{param}&per_page={}&cursor={}",
                    bases.openalex,
                    (*remaining).min(OPENALEX_PAGE),
                    encode(c)
                ),
                InputFormat::OpenAlex,
            )),
            Job::S2Search { query, offset, remaining } if *remaining > 0 => Some(Request::get(
                Api::S2,
                format!(
                    "{}/graph/v1/paper/search?query={}&offset={offset}&limit={}&fields={S2_FIELDS}",
                    bases.s2,
                    encode(query),
                    (*remaining).min(S2_PAGE)
                ),
                InputFormat::S2,
            )),
            Job::S2Batch { ids, done: false } => Some(Request {
                api: Api::S2,
                url: format!("{}/graph/v1/paper/batch?fields={S2_BATCH_FIELDS}", bases.s2),
                body: Some(serde_json::json!({ "ids": ids }).to_string()),
                format: InputFormat::S2,
                paper: None,
            }),
            Job::S2Links { paper, links, limit, done: false } => Some(Request {
                paper: Some(paper.clone()),
                ..Request::get(
                    Api::S2,
                    format!(
                        "{}/graph/v1/paper/{paper}/{}?fields={S2_FIELDS}&limit={}",
                        bases.s2,
                        links.s2_path(),
                        (*limit).min(S2_LINKS_PAGE)
                    ),
                    InputFormat::S2,
                )
            }),
            Job::Arxiv { param, start, remaining } if *remaining > 0 => Some(Request::get(
                Api::Arxiv,
                format!("{}/api/query?{param}&start={start}&max_results={}", bases.arxiv, (*remaining).min(ARXIV_PAGE)),
                InputFormat::ArxivAtom,
            )),
            _ => None,
        }
    }

    /// Moves past the page just read.
    pub(crate) fn advance(&mut self, page: &Page) {
        let end = page.entries == 0;
        match self {
            Job::OpenAlex { cursor, remaining, .. } => {
                *remaining = remaining.saturating_sub(page.entries);
                *cursor = if end { None } else { page.next.clone() };
            }
            Job::S2Search { offset, remaining, .. } => {
                *offset += page.entries;
                let more = page.next.is_some() && !end;
                *remaining = if more { remaining.saturating_sub(page.entries) } else { 0 };
            }
            Job::S2Batch { done, .. } | Job::S2Links { done, .. } => *done = true,
            Job::Arxiv { start, remaining, .. } => {
                *start += page.entries;
                let total = page.next.as_deref().and_then(|t| t.parse::<usize>().ok()).unwrap_or(usize::MAX);
                let more = !end && *start < total;
                *remaining = if more { remaining.saturating_sub(page.entries) } else { 0 };
            }
        }
    }
}

/// The jobs that look up `ids`: OpenAlex for `W…` ids and DOIs, arXiv for
/// arXiv ids, Semantic Scholar's batch for CorpusIds and paper shas, each in
/// batches. An id of no known kind is an error naming it.
pub(crate) fn id_jobs(ids: &[String]) -> anyhow::Result<Vec<Job>> {
    let (mut works, mut dois, mut arxiv, mut s2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for raw in ids {
        match PaperId::parse(raw) {
            PaperId::OpenAlex(w) => works.push(w),
            PaperId::Doi(d) => dois.push(d),
            PaperId::Arxiv(a) => arxiv.push(a),
            PaperId::CorpusId(n) => s2.push(format!("CorpusId:{n}")),
            PaperId::S2(sha) => s2.push(sha),
            PaperId::Own(_) | PaperId::Citekey(_) => anyhow::bail!(
                "`{raw}` is not an id fetch can look up (known: doi:10.…, arXiv:2101.00001, W2741809807, \
                 CorpusId:123, a Semantic Scholar paper sha)"
            ),
        }
    }
    let mut jobs = Vec::new();
    jobs.extend(openalex_id_jobs("openalex", &works));
    jobs.extend(openalex_id_jobs("doi", &dois));
    for chunk in dedup(&arxiv).chunks(ARXIV_PAGE) {
        jobs.push(Job::Arxiv {
            param: format!("id_list={}", encode(&chunk.join(","))),
            start: 0,
            remaining: chunk.len(),
        });
    }
    for chunk in dedup(&s2).chunks(S2_IDS) {
        jobs.push(Job::S2Batch { ids: chunk.to_vec(), done: false });
    }
    Ok(jobs)
}

/// `filter={name}:a|b|…` jobs, [`OPENALEX_IDS`] values each.
pub(crate) fn openalex_id_jobs(name: &str, values: &[String]) -> Vec<Job> {
    dedup(values)
        .chunks(OPENALEX_IDS)
        .map(|c| Job::openalex_filter(&format!("{name}:{}", c.join("|")), c.len()))
        .collect()
}

/// `values` without repeats, in first-seen order.
fn dedup(values: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    values.iter().filter(|v| seen.insert(v.as_str())).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases() -> Bases {
        Bases { openalex: "http://oa".into(), s2: "http://s2".into(), arxiv: "http://ax".into() }
    }

    #[test]
    fn an_openalex_search_pages_by_cursor_to_its_limit() {
        let mut job = Job::openalex_search("sparse attention", 250);
        let first = job.request(&bases()).unwrap();
        assert_eq!(first.url, "http://oa/works?search=sparse%20attention&per_page=200&cursor=%2A");
        job.advance(&Page { entries: 200, next: Some("c2".into()), found: vec![] });
        assert_eq!(
            job.request(&bases()).unwrap().url,
            "http://oa/works?search=sparse%20attention&per_page=50&cursor=c2"
        );
        job.advance(&Page { entries: 50, next: Some("c3".into()), found: vec![] });
        assert_eq!(job.request(&bases()), None, "the limit is reached");
        let mut job = Job::openalex_search("q", 500);
        job.advance(&Page { entries: 3, next: None, found: vec![] });
        assert_eq!(job.request(&bases()), None, "no next cursor");
    }

    #[test]
    fn s2_and_arxiv_page_by_offset() {
        let mut job = Job::S2Search { query: "q".into(), offset: 0, remaining: 150 };
        assert!(job.request(&bases()).unwrap().url.contains("offset=0&limit=100"));
        job.advance(&Page { entries: 100, next: Some("100".into()), found: vec![] });
        assert!(job.request(&bases()).unwrap().url.contains("offset=100&limit=50"));
        job.advance(&Page { entries: 20, next: None, found: vec![] });
        assert_eq!(job.request(&bases()), None, "no `next`");
        let mut job = Job::arxiv_search("ti:x", 1000);
        job.advance(&Page { entries: 100, next: Some("120".into()), found: vec![] });
        assert!(job.request(&bases()).unwrap().url.ends_with("start=100&max_results=100"));
        job.advance(&Page { entries: 20, next: Some("120".into()), found: vec![] });
        assert_eq!(job.request(&bases()), None, "totalResults reached");
    }

    #[test]
    fn ids_go_to_the_api_that_has_them() {
        let ids: Vec<String> =
            ["doi:10.1/A", "arXiv:2101.00001v2", "W123", "CorpusId:7", "W123"].iter().map(|s| s.to_string()).collect();
        let jobs = id_jobs(&ids).unwrap();
        let urls: Vec<String> = jobs.iter().map(|j| j.request(&bases()).unwrap().key()).collect();
        assert_eq!(
            urls,
            [
                "GET http://oa/works?filter=openalex%3AW123&per_page=1&cursor=%2A",
                "GET http://oa/works?filter=doi%3A10.1%2Fa&per_page=1&cursor=%2A",
                "GET http://ax/api/query?id_list=2101.00001&start=0&max_results=1",
                &format!("POST http://s2/graph/v1/paper/batch?fields={S2_BATCH_FIELDS} {{\"ids\":[\"CorpusId:7\"]}}"),
            ]
        );
        let err = id_jobs(&["nonsense".to_string()]).unwrap_err().to_string();
        assert!(err.contains("`nonsense` is not an id"), "{err}");
    }
}
