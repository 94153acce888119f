//! The `outputSchema` of every tool: the shape of its `structuredContent`
//! (the required fields and their types; a tool may add fields). The SDK
//! test validates each tool's result against its schema with a JSON Schema
//! validator, so a schema that drifts from the result fails there.

use std::sync::Arc;

use serde_json::{Map, Value, json};

/// A JSON Schema object as rmcp takes it.
pub(super) fn object(v: Value) -> Arc<Map<String, Value>> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("a schema literal is an object"),
    }
}

fn nullable(kind: &str) -> Value {
    json!({"type": [kind, "null"]})
}

/// An id with its title, year and first author (the api's `Brief`).
fn brief() -> Value {
    json!({
        "type": "object",
        "required": ["id", "indexed", "title", "year", "first_author"],
        "properties": {
            "id": {"type": "string"},
            "indexed": {"type": "boolean"},
            "title": nullable("string"),
            "year": nullable("integer"),
            "first_author": nullable("string"),
        }
    })
}

/// A paged list under `key` whose items are `item`, with the other fields `extra`.
fn paged(key: &str, item: Value, extra: Value) -> Arc<Map<String, Value>> {
    let mut properties = json!({
        "offset": {"type": "integer", "minimum": 0},
        "returned": {"type": "integer", "minimum": 0},
        "truncated": {"type": "boolean"},
        "next_cursor": nullable("string"),
        "note": {"type": "string"},
        "estimated_tokens": {"type": "integer", "minimum": 0},
    });
    properties[key] = json!({"type": "array", "items": item});
    let mut required = vec![json!(key), json!("offset"), json!("returned"), json!("truncated"), json!("next_cursor")];
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            required.push(json!(k.clone()));
            properties[k] = v;
        }
    }
    object(json!({"type": "object", "required": required, "properties": properties}))
}

pub(super) fn search_papers() -> Arc<Map<String, Value>> {
    let hit = json!({
        "type": "object",
        "required": ["id", "title", "year", "authors", "bm25_score", "graph_distance", "recency_score", "final_score", "snippet"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "year": nullable("integer"),
            "authors": {"type": "array", "items": {"type": "string"}},
            "venue": nullable("string"),
            "bm25_score": {"type": "number"},
            "graph_distance": nullable("integer"),
            "recency_score": {"type": "number"},
            "final_score": {"type": "number"},
            "snippet": {"type": "string"},
            "graph_via": {
                "type": "object",
                "description": "set when the walk reached this hit through a list it followed in part (fan_out)",
                "required": ["paper", "direction", "followed", "total"],
                "properties": {
                    "paper": {"type": "string"},
                    "direction": {"type": "string", "enum": ["references", "citations"]},
                    "followed": {"type": "integer", "minimum": 1},
                    "total": {"type": "integer", "minimum": 1},
                },
            },
        }
    });
    paged(
        "ranked",
        hit,
        json!({"query": {"type": "string"}, "mode": {"type": "string"}, "hit_count": {"type": "integer"}}),
    )
}

pub(super) fn get_paper() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["id", "title", "abstract", "year", "authors", "venue", "source", "references", "citations",
                     "references_total", "citations_total", "truncated", "estimated_tokens"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "abstract": {"type": "string"},
            "year": nullable("integer"),
            "authors": {"type": "array", "items": {"type": "string"}},
            "venue": nullable("string"),
            "source": {"type": "string"},
            "references": {"type": "array", "items": brief()},
            "citations": {"type": "array", "items": brief()},
            "references_total": {"type": "integer"},
            "citations_total": {"type": "integer"},
            "truncated": {"type": "boolean"},
            "note": {"type": "string"},
            "estimated_tokens": {"type": "integer"},
        }
    }))
}

pub(super) fn get_papers() -> Arc<Map<String, Value>> {
    let paper = json!({
        "type": "object",
        "required": ["input", "id", "title", "abstract", "year", "authors", "venue", "references_total", "citations_total"],
        "properties": {
            "input": {"type": "string"},
            "id": {"type": "string"},
            "title": {"type": "string"},
            "abstract": {"type": "string"},
            "year": nullable("integer"),
            "authors": {"type": "array", "items": {"type": "string"}},
            "venue": nullable("string"),
            "references_total": {"type": "integer"},
            "citations_total": {"type": "integer"},
        }
    });
    paged("papers", paper, json!({"unknown": {"type": "array", "items": {"type": "string"}}}))
}

pub(super) fn neighbors() -> Arc<Map<String, Value>> {
    let mut node = brief();
    node["required"].as_array_mut().unwrap().push(json!("distance"));
    node["properties"]["distance"] = json!({"type": "integer", "minimum": 0});
    paged(
        "nodes",
        node,
        json!({"seed": {"type": "string"}, "hops": {"type": "integer"}, "direction": {"type": "string"}, "total": {"type": "integer"}}),
    )
}

