//! `litindex screen …`: reviews, decisions, the active-learning order and
//! the simulation on a labelled review.

use std::io::Write;

use anyhow::Context;

use super::{Db, open_for_reading, print_note, write_json};
use crate::cli::{
    Decision, Format, ScreenAction, ScreenArgs, ScreenExportArgs, ScreenExportFormat, ScreenNewArgs, SimulateArgs,
};
use litindex::cite::{CiteFormat, export_ids};
use litindex::embed::{EmbedOptions, embed_index};
use litindex::ingest::InputFormat;
use litindex::screen::review::{self, GivenId};
use litindex::screen::simulate::{docs_of, index_review, simulate};
use litindex::screen::{Priors, SimulateOptions, SvmParams, Weights, next, read_labels, status};
use litindex::search::{HitParts, search};
use litindex::store::Store;

pub fn run(args: &ScreenArgs, db: &Db, out: &mut dyn Write) -> anyhow::Result<()> {
    match &args.action {
        ScreenAction::Simulate(a) => run_simulate(a, out),
        ScreenAction::New(a) => run_new(a, db, out),
        ScreenAction::Label(a) => {
            let include = a.decision == Decision::Include;
            let d = review::label(db.path(), &print_note, &a.name, &a.id, include, &a.note, &a.reason)?;
            decided(&d, a.format, out)
        }
        ScreenAction::Import(a) => {
            let d = review::import(db.path(), &print_note, &a.name, &a.file)?;
            decided(&d, a.format, out)
        }
        ScreenAction::Export(a) => run_export(a, &open_for_reading(db)?, out),
        ScreenAction::Next(a) => {
            let store = open_for_reading(db)?;
            let model = next::model(&store, &a.name, Weights::default(), SvmParams::default())?;
            let proposals = model.next(&store, a.n)?;
            match a.format {
                Format::Json => write_json(out, &proposals),
                Format::Table => {
                    if proposals.is_empty() {
                        writeln!(out, "every candidate of {} is decided", a.name)?;
                    }
                    for p in &proposals {
                        let score = p.score.map_or("-".into(), |s| format!("{s:.3}"));
                        let year = p.year.map_or("-".into(), |y| y.to_string());
                        writeln!(out, "{}  ({})  score {score}  {year}  {}", p.given_id, p.paper_id, p.title)?;
                        if let Some(m) = &p.model {
                            writeln!(out, "    model: {m}")?;
                        }
                        let terms: Vec<String> = p.top_terms.iter().map(|(t, c)| format!("{t} {c:.3}")).collect();
                        if !terms.is_empty() {
                            writeln!(out, "    terms: {}", terms.join(", "))?;
                        }
                        if !p.cites_included.is_empty() {
                            writeln!(out, "    cites included: {}", p.cites_included.join(", "))?;
                        }
                        if !p.cited_by_included.is_empty() {
                            writeln!(out, "    cited by included: {}", p.cited_by_included.join(", "))?;
                        }
                        if p.shared_references > 0 {
                            writeln!(out, "    references shared with the included: {}", p.shared_references)?;
                        }
                        if let Some(v) = p.vector_similarity {
                            writeln!(out, "    vector similarity to the nearest included: {v:.3}")?;
                        }
                    }
                    Ok(())
                }
            }
        }
        ScreenAction::Status(a) => {
            let s = status::status(&open_for_reading(db)?, &a.name)?;
            match a.format {
                Format::Json => write_json(out, &s),
                Format::Table => {
                    writeln!(out, "review      {} ({})", s.review, s.origin)?;
                    writeln!(out, "candidates  {}", s.candidates)?;
                    writeln!(out, "screened    {} ({} included, {} excluded)", s.screened, s.included, s.excluded)?;
                    writeln!(out, "undecided   {}", s.undecided)?;
                    writeln!(out, "excludes in a row  {}", s.excludes_in_a_row)?;
                    writeln!(
                        out,
                        "relevant left (estimate, {})  {:.1}",
                        s.estimate.method, s.estimate.relevant_remaining
                    )?;
                    let verdict = if s.stop.stop { "stop" } else { "go on" };
                    writeln!(out, "stopping ({}): {verdict}: {}", s.stop.rule, s.stop.why)?;
                    Ok(())
                }
            }
        }
    }
}

fn decided(d: &review::Decided, format: Format, out: &mut dyn Write) -> anyhow::Result<()> {
    match format {
        Format::Json => write_json(out, d),
        Format::Table => {
            writeln!(out, "{}: {} included, {} excluded: {}", d.review, d.included, d.excluded, d.decided.join(", "))?;
            Ok(())
        }
    }
}

