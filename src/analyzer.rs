//! Text analysis: turning titles, abstracts and queries into index terms.
//!
//! The analyzer is chosen at build time and stored in the database, so a query
//! is always analysed the same way as the documents it is matched against.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

use crate::choice::Choice;

mod stop_words;

/// A named text analyzer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Analyzer {
    /// Lowercase, split on every non-alphanumeric character (Unicode aware),
    /// no stemming, no stop words. The default of indexes built before issue 22.
    Plain,
    /// UAX #29 words, lowercased, Snowball English stop words removed,
    /// Snowball English stemming; runs of CJK characters become overlapping
    /// character bigrams. See [`english_tokens`]. The default of a new index:
    /// on seven public collections never used in tuning it was within ±0.01
    /// nDCG@10 of the best BM25 peer, and `plain` 0.024–0.090 below it
    /// (docs/EVALUATION.md). An existing index keeps the analyzer it was built with.
    #[default]
    English,
}

impl Analyzer {
    /// The name stored in the database and accepted on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Analyzer::Plain => "plain",
            Analyzer::English => "english",
        }
    }

    /// Splits `text` into terms, in order, keeping repeats.
    pub fn tokenize(self, text: &str) -> Vec<String> {
        match self {
            Analyzer::Plain => plain_tokens(text),
            Analyzer::English => english_tokens(text),
        }
    }

    /// Whether `word` is a stop word this analyzer drops (case-insensitive;
    /// `’` counts as `'`). Always false for `plain`, which has none.
    pub(crate) fn is_stop_word(self, word: &str) -> bool {
        match self {
            Analyzer::Plain => false,
            Analyzer::English => is_english_stop_word(&normalize_word(word)),
        }
    }
}

impl fmt::Display for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Choice for Analyzer {
    const WHAT: &'static str = "analyzer";
    fn all() -> &'static [Analyzer] {
        &[Analyzer::Plain, Analyzer::English]
    }
    fn keyword(self) -> &'static str {
        self.name()
    }
    fn help(self) -> &'static str {
        match self {
            Analyzer::Plain => {
                "Lowercase, split on every non-alphanumeric character (Unicode aware), no stemming, no stop words"
            }
            Analyzer::English => {
                "UAX #29 words, lowercased, English stop words removed, Snowball English stemming, CJK bigrams"
            }
        }
    }
}

impl FromStr for Analyzer {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "plain" => Ok(Analyzer::Plain),
            "english" => Ok(Analyzer::English),
            other => anyhow::bail!("unknown analyzer `{other}` (known: plain, english)"),
        }
    }
}

/// The `plain` analyzer: every maximal run of alphanumeric characters
/// (`char::is_alphanumeric`, so letters and digits of any script) is a token,
/// lowercased with full Unicode case mapping.
fn plain_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect()
}

pub(crate) use stop_words::SNOWBALL_ENGLISH_STOP_WORDS;

/// The longest entry of [`SNOWBALL_ENGLISH_STOP_WORDS`], in bytes: a longer
/// word is not looked up.
const MAX_STOP_WORD_LEN: usize = 10;

fn english_stop_words() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| SNOWBALL_ENGLISH_STOP_WORDS.iter().copied().collect())
}

fn english_stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// `word` (already lowercased and normalized) is in the Snowball list.
fn is_english_stop_word(word: &str) -> bool {
    word.len() <= MAX_STOP_WORD_LEN && english_stop_words().contains(word)
}

/// Lowercases `word` (full Unicode case mapping, no accent folding) and writes
/// the typographic apostrophe U+2019 as `'`, which UAX #29 treats alike inside
/// a word and which the stop list and the stemmer only know as `'`.
fn normalize_word(word: &str) -> String {
    let lower = word.to_lowercase();
    if lower.contains('\u{2019}') { lower.replace('\u{2019}', "'") } else { lower }
}

