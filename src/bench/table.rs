//! `bench`'s report as a table for people.

use std::io::Write;

use super::BenchReport;

/// Writes the report as a table for people.
pub fn write_table(report: &BenchReport, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "{} papers, {} queries", report.papers, report.queries)?;
    // tantivy's two columns only when it was measured.
    let tantivy = report.figures.iter().any(|f| f.tantivy.is_some());
    let ratio = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}"));
    write!(out, "{:<22} {:<10} {:>14} {:>14} {:>8}", "name", "unit", "litindex", "fts5", "ratio")?;
    writeln!(out, "{}", if tantivy { format!(" {:>14} {:>8}", "tantivy", "ratio_t") } else { String::new() })?;
    for f in &report.figures {
        write!(
            out,
            "{:<22} {:<10} {:>14} {:>14} {:>8}",
            f.name,
            f.unit,
            number(f.litindex),
            number(f.fts5),
            ratio(f.ratio)
        )?;
        let t =
            if tantivy { format!(" {:>14} {:>8}", number(f.tantivy), ratio(f.tantivy_ratio)) } else { String::new() };
        writeln!(out, "{t}")?;
    }
    Ok(())
}

fn number(v: Option<f64>) -> String {
    match v {
        None => "-".to_string(),
        Some(x) if x.abs() >= 1000.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.3}"),
    }
}
