//! `litindex fetch`: papers from the APIs into the index, with a progress
//! line on a terminal and a summary line.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::UsageError;
use super::ingest::{progress_bar, report_counts};
use crate::cli::{ExpandChoice, FetchArgs};
use litindex::bm25::Bm25;
use litindex::fetch::{Bases, Expand, FetchOptions, FetchPlan, FetchProgress, FetchSummary, dry_run, fetch};
use litindex::paper::PaperId;
use litindex::store::Store;

pub fn run(args: &FetchArgs, db: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let bm25 = Bm25::new(args.index.k1, args.index.b).map_err(|e| UsageError(e.to_string()))?;
    let plan = plan(args, db)?;
    let mut opts = FetchOptions {
        bases: Bases {
            openalex: base(&args.openalex_base, "--openalex-base")?,
            s2: base(&args.s2_base, "--s2-base")?,
            arxiv: base(&args.arxiv_base, "--arxiv-base")?,
        },
        mailto: args.mailto.clone().filter(|m| !m.trim().is_empty()),
        s2_api_key: args.s2_api_key.clone().filter(|k| !k.trim().is_empty()),
        min_interval: args.min_interval_ms.map(Duration::from_millis),
        timeout: Duration::from_secs_f64(args.timeout),
        retries: args.retries,
        backoff: Duration::from_millis(args.backoff_ms),
        refresh: args.refresh,
        skip_invalid: args.skip_invalid,
        max_age: args.max_age_days.map(|d| Duration::from_secs_f64(d * 86_400.0)),
        analyzer: args.index.analyzer,
        bm25,
        progress: None,
        notes: Some(&super::print_note),
    };
    if args.dry_run {
        for line in dry_run(&plan, &opts).map_err(|e| UsageError(format!("{e:#}")))? {
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    let started = Instant::now();
    let bar = progress_bar(!args.quiet, "{spinner} [{elapsed_precise}] {msg}");
    let draw = |p: &FetchProgress| {
        if let Some(bar) = &bar {
            let waiting = p.waiting.map(|w| format!(", waiting {:.1} s", w.as_secs_f64())).unwrap_or_default();
            let current: String = p.current.chars().take(90).collect();
            bar.set_message(format!(
                "hop {}: {} pages ({} cached), {} records, {} requests{waiting}  {current}",
                p.hop, p.pages, p.cached_pages, p.records, p.http.requests
            ));
        }
    };
    if bar.is_some() {
        opts.progress = Some(&draw);
    }
    let result = fetch(db, &plan, &opts);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = result?;
    print_summary(&summary, db, started.elapsed().as_secs_f64(), out)
}

fn plan(args: &FetchArgs, db: &Path) -> anyhow::Result<FetchPlan> {
    let mut ids = Vec::new();
    for id in &args.ids {
        ids.push(checked_id(id, "an argument")?);
    }
    if let Some(path) = &args.ids_from {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let meaningful = |l: &&str| !l.trim().is_empty() && !l.trim().starts_with('#');
        let first = text.trim_start_matches('\u{feff}').lines().find(meaningful).unwrap_or("");
        let bib = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("bib")) || first.trim().starts_with('@');
        if bib {
            ids.extend(bibtex_ids(path)?);
        } else {
            for (n, line) in text.lines().enumerate() {
                let line = line.trim().trim_start_matches('\u{feff}');
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                ids.push(checked_id(line, &format!("{}:{}", path.display(), n + 1))?);
            }
        }
    }
    let mut titles = Vec::new();
    if args.from_gaps {
        let (gap_ids, gap_titles) = gap_ids(db, args.limit)?;
        ids.extend(gap_ids);
        titles = gap_titles;
    }
    let plan = FetchPlan {
        openalex_search: args.openalex.clone(),
        openalex_filter: args.openalex_filter.clone(),
        s2_search: args.s2.clone(),
        arxiv_search: args.arxiv.clone(),
        ids,
        titles,
        limit: args.limit as usize,
        expand: args.expand.map(|e| match e {
            ExpandChoice::References => Expand::References,
            ExpandChoice::Citations => Expand::Citations,
            ExpandChoice::Both => Expand::Both,
        }),
        depth: args.depth,
        expand_limit: args.expand_limit as usize,
    };
    let any = plan.openalex_search.is_some()
        || plan.openalex_filter.is_some()
        || plan.s2_search.is_some()
        || plan.arxiv_search.is_some()
        || !plan.ids.is_empty()
        || !plan.titles.is_empty();
    if !any {
        return Err(UsageError(
            "nothing to fetch: give ids, --ids-from FILE, --from-gaps, --openalex, --s2 or --arxiv".into(),
        )
        .into());
    }
    Ok(plan)
}

/// The DOI or arXiv id of each entry of the BibTeX library `path`; the
/// entries with neither are named in a note.
fn bibtex_ids(path: &Path) -> anyhow::Result<Vec<String>> {
    let (ids, without) = litindex::ingest::bibtex_fetchable_ids(path).map_err(|e| UsageError(format!("{e:#}")))?;
    if !without.is_empty() {
        let more = if without.len() > 5 { ", …" } else { "" };
        let keys = without.iter().take(5).map(String::as_str).collect::<Vec<_>>().join(", ");
        super::print_note(&format!(
            "{}: {} entr{} with no DOI or arXiv id to fetch by: {keys}{more}",
            path.display(),
            without.len(),
            if without.len() == 1 { "y" } else { "ies" }
        ));
    }
    Ok(ids.iter().map(PaperId::key).collect())
}

/// The ids `gaps --all --limit LIMIT` lists, each as itself when fetch can
/// look it up, else as a DOI/arXiv/… alias the index knows for it, else (a
/// PDF's reference entry with neither) by the title it printed; the gaps
/// with none of these are named in a note. Returns (ids, titles).
fn gap_ids(db: &Path, limit: u64) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    anyhow::ensure!(db.exists(), "--from-gaps: there is no index at {} to find gaps in", db.display());
    let store = Store::open_with_notes(db, &super::print_note)?;
    let lookable = |id: &PaperId| !matches!(id, PaperId::Own(_) | PaperId::Citekey(_));
    let (mut ids, mut titles, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
    for gap in litindex::explore::gaps(&store, None, limit)? {
        let own = PaperId::parse(&gap.id);
        let alias = || {
            gap.aliases
                .iter()
                .filter_map(|a| a.split_once(':'))
                .find_map(|(kind, alias)| PaperId::from_alias(kind, alias).filter(lookable))
        };
        match (Some(own).filter(lookable).or_else(alias), gap.title) {
            (Some(id), _) => ids.push(id.key()),
            (None, Some(title)) => titles.push(title),
            (None, None) => unknown.push(gap.id),
        }
    }
    if !unknown.is_empty() {
        super::print_note(&format!(
            "--from-gaps: {} missing id(s) name nothing an API knows (no DOI, arXiv id or title): {}",
            unknown.len(),
            unknown.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    anyhow::ensure!(
        !ids.is_empty() || !titles.is_empty() || !unknown.is_empty(),
        "--from-gaps: {} cites no id it lacks",
        db.display()
    );
    Ok((ids, titles))
}

/// `id` if it is of a kind fetch can look up; a usage error naming `where_` otherwise.
fn checked_id(id: &str, where_: &str) -> anyhow::Result<String> {
    match PaperId::parse(id) {
        PaperId::Own(_) => Err(UsageError(format!(
            "{where_}: `{id}` is not an id fetch can look up (known: doi:10.…, arXiv:2101.00001, W2741809807, \
             CorpusId:123, a Semantic Scholar paper sha)"
        ))
        .into()),
        _ => Ok(id.trim().to_string()),
    }
}

/// A base URL without its trailing slash; it must be http(s).
fn base(url: &str, flag: &str) -> anyhow::Result<String> {
    let url = url.trim().trim_end_matches('/');
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(UsageError(format!("{flag}: `{url}` is not an http:// or https:// URL")).into());
    }
    Ok(url.to_string())
}

fn print_summary(s: &FetchSummary, db: &Path, secs: f64, out: &mut dyn Write) -> anyhow::Result<()> {
    let papers = Store::open(db).and_then(|st| st.meta()).map(|m| m.num_docs).unwrap_or(0);
    let hops: Vec<String> = s.found_per_hop.iter().map(u64::to_string).collect();
    writeln!(
        out,
        "fetched into {}{}: {} pages ({} from the cache), {} requests ({} retries, {:.1} s waiting); {}; \
         papers found per hop: {}; index now {} papers; {:.2} s",
        db.display(),
        if s.created { " (created)" } else { "" },
        s.pages,
        s.cached_pages,
        s.http.requests,
        s.http.retries,
        s.http.waited.as_secs_f64(),
        report_counts(&s.report),
        hops.join(", "),
        papers,
        secs,
    )?;
    Ok(())
}
