//! A synthetic literature corpus for benchmarks: `litindex gen`.
//!
//! Deterministic by seed (a SplitMix64-seeded xoshiro256** written here, so
//! the output does not depend on a crate's version), streamed one paper at a
//! time, with the shape of a real abstract collection:
//!
//! * **Vocabulary**: [`VOCABULARY_SIZE`] terms. The most frequent ranks are
//!   real English function words ([`FUNCTION_WORDS`], so stop-word removal
//!   matters as it does on real text), then pronounceable synthetic words
//!   built from syllables (some with English suffixes, so stemming has work),
//!   shorter words at more frequent ranks. Term frequencies follow Zipf's law
//!   with exponent [`ZIPF_EXPONENT`].
//! * **Topics**: each paper has one of [`TOPICS`] topics; about a third of its
//!   tokens come from the topic's own Zipfian sub-vocabulary, so terms
//!   co-occur the way field-specific terms do.
//! * **Text**: titles of 6–15 words (title case, fewer function words);
//!   abstracts of log-normally distributed length (median ~150, mean ~170
//!   tokens, a long tail up to 1,000), in sentences of 8–28 words.
//! * **Time**: years 1995–2024, publication volume growing 8 % a year, in id
//!   order: ids (`g0000001`, …) increase with time.
//! * **Venues**: one of eight made-up venues per paper, by a hash of the
//!   seed and the paper's position (drawing nothing from the generator's
//!   stream, so the rest of a corpus is what it was before venues).
//! * **Citations**: log-normally many references per paper (mean ~20, 5 %
//!   with none), only to earlier papers, chosen by preferential attachment
//!   (a "repeat list" of every cited id, sampled uniformly, is proportional
//!   to in-degree) mixed with uniform picks of recent and of any earlier
//!   papers: a heavy-tailed in-degree. The repeat list (4 bytes per citation)
//!   is the only state that grows with the corpus.
//! * **Queries** (`--queries FILE`): 1–6 terms from one topic, mixing
//!   common and rare content terms and an occasional function word, drawn
//!   from a stream of their own: the same seed gives the same queries
//!   whatever the corpus size.

use std::collections::HashSet;
use std::io::Write;

use serde::Serialize;

/// Distinct terms in the vocabulary.
pub(crate) const VOCABULARY_SIZE: usize = 200_000;
/// Zipf exponent of the global term distribution.
pub(crate) const ZIPF_EXPONENT: f64 = 1.07;
/// Number of topics.
pub const TOPICS: usize = 300;
/// Terms in a topic's sub-vocabulary.
pub(crate) const TOPIC_TERMS: usize = 2_000;
/// Share of a paper's tokens drawn from its topic's sub-vocabulary.
pub(crate) const TOPIC_SHARE: f64 = 0.33;
/// First and last publication year.
pub(crate) const FIRST_YEAR: i32 = 1995;
pub(crate) const LAST_YEAR: i32 = 2024;
/// Yearly growth of the number of papers (e^0.08 ≈ +8 % a year).
pub(crate) const YEARLY_GROWTH: f64 = 0.08;
/// Ranks below this (and not function words) are "common" content terms in queries.
pub(crate) const COMMON_RANKS: usize = 2_000;

/// The most frequent terms: English function words, by rough frequency.
pub(crate) const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "a", "in", "to", "is", "for", "we", "that", "with", "on", "by", "this", "as", "are", "an",
    "from", "be", "which", "our", "it", "can", "these", "at", "or", "not", "has", "have", "its", "their", "such",
    "was", "between", "than", "also", "both", "but", "into", "more", "using", "over", "under", "when", "while", "each",
    "through", "how", "two", "new",
];

// ---------------------------------------------------------------------------
// Randomness
// ---------------------------------------------------------------------------

