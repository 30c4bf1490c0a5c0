//! `openai-responses`: the OpenAI Responses API function tool, flat:
//! `{"type": "function", "name", "description", "parameters", "strict"}`.
//!
//! The Responses API makes function tools strict unless `"strict": false` is
//! sent, so the writer always writes the flag: `true` when strict mode is
//! asked for, otherwise `false` with a note saying why. `output_schema` (a
//! JSON Schema of the function's output) is the canonical `outputSchema`.

pub(crate) mod call;
pub(crate) mod result;
pub(crate) mod stream;

use serde_json::{Map, Value};

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::openai::{check_function_type, note_long_description, note_too_many_tools};
use crate::format::shared::{
    keep_unknown, merge_vendor, note_uncarried, read_input_schema, read_name, read_output_schema,
};
use crate::json::Entry;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read,
    write,
    layout: Layout::List,
    check_set: Some(check_set),
};

/// The keys of a function tool that map to canonical fields.
const FIELDS: [&str; 6] = [
    "type",
    "name",
    "description",
    "parameters",
    "strict",
    "output_schema",
];

/// The `FunctionToolParam` fields with no canonical field (openai SDK,
/// `types/responses/function_tool_param.py`): kept for Responses.
const RESPONSES_ONLY: [&str; 3] = ["defer_loading", "allowed_callers", "async"];

fn detect(entry: &Value) -> bool {
    matches!(
        entry.get("type").and_then(Value::as_str),
        Some("function" | "custom")
    ) && entry.get("name").is_some_and(Value::is_string)
        && ["function", "custom", "input_schema"]
            .iter()
            .all(|key| entry.get(key).is_none())
}

fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    entry.object()?;
    check_function_type(&entry, notes)?;
    let name = read_name(&entry)?;
    let schema = read_input_schema(entry.get("parameters"), &entry.at.key("parameters"), notes)?;
    let mut tool = Tool::new(name, schema);
    tool.description = entry.opt_string("description")?;
    tool.strict = entry.opt_bool("strict")?;
    if tool.strict.is_none() {
        notes.push(
            NoteKind::Normalized {
                field: "strict".into(),
            },
            entry.at.key("strict"),
            "no \"strict\" flag: the Responses API applies strict mode to this tool, but the tool is \
             read without one (use --strict to keep strict mode in other formats)",
        );
    }
    if let Some(output) = entry.get("output_schema") {
        tool.output_schema = Some(read_output_schema(&output)?);
    }
    let vendor = keep_unknown(
        &entry,
        &FIELDS,
        &RESPONSES_ONLY,
        Format::OpenAiResponses,
        &mut tool.extra,
        notes,
    );
    tool.set_vendor_fields(Format::OpenAiResponses.id(), vendor);
    Ok(tool)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let strict = opts.strict_for(tool);
    if strict {
        crate::format::shared::note_strict_from_options(tool, opts, notes);
    }
    let lowered = lower(
        &tool.input_schema,
        Dialect::OpenAi { strict },
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    if !strict && tool.strict != Some(false) {
        notes.push(
            NoteKind::Defaulted {
                field: "strict".into(),
            },
            Pointer::root().key("strict"),
            "wrote \"strict\": false: the Responses API would otherwise apply strict mode, which the \
             tool does not ask for (use --strict or \"strict\": true to have it)",
        );
    }
    note_long_description(tool, notes);
    let mut entry = Map::new();
    entry.insert("type".into(), Value::String("function".into()));
    entry.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        entry.insert("description".into(), Value::String(description.clone()));
    }
    entry.insert("parameters".into(), lowered.schema);
    entry.insert("strict".into(), Value::Bool(strict));
    if let Some(output) = &tool.output_schema {
        entry.insert("output_schema".into(), output.clone());
    }
    note_uncarried(
        tool,
        &[
            "name",
            "description",
            "inputSchema",
            "outputSchema",
            "strict",
            "vendor",
        ],
        Format::OpenAiResponses,
        notes,
    );
    merge_vendor(tool, Format::OpenAiResponses, &mut entry, notes);
    Ok(Value::Object(entry))
}