pub(super) fn related() -> Arc<Map<String, Value>> {
    let item = json!({
        "type": "object",
        "required": ["id", "title", "year", "score", "cocitation", "coupling", "text_score"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "year": nullable("integer"),
            "score": {"type": "number"},
            "cocitation": {"type": "number"},
            "coupling": {"type": "number"},
            "text_score": {"type": "number"},
        }
    });
    paged(
        "related",
        item,
        json!({"seeds": {"type": "array", "items": {"type": "string"}}, "method": {"type": "string"}}),
    )
}

pub(super) fn gaps() -> Arc<Map<String, Value>> {
    let item = json!({
        "type": "object",
        "required": ["id", "kind", "cited_by", "cited_by_sample"],
        "properties": {
            "id": {"type": "string"},
            "kind": {"type": "string"},
            "cited_by": {"type": "integer"},
            "cited_by_sample": {"type": "array", "items": {"type": "string"}},
        }
    });
    paged("gaps", item, json!({}))
}

pub(super) fn list_marks() -> Arc<Map<String, Value>> {
    let item = json!({
        "type": "object",
        "required": ["stored_id", "id", "title", "year", "first_author", "labels", "tags"],
        "properties": {
            "stored_id": {"type": "string"},
            "id": nullable("string"),
            "title": nullable("string"),
            "year": nullable("integer"),
            "first_author": nullable("string"),
            "labels": {"type": "array", "items": {
                "type": "object",
                "required": ["label", "note"],
                "properties": {"label": {"enum": ["favorite", "exclude", "to-read", "read"]}, "note": {"type": "string"}}
            }},
            "tags": {"type": "array", "items": {"type": "string"}},
        }
    });
    paged("marks", item, json!({"total": {"type": "integer"}}))
}

pub(super) fn describe_index() -> Arc<Map<String, Value>> {
    let labels = json!({
        "type": "object",
        "required": ["favorite", "exclude", "to_read", "read"],
        "properties": {
            "favorite": {"type": "integer"}, "exclude": {"type": "integer"},
            "to_read": {"type": "integer"}, "read": {"type": "integer"}
        }
    });
    object(json!({
        "type": "object",
        "required": ["papers", "edges", "dangling_edges", "analyzer", "year_min", "year_max", "model", "modes", "marks", "tools", "writes_allowed"],
        "properties": {
            "papers": {"type": "integer"},
            "edges": {"type": "integer"},
            "dangling_edges": {"type": "integer"},
            "analyzer": {"type": "string"},
            "year_min": nullable("integer"),
            "year_max": nullable("integer"),
            "model": {"type": ["object", "null"], "required": ["name", "dim", "papers"]},
            "modes": {"type": "array", "items": {"enum": ["bm25", "dense", "hybrid"]}},
            "marks": labels,
            "tools": {"type": "object", "additionalProperties": {"type": "string"}},
            "writes_allowed": {"type": "boolean"},
        }
    }))
}

pub(super) fn export() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["format", "papers", "text"],
        "properties": {
            "format": {"enum": ["bibtex", "csl-json", "ris"]},
            "papers": {"type": "integer"},
            "text": {"type": "string"},
        }
    }))
}

pub(super) fn context() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["question", "instructions", "sources", "omitted", "estimated_tokens"],
        "properties": {
            "question": {"type": "string"},
            "instructions": {"type": "string"},
            "sources": {"type": "array", "items": {
                "type": "object",
                "required": ["number", "id", "title", "year", "sentences"],
                "properties": {
                    "number": {"type": "integer", "minimum": 1},
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "year": nullable("integer"),
                    "sentences": {"type": "array", "items": {"type": "string"}},
                }
            }},
            "omitted": {"type": "integer"},
            "budget_tokens": nullable("integer"),
            "estimated_tokens": {"type": "integer"},
        }
    }))
}

pub(super) fn verify_citations() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["citing_sentences", "supported", "weak", "not_found", "outside_pack", "threshold", "checks"],
        "properties": {
            "citing_sentences": {"type": "integer"},
            "supported": {"type": "integer"},
            "weak": {"type": "integer"},
            "not_found": {"type": "integer"},
            "outside_pack": {"type": "integer"},
            "threshold": {"type": "number"},
            "checks": {"type": "array", "items": {
                "type": "object",
                "required": ["line", "sentence", "number", "id", "judgment"],
                "properties": {
                    "line": {"type": "integer"},
                    "sentence": {"type": "string"},
                    "number": {"type": "integer"},
                    "id": nullable("string"),
                    "judgment": {"type": "string"},
                }
            }},
            "error": {"type": "string"},
        }
    }))
}

pub(super) fn mark() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["message", "marked"],
        "properties": {
            "message": {"type": "string"},
            "marked": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "label", "tags", "dangling"],
                "properties": {
                    "id": {"type": "string"},
                    "label": {"enum": ["favorite", "exclude", "to-read", "read", null]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "dangling": {"type": "boolean"},
                }
            }},
        }
    }))
}

pub(super) fn unmark() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "required": ["message", "removed"],
        "properties": {"message": {"type": "string"}, "removed": {"type": "integer", "minimum": 0}}
    }))
}

