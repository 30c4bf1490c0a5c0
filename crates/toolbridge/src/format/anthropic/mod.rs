//! `anthropic`: Anthropic Messages `tools[]` entries,
//! `{"name", "description", "input_schema", "strict"?}`.
//!
//! Anthropic's own keys (`cache_control`, `input_examples`, `defer_loading`,
//! `allowed_callers`, `eager_input_streaming`, `"type": "custom"`) have no
//! canonical field; they are kept as vendor fields and written back. Server
//! tools (`"type": "web_search_20250305"`, …) are defined by Anthropic and
//! have no input schema, so they are not read as tools.

pub(crate) mod call;
pub(crate) mod result;
pub(crate) mod stream;

use serde_json::{Map, Value};

use crate::codec::{JsonCodec, Layout};
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::{
    keep_unknown, merge_vendor, note_uncarried, read_input_schema, read_name, strict_flag,
};
use crate::json::Entry;
use crate::note::Notes;
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{check_anthropic_strict_budget, lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read,
    write,
    layout: Layout::List,
    check_set: Some(check_set),
};

/// Anthropic's per-request budget for strict tools (at most 20 strict tools,
/// 24 optional parameters and 16 unions across all strict schemas).
fn check_set(entries: &[&Value], _opts: &WriteOptions, notes: &mut Notes) {
    let strict: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry.get("strict") == Some(&Value::Bool(true)))
        .filter_map(|entry| entry.get("input_schema"))
        .collect();
    check_anthropic_strict_budget(&strict, notes);
}

/// The keys that map to canonical fields.
const FIELDS: [&str; 4] = ["name", "description", "input_schema", "strict"];

/// The `Tool` fields of the Messages API with no canonical field (the
/// anthropic SDK's `ToolParam`, `types/tool_param.py`): kept for Anthropic.
const ANTHROPIC_ONLY: [&str; 6] = [
    "type",
    "cache_control",
    "input_examples",
    "defer_loading",
    "allowed_callers",
    "eager_input_streaming",
];

fn detect(entry: &Value) -> bool {
    entry.get("name").is_some_and(Value::is_string)
        && (entry.get("input_schema").is_some()
            || entry
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(is_server_tool_type))
}

/// Anthropic-defined tools are typed with a dated version:
/// `web_search_20250305`, `bash_20250124`, `text_editor_20250728`, ….
fn is_server_tool_type(kind: &str) -> bool {
    kind.rsplit_once('_')
        .is_some_and(|(_, date)| date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()))
}

fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    entry.object()?;
    if let Some(kind) = entry.get("type") {
        match kind.str()? {
            "custom" => {}
            server if is_server_tool_type(server) => {
                return Err(Error::new(
                    ErrorKind::NotATool,
                    format!(
                        "{server:?} is an Anthropic server tool: Anthropic defines it, so it has no \
                         input schema to convert"
                    ),
                )
                .at(kind.at.clone()))
            }
            other => {
                return Err(kind.error(format!("\"type\" must be \"custom\" or absent, found {other:?}")))
            }
        }
    }
    let name = read_name(&entry)?;
    let schema = read_input_schema(entry.get("input_schema"), &entry.at.key("input_schema"), notes)?;
    let mut tool = Tool::new(name, schema);
    tool.description = entry.opt_string("description")?;
    tool.strict = entry.opt_bool("strict")?;
    let vendor = keep_unknown(
        &entry,
        &FIELDS,
        &ANTHROPIC_ONLY,
        Format::Anthropic,
        &mut tool.extra,
        notes,
    );
    tool.set_vendor_fields(Format::Anthropic.id(), vendor);
    Ok(tool)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let lowered = lower(
        &tool.input_schema,
        Dialect::Anthropic {
            strict: opts.strict_for(tool),
        },
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        entry.insert("description".into(), Value::String(description.clone()));
    }
    entry.insert("input_schema".into(), lowered.schema);
    if let Some(strict) = strict_flag(tool, opts, notes) {
        entry.insert("strict".into(), Value::Bool(strict));
    }
    note_uncarried(
        tool,
        &["name", "description", "inputSchema", "strict", "vendor"],
        Format::Anthropic,
        notes,
    );
    merge_vendor(tool, Format::Anthropic, &mut entry, notes);
    Ok(Value::Object(entry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use crate::note::NoteKind;
    use serde_json::json;

    /// The entry without the lowered schema.
    fn without_schema(mut entry: Value) -> Value {
        entry.as_object_mut().unwrap().shift_remove("input_schema");
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
    fn reads_a_tool_and_keeps_anthropic_keys() {
        let doc = json!({"type": "custom", "name": "get_weather", "description": "Weather",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            "strict": true, "cache_control": {"type": "ephemeral"},
            "input_examples": [{"city": "Paris"}], "eager_input_streaming": true});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!((tool.name.as_str(), tool.strict), ("get_weather", Some(true)));
        assert_eq!(
            tool.vendor_fields("anthropic"),
            Some(
                json!({"type": "custom", "cache_control": {"type": "ephemeral"},
                    "input_examples": [{"city": "Paris"}], "eager_input_streaming": true})
                .as_object()
                .unwrap()
            )
        );
        let kept: Vec<&str> = notes.iter().map(|note| note.at.as_str()).collect();
        assert_eq!(
            kept,
            [
                "/type",
                "/cache_control",
                "/input_examples",
                "/eager_input_streaming"
            ]
        );
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(without_schema(written), without_schema(doc));
        assert!(own_notes(&notes).is_empty(), "{notes:?}");
    }

    #[test]
    fn server_tools_and_bad_types_are_errors() {
        let err = read_value(&json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}))
            .0
            .unwrap_err();
        assert_eq!(
            (err.kind(), err.pointer().as_str()),
            (ErrorKind::NotATool, "/type")
        );
        let err = read_value(&json!({"type": "function", "name": "a", "input_schema": {"type": "object"}}))
            .0
            .unwrap_err();
        assert_eq!(
            err.detail(),
            "\"type\" must be \"custom\" or absent, found \"function\""
        );
        let err = read_value(&json!({"name": "a", "input_schema": {"type": "array"}}))
            .0
            .unwrap_err();
        assert_eq!(
            (err.kind(), err.pointer().as_str()),
            (ErrorKind::InvalidSchema, "/input_schema/type")
        );
        let err = read_value(&json!({"name": ["a"], "input_schema": {}}))
            .0
            .unwrap_err();
        assert_eq!(err.pointer().as_str(), "/name");
    }

    #[test]
    fn strict_flag_is_written_like_openai() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        let written = write_value(&tool, &WriteOptions::default()).0;
        assert!(written["input_schema"].is_object());
        assert_eq!(without_schema(written), json!({"name": "a"}));
        assert_eq!(
            write_value(&tool, &WriteOptions::default().with_strict(true)).0["strict"],
            json!(true)
        );
        tool.strict = Some(false);
        assert_eq!(
            write_value(&tool, &WriteOptions::default()).0["strict"],
            json!(false)
        );
    }

    #[test]
    fn other_formats_vendor_fields_are_noted() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        let mut fields = Map::new();
        fields.insert("behavior".into(), json!("NON_BLOCKING"));
        tool.set_vendor_fields("gemini", fields);
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(without_schema(written), json!({"name": "a"}));
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Dropped {
                keyword: "behavior".into()
            }
        );
        assert_eq!(notes[0].at.as_str(), "/vendor/gemini/behavior");
        assert_eq!(
            notes[0].message,
            "\"behavior\" (a field of gemini) has no place in anthropic"
        );
    }

    #[test]
    fn detects_tools_and_server_tools() {
        assert!(detect(&json!({"name": "a", "input_schema": {"type": "object"}})));
        assert!(detect(&json!({"type": "bash_20250124", "name": "bash"})));
        assert!(!detect(&json!({"name": "a", "inputSchema": {"type": "object"}})));
        assert!(!detect(&json!({"type": "function", "name": "a"})));
    }

    /// Bedrock's strict mode is Claude's, with the same budget.
    #[test]
    fn strict_budget_is_checked_across_the_request() {
        let tool = |index: usize| {
            Tool::new(
                format!("t{index}"),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            )
        };
        let opts = WriteOptions::default().with_strict(true);
        let twenty: Vec<Tool> = (0..20).map(tool).collect();
        let twenty_one: Vec<Tool> = (0..21).map(tool).collect();
        for format in [Format::Anthropic, Format::Bedrock] {
            assert_eq!(crate::pipeline::write(&twenty, format, &opts).notes, vec![]);
            let notes = crate::pipeline::write(&twenty_one, format, &opts).notes;
            assert_eq!(notes.len(), 1, "{format}");
            assert_eq!(
                notes[0].kind,
                NoteKind::OverLimit {
                    limit: "20 strict tools".into()
                }
            );
            assert_eq!(
                notes[0].message,
                "the strict tools have 21 strict tools in all; Anthropic strict tool use allows 20 per request"
            );
            let not_strict = crate::pipeline::write(&twenty_one, format, &WriteOptions::default());
            assert_eq!(not_strict.notes, vec![]);
        }
    }
}
