//! OpenAI Chat Completions calls in a whole response:
//! `choices[i].message.tool_calls[]`, each
//! `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`
//! (providers.md §1c), and the legacy `message.function_call`.
//!
//! Mistral and Cohere send the same message shape (their modules call
//! [`read_message`]); Ollama too, with arguments as an object.

use serde_json::Value;

use crate::call::read::{choice, extras, invalid_response, Collector, Sent};
use crate::call::{CallOptions, Expect, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::Node;
use crate::note::{Converted, NoteKind};

/// The keys of a `tool_calls[]` entry that are read (the rest are extras).
const ENTRY_KEYS: [&str; 4] = ["id", "type", "function", "index"];
/// The keys of its `function` object that are read (`index` is Ollama's position).
const FUNCTION_KEYS: [&str; 3] = ["name", "arguments", "index"];

/// Reads the calls of a Chat completion (choice `opts.choice`, or every
/// choice in order with [`CallOptions::all_choices`], each call saying its
/// choice), or of one assistant message.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let mut collector = Collector::new(opts);
    let root = Node::root(response);
    if opts.all_choices && response.get("choices").is_some() {
        let choices = invalid_response(invalid_response(root.field("choices"))?.array())?;
        for (position, entry) in choices.into_iter().enumerate() {
            let index = entry
                .value
                .get("index")
                .and_then(Value::as_u64)
                .map_or(position, |index| usize::try_from(index).unwrap_or(usize::MAX));
            collector.set_choice(Some(index));
            let message = invalid_response(entry.field("message"))?;
            read_message(&message, Expect::Text, &mut collector)?;
        }
        return Ok(collector.finish());
    }
    if let Some(message) = chat_message(&root, opts.choice)? {
        read_message(&message, Expect::Text, &mut collector)?;
    }
    Ok(collector.finish())
}

/// The message of choice `choice` of a completion (`None` when there is no
/// such choice), or the document itself when it is a message.
pub(crate) fn chat_message<'a>(root: &Node<'a>, wanted: usize) -> Result<Option<Node<'a>>> {
    invalid_response(root.object())?;
    if let Some(choices) = root.get("choices") {
        let Some(entry) = choice(invalid_response(choices.array())?, wanted) else {
            return Ok(None);
        };
        return invalid_response(entry.field("message")).map(Some);
    }
    message_itself(root)
}

/// The document when it is a message: it has `tool_calls` or
/// `function_call`, or a `role` and a `content` that is not a list of blocks
/// (an Anthropic message is not a Chat message with no calls).
pub(crate) fn message_itself<'a>(root: &Node<'a>) -> Result<Option<Node<'a>>> {
    let has = |key: &str| root.value.get(key).is_some();
    let blocks = root.value.get("content").is_some_and(Value::is_array);
    if has("tool_calls") || has("function_call") || (has("role") && !blocks) {
        return Ok(Some(root.clone()));
    }
    Err(Error::new(
        ErrorKind::InvalidResponse,
        "neither a response (no \"choices\" or \"message\") nor a message (no \"tool_calls\" or \"role\")",
    ))
}

/// Reads a message's `tool_calls` (and legacy `function_call`), arguments
/// sent as `expect` says.
pub(crate) fn read_message(message: &Node<'_>, expect: Expect, collector: &mut Collector<'_>) -> Result<()> {
    invalid_response(message.object())?;
    if let Some(calls) = message.get("tool_calls") {
        for entry in invalid_response(calls.array())? {
            invalid_response(entry.object())?;
            match entry.value.get("type").and_then(Value::as_str) {
                None | Some("function") => {}
                Some(other) => {
                    collector.note(
                        NoteKind::Dropped {
                            keyword: other.into(),
                        },
                        entry.at.clone(),
                        format!("a {other:?} tool call is not a function call; it was left out"),
                    );
                    continue;
                }
            }
            let function = invalid_response(entry.field("function"))?;
            invalid_response(function.object())?;
            collector.push(Sent {
                at: entry.at.clone(),
                id: entry.get("id"),
                name: function.get("name"),
                arguments: function.value.get("arguments"),
                arguments_at: function.at.key("arguments"),
                expect,
                extras: extras(&entry, &ENTRY_KEYS, Some(("function", &FUNCTION_KEYS))),
            })?;
        }
    }
    if let Some(function) = message.get("function_call") {
        invalid_response(function.object())?;
        collector.push(Sent {
            at: function.at.clone(),
            id: None,
            name: function.get("name"),
            arguments: function.value.get("arguments"),
            arguments_at: function.at.key("arguments"),
            expect,
            extras: extras(&function, &["name", "arguments"], None),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_documented_message() {
        let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [
                {"id": "call_abc123", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_def456", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}}]}}]});
        let read = read_calls(&response, &CallOptions::default()).unwrap();
        assert_eq!(read.value.len(), 1);
        let call = &read.value[0];
        assert_eq!(
            (call.id.as_str(), call.name.as_str()),
            ("call_abc123", "get_weather")
        );
        assert_eq!(call.arguments, Ok(json!({"city": "Paris"})));
        assert_eq!(call.raw_arguments.as_deref(), Some("{\"city\":\"Paris\"}"));
        assert_eq!(read.notes.len(), 1);
        assert_eq!(read.notes[0].at.as_str(), "/choices/0/message/tool_calls/1");
    }

    #[test]
    fn a_message_alone_and_the_legacy_function_call_are_read() {
        let message = json!({"role": "assistant", "function_call": {"name": "f", "arguments": ""}});
        let calls = read_calls(&message, &CallOptions::default()).unwrap().value;
        assert_eq!(
            (calls[0].id.as_str(), calls[0].provider_id.as_deref()),
            ("call_0", None)
        );
        assert_eq!(calls[0].arguments, Ok(json!({})));
    }

    #[test]
    fn other_choices_and_other_documents() {
        let response = json!({"choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}},
            {"index": 1, "message": {"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}]}}]});
        assert!(read_calls(&response, &CallOptions::default())
            .unwrap()
            .value
            .is_empty());
        let calls = read_calls(&response, &CallOptions::default().with_choice(1))
            .unwrap()
            .value;
        assert_eq!(calls[0].id, "a");
        let err = read_calls(&json!({"content": []}), &CallOptions::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidResponse);
        let err = read_calls(
            &json!({"choices": [{"message": {"tool_calls": [{"id": "a"}]}}]}),
            &CallOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid response: missing required field \"function\" (at /choices/0/message/tool_calls/0)"
        );
    }
}