pub(super) fn screen_next() -> Arc<Map<String, Value>> {
    let proposal = json!({
        "type": "object",
        "required": ["given_id", "paper_id", "title", "year", "top_terms", "cites_included", "cited_by_included", "shared_references"],
        "properties": {
            "given_id": {"type": "string"},
            "paper_id": {"type": "string"},
            "title": {"type": "string"},
            "year": nullable("integer"),
            "score": nullable("number"),
            "model": nullable("string"),
            "top_terms": {"type": "array", "items": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}},
            "cites_included": {"type": "array", "items": {"type": "string"}},
            "cited_by_included": {"type": "array", "items": {"type": "string"}},
            "shared_references": {"type": "integer", "minimum": 0},
            "vector_similarity": nullable("number"),
        }
    });
    object(json!({
        "type": "object",
        "required": ["review", "proposals"],
        "properties": {"review": {"type": "string"}, "proposals": {"type": "array", "items": proposal}}
    }))
}

pub(super) fn screen_status() -> Arc<Map<String, Value>> {
    let count = json!({"type": "integer", "minimum": 0});
    object(json!({
        "type": "object",
        "required": ["review", "candidates", "screened", "included", "excluded", "undecided", "estimate", "stop"],
        "properties": {
            "review": {"type": "string"},
            "origin": {"type": "string"},
            "candidates": count, "screened": count, "included": count, "excluded": count, "undecided": count,
            "excludes_in_a_row": count,
            "estimate": {"type": "object", "required": ["relevant_remaining", "method"],
                "properties": {"relevant_remaining": {"type": "number"}, "method": {"type": "string"}}},
            "stop": {"type": "object", "required": ["rule", "stop", "why"],
                "properties": {"rule": {"type": "string"}, "stop": {"type": "boolean"}, "why": {"type": "string"}}},
        }
    }))
}

pub(super) fn screen_label() -> Arc<Map<String, Value>> {
    let count = json!({"type": "integer", "minimum": 0});
    object(json!({
        "type": "object",
        "required": ["review", "decided", "included", "excluded"],
        "properties": {
            "review": {"type": "string"},
            "decided": {"type": "array", "items": {"type": "string"}},
            "included": count, "excluded": count,
        }
    }))
}

/// A passage as `get_passage` returns it and as `search_passages` lists it
/// (the hit adds its score and the query's spans).
fn passage_fields() -> Value {
    json!({
        "passage": {"type": "integer"},
        "paper_id": nullable("string"),
        "title": nullable("string"),
        "kind": {"type": "string"},
        "page_first": {"type": "integer", "minimum": 1},
        "page_last": {"type": "integer", "minimum": 1},
        "text": {"type": "string"},
        "start": {"type": "integer", "minimum": 0},
        "end": {"type": "integer", "minimum": 0},
    })
}

pub(super) fn search_passages() -> Arc<Map<String, Value>> {
    let mut properties = passage_fields();
    properties["section"] = json!({"type": "string"});
    properties["score"] = json!({"type": "number"});
    properties["spans"] = json!({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}});
    let hit = json!({
        "type": "object",
        "required": ["passage", "paper_id", "title", "section", "kind", "page_first", "page_last", "text", "spans", "score"],
        "properties": properties,
    });
    paged("passages", hit, json!({"query": {"type": "string"}, "total": {"type": "integer", "minimum": 0}}))
}

pub(super) fn get_passage() -> Arc<Map<String, Value>> {
    let mut properties = passage_fields();
    properties["document"] = json!({"type": "integer"});
    properties["section"] = json!({"type": "integer"});
    properties["heading"] = json!({"type": "string"});
    properties["paragraph"] = json!({"type": "integer"});
    object(json!({
        "type": "object",
        "required": ["passage", "document", "paper_id", "title", "section", "heading", "paragraph", "page_first", "page_last", "kind", "text"],
        "properties": properties,
    }))
}

pub(super) fn why() -> Arc<Map<String, Value>> {
    let sentence = json!({
        "type": "object",
        "required": ["page", "section", "sentence"],
        "properties": {"page": {"type": "integer"}, "section": {"type": "string"}, "sentence": {"type": "string"},
            "markers": {"type": "array", "items": {"type": "string"}}},
    });
    let entry = json!({
        "type": "object",
        "required": ["citing", "document", "entry", "sentences"],
        "properties": {"citing": {"type": "string"}, "document": {"type": "integer"}, "entry": {"type": "object"},
            "sentences": {"type": "array", "items": sentence}},
    });
    object(json!({
        "type": "object",
        "required": ["citing", "cited", "verdict", "reference_entries", "graph_edge", "entries"],
        "properties": {
            "citing": {"type": "string"},
            "cited": {"type": "string"},
            "verdict": {"enum": ["no-full-text", "not-cited", "no-context", "cited"]},
            "reference_entries": {"type": "integer", "minimum": 0},
            "graph_edge": {"type": "boolean"},
            "entries": {"type": "array", "items": entry},
        }
    }))
}
