//! Snowballing: the jobs of one hop, from the papers the previous hop found.
//!
//! - References of OpenAlex works come with them (`referenced_works`): the
//!   ones not yet fetched are looked up in batches (`filter=openalex:…`).
//! - Citations of an OpenAlex work: `filter=cites:W…`.
//! - Semantic Scholar papers: their `/references` or `/citations` page.
//! - arXiv answers name no references; their papers are not expanded.
//!
//! `limit` papers at most are requested per hop: all of them for the
//! OpenAlex reference batch, an equal share (at least one) per paper for
//! the per-paper requests. A paper already fetched (by id, in this run) is
//! never asked for again, so cycles end.

use std::collections::HashSet;

use super::api::Found;
use super::jobs::{Job, Links, openalex_id_jobs};
use super::{Api, Expand};

pub(crate) fn jobs(frontier: &[Found], how: Expand, limit: usize, seen: &HashSet<(Api, String)>) -> Vec<Job> {
    let refs = matches!(how, Expand::References | Expand::Both);
    let cites = matches!(how, Expand::Citations | Expand::Both);
    let mut jobs = Vec::new();
    if refs {
        let mut wanted = HashSet::new();
        let missing: Vec<String> = frontier
            .iter()
            .filter(|f| f.api == Api::OpenAlex)
            .flat_map(|f| f.refs.iter())
            .filter(|r| !seen.contains(&(Api::OpenAlex, (*r).clone())) && wanted.insert(r.as_str()))
            .take(limit)
            .cloned()
            .collect();
        jobs.extend(openalex_id_jobs("openalex", &missing));
    }
    let per_paper: Vec<(&Found, Links)> = frontier
        .iter()
        .flat_map(|f| {
            let s2_refs = (refs && f.api == Api::S2).then_some((f, Links::References));
            let citing = (cites && f.api != Api::Arxiv).then_some((f, Links::Citations));
            s2_refs.into_iter().chain(citing)
        })
        .collect();
    let share = if per_paper.is_empty() { 0 } else { (limit / per_paper.len()).max(1) };
    for (f, links) in per_paper {
        jobs.push(match (f.api, links) {
            (Api::OpenAlex, _) => Job::openalex_filter(&format!("cites:{}", f.id), share),
            _ => Job::S2Links { paper: f.id.clone(), links, limit: share, done: false },
        });
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::Bases;

    fn found(api: Api, id: &str, refs: &[&str]) -> Found {
        Found { api, id: id.into(), refs: refs.iter().map(|r| r.to_string()).collect() }
    }

    #[test]
    fn a_hop_asks_for_unseen_references_and_for_citations() {
        let frontier = [found(Api::OpenAlex, "W1", &["W2", "W3", "W2", "W9"]), found(Api::S2, "abc", &[])];
        let seen: HashSet<(Api, String)> = [(Api::OpenAlex, "W9".to_string())].into_iter().collect();
        let bases = Bases { openalex: "http://oa".into(), s2: "http://s2".into(), arxiv: "http://ax".into() };
        let urls: Vec<String> =
            jobs(&frontier, Expand::Both, 10, &seen).iter().map(|j| j.request(&bases).unwrap().url).collect();
        assert_eq!(
            urls,
            [
                "http://oa/works?filter=openalex%3AW2%7CW3&per_page=2&cursor=%2A",
                "http://oa/works?filter=cites%3AW1&per_page=3&cursor=%2A",
                &format!("http://s2/graph/v1/paper/abc/references?fields={}&limit=3", crate::fetch::api::S2_FIELDS),
                &format!("http://s2/graph/v1/paper/abc/citations?fields={}&limit=3", crate::fetch::api::S2_FIELDS),
            ]
        );
        assert!(jobs(&[found(Api::Arxiv, "2101.00001", &[])], Expand::Both, 10, &seen).is_empty());
    }
}
