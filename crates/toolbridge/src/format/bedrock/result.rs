//! Bedrock Converse results: one user message holding a `toolResult` block
//! per call, in call order (providers.md §5d; botocore's Converse
//! `ToolResultBlock`: `toolUseId`, `content` a list of `text` | `json` | …
//! blocks, `status` `success` | `error`).

use serde_json::{json, Value};

use crate::call::ToolResult;

/// The user message answering `results`: the text as a `text` block, the
/// JSON as a `json` block (an object; other JSON goes as text, which every
/// model reads).
pub(crate) fn write_results(results: &[ToolResult]) -> Value {
    let blocks: Vec<Value> = results
        .iter()
        .map(|result| {
            let mut content = Vec::new();
            if let Some(text) = &result.text {
                content.push(json!({"text": text}));
            }
            match &result.structured {
                Some(value @ Value::Object(_)) => content.push(json!({"json": value})),
                Some(value) => content.push(json!({"text": value.to_string()})),
                None => {}
            }
            if content.is_empty() {
                // `content` is required; an empty result is an empty text.
                content.push(json!({"text": ""}));
            }
            let status = if result.is_error { "error" } else { "success" };
            json!({"toolResult": {"toolUseId": result.wire_id(), "content": content, "status": status}})
        })
        .collect();
    json!({"role": "user", "content": blocks})
}
