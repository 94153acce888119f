//! The OpenSearch index definition that reproduces litindex's scoring, and
//! the check that an index on a cluster still matches it.
//!
//! ```text
//! similarity litindex_bm25   type BM25, k1 and b of the index (Lucene 9's BM25Similarity:
//!                            idf = ln(1 + (N − df + 0.5)/(df + 0.5)), as litindex's;
//!                            tf part f / (f + k1·(1 − b + b·dl/avgdl)), without (k1 + 1))
//! field text                 title + " " + abstract, one field, so dl is litindex's doc_len;
//!                            index_options freqs (BM25 needs no positions); term vectors
//!                            stored, so the exact rescoring reads tf without re-analysing
//! analyzer litindex_plain    pattern tokenizer [^\p{IsAlphabetic}\p{N}]+ (Rust's
//!                            !char::is_alphanumeric), lowercase
//! analyzer litindex_english  ’ → ' (char filter), standard tokenizer (UAX #29), emoji dropped,
//!                            CJK bigrams, lowercase, Snowball's English stop list (litindex's,
//!                            verbatim), snowball English stemmer (Porter2, as rust-stemmers)
//! keywords                   id, aliases, references, cited_by, venue; year and doc_len integers
//! _meta.litindex             analyzer, k1, b, N, total length, avgdl, year range of the export
//! ```
//!
//! One primary shard by default so that N, df and avgdl are the whole
//! index's (with more shards, a search needs `dfs_query_then_fetch`, which
//! the backend always asks for).

use serde_json::{Value, json};

use crate::analyzer::{Analyzer, SNOWBALL_ENGLISH_STOP_WORDS};
use crate::store::IndexMeta;

/// The similarity's name in the settings.
pub(crate) const SIMILARITY: &str = "litindex_bm25";
/// Version of the document layout below, in `_meta.litindex.layout`.
pub(crate) const LAYOUT: u32 = 1;

/// The analyzer's name on the cluster.
pub(crate) fn analyzer_name(analyzer: Analyzer) -> &'static str {
    match analyzer {
        Analyzer::Plain => "litindex_plain",
        Analyzer::English => "litindex_english",
    }
}

/// The `analysis` settings of `analyzer`.
fn analysis(analyzer: Analyzer) -> Value {
    match analyzer {
        Analyzer::Plain => json!({
            "tokenizer": {"litindex_alnum": {"type": "pattern", "pattern": "[^\\p{IsAlphabetic}\\p{N}]+"}},
            "analyzer": {"litindex_plain": {"type": "custom", "tokenizer": "litindex_alnum", "filter": ["lowercase"]}}
        }),
        Analyzer::English => json!({
            "char_filter": {"litindex_apostrophe": {"type": "mapping", "mappings": ["\u{2019} => '"]}},
            "filter": {
                "litindex_no_emoji": {"type": "keep_types", "types": ["<EMOJI>"], "mode": "exclude"},
                "litindex_cjk": {"type": "cjk_bigram", "output_unigrams": false},
                "litindex_stop": {"type": "stop", "stopwords": SNOWBALL_ENGLISH_STOP_WORDS.as_slice(), "ignore_case": false},
                "litindex_stem": {"type": "snowball", "language": "English"}
            },
            "analyzer": {"litindex_english": {
                "type": "custom", "char_filter": ["litindex_apostrophe"], "tokenizer": "standard",
                "filter": ["litindex_no_emoji", "litindex_cjk", "lowercase", "litindex_stop", "litindex_stem"]
            }}
        }),
    }
}

/// The whole index definition (`PUT /INDEX` body) for an index with `meta`.
pub(crate) fn index_definition(meta: &IndexMeta, shards: u32, replicas: u32) -> anyhow::Result<Value> {
    let analyzer = meta.analyzer()?;
    let keyword = json!({"type": "keyword"});
    let stored = json!({"type": "text", "index": false});
    Ok(json!({
        "settings": {
            "index": {
                "number_of_shards": shards,
                "number_of_replicas": replicas,
                "similarity": {SIMILARITY: {"type": "BM25", "k1": meta.k1, "b": meta.b}},
                "analysis": analysis(analyzer)
            }
        },
        "mappings": {
            "dynamic": "strict",
            "_meta": {"litindex": {
                "layout": LAYOUT,
                "analyzer": meta.analyzer,
                "k1": meta.k1,
                "b": meta.b,
                "num_docs": meta.num_docs,
                "total_len": meta.total_len,
                "avgdl": meta.avgdl,
                "min_year": meta.min_year,
                "max_year": meta.max_year,
                "built_at": meta.built_at,
            }},
            "properties": {
                "id": keyword,
                "title": stored,
                "abstract": stored,
                "text": {
                    "type": "text",
                    "analyzer": analyzer_name(analyzer),
                    "similarity": SIMILARITY,
                    "index_options": "freqs",
                    "term_vector": "yes"
                },
                "year": {"type": "integer"},
                "doc_len": {"type": "integer"},
                "authors": {"type": "keyword"},
                "venue": keyword,
                "aliases": keyword,
                "references": keyword,
                "cited_by": keyword
            }
        }
    }))
}

