//! Labels files: CSV with a header naming an id column (`id`, `openalex_id`
//! or `record_id`) and a label column (`label` or `label_included`), labels
//! `include`/`exclude` or `1`/`0`. Both SYNERGY's `labels.csv` and
//! `screen import`'s `id,label` read through here. Errors name the file and
//! line; a duplicate id is an error.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;

/// One row of a labels file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledId {
    /// As written (an `https://openalex.org/` prefix stripped).
    pub id: String,
    pub included: bool,
    /// The 1-based line it was on.
    pub line: usize,
}

/// Reads a labels file.
pub fn read_labels(path: &Path) -> anyhow::Result<Vec<LabelledId>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_labels(&text).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))
}

/// Parses the text of a labels file; errors start with the line number.
pub fn parse_labels(text: &str) -> anyhow::Result<Vec<LabelledId>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().context("1: empty file; the first line must be a header such as `id,label`")?;
    let cols: Vec<String> = split(header).iter().map(|c| c.to_ascii_lowercase()).collect();
    let id_col = cols
        .iter()
        .position(|c| ["id", "openalex_id", "record_id"].contains(&c.as_str()))
        .with_context(|| format!("1: the header `{header}` has no id column (`id` or `openalex_id`)"))?;
    let label_col = cols
        .iter()
        .position(|c| c == "label" || c == "label_included")
        .with_context(|| format!("1: the header `{header}` has no label column (`label` or `label_included`)"))?;
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let fields = split(line);
        let get = |c: usize| fields.get(c).map(|s| s.trim()).unwrap_or("");
        let id = get(id_col).trim_start_matches("https://openalex.org/").to_string();
        anyhow::ensure!(!id.is_empty(), "{n}: no id");
        let included = match get(label_col).to_ascii_lowercase().as_str() {
            "1" | "1.0" | "include" | "included" => true,
            "0" | "0.0" | "exclude" | "excluded" => false,
            other => anyhow::bail!("{n}: label `{other}` is not include/exclude (or 1/0)"),
        };
        if let Some(first) = seen.insert(id.clone(), n) {
            anyhow::bail!("{n}: id {id} is already on line {first}");
        }
        out.push(LabelledId { id, included, line: n });
    }
    Ok(out)
}

/// Splits a CSV line on commas, honouring double quotes ("" inside quotes).
fn split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_synergy_and_import_headers() {
        let l = parse_labels("openalex_id,label_included\nhttps://openalex.org/W1,1\nW2,0\n").unwrap();
        assert_eq!(l.iter().map(|x| (x.id.as_str(), x.included)).collect::<Vec<_>>(), [("W1", true), ("W2", false)]);
        let l = parse_labels("id,label\n\"10.1/a,b\",include\nW3,exclude\n").unwrap();
        assert_eq!(l[0].id, "10.1/a,b");
        assert!(!l[1].included);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_labels("paper,decision\nW1,1\n").unwrap_err().to_string();
        assert!(e.starts_with("1: the header"), "{e}");
        let e = parse_labels("id,label\nW1,1\nW2,maybe\n").unwrap_err().to_string();
        assert!(e.starts_with("3: label `maybe`"), "{e}");
        let e = parse_labels("id,label\nW1,1\nW1,0\n").unwrap_err().to_string();
        assert_eq!(e, "3: id W1 is already on line 2");
    }
}