/// SplitMix64: seeds the generator and mixes stream ids into seeds.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256**, seeded from SplitMix64. Small, fast, and its output is
/// fixed by its definition, so a seed means the same corpus everywhere.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The generator for `stream` of `seed` (independent streams for the
    /// vocabulary, the papers and the queries).
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut sm = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let s = [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Rng { s }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-32 for our n).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Whether an event of probability `p` happens.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// A standard normal variate (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.f64(); // (0, 1]
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Log-normal with the given mean and σ of the underlying normal.
    pub(crate) fn lognormal_with_mean(&mut self, mean: f64, sigma: f64) -> f64 {
        let mu = mean.ln() - sigma * sigma / 2.0;
        (mu + sigma * self.normal()).exp()
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// A hash of a few numbers (for the topic sub-vocabularies).
fn mix(a: u64, b: u64, c: u64) -> u64 {
    let mut s = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ c.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    splitmix64(&mut s)
}

// ---------------------------------------------------------------------------
// Distributions
// ---------------------------------------------------------------------------

/// Zipf over ranks 0..n: P(rank r) ∝ 1/(r+1)^s, sampled by binary search in
/// the cumulative distribution.
#[derive(Debug, Clone)]
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut total = 0.0;
        for r in 0..n {
            total += 1.0 / ((r + 1) as f64).powf(s);
            cdf.push(total);
        }
        for c in &mut cdf {
            *c /= total;
        }
        Zipf { cdf }
    }

    pub fn sample(&self, rng: &mut Rng) -> usize {
        self.sample_in(rng, 0, self.cdf.len())
    }

    /// A rank in `lo..hi`, with the Zipf weights restricted to that range.
    pub(crate) fn sample_in(&self, rng: &mut Rng, lo: usize, hi: usize) -> usize {
        let start = if lo == 0 { 0.0 } else { self.cdf[lo - 1] };
        let end = self.cdf[hi - 1];
        let u = start + rng.f64() * (end - start);
        let r = self.cdf.partition_point(|&c| c <= u);
        r.clamp(lo, hi - 1)
    }
}

// ---------------------------------------------------------------------------
// Vocabulary
// ---------------------------------------------------------------------------

const ONSETS: &[&str] = &[
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "cr", "dr", "fr",
    "gr", "pr", "tr", "st", "sp", "sk", "sl", "pl", "bl", "cl", "fl", "gl", "ch", "sh", "th", "ph", "qu", "",
];
const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "io", "ou", "y"];
const CODAS: &[&str] =
    &["", "", "", "", "", "", "", "", "n", "r", "s", "l", "m", "t", "x", "nd", "st", "rk", "ng", "ct", "ph"];
const SUFFIXES: &[&str] =
    &["tion", "ing", "ed", "ic", "al", "ous", "ity", "ize", "ness", "ment", "er", "s", "ive", "able", "ism"];

/// One pronounceable word of 1–4 syllables.
fn synthetic_word(rng: &mut Rng) -> String {
    let syllables = match rng.below(20) {
        0..=3 => 1,
        4..=12 => 2,
        13..=17 => 3,
        _ => 4,
    };
    let mut w = String::new();
    for _ in 0..syllables {
        w.push_str(rng.pick::<&str>(ONSETS));
        w.push_str(rng.pick::<&str>(VOWELS));
        w.push_str(rng.pick::<&str>(CODAS));
    }
    if rng.chance(0.3) {
        w.push_str(rng.pick::<&str>(SUFFIXES));
    }
    w
}

/// The ranked vocabulary: function words first, then synthetic words, shorter first.
pub struct Vocabulary {
    pub words: Vec<String>,
    /// How many leading ranks are function words.
    pub function_words: usize,
    pub zipf: Zipf,
}

impl Vocabulary {
    pub fn new(seed: u64, size: usize) -> Vocabulary {
        let mut rng = Rng::new(seed, 1);
        let mut function: Vec<String> = Vec::new();
        for w in FUNCTION_WORDS {
            if !function.iter().any(|f| f == w) {
                function.push(w.to_string());
            }
        }
        let mut seen: HashSet<String> = function.iter().cloned().collect();
        let mut synthetic: Vec<String> = Vec::with_capacity(size);
        while function.len() + synthetic.len() < size {
            let w = synthetic_word(&mut rng);
            if w.len() >= 2 && seen.insert(w.clone()) {
                synthetic.push(w);
            }
        }
        // Frequent words are short (a stable sort keeps the generation order within a length).
        synthetic.sort_by_key(|w| w.len());
        let function_words = function.len();
        let mut words = function;
        words.extend(synthetic);
        Vocabulary { zipf: Zipf::new(words.len(), ZIPF_EXPONENT), words, function_words }
    }
}

// ---------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------

/// What `gen` writes for one paper: the Paper JSON Lines format.
#[derive(Debug, Serialize)]
struct PaperOut<'a> {
    id: &'a str,
    title: &'a str,
    #[serde(rename = "abstract")]
    abstract_: &'a str,
    year: i32,
    authors: &'a [String],
    references: &'a [String],
    venue: &'a str,
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GenStats {
    pub papers: u64,
    pub references: u64,
    pub abstract_tokens: u64,
    pub max_in_degree: u64,
}

/// The venues of synthetic papers.
const VENUES: [&str; 8] = [
    "Journal of Synthetic Results",
    "Proceedings of the Generated Systems Conference",
    "Transactions on Artificial Corpora",
    "Letters in Simulated Science",
    "Workshop on Deterministic Data",
    "Annals of Random Text",
    "International Conference on Benchmarks",
    "Review of Made-up Methods",
];