/// What a search needs to know of an index on a cluster, read from its
/// definition and checked against litindex's scoring.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteMeta {
    pub analyzer: Analyzer,
    pub k1: f64,
    pub b: f64,
    /// The export's year range (recency is linear over it, as locally).
    pub min_year: Option<i32>,
    pub max_year: Option<i32>,
}

/// Reads and checks `GET /INDEX`'s answer for index `index`: the mapping
/// must carry `_meta.litindex`, the `text` field must use the similarity and
/// the analyzer litindex defines for it, and the similarity's `k1` and `b`
/// must be the `_meta`'s. Each mismatch is an error that names it.
pub fn check(index: &str, answer: &Value) -> anyhow::Result<RemoteMeta> {
    // GET /INDEX answers {NAME: {...}}; an alias resolves to the real name.
    let body = answer
        .as_object()
        .and_then(|m| m.values().next())
        .ok_or_else(|| anyhow::anyhow!("OpenSearch returned no definition for index `{index}`"))?;
    let mismatch =
        |what: String| anyhow::anyhow!("the OpenSearch index `{index}` does not match litindex's scoring: {what}");
    let meta = &body["mappings"]["_meta"]["litindex"];
    if !meta.is_object() {
        return Err(mismatch(
            "its mapping has no _meta.litindex (was it made by `litindex export --format opensearch`?)".into(),
        ));
    }
    let analyzer: Analyzer = meta["analyzer"]
        .as_str()
        .unwrap_or_default()
        .parse()
        .map_err(|e| mismatch(format!("_meta.litindex.analyzer: {e}")))?;
    let (k1, b) = (meta["k1"].as_f64(), meta["b"].as_f64());
    let (Some(k1), Some(b)) = (k1, b) else {
        return Err(mismatch("_meta.litindex lacks k1 or b".into()));
    };
    let text = &body["mappings"]["properties"]["text"];
    let want = analyzer_name(analyzer);
    if text["analyzer"].as_str() != Some(want) {
        return Err(mismatch(format!("field `text` is analysed by {}, not {want}", text["analyzer"])));
    }
    if text["similarity"].as_str() != Some(SIMILARITY) {
        return Err(mismatch(format!("field `text` is scored by {}, not {SIMILARITY}", text["similarity"])));
    }
    let sim = &body["settings"]["index"]["similarity"][SIMILARITY];
    if sim["type"].as_str() != Some("BM25") {
        return Err(mismatch(format!("similarity {SIMILARITY} is of type {}, not BM25", sim["type"])));
    }
    // Settings come back as strings.
    let num = |v: &Value| v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()));
    for (name, want) in [("k1", k1), ("b", b)] {
        match num(&sim[name]) {
            Some(got) if (got - want).abs() <= 1e-9 * want.abs().max(1.0) => {}
            got => return Err(mismatch(format!("similarity {name} is {got:?}, _meta.litindex says {want}"))),
        }
    }
    let year = |k: &str| meta[k].as_i64().and_then(|y| i32::try_from(y).ok());
    Ok(RemoteMeta { analyzer, k1, b, min_year: year("min_year"), max_year: year("max_year") })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(analyzer: &str) -> IndexMeta {
        IndexMeta {
            analyzer: analyzer.into(),
            k1: 1.2,
            b: 0.7,
            num_docs: 3,
            total_len: 30,
            avgdl: 10.0,
            min_year: Some(2000),
            max_year: Some(2020),
            built_at: "now".into(),
        }
    }

    /// What GET /INDEX answers for an index made from `def` (numbers in settings as strings).
    fn answer(def: &Value) -> Value {
        let mut settings = def["settings"].clone();
        let sim = &mut settings["index"]["similarity"][SIMILARITY];
        for k in ["k1", "b"] {
            sim[k] = Value::String(sim[k].to_string());
        }
        json!({"papers": {"settings": settings, "mappings": def["mappings"].clone()}})
    }

    #[test]
    fn a_definition_checks_against_itself() {
        for a in ["plain", "english"] {
            let def = index_definition(&meta(a), 1, 0).unwrap();
            let got = check("papers", &answer(&def)).unwrap();
            assert_eq!(got.analyzer.name(), a);
            assert_eq!((got.k1, got.b, got.min_year, got.max_year), (1.2, 0.7, Some(2000), Some(2020)));
        }
    }

    #[test]
    fn mismatches_are_named() {
        let def = index_definition(&meta("plain"), 1, 0).unwrap();
        let mut a = answer(&def);
        a["papers"]["settings"]["index"]["similarity"][SIMILARITY]["k1"] = json!("2.0");
        let err = check("papers", &a).unwrap_err().to_string();
        assert!(err.contains("similarity k1 is Some(2.0), _meta.litindex says 1.2"), "{err}");
        let mut a = answer(&def);
        a["papers"]["mappings"]["properties"]["text"]["analyzer"] = json!("standard");
        let err = check("papers", &a).unwrap_err().to_string();
        assert!(err.contains("analysed by \"standard\", not litindex_plain"), "{err}");
        let mut a = answer(&def);
        a["papers"]["mappings"]["_meta"] = json!({});
        assert!(check("papers", &a).unwrap_err().to_string().contains("no _meta.litindex"));
    }
}
