//! Grounded answers: a numbered source pack for an LLM ([`pack`]) and the
//! check of an answer's `[n]` citations against it ([`verify`]).
//!
//! A pack is the first `k` hits of a search, each numbered from 1, with its
//! evidence sentences ([`crate::evidence::evidence`] for the question, whole
//! sentences of the abstract in abstract order) under an instruction header
//! the user can paste before the sources. Its size is estimated as
//! [`estimate_tokens`] (characters / 4, rounded up, of the Markdown form);
//! under a budget, whole sources are dropped from the end until the header
//! and the sources left fit: no sentence is ever cut. `eval.rs` measures the
//! citation check on SciFact (`litindex eval-citations`).

mod eval;
mod pack_text;
mod support;
mod verify;

pub use eval::{CitationEval, CitationEvalOptions, eval_citations};
pub use pack_text::{PackSource, parse_pack};
pub use support::{Support, SupportParams, support};
pub use verify::{Citation, CitationCheck, Judgment, Verification, verify};

use serde::{Deserialize, Serialize};

use crate::embed::SemanticIndex;
use crate::evidence::{self, EvidenceParams, EvidenceQuery, split_sentences};
use crate::search::{SearchRequest, search};
use crate::store::Store;

/// The header a pack opens with: what the model is asked to do with the sources.
pub(crate) const INSTRUCTIONS: &str = "Answer the question using only the numbered sources below. \
Cite the source of every statement by its number in square brackets, e.g. [1] or [1, 3]. \
If the sources do not answer the question, say so instead of answering from other knowledge.";

/// One numbered source of a pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// Its number in the pack, from 1: what an answer cites as `[n]`.
    pub number: usize,
    pub id: String,
    pub title: String,
    pub year: Option<i32>,
    /// Its evidence sentences for the question, whole, in abstract order.
    pub sentences: Vec<String>,
}

/// A source pack: the question, the instructions and the numbered sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pack {
    pub question: String,
    pub instructions: String,
    pub sources: Vec<Source>,
    /// Hits left out because the budget was reached (the last ones).
    pub omitted: usize,
    /// The budget asked for, in estimated tokens (`None`: none).
    pub budget_tokens: Option<usize>,
    /// [`estimate_tokens`] of the pack's Markdown form.
    pub estimated_tokens: usize,
}

/// The documented token estimate: characters / 4, rounded up.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The pack for `request` (its query is the question): the first `k` hits of
/// the search, within `budget_tokens` when given.
pub fn pack(
    store: &Store,
    request: &SearchRequest,
    semantic: Option<&SemanticIndex>,
    k: usize,
    budget_tokens: Option<usize>,
) -> anyhow::Result<Pack> {
    let request = SearchRequest { limit: Some(k), ..request.clone() };
    let result = search(store, &request, semantic)?;
    let query = EvidenceQuery::new(store, &request.query)?;
    let mut sources = Vec::new();
    for hit in result.ranked.iter().take(k) {
        let text = store.paper(&hit.id)?.map(|p| p.abstract_).unwrap_or_default();
        let chosen = evidence::evidence(&text, &query, &EvidenceParams::default(), None).sentences;
        let ranges = split_sentences(&text);
        let sentences = chosen.iter().filter_map(|&i| ranges.get(i)).map(|r| text[r.clone()].to_string()).collect();
        sources.push(Source {
            number: sources.len() + 1,
            id: hit.id.clone(),
            title: hit.title.clone(),
            year: hit.year,
            sentences,
        });
    }
    Ok(within_budget(&request.query, sources, budget_tokens))
}

/// Keeps the sources, in order, while the pack's estimate stays within the budget.
fn within_budget(question: &str, sources: Vec<Source>, budget: Option<usize>) -> Pack {
    let mut pack = Pack {
        question: question.to_string(),
        instructions: INSTRUCTIONS.to_string(),
        sources: Vec::new(),
        omitted: 0,
        budget_tokens: budget,
        estimated_tokens: 0,
    };
    let mut used = estimate_tokens(&pack_text::header(&pack));
    let total = sources.len();
    for source in sources {
        let cost = estimate_tokens(&pack_text::source_block(&source));
        if budget.is_some_and(|b| used + cost > b) {
            break;
        }
        used += cost;
        pack.sources.push(source);
    }
    pack.omitted = total - pack.sources.len();
    pack.estimated_tokens = estimate_tokens(&pack.to_markdown());
    pack
}

impl Pack {
    /// The pack as Markdown: the header, then each source as `[n] title (year), id`
    /// followed by its sentences, one per line.
    pub fn to_markdown(&self) -> String {
        let mut out = pack_text::header(self);
        for s in &self.sources {
            out.push_str(&pack_text::source_block(s));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize, sentence: &str) -> Source {
        Source {
            number: n,
            id: format!("id{n}"),
            title: format!("T{n}"),
            year: Some(2020),
            sentences: vec![sentence.into()],
        }
    }

    #[test]
    fn the_budget_drops_whole_sources_from_the_end() {
        let sources: Vec<Source> = (1..=3).map(|n| source(n, &"word ".repeat(40))).collect();
        let all = within_budget("q", sources.clone(), None);
        assert_eq!(all.sources.len(), 3);
        assert_eq!(all.estimated_tokens, estimate_tokens(&all.to_markdown()));
        let header = estimate_tokens(&pack_text::header(&all));
        let one = estimate_tokens(&pack_text::source_block(&sources[0]));
        let two = within_budget("q", sources.clone(), Some(header + 2 * one + one / 2));
        assert_eq!(two.sources.iter().map(|s| s.number).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(two.omitted, 1);
        assert!(two.estimated_tokens <= header + 2 * one + one / 2, "{}", two.estimated_tokens);
        let none = within_budget("q", sources, Some(header));
        assert!(none.sources.is_empty());
        assert_eq!(none.omitted, 3);
    }

    #[test]
    fn tokens_are_characters_over_four_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ääää"), 1);
    }
}