fn check_set(entries: &[&Value], _opts: &WriteOptions, notes: &mut Notes) {
    note_too_many_tools(entries.len(), "the Responses API", notes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::format::shared::own_notes;
    use crate::note::Level;
    use serde_json::json;

    /// The entry without the lowered schema.
    fn without_parameters(mut entry: Value) -> Value {
        entry.as_object_mut().unwrap().shift_remove("parameters");
        entry
    }

    fn read_value(doc: &Value) -> (Result<Tool>, Notes) {
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes);
        (tool, notes)
    }

    fn write_value(tool: &Tool, opts: &WriteOptions) -> (Value, Notes) {
        let mut notes = Notes::new();
        let value = write(tool, opts, &mut notes).unwrap();
        (value, notes)
    }

    #[test]
    fn reads_a_flat_function_tool() {
        let doc = json!({"type": "function", "name": "get_weather", "description": "Weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                "required": ["city"], "additionalProperties": false},
            "strict": true});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!((tool.name.as_str(), tool.strict), ("get_weather", Some(true)));
        assert_eq!(tool.input_schema, doc["parameters"]);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn null_parameters_and_null_strict_mean_absent() {
        let doc = json!({"type": "function", "name": "ping", "parameters": null, "strict": null});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!(
            (tool.input_schema.clone(), tool.strict),
            (json!({"type": "object"}), None)
        );
        let places: Vec<&str> = notes.iter().map(|note| note.at.as_str()).collect();
        assert_eq!(places, ["/parameters", "/strict"]);
    }

    #[test]
    fn output_schema_is_the_canonical_output_schema() {
        let doc = json!({"type": "function", "name": "a", "parameters": {"type": "object"}, "strict": false,
            "output_schema": {"type": "object", "properties": {"temp": {"type": "number"}}}});
        let tool = read_value(&doc).0.unwrap();
        assert_eq!(tool.output_schema, Some(doc["output_schema"].clone()));
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(without_parameters(written), without_parameters(doc));
        assert!(own_notes(&notes).is_empty(), "{notes:?}");
        let bad = json!({"type": "function", "name": "a", "output_schema": {"type": 5}});
        assert_eq!(
            read_value(&bad).0.unwrap_err().pointer().as_str(),
            "/output_schema/type"
        );
    }

    #[test]
    fn errors_for_wrong_types_and_custom_tools() {
        let err = read_value(&json!({"type": "fn", "name": "a"})).0.unwrap_err();
        assert_eq!(
            (err.pointer().as_str(), err.detail()),
            ("/type", "\"type\" must be \"function\", found \"fn\"")
        );
        let err = read_value(&json!({"type": "custom", "name": "grep", "format": {"type": "text"}}))
            .0
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotATool);
        assert!(err.detail().starts_with("the custom tool \"grep\""), "{err}");
        let err = read_value(&json!({"type": "function", "name": "a", "parameters": "none"}))
            .0
            .unwrap_err();
        assert_eq!(err.pointer().as_str(), "/parameters");
    }

    #[test]
    fn strict_by_default_is_answered_explicitly() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(
            without_parameters(written),
            json!({"type": "function", "name": "a", "strict": false})
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Defaulted {
                field: "strict".into()
            }
        );
        assert_eq!((notes[0].level(), notes[0].at.as_str()), (Level::Info, "/strict"));
        let (written, notes) = write_value(&tool, &WriteOptions::default().with_strict(true));
        assert_eq!(written["strict"], json!(true));
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1, "strict asked by the options is noted");
        assert_eq!(
            notes[0].message,
            "wrote \"strict\": true because strict mode was asked for (--strict)"
        );
        tool.strict = Some(false);
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(written["strict"], json!(false));
        assert!(own_notes(&notes).is_empty());
    }

    #[test]
    fn vendor_fields_round_trip() {
        let doc = json!({"type": "function", "name": "search_docs", "parameters": {"type": "object"},
            "strict": false, "defer_loading": true, "allowed_callers": ["direct"], "async": true});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!(notes.len(), 3);
        assert!(notes
            .iter()
            .all(|note| matches!(note.kind, NoteKind::Kept { .. })));
        assert_eq!(tool.is_async, None);
        let written = write_value(&tool, &WriteOptions::default()).0;
        assert_eq!(without_parameters(written), without_parameters(doc));
    }

    #[test]
    fn detects_flat_entries_only() {
        assert!(detect(
            &json!({"type": "function", "name": "a", "parameters": {}})
        ));
        assert!(!detect(&json!({"type": "function", "function": {"name": "a"}})));
        assert!(!detect(&json!({"name": "a", "parameters": {}})));
        let anthropic_custom = json!({"type": "custom", "name": "a", "input_schema": {"type": "object"}});
        assert!(!detect(&anthropic_custom));
    }
}
