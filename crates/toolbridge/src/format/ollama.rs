//! `ollama`: Ollama `/api/chat` `tools[]` entries, in the OpenAI Chat shape
//! `{"type": "function", "function": {"name", "description", "parameters"}}`.
//!
//! The native API has no strict mode, and the server keeps only a few schema
//! keywords (the `Ollama` dialect of schema lowering says which).

use serde_json::Value;

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::openai::{chat_entry, read_chat};
use crate::format::shared::note_no_strict;
use crate::json::{Entry, Node};
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: None,
    expand: None,
    read,
    write,
    layout: Layout::List,
    check_set: None,
};

fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    read_chat(entry, Format::Ollama, notes)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let lowered = lower(
        &tool.input_schema,
        Dialect::Ollama,
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    let mut parameters = lowered.schema;
    if let Some(description) = parameters
        .as_object_mut()
        .and_then(|root| root.shift_remove("description"))
    {
        notes.push(
            NoteKind::Dropped {
                keyword: "description".into(),
            },
            Pointer::root().key("inputSchema").key("description"),
            format!(
                "Ollama's parameters object has no description (its server drops it), so {description} \
                 was left out; say it in the tool's description instead"
            ),
        );
    }
    note_no_strict(tool, opts, Format::Ollama, "", notes);
    Ok(chat_entry(tool, Format::Ollama, parameters, None, notes))
}

// Calls coming back (providers.md §7c): `message.tool_calls[]` with
// `{"id"?, "function": {"index", "name", "arguments": {…}}}` — arguments an
// object; `id` only from recent servers (synthesised otherwise). A stream is
// NDJSON whose lines carry each call whole; `done: true` ends it.

/// Reads the calls of a chat response (`message`) or of a message.
pub(crate) fn read_calls(
    response: &Value,
    opts: &crate::call::CallOptions,
) -> Result<crate::note::Converted<Vec<crate::call::ToolCall>>> {
    use crate::call::read::{invalid_response, Collector};
    use crate::format::openai::call::{message_itself, read_message};
    let root = Node::root(response);
    invalid_response(root.object())?;
    let message = match root.get("message") {
        Some(message) => message,
        None => message_itself(&root)?.unwrap_or(root.clone()),
    };
    let mut collector = Collector::new(opts);
    read_message(&message, crate::call::Expect::Object, &mut collector)?;
    Ok(collector.finish())
}

/// The `/api/chat` NDJSON stream decoder: whole calls, one or more per line.
#[derive(Debug, Default)]
pub(crate) struct ChatStream;

impl crate::call::Decode for ChatStream {
    fn framing(&self) -> crate::call::Framing {
        crate::call::Framing::Ndjson
    }

    fn event(&mut self, _name: Option<&str>, data: &Value, calls: &mut crate::call::Calls) -> Result<()> {
        if data.get("error").is_some_and(|error| !error.is_null()) {
            return Err(crate::call::read::provider_error(data));
        }
        let entries = data
            .get("message")
            .and_then(|message| message.get("tool_calls"))
            .and_then(Value::as_array);
        for entry in entries.into_iter().flatten() {
            let function = entry.get("function");
            let mut extras: serde_json::Map<String, Value> = entry
                .as_object()
                .map(|object| {
                    object
                        .iter()
                        .filter(|(key, _)| !["id", "type", "function"].contains(&key.as_str()))
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(function)) = function {
                let inner: serde_json::Map<String, Value> = function
                    .iter()
                    .filter(|(key, _)| !["index", "name", "arguments"].contains(&key.as_str()))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                if !inner.is_empty() {
                    extras.insert("function".into(), Value::Object(inner));
                }
            }
            calls.whole(
                entry.get("id").and_then(Value::as_str),
                function
                    .and_then(|function| function.get("name"))
                    .and_then(Value::as_str),
                function.and_then(|function| function.get("arguments")),
                crate::call::Expect::Object,
                extras,
            )?;
        }
        if data.get("done").and_then(Value::as_bool) == Some(true) {
            calls.close_all();
        }
        Ok(())
    }
}

/// The tool messages answering `results`, in call order:
/// `{"role": "tool", "tool_name", "content"}` (providers.md §7d).
/// `tool_name` is the correlation key Ollama documents. The Go server's
/// `api.Message` also has an optional `tool_call_id`, but the pinned
/// ollama-python `Message` has no such field (it would drop it), so it is
/// not written. No error flag: an error is its text.
pub(crate) fn write_results(results: &[crate::call::ToolResult]) -> Value {
    results
        .iter()
        .map(|result| {
            serde_json::json!({"role": "tool", "tool_name": result.provider_name, "content": result.as_text()})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use serde_json::json;

    #[test]
    fn reads_and_writes_the_chat_shape_without_strict() {
        let doc = json!({"type": "function", "function": {"name": "get_temperature",
            "description": "Get the current temperature for a city",
            "parameters": {"type": "object", "required": ["city"],
                "properties": {"city": {"type": "string", "description": "The name of the city"}}},
            "strict": true}});
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.strict, Some(true));
        assert!(notes.is_empty(), "{notes:?}");
        let mut notes = Notes::new();
        let mut written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        let function = written["function"].as_object_mut().unwrap();
        assert_eq!(function.get("strict"), None);
        function.shift_remove("parameters");
        assert_eq!(
            written,
            json!({"type": "function", "function": {"name": "get_temperature",
                "description": "Get the current temperature for a city"}})
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Dropped {
                keyword: "strict".into()
            }
        );
        assert_eq!(
            notes[0].message,
            "ollama has no per-tool strict mode; the tool was written without it"
        );
    }

    #[test]
    fn vendor_fields_given_for_ollama_are_written_and_unknown_keys_are_not() {
        let doc =
            json!({"type": "function", "function": {"name": "a", "parameters": {"type": "object"}, "x": 1}});
        let mut notes = Notes::new();
        let mut tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.vendor_fields("ollama"), None);
        assert_eq!(tool.extra.get("x"), Some(&json!(1)));
        let written = write(&tool, &WriteOptions::default(), &mut Notes::new()).unwrap();
        assert_eq!(written["function"].get("x"), None);
        // Fields a toolbridge file gives for ollama on purpose are written.
        tool.set_vendor_fields(
            "ollama",
            json!({"function": {"y": 2}}).as_object().unwrap().clone(),
        );
        let written = write(&tool, &WriteOptions::default(), &mut Notes::new()).unwrap();
        assert_eq!(written["function"]["y"], json!(2));
    }

    #[test]
    fn reads_calls_with_arguments_as_objects() {
        let response = json!({"model": "qwen3", "message": {"role": "assistant", "content": "",
            "tool_calls": [{"id": "call_k3x9q2ab", "function": {"index": 0, "name": "get_temperature",
                "arguments": {"city": "New York"}}},
                {"function": {"name": "get_time", "arguments": {}}}]}, "done": true});
        let calls = read_calls(&response, &Default::default()).unwrap().value;
        assert_eq!(calls[0].id, "call_k3x9q2ab");
        assert_eq!(calls[0].arguments, Ok(json!({"city": "New York"})));
        assert!(calls[0].extras.is_empty() && calls[0].notes.is_empty());
        assert_eq!(
            (calls[1].id.as_str(), calls[1].provider_id.as_deref()),
            ("call_1", None)
        );
    }
}