/// Whether `c` is indexed as part of a CJK run (character bigrams) rather than
/// by UAX #29 words. Han, kana and Hangul are all one class, so a run mixing
/// them (Japanese kanji + kana, Korean with Hanja) is bigrammed as a whole.
fn is_cjk(c: char) -> bool {
    let u = c as u32;
    if u < 0x1100 {
        return false; // fast path: everything below is Latin, Greek, Cyrillic, ...
    }
    matches!(u,
        0x1100..=0x11FF          // Hangul Jamo
        | 0x3005..=0x3007        // 々 〆 〇 (ideographic iteration mark, closing mark, number zero)
        | 0x3040..=0x309F        // Hiragana
        | 0x30A1..=0x30FA        // Katakana, without U+30A0 ゠ and U+30FB ・ (punctuation) ...
        | 0x30FC..=0x30FF        // ... and with ー and the iteration marks
        | 0x3130..=0x318F        // Hangul Compatibility Jamo
        | 0x31F0..=0x31FF        // Katakana Phonetic Extensions
        | 0x3400..=0x4DBF        // CJK Unified Ideographs Extension A
        | 0x4E00..=0x9FFF        // CJK Unified Ideographs
        | 0xA960..=0xA97F        // Hangul Jamo Extended-A
        | 0xAC00..=0xD7AF        // Hangul Syllables
        | 0xD7B0..=0xD7FF        // Hangul Jamo Extended-B
        | 0xF900..=0xFAFF        // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F        // Halfwidth Katakana (without the halfwidth punctuation FF61..FF65)
        | 0xFFA0..=0xFFDC        // Halfwidth Hangul
        | 0x20000..=0x3FFFF      // planes 2 and 3: CJK Unified Ideographs Extensions B..H, Compatibility Supplement
    )
}

/// The `english` analyzer.
///
/// The text is cut into maximal runs of CJK characters ([`is_cjk`]) and the
/// text between them. A CJK run of n ≥ 2 characters gives its n − 1
/// overlapping character bigrams, a run of one character that character.
/// Other text is split into UAX #29 words (`unicode_words`: segments holding
/// a letter or a number, so punctuation, symbols and emoji give nothing); each
/// word is lowercased (accents kept, `’` written `'`), dropped if it is a
/// Snowball English stop word, and otherwise stemmed with the Snowball English
/// stemmer (words without a letter, such as "2019" or "3.5", are kept as is).
fn english_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words_from = 0; // start of the pending non-CJK text
    let mut run: Vec<usize> = Vec::new(); // byte offsets of the current CJK run's characters
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            if run.is_empty() {
                english_words(&text[words_from..i], &mut out);
            }
            run.push(i);
        } else if !run.is_empty() {
            cjk_bigrams(text, &run, i, &mut out);
            run.clear();
            words_from = i;
        }
    }
    if run.is_empty() {
        english_words(&text[words_from..], &mut out);
    } else {
        cjk_bigrams(text, &run, text.len(), &mut out);
    }
    out
}

/// Entries of a thread's stem cache before it is emptied (a few MB at most).
const STEM_CACHE_MAX: usize = 1 << 16;

thread_local! {
    /// Lowercased word → Snowball stem. Word frequencies are Zipfian, so most
    /// words are stemmed once per thread; measured on SciFact this doubles the
    /// analyzer's throughput (the stemmer allocates on every suffix change).
    /// Keyed by foldhash (the words are the user's own text, and the cache
    /// is per thread and bounded): its SipHash lookups were about a tenth of
    /// a profile of the screening features.
    static STEM_CACHE: RefCell<HashMap<String, String, foldhash::fast::RandomState>> =
        RefCell::new(HashMap::default());
}

/// The Snowball English stem of `word` (lowercased and normalized).
fn stem(word: &str) -> Cow<'_, str> {
    english_stemmer().stem(word)
}

/// [`stem`], through this thread's cache.
fn stem_cached(word: String) -> String {
    STEM_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(s) = cache.get(word.as_str()) {
            return s.clone();
        }
        let stemmed = stem(&word).into_owned();
        if cache.len() >= STEM_CACHE_MAX {
            cache.clear();
        }
        cache.insert(word, stemmed.clone());
        stemmed
    })
}

/// Tokens of text that holds no CJK character.
fn english_words(text: &str, out: &mut Vec<String>) {
    for word in text.unicode_words() {
        let word = normalize_word(word);
        if is_english_stop_word(&word) {
            continue;
        }
        if !word.chars().any(char::is_alphabetic) {
            out.push(word);
            continue;
        }
        out.push(stem_cached(word));
    }
}

