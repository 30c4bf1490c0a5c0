//! `openai`: OpenAI Chat Completions `tools[]` entries,
//! `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
//!
//! Ollama, Mistral and Cohere use the same wrapper: their modules read it with
//! [`read_chat`] and write it with [`chat_entry`]. Keys the canonical tool has
//! no field for are kept as vendor fields, wrapper keys at the top and
//! `function` keys under `"function"`, and written back in place.

pub(crate) mod call;
pub(crate) mod result;
pub(crate) mod stream;

use serde_json::{Map, Value};

use crate::codec::{JsonCodec, Layout};
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::{
    keep_unknown, merge_vendor_nested, note_uncarried, read_input_schema, read_name, strict_flag,
};
use crate::json::{Entry, Node};
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

/// Most function tools one request should carry: the documented cap of the
/// legacy `functions` list and of Assistants (providers.md §1a).
const MAX_TOOLS: usize = 128;

/// Longest description some OpenAI deployments accept (Azure, proxies).
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The keys of the `function` object.
const FUNCTION_FIELDS: [&str; 4] = ["name", "description", "parameters", "strict"];

/// The canonical fields a Chat-shaped entry carries (`strict` is written, or
/// noted by targets without it).
const CHAT_CARRIED: [&str; 5] = ["name", "description", "inputSchema", "strict", "vendor"];

fn detect(entry: &Value) -> bool {
    entry.get("function").is_some_and(Value::is_object)
        || (entry.get("type").and_then(Value::as_str) == Some("custom")
            && entry.get("custom").is_some_and(Value::is_object))
}

fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    read_chat(entry, Format::OpenAi, notes)
}

/// Reads a `{"type": "function", "function": {…}}` entry; unknown keys are
/// kept as `format`'s vendor fields.
pub(crate) fn read_chat(entry: Node<'_>, format: Format, notes: &mut Notes) -> Result<Tool> {
    entry.object()?;
    check_function_type(&entry, notes)?;
    let function = entry.field("function")?;
    function.object()?;
    let name = read_name(&function)?;
    let schema = read_input_schema(function.get("parameters"), &function.at.key("parameters"), notes)?;
    let mut tool = Tool::new(name, schema);
    tool.description = function.opt_string("description")?;
    tool.strict = function.opt_bool("strict")?;
    // `ChatCompletionFunctionToolParam` and `FunctionDefinition` define no
    // field beyond these (openai SDK, `types/chat/`; Mistral, Ollama and
    // Cohere share the shape).
    let mut vendor = keep_unknown(&entry, &["type", "function"], &[], format, &mut tool.extra, notes);
    let function_vendor = keep_unknown(&function, &FUNCTION_FIELDS, &[], format, &mut tool.extra, notes);
    if !function_vendor.is_empty() {
        vendor.insert("function".into(), Value::Object(function_vendor));
    }
    tool.set_vendor_fields(format.id(), vendor);
    Ok(tool)
}

/// Checks an entry's `"type"`: `"function"`, or absent (accepted with a
/// note); a `"custom"` tool takes free-form text, not JSON arguments, so it
/// is not a function tool; any other value is an error.
pub(crate) fn check_function_type(entry: &Node<'_>, notes: &mut Notes) -> Result<()> {
    let Some(kind) = entry.get("type") else {
        notes.push(
            NoteKind::Normalized { field: "type".into() },
            entry.at.key("type"),
            "the entry has no \"type\"; read as a function tool (\"type\": \"function\")",
        );
        return Ok(());
    };
    match kind.str()? {
        "function" => Ok(()),
        "custom" => {
            let name = entry
                .value
                .get("custom")
                .unwrap_or(entry.value)
                .get("name")
                .and_then(Value::as_str)
                .map(|name| format!(" {name:?}"))
                .unwrap_or_default();
            Err(Error::new(
                ErrorKind::NotATool,
                format!(
                    "the custom tool{name} takes free-form text (optionally constrained by a grammar), \
                     not JSON arguments, so it has no input schema to convert"
                ),
            )
            .at(kind.at.clone()))
        }
        other => Err(kind.error(format!("\"type\" must be \"function\", found {other:?}"))),
    }
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let strict = opts.strict_for(tool);
    let lowered = lower(
        &tool.input_schema,
        Dialect::OpenAi { strict },
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    note_long_description(tool, notes);
    Ok(chat_entry(
        tool,
        Format::OpenAi,
        lowered.schema,
        strict_flag(tool, opts, notes),
        notes,
    ))
}

/// Builds `{"type": "function", "function": {name, description, parameters,
/// strict}}`, notes the canonical fields it leaves out and puts `format`'s
/// vendor fields back.
pub(crate) fn chat_entry(
    tool: &Tool,
    format: Format,
    parameters: Value,
    strict: Option<bool>,
    notes: &mut Notes,
) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        function.insert("description".into(), Value::String(description.clone()));
    }
    function.insert("parameters".into(), parameters);
    if let Some(strict) = strict {
        function.insert("strict".into(), Value::Bool(strict));
    }
    let mut entry = Map::new();
    entry.insert("type".into(), Value::String("function".into()));
    entry.insert("function".into(), Value::Object(function));
    note_uncarried(tool, &CHAT_CARRIED, format, notes);
    merge_vendor_nested(tool, format, &mut entry, notes);
    Value::Object(entry)
}