/// The venue of the `i`-th paper: a hash of the seed and `i`, so that it
/// draws nothing from the generator's stream (the rest of a corpus is what
/// it was before papers had venues).
fn venue(seed: u64, i: u64) -> &'static str {
    VENUES[(mix(seed, i, 0x7665_6e75) % VENUES.len() as u64) as usize]
}

/// The id of the `i`-th paper (0-based): `g0000001`, ….
pub fn paper_id(i: u64) -> String {
    format!("g{:07}", i + 1)
}

/// The corpus generator: vocabulary and topic tables, built once per seed.
pub struct Generator {
    seed: u64,
    vocab: Vocabulary,
    topic_zipf: Zipf,
    topic_pick: Zipf,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator {
            seed,
            vocab: Vocabulary::new(seed, VOCABULARY_SIZE),
            topic_zipf: Zipf::new(TOPIC_TERMS, 1.0),
            // Some fields are much bigger than others.
            topic_pick: Zipf::new(TOPICS, 0.6),
        }
    }

    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocab
    }

    /// The rank of the `j`-th term of topic `t`: a content word (never a
    /// function word), log-uniform over the content ranks from the 100th on,
    /// so topic terms are mostly mid-frequency words.
    fn topic_rank(&self, t: usize, j: usize) -> usize {
        let f = self.vocab.function_words;
        let lo = (f + 100).min(self.vocab.words.len() - 1) as f64;
        let hi = self.vocab.words.len() as f64;
        let u = (mix(self.seed, t as u64, j as u64) >> 11) as f64 / (1u64 << 53) as f64;
        ((lo * (hi / lo).powf(u)) as usize).clamp(f, self.vocab.words.len() - 1)
    }

    /// One token of a paper on topic `t`.
    fn token(&self, rng: &mut Rng, t: usize) -> usize {
        if rng.chance(TOPIC_SHARE) {
            self.topic_rank(t, self.topic_zipf.sample(rng))
        } else {
            self.vocab.zipf.sample(rng)
        }
    }

    fn title(&self, rng: &mut Rng, t: usize) -> String {
        let n = 6 + rng.below(10) as usize;
        let mut words: Vec<String> = Vec::with_capacity(n);
        while words.len() < n {
            let r = self.token(rng, t);
            let w = &self.vocab.words[r];
            let function = r < self.vocab.function_words;
            // Titles carry fewer function words than abstracts, never two in a row or at the end.
            if function && (words.is_empty() || words.len() + 1 == n || rng.chance(0.6)) {
                continue;
            }
            words.push(if function { w.clone() } else { capitalize(w) });
        }
        words.join(" ")
    }

    fn abstract_text(&self, rng: &mut Rng, t: usize, tokens: usize) -> String {
        let mut text = String::with_capacity(tokens * 9);
        let mut left = tokens;
        while left > 0 {
            let mut len = (8 + rng.below(21) as usize).min(left);
            if left - len < 8 {
                len = left; // no stub sentence at the end
            }
            for k in 0..len {
                let w = &self.vocab.words[self.token(rng, t)];
                if k == 0 {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(&capitalize(w));
                } else {
                    text.push(' ');
                    text.push_str(w);
                    if k + 1 < len && rng.chance(0.04) {
                        text.push(',');
                    }
                }
            }
            text.push('.');
            left -= len;
        }
        text
    }

    fn authors(&self, rng: &mut Rng) -> Vec<String> {
        let n = (rng.lognormal_with_mean(4.0, 0.6).round() as usize).clamp(1, 30);
        let f = self.vocab.function_words;
        (0..n)
            .map(|_| {
                let initial = (b'A' + rng.below(26) as u8) as char;
                let surname = &self.vocab.words[f + rng.below((self.vocab.words.len() - f) as u64) as usize];
                format!("{initial}. {}", capitalize(surname))
            })
            .collect()
    }

    /// Writes `papers` papers as Paper JSON Lines.
    pub fn write_corpus(&self, papers: u64, out: &mut dyn Write) -> anyhow::Result<GenStats> {
        let mut rng = Rng::new(self.seed, 2);
        let years = YearTable::new();
        // Every cited index once per citation: uniform picks from it are
        // picks in proportion to in-degree.
        let mut repeat: Vec<u32> = Vec::new();
        let mut in_degree: Vec<u32> = Vec::new();
        let mut stats = GenStats::default();
        let mut refs: Vec<u64> = Vec::new();
        let mut line: Vec<u8> = Vec::with_capacity(4096);
        for i in 0..papers {
            let topic = self.topic_pick.sample(&mut rng);
            let year = years.year_at((i as f64 + 0.5) / papers as f64);
            let title = self.title(&mut rng, topic);
            let tokens = (rng.lognormal_with_mean(170.0, 0.5).round() as usize).clamp(20, 1_000);
            let abstract_ = self.abstract_text(&mut rng, topic, tokens);
            let authors = self.authors(&mut rng);

            // References: only to earlier papers, no repeats.
            let wanted =
                if rng.chance(0.05) { 0 } else { (rng.lognormal_with_mean(21.0, 0.7).round() as u64).min(250).min(i) };
            refs.clear();
            let recent = (i / 20).max(50).min(i);
            let mut attempts = 0;
            while (refs.len() as u64) < wanted && attempts < 8 * wanted {
                attempts += 1;
                let r = rng.f64();
                let target = if r < 0.55 && !repeat.is_empty() {
                    repeat[rng.below(repeat.len() as u64) as usize] as u64
                } else if r < 0.80 {
                    i - 1 - rng.below(recent)
                } else {
                    rng.below(i)
                };
                if !refs.contains(&target) {
                    refs.push(target);
                }
            }
            refs.sort_unstable();
            for &r in &refs {
                repeat.push(r as u32);
                let d = &mut in_degree[r as usize];
                *d += 1;
                stats.max_in_degree = stats.max_in_degree.max(*d as u64);
            }
            in_degree.push(0);
            let ref_ids: Vec<String> = refs.iter().map(|&r| paper_id(r)).collect();

            let id = paper_id(i);
            line.clear();
            serde_json::to_writer(
                &mut line,
                &PaperOut {
                    id: &id,
                    title: &title,
                    abstract_: &abstract_,
                    year,
                    authors: &authors,
                    references: &ref_ids,
                    venue: venue(self.seed, i),
                },
            )?;
            line.push(b'\n');
            out.write_all(&line)?;
            stats.papers += 1;
            stats.references += refs.len() as u64;
            stats.abstract_tokens += tokens as u64;
        }
        Ok(stats)
    }

    /// Writes `n` queries, one per line.
    pub fn write_queries(&self, n: usize, out: &mut dyn Write) -> anyhow::Result<()> {
        for q in self.queries(n) {
            writeln!(out, "{q}")?;
        }
        Ok(())
    }

    /// `n` queries of 1–6 distinct terms from one topic each.
    pub fn queries(&self, n: usize) -> Vec<String> {
        let mut rng = Rng::new(self.seed, 3);
        let f = self.vocab.function_words;
        let v = self.vocab.words.len();
        let common_end = COMMON_RANKS.clamp(f + 1, v);
        (0..n)
            .map(|_| {
                let topic = self.topic_pick.sample(&mut rng);
                let len = match rng.below(100) {
                    0..=14 => 1,
                    15..=44 => 2,
                    45..=69 => 3,
                    70..=84 => 4,
                    85..=94 => 5,
                    _ => 6,
                };
                let mut terms: Vec<usize> = Vec::with_capacity(len);
                while terms.len() < len {
                    let r = rng.f64();
                    let rank = if r < 0.08 && len > 1 {
                        self.vocab.zipf.sample_in(&mut rng, 0, f)
                    } else if r < 0.45 {
                        self.topic_rank(topic, self.topic_zipf.sample(&mut rng))
                    } else if r < 0.70 {
                        self.vocab.zipf.sample_in(&mut rng, f, common_end)
                    } else {
                        self.vocab.zipf.sample_in(&mut rng, common_end, v)
                    };
                    if !terms.contains(&rank) {
                        terms.push(rank);
                    }
                }
                if terms.iter().all(|&r| r < f) {
                    terms[0] = self.topic_rank(topic, 0);
                }
                terms.iter().map(|&r| self.vocab.words[r].as_str()).collect::<Vec<_>>().join(" ")
            })
            .collect()
    }
}

/// Which year the paper at a fraction of the corpus (in time order) was published.
struct YearTable {
    /// Cumulative share of papers up to and including each year.
    cumulative: Vec<f64>,
}

impl YearTable {
    fn new() -> YearTable {
        let weights: Vec<f64> =
            (FIRST_YEAR..=LAST_YEAR).map(|y| (YEARLY_GROWTH * (y - FIRST_YEAR) as f64).exp()).collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let cumulative = weights
            .iter()
            .map(|w| {
                acc += w / total;
                acc
            })
            .collect();
        YearTable { cumulative }
    }

    fn year_at(&self, fraction: f64) -> i32 {
        let k = self.cumulative.partition_point(|&c| c < fraction).min(self.cumulative.len() - 1);
        FIRST_YEAR + k as i32
    }
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
