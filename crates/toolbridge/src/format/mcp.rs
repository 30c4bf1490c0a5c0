//! `mcp`: the Model Context Protocol `Tool` (2025-06-18, 2025-11-25, 2026-07-28).
//!
//! Reads a `Tool`, a list of them, or a `tools/list` result (bare or in a
//! JSON-RPC response). Fields MCP lacks are written under
//! `_meta["dev.toolbridge/<field>"]` and read back from there, so a round trip
//! through MCP loses nothing.

use serde_json::{Map, Value};

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::toolbridge::{self, with_annotation_defaults};
use crate::json::{Entry, Node};
use crate::note::{NoteKind, Notes};
use crate::options::{ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::Dialect;
use crate::tool::{self as canonical, toolbridge_only, Tool};

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read,
    write,
    layout: Layout::Field("tools"),
    check_set: None,
};

/// The `_meta` key prefix for toolbridge's own fields.
pub(crate) const META_PREFIX: &str = "dev.toolbridge/";

fn detect(entry: &Value) -> bool {
    entry.get("name").is_some_and(Value::is_string) && entry.get("inputSchema").is_some()
}

fn read(entry: Entry, opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    if !holds_toolbridge_meta(&entry.value) {
        return toolbridge::read(entry, opts, notes);
    }
    let entry_at = entry.at.clone();
    let unpacked = Entry {
        value: unpack_meta(entry.value),
        at: entry.at,
    };
    let mut inner = Notes::new();
    let result = toolbridge::read(unpacked, opts, &mut inner);
    let moved = |at: &Pointer| -> Pointer { meta_pointer(&entry_at, at).unwrap_or_else(|| at.clone()) };
    for note in inner {
        notes.push(note.kind.clone(), moved(&note.at), note.message);
    }
    result.map_err(|err| {
        let at = moved(err.pointer());
        err.at(at)
    })
}

/// `_meta` key holding an output schema that had to be wrapped in an object.
const OUTPUT_SCHEMA_KEY: &str = "outputSchema";

/// MCP (2025-06-18 and later) takes only an object `outputSchema`: the
/// TypeScript SDK's `ToolSchema` has `type: z.literal("object")`, and
/// `structuredContent` is an object. A schema of object properties without a
/// `type` gets one; any other schema is wrapped as the `result` property,
/// and the original is returned to be kept under `_meta`.
fn object_output_schema(schema: &mut Value, notes: &mut Notes) -> Option<Value> {
    let at = Pointer::root().key("outputSchema");
    let object = schema.as_object_mut()?;
    match object.get("type") {
        Some(Value::String(ty)) if ty == "object" => return None,
        None if object.contains_key("properties")
            && !object.contains_key("anyOf")
            && !object.contains_key("oneOf") =>
        {
            object.shift_insert(0, "type".into(), Value::String("object".into()));
            notes.push(
                NoteKind::Normalized { field: "type".into() },
                at.key("type"),
                "the output schema lists properties without a \"type\"; wrote \"type\": \"object\", which MCP requires",
            );
            return None;
        }
        _ => {}
    }
    let original = std::mem::take(schema);
    let mut properties = Map::new();
    properties.insert("result".into(), original.clone());
    let mut wrapped = Map::new();
    wrapped.insert("type".into(), Value::String("object".into()));
    wrapped.insert("properties".into(), Value::Object(properties));
    wrapped.insert(
        "required".into(),
        Value::Array(vec![Value::String("result".into())]),
    );
    *schema = Value::Object(wrapped);
    notes.push(
        NoteKind::Rewritten {
            keyword: "outputSchema".into(),
        },
        at,
        format!(
            "MCP takes only an object outputSchema, so the result schema was wrapped as the \"result\" \
             property: a structuredContent of {{\"result\": value}} carries the value; the original is kept \
             under _meta[\"{META_PREFIX}{OUTPUT_SCHEMA_KEY}\"] and read back from there"
        ),
    );
    Some(original)
}

/// `_meta` key holding top-level keys MCP does not define (the SDKs drop them).
const EXTRA_KEY: &str = "extra";
/// `_meta` key holding annotation keys beyond MCP's `ToolAnnotations`.
const ANNOTATION_EXTRA_KEY: &str = "annotations";