/// Bigrams of the CJK run whose characters start at `starts` and which ends
/// at byte `end` of `text`.
fn cjk_bigrams(text: &str, starts: &[usize], end: usize, out: &mut Vec<String>) {
    if let [only] = starts {
        out.push(text[*only..end].to_string());
        return;
    }
    for k in 0..starts.len() - 1 {
        let to = starts.get(k + 2).copied().unwrap_or(end);
        out.push(text[starts[k]..to].to_string());
    }
}

/// The text of a paper that is indexed: `title + " " + abstract`.
pub fn indexed_text(title: &str, abstract_: &str) -> String {
    let mut s = String::with_capacity(title.len() + 1 + abstract_.len());
    s.push_str(title);
    s.push(' ');
    s.push_str(abstract_);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        Analyzer::Plain.tokenize(s)
    }

    #[test]
    fn lowercases_and_splits_on_punctuation() {
        assert_eq!(toks("Sparse-Attention, for LONG sequences!"), ["sparse", "attention", "for", "long", "sequences"]);
    }

    #[test]
    fn keeps_digits_and_mixed_tokens() {
        assert_eq!(toks("GPT-4 beats BERT2 in 2023"), ["gpt", "4", "beats", "bert2", "in", "2023"]);
    }

    #[test]
    fn unicode_letters_are_tokens() {
        assert_eq!(toks("Zoë Müller: Ünïcode ÉTUDE"), ["zoë", "müller", "ünïcode", "étude"]);
        assert_eq!(toks("注意力机制"), ["注意力机制"]);
        assert_eq!(toks("Ωμέγα—δέλτα"), ["ωμέγα", "δέλτα"]);
    }

    #[test]
    fn empty_and_punctuation_only_give_no_tokens() {
        assert!(toks("").is_empty());
        assert!(toks("   \t\n").is_empty());
        assert!(toks("?!.,;:-- ()").is_empty());
    }

    #[test]
    fn repeats_are_kept_in_order() {
        assert_eq!(toks("a b a"), ["a", "b", "a"]);
    }

    #[test]
    fn analyzer_names_round_trip() {
        assert_eq!("plain".parse::<Analyzer>().unwrap(), Analyzer::Plain);
        assert!("porter".parse::<Analyzer>().is_err());
    }

    fn en(s: &str) -> Vec<String> {
        Analyzer::English.tokenize(s)
    }

    #[test]
    fn english_names_round_trip() {
        for a in [Analyzer::Plain, Analyzer::English] {
            assert_eq!(a.name().parse::<Analyzer>().unwrap(), a);
            assert_eq!(a.to_string(), a.name());
        }
        assert_eq!("english".parse::<Analyzer>().unwrap(), Analyzer::English);
        let err = "English".parse::<Analyzer>().unwrap_err().to_string();
        assert!(err.contains("known: plain, english"), "{err}");
    }

    #[test]
    fn english_stems_with_snowball() {
        assert_eq!(en("Running runners ran quickly"), ["run", "runner", "ran", "quick"]);
        assert_eq!(en("generalization generalizing generalized"), ["general", "general", "general"]);
        assert_eq!(en("skies dying news studies"), ["sky", "die", "news", "studi"]);
    }

    #[test]
    fn english_stem_cache_agrees_with_the_stemmer() {
        let words = ["running", "runs", "ran", "attention", "café", "naïve", "studies", "2019", "e.g", "x"];
        for _ in 0..3 {
            for w in words {
                assert_eq!(stem_cached(w.to_string()), stem(w), "{w}");
            }
        }
        let text = "Running runners ran quickly; the runners run.";
        assert_eq!(en(text), en(text));
        assert_eq!(en(text), ["run", "runner", "ran", "quick", "runner", "run"]);
    }

    #[test]
    fn english_removes_snowball_stop_words() {
        assert_eq!(en("the attention of a model"), ["attent", "model"]);
        assert_eq!(en("The OF And"), Vec::<String>::new());
        // Snowball's list has contractions and would/could/ought, but not "will" or "can".
        assert!(en("don't can't it’s they're would could ought").is_empty());
        assert_eq!(en("we will"), ["will"]);
    }

    #[test]
    fn english_stop_word_predicate() {
        let e = Analyzer::English;
        for w in ["the", "The", "of", "yourselves", "don't", "don’t", "cannot"] {
            assert!(e.is_stop_word(w), "{w}");
        }
        for w in ["attention", "will", "can", "s", "", "注意"] {
            assert!(!e.is_stop_word(w), "{w}");
        }
        assert!(!Analyzer::Plain.is_stop_word("the"));
        assert_eq!(SNOWBALL_ENGLISH_STOP_WORDS.len(), english_stop_words().len(), "no duplicates");
        assert_eq!(SNOWBALL_ENGLISH_STOP_WORDS.iter().map(|w| w.len()).max(), Some(MAX_STOP_WORD_LEN));
    }

    #[test]
    fn english_splits_punctuation_and_hyphens() {
        assert_eq!(en("state-of-the-art, self-attention; (BERT)!"), ["state", "art", "self", "attent", "bert"]);
        assert_eq!(en("Sparse-Attention, for LONG sequences!"), ["spars", "attent", "long", "sequenc"]);
    }

    #[test]
    fn english_possessives() {
        assert_eq!(
            en("the model's weights; models' outputs; model’s"),
            ["model", "weight", "model", "output", "model"]
        );
    }

    #[test]
    fn english_numbers_stay_tokens() {
        assert_eq!(en("In 2019, 3.5% of 1,000 runs; GPT-4 v2.0"), ["2019", "3.5", "1,000", "run", "gpt", "4", "v2.0"]);
    }

    #[test]
    fn english_keeps_accents_lowercased() {
        assert_eq!(en("Café naïve Zoë"), ["café", "naïv", "zoë"]);
        assert_eq!(en("CAFÉ NAÏVE ZOË"), ["café", "naïv", "zoë"]);
    }

    #[test]
    fn english_chinese_bigrams() {
        assert_eq!(en("注意力机制"), ["注意", "意力", "力机", "机制"]);
        assert_eq!(en("稀疏注意力，长序列。"), ["稀疏", "疏注", "注意", "意力", "长序", "序列"]);
    }

    #[test]
    fn english_japanese_mixed_scripts_are_one_run() {
        assert_eq!(en("日本語のテキスト"), ["日本", "本語", "語の", "のテ", "テキ", "キス", "スト"]);
        // ー is part of the run, 。 ends it.
        assert_eq!(en("東京タワー。"), ["東京", "京タ", "タワ", "ワー"]);
        // Halfwidth Katakana.
        assert_eq!(en("ｶﾀｶﾅ"), ["ｶﾀ", "ﾀｶ", "ｶﾅ"]);
        // ・ (U+30FB) separates runs.
        assert_eq!(en("データ・ベース"), ["デー", "ータ", "ベー", "ース"]);
    }

    #[test]
    fn english_korean_bigrams() {
        assert_eq!(en("한국어 텍스트 처리"), ["한국", "국어", "텍스", "스트", "처리"]);
    }

    #[test]
    fn english_single_cjk_character() {
        assert_eq!(en("猫 cat"), ["猫", "cat"]);
        assert_eq!(en("猫"), ["猫"]);
    }

    #[test]
    fn english_mixed_latin_and_cjk() {
        assert_eq!(en("BERT模型"), ["bert", "模型"]);
        assert_eq!(en("BERT模型 and GPT-4的能力 is strong"), ["bert", "模型", "gpt", "4", "的能", "能力", "strong"]);
        assert_eq!(en("모델BERT기반"), ["모델", "bert", "기반"]);
    }

    #[test]
    fn english_ignores_emoji_and_symbols() {
        assert_eq!(en("I ❤️ 🤖 models ★ ∑ → © 👩‍🔬"), ["model"]);
        assert_eq!(en("cat😀dog"), ["cat", "dog"]);
    }

    #[test]
    fn english_empty_and_punctuation_only_give_no_tokens() {
        assert!(en("").is_empty());
        assert!(en("   \t\n").is_empty());
        assert!(en("?!.,;:-- ()").is_empty());
        assert!(en("，。「」・").is_empty());
    }
}
