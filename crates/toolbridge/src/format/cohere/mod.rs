//! `cohere`: Cohere Chat API v2 `tools[]` entries, in the OpenAI Chat shape
//! `{"type": "function", "function": {"name", "description", "parameters"}}`.
//!
//! `parameters` is required (a tool without arguments gets
//! `{"type": "object", "properties": {}}`). Strict mode is not per tool: it is
//! the request's `strict_tools`.

pub(crate) mod call;
pub(crate) mod result;
pub(crate) mod stream;

use serde_json::Value;

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::openai::{chat_entry, read_chat, with_properties};
use crate::format::shared::note_no_strict;
use crate::json::Entry;
use crate::note::Notes;
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{check_cohere_strict_fields, lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: None,
    expand: None,
    read,
    write,
    layout: Layout::List,
    check_set: Some(check_set),
};

/// With `strict_tools` (asked for by `--strict`, since Cohere's strict mode
/// is per request), at most 200 fields across all tools.
fn check_set(entries: &[&Value], opts: &WriteOptions, notes: &mut Notes) {
    if !opts.strict {
        return;
    }
    let schemas: Vec<&Value> = entries
        .iter()
        .filter_map(|entry| {
            entry
                .get("function")
                .and_then(|function| function.get("parameters"))
        })
        .collect();
    check_cohere_strict_fields(&schemas, notes);
}

fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    read_chat(entry, Format::Cohere, notes)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let lowered = lower(
        &tool.input_schema,
        Dialect::Cohere {
            // strict_tools is the request's: a tool's own strict flag cannot
            // turn it on (noted below).
            strict: opts.strict,
        },
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    let parameters = with_properties(lowered.schema, Format::Cohere, notes);
    note_no_strict(
        tool,
        opts,
        Format::Cohere,
        "set strict_tools: true on the request",
        notes,
    );
    Ok(chat_entry(tool, Format::Cohere, parameters, None, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use crate::note::NoteKind;
    use serde_json::json;

    #[test]
    fn reads_a_v2_tool() {
        let doc = json!({"type": "function", "function": {"name": "get_weather", "description": "Weather",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                "required": ["location"]}}});
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.input_schema, doc["function"]["parameters"]);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn strict_goes_to_the_request_with_a_note() {
        let mut tool = Tool::new("get_weather", json!({"type": "object", "properties": {}}));
        tool.strict = Some(true);
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(written["function"].get("strict"), None);
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
            "cohere has no per-tool strict mode; the tool was written without it; set strict_tools: true on the request"
        );
    }

    #[test]
    fn parameters_always_list_properties() {
        let tool = Tool::new("ping", json!({"type": "object"}));
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(written["function"]["parameters"]["properties"], json!({}));
        assert!(notes.iter().any(|note| note.kind
            == NoteKind::Defaulted {
                field: "properties".into()
            }));
    }

    #[test]
    fn strict_tools_field_budget_is_checked_across_the_request() {
        let tool = |index: usize, fields: usize| {
            let properties: serde_json::Map<String, Value> = (0..fields)
                .map(|field| (format!("f{field}"), json!({"type": "string"})))
                .collect();
            Tool::new(
                format!("t{index}"),
                json!({"type": "object", "properties": properties, "required": ["f0"]}),
            )
        };
        let opts = WriteOptions::default().with_strict(true);
        let at_limit = vec![tool(0, 100), tool(1, 100)];
        let over = vec![tool(0, 100), tool(1, 101)];
        let notes =
            |tools: &[Tool], opts: &WriteOptions| crate::pipeline::write(tools, Format::Cohere, opts).notes;
        assert_eq!(notes(&at_limit, &opts), vec![]);
        let over_notes = notes(&over, &opts);
        assert_eq!(over_notes.len(), 1);
        assert_eq!(
            over_notes[0].kind,
            NoteKind::OverLimit {
                limit: "200 fields".into()
            }
        );
        assert_eq!(
            over_notes[0].message,
            "the tools have 201 fields in all; Cohere strict_tools allows 200 per request"
        );
        assert_eq!(notes(&over, &WriteOptions::default()), vec![]);
    }
}
