//! `fetch --from-gaps` (what `gaps` lists, fetched) and `fetch --ids-from
//! FILE.bib` (the DOIs and arXiv ids of a BibTeX library).

use super::*;

/// OpenAlex answers a DOI filter with one work of that DOI; arXiv an id_list with one entry.
fn by_id(hit: &Hit) -> Reply {
    match hit.path() {
        "/works" => {
            let filter = hit.param("filter").unwrap_or_default();
            let doi = filter.strip_prefix("doi:").unwrap_or("none").to_string();
            Reply::ok(openalex_page(vec![openalex_work("W77", "The missing paper", Some(&doi), &[])], None))
        }
        "/api/query" => {
            let id = hit.param("id_list").unwrap_or_default();
            Reply::ok(arxiv_feed(1, 0, &[(&id, "A missing preprint", None)]))
        }
        _ => Reply::status(404, "{}"),
    }
}

fn gaps_of(dir: &Path) -> Vec<String> {
    let o = litindex().arg("--db").arg(db(dir)).args(["gaps", "--all", "--format", "json"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    v.as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn from_gaps_fetches_the_missing_ids_by_doi_and_arxiv_id() {
    let api = MockApi::start(by_id);
    let dir = tempfile::tempdir().unwrap();
    // a and b cite a DOI (twice), c an arXiv id, and one own id no API knows.
    let jsonl = dir.path().join("p.jsonl");
    let line =
        |id: &str, refs: &[&str]| serde_json::json!({"id": id, "title": format!("Paper {id}"), "references": refs});
    let lines =
        [line("a", &["10.1234/missing.1", "m1"]), line("b", &["10.1234/missing.1"]), line("c", &["arXiv:2101.00002"])];
    std::fs::write(&jsonl, lines.map(|l| l.to_string()).join("\n")).unwrap();
    let o =
        litindex().arg("--db").arg(db(dir.path())).args(["build", "--quiet", "--jsonl"]).arg(&jsonl).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(gaps_of(dir.path()), ["10.1234/missing.1", "2101.00002", "m1"]);

    // --limit 1: only the most cited gap.
    let dry = ok(&run_fetch(dir.path(), &api, &["--from-gaps", "--limit", "1", "--dry-run"]));
    assert_eq!(dry.lines().count(), 1, "{dry}");
    assert!(dry.contains("doi%3A10.1234%2Fmissing.1"), "{dry}");

    let o = run_fetch(dir.path(), &api, &["--from-gaps"]);
    ok(&o);
    assert!(
        stderr(&o).contains("1 missing id(s) name nothing an API knows") && stderr(&o).contains("m1"),
        "{}",
        stderr(&o)
    );
    let hits = api.hits();
    assert_eq!(hits.len(), 2, "{hits:#?}");
    assert_eq!(hits[0].param("filter").as_deref(), Some("doi:10.1234/missing.1"));
    assert_eq!(hits[1].param("id_list").as_deref(), Some("2101.00002"));
    assert_eq!(stats(dir.path())["papers"], 5);
    assert_eq!(gaps_of(dir.path()), ["m1"], "the fetched papers fill their gaps");
}

#[test]
fn ids_from_a_bibtex_library_fetches_its_dois_and_eprints() {
    let api = MockApi::start(by_id);
    let dir = tempfile::tempdir().unwrap();
    let bib = dir.path().join("mine.bib");
    std::fs::write(
        &bib,
        "% my library\n\
         @article{one, title = {One}, doi = {https://doi.org/10.1234/Missing.1}, journal = {J}}\n\
         @misc{two, title = {Two}, eprint = {2101.00002v3}, archivePrefix = {arXiv}}\n\
         @book{three, title = {Three, with no id}}\n",
    )
    .unwrap();
    let o = run_fetch(dir.path(), &api, &["--ids-from", bib.to_str().unwrap()]);
    ok(&o);
    assert!(stderr(&o).contains("1 entry with no DOI or arXiv id to fetch by: three"), "{}", stderr(&o));
    let hits = api.hits();
    assert_eq!(hits.len(), 2, "{hits:#?}");
    assert_eq!(hits[0].param("filter").as_deref(), Some("doi:10.1234/missing.1"));
    assert_eq!(hits[1].param("id_list").as_deref(), Some("2101.00002"));
    assert_eq!(stats(dir.path())["papers"], 2);
}
