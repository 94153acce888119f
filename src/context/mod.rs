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
use crate::search::{HitParts, SearchRequest, search};
use crate::store::Store;

/// The header a pack opens with: what the model is asked to do with the sources.
pub(crate) const INSTRUCTIONS: &str = "Answer the question using only the numbered sources below. \
Cite the source of every statement by its number in square brackets, e.g. [1] or [1, 3]. \
If the sources do not answer the question, say so instead of answering from other knowledge.";

/// Added to [`INSTRUCTIONS`] when a source has sentences from its full text.
pub(crate) const PAGE_INSTRUCTIONS: &str = " A sentence marked (p. N) is from page N of the source's full text: \
cite it with the page, e.g. [3, p. 7].";

/// How many sentences a source with full text takes from its best passage.
const PASSAGE_SENTENCES: usize = 2;

/// One numbered source of a pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// Its number in the pack, from 1: what an answer cites as `[n]`.
    pub number: usize,
    pub id: String,
    pub title: String,
    pub year: Option<i32>,
    /// Its evidence sentences for the question, whole, in abstract order
    /// (then, for a paper with full text, those of its best passage).
    pub sentences: Vec<String>,
    /// For a paper with full text, the page of each sentence (`None` for
    /// the abstract's): what an answer cites as `[n, p. P]`. Empty (and left
    /// out of the JSON) for a paper without full text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<Option<u32>>,
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
    // Its own sentences are picked below: the hits' snippets are not built.
    let request = SearchRequest { limit: Some(k), parts: HitParts::Details, ..request.clone() };
    let result = search(store, &request, semantic)?;
    let query = EvidenceQuery::new(store, &request.query)?;
    let full_text = store.passage_stats()?.num_passages > 0;
    let passage_scores = if full_text {
        store.passage_scores(&crate::bm25::query_terms(store.meta()?.analyzer()?, &request.query))?
    } else {
        Default::default()
    };
    let mut sources = Vec::new();
    for hit in result.ranked.iter().take(k) {
        let text = store.paper(&hit.id)?.map(|p| p.abstract_).unwrap_or_default();
        let chosen = evidence::evidence(&text, &query, &EvidenceParams::default(), None).sentences;
        let ranges = split_sentences(&text);
        let mut sentences: Vec<String> =
            chosen.iter().filter_map(|&i| ranges.get(i)).map(|r| text[r.clone()].to_string()).collect();
        let mut pages = Vec::new();
        if full_text {
            // The paper's best body or caption passage for the question, and its best sentences.
            let best = store
                .passages_of_paper(&hit.id)?
                .into_iter()
                .filter(|p| p.kind == "body" || p.kind == "caption")
                .filter_map(|p| passage_scores.get(&p.passage).map(|&s| (s, p)))
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.passage.cmp(&a.1.passage)));
            if let Some((_, p)) = best {
                let params = EvidenceParams { max_sentences: PASSAGE_SENTENCES, ..EvidenceParams::default() };
                let picked = evidence::evidence(&p.text, &query, &params, None).sentences;
                let ranges = split_sentences(&p.text);
                pages = vec![None; sentences.len()];
                for r in picked.iter().filter_map(|&i| ranges.get(i)) {
                    sentences.push(p.text[r.clone()].to_string());
                    pages.push(Some(p.page_first));
                }
            }
        }
        sources.push(Source {
            number: sources.len() + 1,
            id: hit.id.clone(),
            title: hit.title.clone(),
            year: hit.year,
            sentences,
            pages,
        });
    }
    Ok(within_budget(&request.query, sources, budget_tokens))
}

/// Keeps the sources, in order, while the pack's estimate stays within the budget.
fn within_budget(question: &str, sources: Vec<Source>, budget: Option<usize>) -> Pack {
    let paged = sources.iter().any(|s| s.pages.iter().any(Option::is_some));
    let mut pack = Pack {
        question: question.to_string(),
        instructions: if paged { format!("{INSTRUCTIONS}{PAGE_INSTRUCTIONS}") } else { INSTRUCTIONS.to_string() },
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
            pages: Vec::new(),
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
    fn a_source_with_full_text_cites_its_page() {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::ingest::pdf::test_support::mock_index(dir.path());
        let doc = crate::ingest::pdf::test_support::document(
            "Most Attention Heads Can Be Pruned After Training",
            None,
            &["Nothing here.", "Pruning heads keeps the quokka accuracy intact."],
        );
        crate::ingest::pdf::test_support::file(&db, &[("/pdfs/p003.pdf", &doc)]);
        let store = Store::open(&db).unwrap();
        let request = SearchRequest::new("pruned heads quokka", crate::search::SearchParams::default());
        let pack = pack(&store, &request, None, 3, None).unwrap();
        let s = pack.sources.iter().find(|s| s.id == "p003").expect("p003 in the pack");
        let at = s.sentences.iter().position(|t| t.contains("quokka")).expect("a sentence of the body");
        assert_eq!(s.pages[at], Some(2));
        assert!(s.pages[..at].iter().all(Option::is_none), "the abstract's sentences have no page");
        let md = pack.to_markdown();
        assert!(md.contains("quokka accuracy intact. (p. 2)"), "{md}");
        assert!(pack.instructions.contains("[3, p. 7]"));
        // The other sources carry no pages, and a pack without full text has the old instructions.
        assert!(pack.sources.iter().filter(|s| s.id != "p003").all(|s| s.pages.is_empty()));
        let (_d, plain) = {
            let d = tempfile::tempdir().unwrap();
            let db = crate::ingest::pdf::test_support::mock_index(d.path());
            (d, Store::open(&db).unwrap())
        };
        assert_eq!(super::pack(&plain, &request, None, 3, None).unwrap().instructions, INSTRUCTIONS);
        // The citation check reads the page's passages.
        let answer = "Pruning heads keeps the quokka accuracy intact [1, p. 2].";
        let src = [PackSource { number: 1, id: "p003".into() }];
        let v = verify(&store, answer, &src, &SupportParams::default()).unwrap();
        let on_page = v.checks[0].support.as_ref().unwrap().score;
        let v = verify(
            &store,
            "Pruning heads keeps the quokka accuracy intact [1, p. 1].",
            &src,
            &SupportParams::default(),
        )
        .unwrap();
        let off_page = v.checks[0].support.as_ref().unwrap().score;
        assert!(on_page > off_page, "{on_page} vs {off_page}");
    }

    #[test]
    fn tokens_are_characters_over_four_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ääää"), 1);
    }
}
