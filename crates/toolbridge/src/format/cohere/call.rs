//! Cohere Chat v2 calls: `message.tool_calls[]`,
//! `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`
//! (providers.md §9c) — the OpenAI Chat message shape, read by the same code.
//! The message's `tool_plan` belongs to the message, not to a call, and is
//! not part of a call's extras.

use serde_json::Value;

use crate::call::read::{invalid_response, Collector};
use crate::call::{CallOptions, Expect, ToolCall};
use crate::error::Result;
use crate::format::openai::call::{message_itself, read_message};
use crate::json::Node;
use crate::note::Converted;

/// Reads the calls of a v2 chat response (`message`) or of a message.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let root = Node::root(response);
    invalid_response(root.object())?;
    let message = match root.get("message") {
        Some(message) => message,
        None => message_itself(&root)?.unwrap_or(root.clone()),
    };
    let mut collector = Collector::new(opts);
    read_message(&message, Expect::Text, &mut collector)?;
    Ok(collector.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_documented_response() {
        let response = json!({"id": "c1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant",
            "tool_plan": "I will look up the weather in Toronto.",
            "tool_calls": [{"id": "get_weather_1byjy32y4hvq", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"location\":\"Toronto\"}"}}]}});
        let calls = read_calls(&response, &CallOptions::default()).unwrap().value;
        assert_eq!(calls[0].id, "get_weather_1byjy32y4hvq");
        assert_eq!(calls[0].arguments, Ok(json!({"location": "Toronto"})));
    }
}
