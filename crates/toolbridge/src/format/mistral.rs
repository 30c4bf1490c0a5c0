//! `mistral`: Mistral `tools[]` entries, in the OpenAI Chat shape
//! `{"type": "function", "function": {"name", "description", "parameters", "strict"?}}`.
//!
//! Mistral's SDK requires `parameters`: a tool without arguments is written
//! with `{"type": "object", "properties": {}}`; reading accepts its absence.

use serde_json::Value;

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::openai::{chat_entry, read_chat, with_properties};
use crate::format::shared::strict_flag;
use crate::json::Entry;
use crate::note::Notes;
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
    read_chat(entry, Format::Mistral, notes)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let lowered = lower(
        &tool.input_schema,
        Dialect::Mistral {
            strict: opts.strict_for(tool),
        },
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    let parameters = with_properties(lowered.schema, Format::Mistral, notes);
    Ok(chat_entry(
        tool,
        Format::Mistral,
        parameters,
        strict_flag(tool, opts, notes),
        notes,
    ))
}

// Calls coming back: the OpenAI Chat shape, whose reader and stream decoder
// Mistral shares (its SDK types `arguments` as a string or an object; an
// object is accepted with a note, as for OpenAI). Mistral sends each call
// whole in one delta, which the Chat decoder handles as it comes.

/// Reads the calls of a chat completion (`choices[i].message.tool_calls`).
pub(crate) fn read_calls(
    response: &Value,
    opts: &crate::call::CallOptions,
) -> Result<crate::note::Converted<Vec<crate::call::ToolCall>>> {
    crate::format::openai::call::read_calls(response, opts)
}

/// The tool messages answering `results`, in call order:
/// `{"role": "tool", "tool_call_id", "name", "content"}` (providers.md §8d;
/// mistralai `ToolMessage`). Ids are 9 letters or digits here, mapped by the
/// caller ([`IdMap`](crate::call::IdMap)). No error flag: an error is its text.
pub(crate) fn write_results(results: &[crate::call::ToolResult]) -> Value {
    results
        .iter()
        .map(|result| {
            serde_json::json!({"role": "tool", "tool_call_id": result.wire_id(),
                               "name": result.provider_name, "content": result.as_text()})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::NoteKind;
    use serde_json::json;

    #[test]
    fn missing_parameters_are_read_leniently() {
        let doc = json!({"type": "function", "function": {"name": "now", "description": "Current time"}});
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.input_schema, json!({"type": "object"}));
        assert_eq!(
            notes.as_slice()[0].kind,
            NoteKind::Defaulted {
                field: "inputSchema".into()
            }
        );
    }

    #[test]
    fn writes_strict_and_lists_properties() {
        let mut tool = Tool::new("now", json!({"type": "object"}));
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(written["function"]["parameters"]["properties"], json!({}));
        assert_eq!(written["function"].get("strict"), None);
        let defaulted = notes.iter().find(|note| {
            note.kind
                == NoteKind::Defaulted {
                    field: "properties".into(),
                }
        });
        assert_eq!(
            defaulted.map(|note| note.at.as_str()),
            Some("/inputSchema/properties")
        );
        tool.strict = Some(false);
        let written = write(&tool, &WriteOptions::default(), &mut Notes::new()).unwrap();
        assert_eq!(written["function"]["strict"], json!(false));
        let written = write(
            &tool,
            &WriteOptions::default().with_strict(true),
            &mut Notes::new(),
        )
        .unwrap();
        assert_eq!(written["function"]["strict"], json!(true));
    }

    #[test]
    fn reads_calls_with_arguments_as_a_string_or_an_object() {
        let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "", "tool_calls": [
                {"id": "D681PevKs", "type": "function", "index": 0,
                 "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                {"id": "E792QfwLt", "type": "function", "index": 1,
                 "function": {"name": "get_weather", "arguments": {"city": "Lyon"}}}]}}]});
        let calls = read_calls(&response, &Default::default()).unwrap().value;
        assert_eq!(calls[0].arguments, Ok(json!({"city": "Paris"})));
        assert_eq!(calls[1].arguments, Ok(json!({"city": "Lyon"})));
        assert_eq!(calls[1].raw_arguments, None);
        assert_eq!(
            calls[1].notes[0].kind,
            NoteKind::Normalized {
                field: "arguments".into()
            }
        );
    }
}
