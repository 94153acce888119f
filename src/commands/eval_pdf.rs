//! `litindex eval-pdf --gold GOLD DIR`: the PDF reader measured on a gold
//! set (the metrics are the library's: `litindex::fulltext::eval`).

use std::io::Write;

use crate::cli::EvalPdfArgs;
use litindex::fulltext::Limits;
use litindex::fulltext::eval::{Report, evaluate, read_gold};

pub fn run(args: &EvalPdfArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if !args.dir.is_dir() {
        anyhow::bail!("{}: not a folder", args.dir.display());
    }
    let gold = read_gold(&args.gold)?;
    let report = evaluate(&gold, &args.dir, &Limits::default());
    if args.json {
        return super::write_json(out, &report);
    }
    table(&report, out)
}

fn cell<T>(x: Option<T>, f: impl Fn(T) -> String) -> String {
    x.map_or_else(|| "-".to_string(), f)
}

fn table(r: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
    let yes = |b: bool| if b { "yes".to_string() } else { "no".to_string() };
    let num = |x: f64| format!("{x:.3}");
    writeln!(
        out,
        "{:<28} {:>5} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>4} {:>5}",
        "file", "title", "auth", "abs.r", "abs.p", "sect", "refs", "ref.tit", "doi", "pages"
    )?;
    for p in &r.papers {
        let refs = match (p.references_found, p.references_gold) {
            (Some(f), Some(g)) => format!("{f}/{g}"),
            _ => "-".into(),
        };
        let titles = cell(p.reference_titles, |(h, a)| format!("{h}/{a}"));
        writeln!(
            out,
            "{:<28} {:>5} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>4} {:>5}",
            p.file.chars().take(28).collect::<String>(),
            cell(p.title, yes),
            cell(p.author_f1, num),
            cell(p.abstract_recall, num),
            cell(p.abstract_precision, num),
            cell(p.section_f1, num),
            refs,
            titles,
            cell(p.doi, yes),
            cell(p.pages, yes),
        )?;
        if let Some(e) = &p.error {
            writeln!(out, "  error: {e}")?;
        }
    }
    let s = &r.summary;
    let line = |name: &str, v: Option<(f64, usize)>, target: &str| -> String {
        match v {
            Some((x, n)) => format!("{name:<34} {x:.3}  over {n} papers{target}"),
            None => format!("{name:<34} -"),
        }
    };
    writeln!(out)?;
    writeln!(out, "papers read                        {}/{}", s.read, s.papers)?;
    writeln!(out, "{}", line("title exact (normalised)", s.title, "   target >= 0.95"))?;
    writeln!(out, "{}", line("author F1", s.author_f1, "   target >= 0.90"))?;
    writeln!(out, "{}", line("abstract word recall", s.abstract_recall, "   target >= 0.97"))?;
    writeln!(out, "{}", line("abstract word precision", s.abstract_precision, "   target >= 0.90"))?;
    writeln!(out, "{}", line("top-level section F1", s.section_f1, "   target >= 0.85"))?;
    writeln!(out, "{}", line("reference count within 10 %", s.reference_count_ok, "   target >= 0.85"))?;
    writeln!(out, "{}", line("reference-title recall (parsed)", s.reference_title_recall, "   target >= 0.90"))?;
    writeln!(out, "{}", line("DOI exact where printed", s.doi, ""))?;
    writeln!(out, "{}", line("page count", s.pages, ""))?;
    let c = &s.citations;
    writeln!(out, "{}", line("reference titles in raw entry text", c.reference_title_raw, "   (pdftotext: 0.897)"))?;
    writeln!(out, "{}", line("reference year (title matched)", c.reference_year_exact, ""))?;
    writeln!(out, "{}", line("reference DOI exact where printed", c.reference_doi_exact, ""))?;
    writeln!(out, "{}", line("citation contexts found", c.contexts_found, ""))?;
    writeln!(out, "{}", line("citation contexts found + linked", c.contexts_linked, "   target >= 0.80"))?;
    Ok(())
}
