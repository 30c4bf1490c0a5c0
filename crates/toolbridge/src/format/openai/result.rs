//! OpenAI Chat results: one `{"role": "tool", "tool_call_id", "content"}`
//! message per call, in call order, right after the assistant message
//! (providers.md §1d; openai-python `ChatCompletionToolMessageParam`). The
//! type has no error flag and no `name`: an error is its text.

use serde_json::{json, Value};

use crate::call::ToolResult;

/// The tool messages answering `results`, in order.
pub(crate) fn write_results(results: &[ToolResult]) -> Value {
    results
        .iter()
        .map(|result| json!({"role": "tool", "tool_call_id": result.wire_id(), "content": result.as_text()}))
        .collect()
}