/// The entry with `_meta["dev.toolbridge/<field>"]` moved back to `<field>`
/// (extra keys back to the top level and into `annotations`), or `None` when
/// there is nothing to move.
/// Does this entry keep toolbridge fields under `_meta`?
fn holds_toolbridge_meta(entry: &Value) -> bool {
    entry
        .get("_meta")
        .and_then(Value::as_object)
        .is_some_and(|meta| meta.keys().any(|key| meta_field(key).is_some()))
}

/// Moves the toolbridge fields kept under `_meta` back to where the canonical
/// tool has them; other `_meta` keys stay under `_meta`.
fn unpack_meta(entry: Value) -> Value {
    let Value::Object(mut object) = entry else {
        return entry;
    };
    let Some(Value::Object(meta)) = object.shift_remove("_meta") else {
        return Value::Object(object);
    };
    let mut rest = Map::new();
    for (key, value) in meta {
        match (meta_field(&key), value) {
            (Some(EXTRA_KEY), Value::Object(extra)) => {
                for (name, value) in extra {
                    object.entry(name).or_insert(value);
                }
            }
            (Some(ANNOTATION_EXTRA_KEY), Value::Object(extra)) => {
                let annotations = object
                    .entry("annotations")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(annotations) = annotations {
                    for (name, value) in extra {
                        annotations.entry(name).or_insert(value);
                    }
                }
            }
            (Some(OUTPUT_SCHEMA_KEY), original) => {
                object.insert(OUTPUT_SCHEMA_KEY.into(), original);
            }
            (Some(field), value) if is_toolbridge_only(field) && !object.contains_key(field) => {
                object.insert(field.to_string(), value);
            }
            (_, value) => {
                rest.insert(key, value);
            }
        }
    }
    if !rest.is_empty() {
        object.insert("_meta".into(), Value::Object(rest));
    }
    Value::Object(object)
}

fn is_toolbridge_only(key: &str) -> bool {
    canonical::field(key).is_some_and(|field| field.toolbridge_only)
}

/// The field a `_meta` key carries: a toolbridge-only field, or one of the
/// extra-key holders.
fn meta_field(meta_key: &str) -> Option<&str> {
    meta_key.strip_prefix(META_PREFIX).filter(|field| {
        is_toolbridge_only(field) || [EXTRA_KEY, ANNOTATION_EXTRA_KEY, OUTPUT_SCHEMA_KEY].contains(field)
    })
}

/// Maps a pointer into the unpacked entry back to `_meta` when it points into
/// a field that came from there.
fn meta_pointer(entry_at: &Pointer, at: &Pointer) -> Option<Pointer> {
    let relative: Vec<String> = at.tokens().skip(entry_at.tokens().count()).collect();
    let field = relative.first()?;
    if !is_toolbridge_only(field) {
        return None;
    }
    let mut pointer = entry_at.key("_meta").key(&format!("{META_PREFIX}{field}"));
    for token in &relative[1..] {
        pointer = pointer.key(token);
    }
    Some(pointer)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let tool = with_annotation_defaults(tool, opts, notes);
    let Value::Object(mut object) = tool.to_value() else {
        unreachable!("a tool serializes to an object");
    };
    let at = Pointer::root().key("inputSchema");
    let input = crate::schema::lower(&tool.input_schema, Dialect::JsonSchema, &at, &opts.limits, notes)?;
    object.insert("inputSchema".into(), input.schema);
    let mut moved = Map::new();
    let mut move_to_meta = |field: &str, value: Value, at: Pointer, what: String, notes: &mut Notes| {
        let key = format!("{META_PREFIX}{field}");
        notes.push(
            NoteKind::MovedToMeta {
                key: key.as_str().into(),
            },
            at,
            format!("MCP has no {what}; stored under _meta[{key:?}]"),
        );
        moved.insert(key, value);
    };
    for field in toolbridge_only() {
        if let Some(value) = object.shift_remove(field) {
            move_to_meta(
                field,
                value,
                Pointer::root().key(field),
                format!("{field:?} field"),
                notes,
            );
        }
    }
    if !tool.extra.is_empty() {
        let mut extra = Map::new();
        for key in tool.extra.keys() {
            if let Some(value) = object.shift_remove(key) {
                extra.insert(key.clone(), value);
            }
        }
        let keys: Vec<String> = extra.keys().map(|key| format!("{key:?}")).collect();
        let at = match tool.extra.keys().next() {
            Some(key) if tool.extra.len() == 1 => Pointer::root().key(key),
            _ => Pointer::root(),
        };
        move_to_meta(
            EXTRA_KEY,
            Value::Object(extra),
            at,
            format!("field {}", keys.join(", ")),
            notes,
        );
    }
    if let Some(annotations) = tool.annotations.as_ref().filter(|a| !a.extra.is_empty()) {
        if let Some(Value::Object(written)) = object.get_mut("annotations") {
            for key in annotations.extra.keys() {
                written.shift_remove(key);
            }
            if written.is_empty() {
                object.shift_remove("annotations");
            }
        }
        let keys: Vec<String> = annotations.extra.keys().map(|key| format!("{key:?}")).collect();
        move_to_meta(
            ANNOTATION_EXTRA_KEY,
            Value::Object(annotations.extra.clone()),
            Pointer::root().key("annotations"),
            format!("annotation {}", keys.join(", ")),
            notes,
        );
    }
    if let Some(schema) = object.get_mut("outputSchema") {
        if let Some(original) = object_output_schema(schema, notes) {
            moved.insert(format!("{META_PREFIX}{OUTPUT_SCHEMA_KEY}"), original);
        }
    }
    if !moved.is_empty() {
        let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            for (key, value) in moved {
                meta.entry(key).or_insert(value);
            }
        }
    }
    Ok(Value::Object(object))
}

