//! The weight of a paper's best passage in its text score
//! (`search::fulltext::PASSAGE_WEIGHT`), measured.
//!
//! ```text
//! cargo run --example passage_weight -- DB QUOTES.jsonl GOLD.jsonl
//! ```
//!
//! DB holds the dev set's gold metadata and its PDFs (what
//! `scripts/attach_rate.py` builds; `--keep` there keeps it). Two kinds of
//! paper-level lookups, each asking for one known paper:
//! - **quotes**: a sentence of page P of paper X (`scripts/quote_lookup.py
//!   --dump`), the right answer X — body text, where passages must count;
//! - **titles**: a gold title, the right answer its paper — title text, where
//!   the body of other papers (which cite or discuss it) must not win.
//!
//! For each weight w of a grid, a paper's text score is
//! `BM25(title + abstract) + w · best passage BM25` (exactly the search's
//! formula), and a lookup is right when its paper is first (ties by doc id,
//! as the search breaks them). The quotes are split by line parity: the
//! weight is chosen on the even lines (the best mean of quote Hit@1 and
//! title Hit@1, the lowest w on a tie), and reported on the odd ones.

use std::collections::HashMap;
use std::path::Path;

use litindex::bm25::query_terms;
use litindex::search::fulltext::best_passages;
use litindex::store::Store;

const GRID: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// One lookup's two score maps (title + abstract BM25, best passage), and its paper's doc id.
struct Lookup {
    ta: HashMap<i64, f64>,
    best: HashMap<i64, f64>,
    want: i64,
}

fn first_is_right(l: &Lookup, w: f64) -> bool {
    let mut scores: HashMap<i64, f64> = l.ta.clone();
    for (d, b) in &l.best {
        *scores.entry(*d).or_insert(0.0) += w * b;
    }
    let top = scores.iter().filter(|(_, s)| **s > 0.0).max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)));
    top.is_some_and(|(d, _)| *d == l.want)
}

fn lookup(store: &Store, query: &str, paper: &str) -> anyhow::Result<Option<Lookup>> {
    let terms = query_terms(store.meta()?.analyzer()?, query);
    let Some(want) = store.doc_of(paper)? else { return Ok(None) };
    Ok(Some(Lookup {
        ta: store.bm25_all(&terms)?.into_iter().collect(),
        best: best_passages(store, &terms)?.into_iter().collect(),
        want,
    }))
}

fn rate(ls: &[Lookup], w: f64) -> f64 {
    ls.iter().filter(|l| first_is_right(l, w)).count() as f64 / ls.len().max(1) as f64
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(args.len() == 3, "usage: passage_weight DB QUOTES.jsonl GOLD.jsonl");
    let store = Store::open(Path::new(&args[0]))?;
    let (mut even, mut odd) = (Vec::new(), Vec::new());
    for (i, line) in std::fs::read_to_string(&args[1])?.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let (Some(q), Some(p)) = (v["quote"].as_str(), v["paper"].as_str()) else { continue };
        if let Some(l) = lookup(&store, q, p)? {
            if i % 2 == 0 { even.push(l) } else { odd.push(l) }
        }
    }
    // The gold titles, each asking for its own paper (the ids attach_rate.py gives).
    let mut titles = Vec::new();
    for line in std::fs::read_to_string(&args[2])?.lines().filter(|l| !l.trim().is_empty()) {
        let g: serde_json::Value = serde_json::from_str(line)?;
        let file = g["file"].as_str().unwrap_or_default();
        let id = match (g["doi"].as_str(), g["arxiv"].as_str()) {
            (Some(d), _) => d.to_string(),
            (None, Some(a)) => format!("arXiv:{a}"),
            _ => format!("gold-{}", file.trim_end_matches(".pdf")),
        };
        let Some(resolved) = store.resolve(&id)? else { continue };
        if let Some(l) = lookup(&store, g["title"].as_str().unwrap_or_default(), &resolved)? {
            titles.push(l);
        }
    }
    println!("{} quotes (even) / {} (odd), {} titles", even.len(), odd.len(), titles.len());
    println!("{:>5}  {:>11} {:>11} {:>10}", "w", "quotes even", "quotes odd", "titles");
    let mut chosen = (f64::NEG_INFINITY, 0.0);
    for w in GRID {
        let (qe, qo, t) = (rate(&even, w), rate(&odd, w), rate(&titles, w));
        println!("{w:>5.1}  {qe:>11.3} {qo:>11.3} {t:>10.3}");
        let objective = 0.5 * (qe + t);
        if objective > chosen.0 + 1e-12 && w < 1.0 {
            chosen = (objective, w);
        }
    }
    let w = chosen.1;
    println!(
        "chosen on the even quotes and the titles (w < 1): w = {w:.1}; held out (odd quotes): {:.3}, titles {:.3}",
        rate(&odd, w),
        rate(&titles, w)
    );
    Ok(())
}
