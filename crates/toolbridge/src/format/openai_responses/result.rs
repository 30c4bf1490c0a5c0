//! Responses results: one `{"type": "function_call_output", "call_id",
//! "output"}` input item per call (providers.md §2d; openai-python
//! `response_input_param.FunctionCallOutput`). `call_id` is the call's
//! `call_id`, not its item `id` (`fc_…`, kept in the call's extras). No
//! error flag: an error is its text.

use serde_json::{json, Value};

use crate::call::ToolResult;

/// The `function_call_output` items answering `results`, in order.
pub(crate) fn write_results(results: &[ToolResult]) -> Value {
    results
        .iter()
        .map(|result| json!({"type": "function_call_output", "call_id": result.wire_id(), "output": result.as_text()}))
        .collect()
}
