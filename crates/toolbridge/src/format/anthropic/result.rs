//! Anthropic results: one user message holding a `tool_result` block per
//! call, in call order, nothing before them (providers.md §3d;
//! anthropic-sdk-python `ToolResultBlockParam`: `tool_use_id`, `content`
//! string or blocks, `is_error`).

use serde_json::{json, Value};

use crate::call::ToolResult;

/// The user message answering `results`.
pub(crate) fn write_results(results: &[ToolResult]) -> Value {
    let blocks: Vec<Value> = results
        .iter()
        .map(|result| {
            json!({"type": "tool_result", "tool_use_id": result.wire_id(),
                   "content": result.as_text(), "is_error": result.is_error})
        })
        .collect();
    json!({"role": "user", "content": blocks})
}