/// Notes a description some OpenAI deployments reject as too long (it is
/// still written: OpenAI itself lifted the limit in 2025).
pub(crate) fn note_long_description(tool: &Tool, notes: &mut Notes) {
    let Some(description) = &tool.description else {
        return;
    };
    let length = description.chars().count();
    if length > MAX_DESCRIPTION_CHARS {
        // OpenAI's own API takes longer descriptions (real MCP servers ship
        // 2–9k characters); Azure OpenAI refuses them with a 400.
        notes.push(
            NoteKind::NotPortable {
                refused_by: "Azure OpenAI".into(),
            },
            Pointer::root().key("description"),
            format!(
                "the description is {length} characters long; OpenAI accepts it, but Azure OpenAI and \
                 some proxies reject descriptions over {MAX_DESCRIPTION_CHARS} characters"
            ),
        );
    }
}

/// Adds an empty `"properties"` to an object schema that has none, for
/// targets whose `parameters` must list properties (Mistral, Cohere).
pub(crate) fn with_properties(mut parameters: Value, format: Format, notes: &mut Notes) -> Value {
    if let Value::Object(object) = &mut parameters {
        if !object.contains_key("properties") {
            object.insert("properties".into(), Value::Object(Map::new()));
            notes.push(
                NoteKind::Defaulted {
                    field: "properties".into(),
                },
                Pointer::root().key("inputSchema").key("properties"),
                format!(
                    "{} expects parameters to list their properties; wrote an empty \"properties\"",
                    format.id()
                ),
            );
        }
    }
    parameters
}

fn check_set(entries: &[&Value], _opts: &WriteOptions, notes: &mut Notes) {
    note_too_many_tools(entries.len(), "OpenAI", notes);
}

