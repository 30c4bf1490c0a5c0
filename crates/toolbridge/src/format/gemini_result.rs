//! Gemini results: one user content holding a `functionResponse` part per
//! call, in call order (providers.md §4d; google-genai `types.FunctionResponse`:
//! `id`, `name`, `response` a JSON object). The `response` follows the
//! type's docstring: the result under `"output"`, an error under
//! `"error"`. `name` is the name the model called; `id` only when the model
//! gave the call one (it is optional and Gemini matches by it when present).
//!
//! A call's `thoughtSignature` is not repeated here: it belongs on the
//! echoed `functionCall` part of the model's turn (the call's extras), which
//! is where Gemini 3 requires it.

use serde_json::{json, Map, Value};

use crate::call::ToolResult;

/// The user content answering `results`.
pub(crate) fn write_results(results: &[ToolResult]) -> Value {
    let parts: Vec<Value> = results
        .iter()
        .map(|result| {
            let value = match (&result.structured, &result.text) {
                (Some(value), None) => value.clone(),
                (Some(value), Some(text)) if !result.is_error => json!({"text": text, "data": value}),
                _ => Value::String(result.as_text()),
            };
            let key = if result.is_error { "error" } else { "output" };
            let mut response = Map::new();
            response.insert("name".into(), Value::String(result.provider_name.clone()));
            if let Some(id) = &result.provider_id {
                response.insert("id".into(), Value::String(id.clone()));
            }
            response.insert("response".into(), json!({ key: value }));
            json!({"functionResponse": response})
        })
        .collect();
    json!({"role": "user", "parts": parts})
}