fn run_new(a: &ScreenNewArgs, db: &Db, out: &mut dyn Write) -> anyhow::Result<()> {
    let (origin, ids) = {
        let store = open_for_reading(db)?;
        if let Some(q) = &a.query {
            crate::commands::search::validate(&a.search)?;
            let choices = a.search.choices(q, a.limit, 0, true);
            let mut resolved = super::search::resolve(&choices, None, &store)?;
            // Only the ids join the review: nothing else of the hits is read.
            resolved.request.parts = HitParts::Scores;
            let result = search(&store, &resolved.request, resolved.semantic.as_ref())?;
            (format!("query: {q}"), result.ranked.into_iter().map(|h| GivenId::from_index(h.id)).collect())
        } else if let Some(file) = &a.ids_from {
            (format!("ids-from: {}", file.display()), ids_from(file)?)
        } else if let Some(source) = &a.source {
            let ids = store.papers_from_source(source)?;
            anyhow::ensure!(!ids.is_empty(), "no paper has a record from source `{source}`");
            (format!("source: {source}"), ids.into_iter().map(GivenId::from_index).collect())
        } else {
            let mut ids = Vec::new();
            store.for_each_paper(|p| {
                ids.push(GivenId::from_index(p.id));
                Ok(())
            })?;
            ("all".to_string(), ids)
        }
    };
    let c = review::create(db.path(), &print_note, &a.name, &origin, &ids)?;
    match a.format {
        Format::Json => write_json(out, &c),
        Format::Table => {
            writeln!(out, "review {}: {} candidates ({origin})", c.name, c.candidates)?;
            if c.same_paper > 0 {
                writeln!(
                    out,
                    "{} of them name a paper another id names too (each kept under its own id)",
                    c.same_paper
                )?;
            }
            if c.repeated > 0 {
                writeln!(out, "{} id(s) were given twice and kept once", c.repeated)?;
            }
            Ok(())
        }
    }
}

/// The ids of a file: one per line, or the first column of a CSV whose header starts with an id column.
fn ids_from(file: &std::path::Path) -> anyhow::Result<Vec<GivenId>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let first = line.split(',').next().unwrap_or("").trim().trim_matches('"');
        if first.is_empty() || first.starts_with('#') {
            continue;
        }
        if i == 0 && ["id", "openalex_id", "record_id"].contains(&first.to_ascii_lowercase().as_str()) {
            continue;
        }
        out.push(GivenId { id: first.to_string(), location: format!("{}:{}", file.display(), i + 1) });
    }
    Ok(out)
}

fn run_export(a: &ScreenExportArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let cite = match a.format {
        ScreenExportFormat::Csv => {
            writeln!(out, "given_id,paper_id,label,reason,note,decided_at")?;
            for d in review::decisions(store, &a.name)? {
                let label = if d.included { "include" } else { "exclude" };
                let f = [&d.given_id, &d.paper_id, label, &d.reason, &d.note, &d.decided_at].map(csv_field);
                writeln!(out, "{}", f.join(","))?;
            }
            return Ok(());
        }
        ScreenExportFormat::Ris => CiteFormat::Ris,
        ScreenExportFormat::Bibtex => CiteFormat::Bibtex,
    };
    let ids = review::included_papers(store, &a.name)?;
    export_ids(store, &ids, cite, out)?;
    Ok(())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// Parses `1..5` (inclusive) or `1,2,7`.
pub(super) fn parse_seeds(s: &str) -> anyhow::Result<Vec<u64>> {
    let bad = || format!("--seeds `{s}`: give a range `1..5` or a list `1,2,3`");
    if let Some((a, b)) = s.split_once("..") {
        let a: u64 = a.trim().parse().with_context(bad)?;
        let b: u64 = b.trim().parse().with_context(bad)?;
        anyhow::ensure!(a <= b, bad());
        return Ok((a..=b).collect());
    }
    s.split(',').map(|x| x.trim().parse::<u64>().with_context(bad)).collect()
}

fn run_simulate(a: &SimulateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let seeds = parse_seeds(&a.seeds)?;
    let labels = read_labels(&a.labels)?;
    let name = match &a.name {
        Some(n) => n.clone(),
        None => a
            .labels
            .canonicalize()?
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "review".into()),
    };
    std::fs::create_dir_all(&a.out).with_context(|| format!("cannot create {}", a.out.display()))?;
    let db = a.out.join(format!("{name}.db"));
    let format = if a.works_format == "paper" { InputFormat::Paper } else { InputFormat::OpenAlex };
    index_review(&a.works, Some(format), &db)?;
    if let Some(dir) = &a.model_dir {
        let opts = EmbedOptions {
            model_dir: Some(dir.clone()),
            batch: litindex::embed::DEFAULT_EMBED_BATCH,
            chunks: false,
            passages: false,
            progress: None,
            notes: Some(&print_note),
        };
        embed_index(&db, &opts).with_context(|| format!("cannot embed {}", db.display()))?;
    }
    let store = Store::open(&db)?;
    let docs = docs_of(&store, &labels)?;
    let missing = docs.iter().filter(|d| d.is_none()).count();
    if missing > 0 {
        eprintln!("note: {missing} labelled id(s) are not in the index of the works; they stay featureless");
    }
    let opts = SimulateOptions {
        weights: Weights { text: a.text_weight, graph: a.graph_weight, vectors: a.vector_weight, link: a.link_weight },
        svm: SvmParams { c: a.c, max_ratio: a.max_ratio, ..SvmParams::default() },
        priors: a.priors_from.clone().map_or(Priors::Random, Priors::FromOrders),
        max_steps: a.max_steps,
    };
    for run in simulate(&store, &docs, &labels, &seeds, &opts)? {
        let path = a.out.join(format!("{name}_s{}.txt", run.seed));
        let mut text = run.order.join("\n");
        text.push('\n');
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(out, "{}", path.display())?;
        if a.timings && !run.step_times.is_empty() {
            let mut ms: Vec<f64> = run.step_times.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
            let mean = ms.iter().sum::<f64>() / ms.len() as f64;
            ms.sort_by(f64::total_cmp);
            eprintln!(
                "seed {}: {} candidates, {} retrain-and-propose steps: mean {mean:.2} ms, median {:.2} ms, max {:.2} ms",
                run.seed,
                labels.len(),
                ms.len(),
                ms[ms.len() / 2],
                ms[ms.len() - 1]
            );
        }
    }
    Ok(())
}