/// Notes a tool list longer than [`MAX_TOOLS`].
pub(crate) fn note_too_many_tools(count: usize, provider: &str, notes: &mut Notes) {
    if count > MAX_TOOLS {
        notes.push(
            NoteKind::OverLimit {
                limit: format!("{MAX_TOOLS} tools").into(),
            },
            Pointer::root(),
            format!("{count} tools in one request; {provider} accepts at most {MAX_TOOLS}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use crate::note::Level;
    use serde_json::json;

    /// The written entry without the lowered schema.
    fn without_parameters(mut entry: Value) -> Value {
        entry["function"]
            .as_object_mut()
            .unwrap()
            .shift_remove("parameters");
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

    fn weather() -> Value {
        json!({"type": "function", "function": {
            "name": "get_weather", "description": "Current weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            "strict": true}})
    }

    #[test]
    fn reads_a_function_tool() {
        let (tool, notes) = read_value(&weather());
        let tool = tool.unwrap();
        assert_eq!(tool.name, "get_weather");
        assert_eq!(tool.description.as_deref(), Some("Current weather for a city"));
        assert_eq!(tool.strict, Some(true));
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
        );
        assert_eq!(tool.vendor, None);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn absent_parameters_mean_no_arguments() {
        let doc = json!({"type": "function", "function": {"name": "ping"}});
        let (tool, notes) = read_value(&doc);
        assert_eq!(tool.unwrap().input_schema, json!({"type": "object"}));
        assert_eq!(notes.as_slice()[0].at.as_str(), "/function/parameters");
        assert_eq!(notes.as_slice()[0].level(), Level::Info);
    }

    #[test]
    fn malformed_entries_name_the_place() {
        let cases = [
            (
                json!({"type": "fn", "function": {"name": "a"}}),
                "/type",
                "\"type\" must be \"function\", found \"fn\"",
            ),
            (
                json!({"type": "function"}),
                "",
                "missing required field \"function\"",
            ),
            (
                json!({"type": "function", "function": {"name": 5}}),
                "/function/name",
                "\"name\" must be a string, found a number",
            ),
            (
                json!({"type": "function", "function": {"name": ""}}),
                "/function/name",
                "\"name\" must not be empty",
            ),
            (
                json!({"type": "function", "function": "get_weather"}),
                "/function",
                "\"function\" must be an object, found a string",
            ),
            (
                json!({"type": "function", "function": {"name": "a", "parameters": [1]}}),
                "/function/parameters",
                "an input schema must be a JSON object, found an array",
            ),
            (
                json!({"type": "function", "function": {"name": "a", "strict": "yes"}}),
                "/function/strict",
                "\"strict\" must be true or false, found a string",
            ),
        ];
        for (doc, at, detail) in cases {
            let err = read_value(&doc).0.unwrap_err();
            assert_eq!((err.pointer().as_str(), err.detail()), (at, detail), "{doc}");
        }
    }

    #[test]
    fn a_custom_tool_is_not_a_function_tool() {
        let doc = json!({"type": "custom", "custom": {"name": "run_sql",
            "format": {"type": "grammar", "grammar": {"syntax": "lark", "definition": "start: /.+/"}}}});
        let err = read_value(&doc).0.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotATool);
        assert_eq!(err.pointer().as_str(), "/type");
        assert!(
            err.detail()
                .starts_with("the custom tool \"run_sql\" takes free-form text"),
            "{err}"
        );
    }

    #[test]
    fn missing_type_is_accepted_with_a_note() {
        let doc = json!({"function": {"name": "a", "parameters": {"type": "object"}}});
        let (tool, notes) = read_value(&doc);
        assert_eq!(tool.unwrap().name, "a");
        assert_eq!(
            notes.as_slice()[0].kind,
            NoteKind::Normalized { field: "type".into() }
        );
    }

    #[test]
    fn keys_openai_does_not_define_stay_on_the_tool_and_are_not_written_back() {
        // The API refuses an unknown key in a tool ("Unknown parameter:
        // 'tools[0].function.x-inner'"); the SDK's `FunctionDefinition` has
        // only name, description, parameters and strict.
        let doc = json!({"type": "function", "x-wrapper": 1, "function": {
            "name": "a", "parameters": {"type": "object"}, "x-inner": {"k": true}}});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!(tool.vendor_fields("openai"), None);
        assert_eq!(
            Value::Object(tool.extra.clone()),
            json!({"x-wrapper": 1, "x-inner": {"k": true}})
        );
        let kept: Vec<&str> = notes.iter().map(|note| note.at.as_str()).collect();
        assert_eq!(kept, ["/x-wrapper", "/function/x-inner"]);
        assert_eq!(
            notes.as_slice()[0].message,
            "openai defines no \"x-wrapper\" field; kept on the tool (toolbridge and MCP files carry it), \
             not written to provider formats"
        );
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(
            written,
            json!({"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}})
        );
        let dropped: Vec<(&str, &str)> = own_notes(&notes)
            .iter()
            .map(|note| (note.at.as_str(), note.message.as_str()))
            .collect();
        assert_eq!(
            dropped,
            [
                (
                    "/x-wrapper",
                    "the unknown key \"x-wrapper\" has no place in openai"
                ),
                ("/x-inner", "the unknown key \"x-inner\" has no place in openai")
            ]
        );
    }

    #[test]
    fn strict_flag_follows_the_tool_and_the_options() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        let flag =
            |tool: &Tool, opts: &WriteOptions| write_value(tool, opts).0["function"].get("strict").cloned();
        assert_eq!(flag(&tool, &WriteOptions::default()), None);
        assert_eq!(
            flag(&tool, &WriteOptions::default().with_strict(true)),
            Some(json!(true))
        );
        tool.strict = Some(false);
        assert_eq!(flag(&tool, &WriteOptions::default()), Some(json!(false)));
        tool.strict = Some(true);
        assert_eq!(flag(&tool, &WriteOptions::default()), Some(json!(true)));
    }

    #[test]
    fn writes_the_entry_and_notes_what_it_leaves_out() {
        let mut tool = Tool::new("get_weather", json!({"type": "object"}));
        tool.title = Some("Weather".into());
        tool.description = Some("d".into());
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert!(written["function"]["parameters"].is_object());
        assert_eq!(
            without_parameters(written),
            json!({"type": "function", "function": {"name": "get_weather", "description": "d"}})
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Dropped {
                keyword: "title".into()
            }
        );
        assert_eq!(notes[0].at.as_str(), "/title");
    }

    #[test]
    fn long_descriptions_are_written_with_a_portability_note_not_an_error() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        tool.description = Some("x".repeat(1025));
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(
            written["function"]["description"].as_str().map(str::len),
            Some(1025)
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            (notes[0].level(), notes[0].at.as_str()),
            (Level::Info, "/description")
        );
        assert_eq!(
            notes[0].kind,
            NoteKind::NotPortable {
                refused_by: "Azure OpenAI".into()
            }
        );
        tool.description = Some("x".repeat(1024));
        assert!(own_notes(&write_value(&tool, &WriteOptions::default()).1).is_empty());
    }

    #[test]
    fn more_than_128_tools_is_an_error_note() {
        let mut notes = Notes::new();
        check_set(&vec![&json!({}); 128], &WriteOptions::default(), &mut notes);
        assert!(notes.is_empty());
        check_set(&vec![&json!({}); 129], &WriteOptions::default(), &mut notes);
        assert_eq!(
            notes.as_slice()[0].message,
            "129 tools in one request; OpenAI accepts at most 128"
        );
        assert_eq!(notes.as_slice()[0].level(), Level::Error);
    }

    #[test]
    fn detects_chat_entries_only() {
        assert!(detect(&weather()));
        assert!(detect(&json!({"type": "custom", "custom": {"name": "x"}})));
        assert!(!detect(&json!({"type": "function", "name": "x"})));
        assert!(!detect(&json!({"name": "x", "input_schema": {}})));
    }
}
