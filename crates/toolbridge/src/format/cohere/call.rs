//! Cohere Chat v2 calls: `message.tool_calls[]`,
//! `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`
//! (providers.md §9c) — the OpenAI Chat message shape, read by the same code.
//! The message's `tool_plan` (the plan the model wrote before its calls)
//! must go back with them on the next turn: it is kept in the extras of the
//! first call, as `tool_plan`; with no call to carry it, a note says it was
//! left out.

use serde_json::Value;

use crate::call::read::{invalid_response, Collector};
use crate::call::{CallOptions, Expect, ToolCall};
use crate::error::Result;
use crate::format::openai::call::{message_itself, read_message};
use crate::json::Node;
use crate::note::{Converted, Note, NoteKind};

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
    let mut read = collector.finish();
    if let Some(plan) = message.value.get("tool_plan").filter(|plan| !plan.is_null()) {
        match read.value.first_mut() {
            Some(first) => {
                first.extras.insert("tool_plan".into(), plan.clone());
            }
            None => read.notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: "tool_plan".into(),
                },
                message.at.key("tool_plan"),
                "the message has a tool_plan but no tool calls to carry it; it was left out",
            )),
        }
    }
    Ok(read)
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
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"tool_plan": "I will look up the weather in Toronto."})
        );
        let plan_only =
            json!({"message": {"role": "assistant", "tool_plan": "I will think.", "content": []}});
        let read = read_calls(&plan_only, &CallOptions::default()).unwrap();
        assert!(read.value.is_empty());
        assert_eq!(
            read.notes[0].to_string(),
            "loss: the message has a tool_plan but no tool calls to carry it; it was left out (at /message/tool_plan)"
        );
    }
}
