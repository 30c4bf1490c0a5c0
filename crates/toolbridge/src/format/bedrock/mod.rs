//! `bedrock`: AWS Bedrock Converse `toolConfig.tools[]` entries,
//! `{"toolSpec": {"name", "description", "inputSchema": {"json": …}, "strict"?}}`.
//!
//! The list may also hold `{"cachePoint": …}` (a prompt-cache marker) and
//! `{"systemTool": …}` (a tool Bedrock's model provider defines); neither is
//! a tool definition, so both are skipped with a note.

pub(crate) mod call;
pub(crate) mod result;
pub(crate) mod stream;

use serde_json::{Map, Value};

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::shared::{
    check_schema_value, keep_unknown, merge_vendor_nested, note_uncarried, read_input_schema, read_name,
    strict_flag,
};
use crate::json::{Entry, Node};
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{check_anthropic_strict_budget, lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: Some(expand),
    read,
    write,
    layout: Layout::List,
    check_set: Some(check_set),
};

/// Strict tool use on Bedrock is Claude's, with Anthropic's per-request
/// budget (at most 20 strict tools, 24 optional parameters, 16 unions).
fn check_set(entries: &[&Value], _opts: &WriteOptions, notes: &mut Notes) {
    let strict: Vec<&Value> = entries
        .iter()
        .filter_map(|entry| entry.get("toolSpec"))
        .filter(|spec| spec.get("strict") == Some(&Value::Bool(true)))
        .filter_map(|spec| spec.get("inputSchema").and_then(|input| input.get("json")))
        .collect();
    check_anthropic_strict_budget(&strict, notes);
}

/// The keys of a `ToolSpecification`.
const SPEC_FIELDS: [&str; 4] = ["name", "description", "inputSchema", "strict"];

/// Members of the `Tool` union that are not tool definitions.
const NOT_TOOLS: [&str; 2] = ["cachePoint", "systemTool"];

fn detect(entry: &Value) -> bool {
    entry.get("toolSpec").is_some_and(Value::is_object)
        || (entry.get("name").is_none()
            && NOT_TOOLS
                .iter()
                .any(|key| entry.get(key).is_some_and(Value::is_object)))
}

/// Skips `cachePoint` and `systemTool` list elements, with a note.
fn expand<'a>(entry: Node<'a>, notes: &mut Notes) -> Option<Result<Vec<Node<'a>>>> {
    let object = entry.value.as_object()?;
    if object.contains_key("toolSpec") {
        return None;
    }
    let key = NOT_TOOLS.iter().find(|key| object.contains_key(**key))?;
    let message = if *key == "cachePoint" {
        "a cachePoint marks where Bedrock's prompt cache ends; it is not a tool, skipped".to_string()
    } else {
        let name = entry
            .value
            .get("systemTool")
            .and_then(|tool| tool.get("name"))
            .and_then(Value::as_str)
            .map(|name| format!(" {name:?}"))
            .unwrap_or_default();
        format!("the system tool{name} is defined by the model provider, not here; skipped")
    };
    notes.push(
        NoteKind::Normalized { field: (*key).into() },
        entry.at.key(key),
        message,
    );
    Some(Ok(Vec::new()))
}

fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    entry.object()?;
    let spec = entry.field("toolSpec")?;
    spec.object()?;
    let name = read_name(&spec)?;
    let mut input_vendor = Map::new();
    let mut extra = Map::new();
    let schema = match spec.get("inputSchema") {
        None => read_input_schema(None, &spec.at.key("inputSchema"), notes)?,
        Some(input) => {
            input.object()?;
            let json = input.field("json")?;
            input_vendor = keep_unknown(&input, &["json"], &[], Format::Bedrock, &mut extra, notes);
            check_schema_value(json.value, &json.at, notes)?
        }
    };
    let mut tool = Tool::new(name, schema);
    tool.description = spec.opt_string("description")?;
    tool.strict = spec.opt_bool("strict")?;
    // `Tool` and `ToolSpecification` define nothing else (botocore's
    // bedrock-runtime service model).
    let mut vendor = keep_unknown(&entry, &["toolSpec"], &[], Format::Bedrock, &mut extra, notes);
    let mut spec_vendor = keep_unknown(&spec, &SPEC_FIELDS, &[], Format::Bedrock, &mut extra, notes);
    tool.extra = extra;
    if !input_vendor.is_empty() {
        spec_vendor.insert("inputSchema".into(), Value::Object(input_vendor));
    }
    if !spec_vendor.is_empty() {
        vendor.insert("toolSpec".into(), Value::Object(spec_vendor));
    }
    tool.set_vendor_fields(Format::Bedrock.id(), vendor);
    Ok(tool)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let lowered = lower(
        &tool.input_schema,
        Dialect::Bedrock {
            strict: opts.strict_for(tool),
        },
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    let mut spec = Map::new();
    spec.insert("name".into(), Value::String(tool.name.clone()));
    match tool.description.as_deref() {
        Some("") => notes.push(
            NoteKind::Dropped {
                keyword: "description".into(),
            },
            Pointer::root().key("description"),
            "Bedrock rejects an empty description (the minimum length is 1); left it out",
        ),
        Some(description) => {
            spec.insert("description".into(), Value::String(description.to_string()));
        }
        None => {}
    }
    let mut input_schema = Map::new();
    input_schema.insert("json".into(), lowered.schema);
    spec.insert("inputSchema".into(), Value::Object(input_schema));
    if let Some(strict) = strict_flag(tool, opts, notes) {
        spec.insert("strict".into(), Value::Bool(strict));
    }
    let mut entry = Map::new();
    entry.insert("toolSpec".into(), Value::Object(spec));
    note_uncarried(
        tool,
        &["name", "description", "inputSchema", "strict", "vendor"],
        Format::Bedrock,
        notes,
    );
    merge_vendor_nested(tool, Format::Bedrock, &mut entry, notes);
    Ok(Value::Object(entry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::format::shared::own_notes;
    use crate::note::Level;
    use serde_json::json;

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

    /// The written entry without the lowered schema, which schema lowering owns.
    fn without_schema(mut entry: Value) -> Value {
        entry["toolSpec"]["inputSchema"]
            .as_object_mut()
            .unwrap()
            .shift_remove("json");
        entry
    }

    #[test]
    fn reads_a_tool_spec() {
        let doc = json!({"toolSpec": {"name": "get_weather", "description": "Weather",
            "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "strict": true}});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!((tool.name.as_str(), tool.strict), ("get_weather", Some(true)));
        assert_eq!(tool.input_schema, doc["toolSpec"]["inputSchema"]["json"]);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn malformed_specs_name_the_place() {
        let cases = [
            (json!({"toolspec": {}}), "", "missing required field \"toolSpec\""),
            (
                json!({"toolSpec": {"name": "a", "inputSchema": {"type": "object"}}}),
                "/toolSpec/inputSchema",
                "missing required field \"json\"",
            ),
            (
                json!({"toolSpec": {"name": "a", "inputSchema": {"json": "{}"}}}),
                "/toolSpec/inputSchema/json",
                "an input schema must be a JSON object, found a string",
            ),
            (
                json!({"toolSpec": {"name": 1}}),
                "/toolSpec/name",
                "\"name\" must be a string, found a number",
            ),
        ];
        for (doc, at, detail) in cases {
            let err = read_value(&doc).0.unwrap_err();
            assert_eq!((err.pointer().as_str(), err.detail()), (at, detail), "{doc}");
        }
    }

    #[test]
    fn unknown_keys_at_every_level_stay_on_the_tool_and_are_not_written_back() {
        // botocore's service model closes `Tool`, `ToolSpecification` and
        // `ToolInputSchema`: an unknown member fails parameter validation.
        let doc = json!({"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object"}, "x-input": 1},
            "x-spec": true}, "x-entry": "e"});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        let kept: Vec<&str> = notes.iter().map(|note| note.at.as_str()).collect();
        assert_eq!(
            kept,
            ["/toolSpec/inputSchema/x-input", "/x-entry", "/toolSpec/x-spec"]
        );
        assert_eq!(
            Value::Object(tool.extra.clone()),
            json!({"x-input": 1, "x-entry": "e", "x-spec": true})
        );
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(
            without_schema(written),
            json!({"toolSpec": {"name": "a", "inputSchema": {}}})
        );
        let dropped: Vec<&str> = own_notes(&notes).iter().map(|note| note.at.as_str()).collect();
        assert_eq!(dropped, ["/x-input", "/x-entry", "/x-spec"]);
    }

    #[test]
    fn cache_points_and_system_tools_are_skipped_with_a_note() {
        let mut notes = Notes::new();
        let cache = json!({"cachePoint": {"type": "default"}});
        let at = Pointer::root().key("toolConfig").key("tools").index(2);
        let skipped = expand(Node::new(&cache, at), &mut notes).unwrap().unwrap();
        assert!(skipped.is_empty());
        let system = json!({"systemTool": {"name": "nova_grounding"}});
        assert!(expand(Node::root(&system), &mut notes)
            .unwrap()
            .unwrap()
            .is_empty());
        let spec = json!({"toolSpec": {"name": "a"}});
        assert!(expand(Node::root(&spec), &mut notes).is_none());
        assert_eq!(notes.as_slice()[0].at.as_str(), "/toolConfig/tools/2/cachePoint");
        assert_eq!(notes.as_slice()[0].level(), Level::Info);
        assert_eq!(
            notes.as_slice()[1].message,
            "the system tool \"nova_grounding\" is defined by the model provider, not here; skipped"
        );
    }

    #[test]
    fn writes_strict_like_openai_and_omits_an_empty_description() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        tool.description = Some(String::new());
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(
            without_schema(written),
            json!({"toolSpec": {"name": "a", "inputSchema": {}}})
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Dropped {
                keyword: "description".into()
            }
        );
        let (written, _) = write_value(&tool, &WriteOptions::default().with_strict(true));
        assert_eq!(written["toolSpec"]["strict"], json!(true));
        tool.strict = Some(false);
        let (written, _) = write_value(&tool, &WriteOptions::default());
        assert_eq!(written["toolSpec"]["strict"], json!(false));
    }

    #[test]
    fn detects_specs_and_list_markers() {
        assert!(detect(&json!({"toolSpec": {"name": "a"}})));
        assert!(detect(&json!({"cachePoint": {"type": "default"}})));
        assert!(!detect(&json!({"name": "a", "inputSchema": {}})));
        assert_eq!(
            read_value(&json!([])).0.unwrap_err().kind(),
            ErrorKind::InvalidTool
        );
    }
}