// Calls coming in: a `tools/call` request (providers.md §6c),
// `{"jsonrpc": "2.0", "id", "method": "tools/call", "params": {"name",
// "arguments"?, "_meta"?}}`, a batch of them (2025-03-26 and before), or the
// `params` alone. The JSON-RPC `id` is the call's id; since a response must
// carry it with its type (number or string), it is kept in the extras too,
// with `params._meta` (`progressToken`) and any other member.

/// Reads the calls of a `tools/call` request, a batch of them, or `params`.
pub(crate) fn read_calls(
    request: &Value,
    opts: &crate::call::CallOptions,
) -> Result<crate::note::Converted<Vec<crate::call::ToolCall>>> {
    use crate::call::read::{extras, invalid_response, Collector, Sent};
    use crate::error::{Error, ErrorKind};
    let root = Node::root(request);
    let requests = match request {
        Value::Array(_) => invalid_response(root.array())?,
        _ => vec![root],
    };
    let mut collector = Collector::new(opts);
    for request in requests {
        invalid_response(request.object())?;
        let params = if request.value.get("params").is_some() || request.value.get("method").is_some() {
            match request.value.get("method").and_then(Value::as_str) {
                Some("tools/call") => {}
                other => {
                    return Err(Error::new(
                        ErrorKind::InvalidResponse,
                        format!(
                            "not a tools/call request (method {})",
                            other.map_or("missing".into(), |method| format!("{method:?}"))
                        ),
                    )
                    .at(request.at.key("method")))
                }
            }
            invalid_response(request.field("params"))?
        } else {
            request.clone()
        };
        invalid_response(params.object())?;
        let mut kept = extras(
            &request,
            &["jsonrpc", "method", "params"],
            Some(("params", &["name", "arguments"])),
        );
        if params.at == request.at {
            kept = extras(&params, &["name", "arguments"], None);
        }
        collector.push(Sent {
            at: params.at.clone(),
            id: request.get("id").filter(|_| params.at != request.at),
            name: params.get("name"),
            arguments: params.value.get("arguments"),
            arguments_at: params.at.key("arguments"),
            expect: crate::call::Expect::OptionalObject,
            extras: kept,
        })?;
    }
    Ok(collector.finish())
}

