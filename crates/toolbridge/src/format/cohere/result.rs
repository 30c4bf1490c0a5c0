//! Cohere v2 results: one `{"role": "tool", "tool_call_id", "content"}`
//! message per call, in call order (providers.md §9d; cohere-python
//! `ToolChatMessageV2`). A JSON object goes as a `document` content block
//! (so the answer can cite it), text as a `text` block. No error flag: an
//! error is its text.

use serde_json::{json, Value};

use crate::call::ToolResult;

/// The tool messages answering `results`, in order.
pub(crate) fn write_results(results: &[ToolResult]) -> Value {
    results
        .iter()
        .map(|result| {
            let mut content = Vec::new();
            if let Some(text) = &result.text {
                content.push(json!({"type": "text", "text": text}));
            }
            match &result.structured {
                Some(value @ Value::Object(_)) => {
                    content.push(json!({"type": "document", "document": {"data": value}}));
                }
                Some(value) => content.push(json!({"type": "text", "text": value.to_string()})),
                None => {}
            }
            if content.is_empty() {
                content.push(json!({"type": "text", "text": ""}));
            }
            json!({"role": "tool", "tool_call_id": result.wire_id(), "content": content})
        })
        .collect()
}
