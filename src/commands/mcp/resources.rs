//! The server's resources and its one prompt (issue 27): `paper://ID` (a
//! paper as `get_paper` returns it) and `marks://LABEL` (the papers marked
//! with a label, as `list_marks` lists them) as resource templates, read
//! as JSON; and `prior_art_report`, a prompt that walks an agent through
//! search → evidence → related → gaps → a cited summary checked by
//! `verify_citations`.

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, Prompt, PromptArgument, PromptMessage,
    ReadResourceResult, ResourceContents, ResourceTemplate, Role,
};
use serde_json::{Value, json};

use super::Litindex;
use litindex::api::{briefs, paper};
use litindex::store::{Label, MarkFilter};

/// The resource templates.
pub(super) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new("paper://{id}", "paper")
            .with_description("A paper by id or alias: metadata, abstract, reference and citation ids (JSON)"),
        ResourceTemplate::new("marks://{label}", "marks").with_description(
            "The papers marked favorite, exclude, to-read or read, with their titles, notes and tags (JSON)",
        ),
    ])
}

/// Reads `uri` from the server's index.
pub(super) fn read(server: &Litindex, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = |why: String| ErrorData::resource_not_found(why, Some(json!({"uri": uri})));
    let value: Value = if let Some(id) = uri.strip_prefix("paper://") {
        let id = super::page::text("id", id).map_err(not_found)?;
        server.with_store(|store| Ok(serde_json::to_value(paper(store, &id)?)?)).map_err(not_found)?
    } else if let Some(label) = uri.strip_prefix("marks://") {
        let label: Label = label.parse().map_err(|e: String| not_found(e))?;
        server
            .with_store(|store| {
                let marked = store.marked(&MarkFilter { label: Some(label), ..MarkFilter::default() })?;
                let ids: Vec<String> =
                    marked.iter().map(|m| m.id.clone().unwrap_or_else(|| m.stored_id.clone())).collect();
                let described = briefs(store, &ids)?;
                let items: Vec<Value> = marked
                    .into_iter()
                    .zip(described)
                    .map(|(m, b)| {
                        json!({"stored_id": m.stored_id, "id": m.id, "title": m.title, "year": b.year,
                               "first_author": b.first_author, "labels": m.labels, "tags": m.tags})
                    })
                    .collect();
                Ok(json!({"label": label, "marks": items}))
            })
            .map_err(not_found)?
    } else {
        return Err(not_found(format!(
            "no resource `{}`: use paper://ID or marks://LABEL",
            litindex::api::error::clip(uri)
        )));
    };
    let mut contents = ResourceContents::text(value.to_string(), uri);
    if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
        *mime_type = Some("application/json".into());
    }
    Ok(ReadResourceResult::new(vec![contents]))
}

/// The prompt's name.
const PRIOR_ART: &str = "prior_art_report";

pub(super) fn prompts() -> ListPromptsResult {
    let mut topic = PromptArgument::new("topic");
    topic.description = Some("The idea or claim to find prior art for".into());
    topic.required = Some(true);
    ListPromptsResult::with_all_items(vec![Prompt::new(
        PRIOR_ART,
        Some(
            "A prior-art report from this index: search, evidence, related papers, gaps, then a cited summary checked by verify_citations",
        ),
        Some(vec![topic]),
    )])
}

pub(super) fn prompt(
    name: &str,
    arguments: Option<&serde_json::Map<String, Value>>,
) -> Result<GetPromptResult, ErrorData> {
    if name != PRIOR_ART {
        return Err(ErrorData::invalid_params(
            format!("no prompt `{}`: the one prompt is {PRIOR_ART}", litindex::api::error::clip(name)),
            None,
        ));
    }
    let topic = arguments
        .and_then(|a| a.get("topic"))
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| ErrorData::invalid_params("prior_art_report needs a `topic`", None))?;
    let topic = super::page::text("topic", topic).map_err(|e| ErrorData::invalid_params(e, None))?;
    let text = format!(
        "Write a prior-art report on: {topic}\n\n\
         Use only the litindex tools, and cite only what they return.\n\
         1. describe_index: what the index holds (its years, whether dense search is available).\n\
         2. search_papers with the topic's key words (then with author:, year:, venue: or +must terms to narrow); read each hit's snippet, the evidence sentences.\n\
         3. get_papers on the 5-10 most relevant ids, to read their abstracts.\n\
         4. related on those ids: papers that share citers or references with them, which the words may miss.\n\
         5. gaps with `from` set to those ids: what they cite most that the index lacks (name these as missing, not as read).\n\
         6. context with the topic as the question: a numbered source pack.\n\
         7. Write the report: what exists, who did it first (year), how the works relate, and what is missing; cite each claim as [n] from the pack.\n\
         8. verify_citations with your answer and the pack; fix or drop every citation judged weak or not found, and any outside the pack, then give the final report."
    );
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description(format!("Prior-art report on {topic}")))
}