/// The `CallToolResult`s answering `results` (the `result` of each
/// `tools/call` response), in order: `content` one text block (the text, or
/// the JSON serialised, as the spec asks of a tool returning structured
/// content), `structuredContent` when the JSON is an object (2025-06-18
/// requires one), `isError`, `_meta` when the result has metadata
/// (providers.md §6d; mcp python `CallToolResult`).
pub(crate) fn write_results(results: &[crate::call::ToolResult]) -> Value {
    results
        .iter()
        .map(|result| {
            let mut out = serde_json::Map::new();
            out.insert(
                "content".into(),
                serde_json::json!([{"type": "text", "text": result.as_text()}]),
            );
            if let Some(value @ Value::Object(_)) = &result.structured {
                out.insert("structuredContent".into(), value.clone());
            }
            out.insert("isError".into(), result.is_error.into());
            if let Some(meta) = &result.meta {
                out.insert("_meta".into(), Value::Object(meta.clone()));
            }
            Value::Object(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_schemas_become_objects_and_come_back() {
        let mut tool = Tool::new("t", json!({"type": "object"}));
        tool.output_schema = Some(json!({"type": "array", "items": {"type": "string"}}));
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(
            written,
            json!({"name": "t", "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "properties": {"result": {"type": "array",
                    "items": {"type": "string"}}}, "required": ["result"]},
                "_meta": {"dev.toolbridge/outputSchema": {"type": "array", "items": {"type": "string"}}}})
        );
        assert_eq!(
            notes
                .iter()
                .map(|note| (note.level(), note.at.as_str()))
                .collect::<Vec<_>>(),
            [(crate::note::Level::Change, "/outputSchema")]
        );
        let back = read(
            Entry::root(written.clone()),
            &ReadOptions::default(),
            &mut Notes::new(),
        )
        .unwrap();
        assert_eq!(back, tool);

        tool.output_schema = Some(json!({"properties": {"n": {"type": "integer"}}}));
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(
            written["outputSchema"],
            json!({"type": "object", "properties": {"n": {"type": "integer"}}})
        );
        assert_eq!(notes.len(), 1);
        tool.output_schema = Some(json!({"type": "object"}));
        let mut notes = Notes::new();
        write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert!(notes.is_empty());
    }

    #[test]
    fn toolbridge_fields_travel_in_meta_and_come_back() {
        let canonical = json!({"name": "t", "inputSchema": {"type": "object"}, "strict": true,
            "run": {"kind": "command", "program": "date"}, "_meta": {"x/y": 1}});
        let tool: Tool = serde_json::from_value(canonical.clone()).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(
            written,
            json!({"name": "t", "inputSchema": {"type": "object"},
                "_meta": {"x/y": 1, "dev.toolbridge/strict": true,
                    "dev.toolbridge/run": {"kind": "command", "program": "date"}}})
        );
        assert_eq!(notes.len(), 2);
        let mut notes = Notes::new();
        let back = read(Entry::root(written.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(back, tool);
    }

    #[test]
    fn unknown_keys_travel_in_meta_and_come_back() {
        let canonical = json!({"name": "t", "inputSchema": {"type": "object"}, "descripton": "typo",
            "annotations": {"readOnlyHint": true, "x-owner": "ops"}});
        let tool: Tool = serde_json::from_value(canonical).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(
            written,
            json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true},
                "_meta": {"dev.toolbridge/extra": {"descripton": "typo"},
                    "dev.toolbridge/annotations": {"x-owner": "ops"}}})
        );
        let at: Vec<&str> = notes.iter().map(|note| note.at.as_str()).collect();
        assert_eq!(at, ["/descripton", "/annotations"]);
        let back = read(
            Entry::root(written.clone()),
            &ReadOptions::default(),
            &mut Notes::new(),
        )
        .unwrap();
        assert_eq!(back, tool);
    }

    #[test]
    fn errors_inside_meta_fields_point_into_meta() {
        let doc = json!({"name": "t", "inputSchema": {"type": "object"},
            "_meta": {"dev.toolbridge/run": {"kind": "command"}}});
        let err = read(
            Entry::root(doc.clone()),
            &ReadOptions::default(),
            &mut Notes::new(),
        )
        .unwrap_err();
        assert_eq!(err.pointer().as_str(), "/_meta/dev.toolbridge~1run");
        assert_eq!(
            err.to_string(),
            "invalid tool: missing required field \"program\" (at /_meta/dev.toolbridge~1run)"
        );
    }

    #[test]
    fn reads_tools_call_requests() {
        let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"location": "New York"},
                       "_meta": {"progressToken": "abc"}}});
        let calls = read_calls(&request, &Default::default()).unwrap().value;
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("2", "get_weather")
        );
        assert_eq!(calls[0].arguments, Ok(json!({"location": "New York"})));
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"id": 2, "params": {"_meta": {"progressToken": "abc"}}})
        );
        let calls = read_calls(&json!({"name": "ping"}), &Default::default())
            .unwrap()
            .value;
        assert_eq!(
            (calls[0].id.as_str(), calls[0].arguments.clone()),
            ("call_0", Ok(json!({})))
        );
        let err = read_calls(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &Default::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid response: not a tools/call request (method \"tools/list\") (at /method)"
        );
    }
}
