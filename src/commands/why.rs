//! `litindex why A B`: the sentences in which A cites B ([`litindex::api::why`]).

use std::io::Write;

use crate::cli::{Format, WhyArgs};
use litindex::api::{WhyRequest, WhyVerdict, why};
use litindex::store::{CitingSentence, Store};

pub fn run(args: &WhyArgs, store: &Store, out: &mut dyn Write) -> anyhow::Result<()> {
    let answer = why(store, &WhyRequest { citing: args.citing.clone(), cited: args.cited.clone() })?;
    if args.format == Format::Json {
        return super::write_json(out, &answer);
    }
    let (a, b) = (&answer.citing, &answer.cited);
    let graph = if answer.graph_edge {
        "the citation graph has the edge (from another source)"
    } else {
        "nor does the citation graph"
    };
    match answer.verdict {
        WhyVerdict::NoFullText => {
            let graph = if answer.graph_edge { "; the citation graph says it cites it" } else { "" };
            writeln!(out, "{a} has no full text in the index (ingest its PDF to see why it cites {b}){graph}")?;
        }
        WhyVerdict::NotCited => writeln!(
            out,
            "{a} does not cite {b}: no entry of its reference list ({} entries) names it; {graph}",
            answer.reference_entries
        )?,
        WhyVerdict::NoContext | WhyVerdict::Cited => {
            for e in &answer.entries {
                let label = e.entry.label.as_deref().map(|l| format!("[{l}] ")).unwrap_or_default();
                let how = match (&e.entry.matched_by, &e.entry.evidence) {
                    (Some(by), Some(ev)) => format!("matched by {by}: {ev}"),
                    (Some(by), None) => format!("matched by {by}"),
                    (None, _) => "names it by this id (not an indexed paper)".to_string(),
                };
                writeln!(out, "{a} cites {b} as {label}{}", e.entry.raw)?;
                writeln!(out, "  ({how})")?;
                if e.sentences.is_empty() {
                    writeln!(out, "  no sentence citing it was found in the body")?;
                }
                write_sentences(out, &e.sentences, "  ")?;
            }
        }
    }
    Ok(())
}

/// Each sentence on its own line after its page and section: `p. 3, 1 Introduction: "…"`.
pub(super) fn write_sentences(out: &mut dyn Write, sentences: &[CitingSentence], indent: &str) -> anyhow::Result<()> {
    for s in sentences {
        let section = if s.section.is_empty() { String::new() } else { format!(", {}", s.section) };
        writeln!(out, "{indent}p. {}{section}: \"{}\"", s.page, s.sentence)?;
    }
    Ok(())
}
