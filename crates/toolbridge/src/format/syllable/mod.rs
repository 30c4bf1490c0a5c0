//! `syllable`: Syllable's `ToolDefinition` (syllable-sdk 0.49.87), and the
//! seed-era shape of October 2024.
//!
//! ```json
//! {"type": "endpoint",
//!  "tool": {"type": "function", "function": {"name": "…", "description": "…", "parameters": {…}}},
//!  "endpoint": {"url": "…", "method": "get", "argument_location": "query", "timeout": 10},
//!  "defaults": {"hospital": "Queens Hospital", "city": {"transform": {…}}},
//!  "static_parameters": [{"name": "…", "type": "string", "required": false}],
//!  "result": …, "options": {"propagate_tool_result": true}}
//! ```
//!
//! Mapping (every field has a canonical place, so Syllable → toolbridge →
//! Syllable is lossless):
//!
//! | Syllable | canonical |
//! | --- | --- |
//! | `tool.function.name`, `.description` | `name`, `description` |
//! | `tool.function.parameters` | `inputSchema` (written lowered for OpenAI-style models, not strict) |
//! | `type` absent / `action` | `run` absent / `{"kind": "action"}` |
//! | `type: endpoint` + `endpoint` | `run: {"kind": "endpoint", url, method, argumentLocation, timeout}` |
//! | `type: context` + `context.task` | `run: {"kind": "context", task}` |
//! | `type: log` | `run` absent, `vendor.syllable.type = "log"`: the SDK gives `log` no meaning beyond its name, so toolbridge invents none |
//! | `defaults` | `defaults` (the same semantics) |
//! | `static_parameters` | `staticParameters` (`int` ↔ `integer`, `data_source_list` ↔ `dataSourceList`) |
//! | `result` | `fixedResult` |
//! | `options.propagate_tool_result` | `propagateResult` |
//! | `response_display`, unknown top-level keys, an `endpoint`/`context` the `type` does not use | `vendor.syllable` |
//!
//! Reading accepts the seed-era shape (no `description`; `parameters` as a
//! bare map of properties, normalised to an object schema) and the
//! TypeScript SDK's camelCase spellings (`argumentLocation`,
//! `staticParameters`, …), each with a note. It rejects what the SDK's model
//! rejects (method `patch`, argument location `header`, operator `ne`, …)
//! with an error naming the place. Keys the SDK's model ignores inside nested
//! objects are left out with a note.
//!
//! Writing produces the current shape. A tool without a description gets
//! `""` (the current model requires one). Runs Syllable cannot execute
//! (command, prompt, a PATCH endpoint) are written as `action` tools — the
//! definition stays useful to the model and the host implements the call —
//! with a loss note; endpoint headers are left out with a note (Syllable
//! keeps authentication on the tool's Service).

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::codec::JsonCodec;
use crate::error::Result;
use crate::format::shared::{check_schema_value, note_uncarried, read_input_schema};
use crate::json::describe;
use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::{
    ActionRun, ArgumentLocation, Condition, ContextRun, EndpointRun, HttpMethod, ParameterDefault, Run,
    StaticParameter, StaticParameterType, Tool, Transform, TransformAction,
};

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read,
    write,
    wrap: Value::Array,
    check_set: None,
};

const ID: &str = "syllable";

/// The top-level fields of `ToolDefinition`.
const FIELDS: [&str; 9] = [
    "type",
    "tool",
    "endpoint",
    "context",
    "defaults",
    "static_parameters",
    "result",
    "options",
    "response_display",
];

/// The TypeScript SDK's camelCase spellings of snake_case wire names.
const CAMEL_CASE: [(&str, &str); 4] = [
    ("static_parameters", "staticParameters"),
    ("response_display", "responseDisplay"),
    ("argument_location", "argumentLocation"),
    ("propagate_tool_result", "propagateToolResult"),
];

const METHODS: [&str; 4] = ["get", "post", "put", "delete"];
const LOCATIONS: [&str; 4] = ["body", "form", "path", "query"];

fn detect(entry: &Value) -> bool {
    entry
        .get("tool")
        .and_then(|tool| tool.get("function"))
        .is_some_and(Value::is_object)
}

// ---------------------------------------------------------------- reading

fn read(entry: Node<'_>, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    entry.object()?;
    let kind = match entry.get("type") {
        None => None,
        Some(node) => Some(one_of(&node, &["action", "endpoint", "context", "log"])?),
    };
    let tool_node = entry.field("tool")?;
    tool_node.object()?;
    if let Some(tool_type) = tool_node.get("type") {
        if tool_type.str()? != "function" {
            return Err(tool_type.error(format!(
                "\"type\" must be \"function\", found {}",
                describe(tool_type.value)
            )));
        }
    }
    note_ignored(&tool_node, &["type", "function"], notes);
    let function = tool_node.field("function")?;
    function.object()?;
    note_ignored(&function, &["name", "description", "parameters"], notes);

    let name_node = function.field("name")?;
    let name = name_node.str()?.to_string();
    if name.is_empty() {
        return Err(name_node.error("\"name\" must not be empty"));
    }
    let mut tool = Tool::new(name, Value::Null);
    tool.description = read_description(&function, notes)?;
    tool.input_schema = read_parameters(&function, notes)?;

    let mut vendor = Map::new();
    let endpoint = entry.get("endpoint");
    let context = entry.get("context");
    tool.run = match kind {
        None => None,
        Some("action") => Some(Run::Action(ActionRun::default())),
        Some("endpoint") => {
            let Some(endpoint) = &endpoint else {
                return Err(entry
                    .error("\"type\" is \"endpoint\" but \"endpoint\" is missing")
                    .at(entry.at.key("type")));
            };
            Some(Run::Endpoint(read_endpoint(endpoint, notes)?))
        }
        Some("context") => Some(Run::Context(ContextRun {
            task: match &context {
                Some(context) => read_context(context, notes)?,
                None => None,
            },
        })),
        Some(_log) => {
            vendor.insert("type".into(), Value::String("log".into()));
            notes.push(
                NoteKind::Kept { key: "type".into() },
                entry.at.key("type"),
                "\"log\" has no canonical run kind (the SDK gives it no meaning beyond its name); \
                 kept for Syllable, and the tool reads as one the host implements",
            );
            None
        }
    };
    for (key, node, used) in [
        ("endpoint", &endpoint, kind == Some("endpoint")),
        ("context", &context, kind == Some("context")),
    ] {
        if let (Some(node), false) = (node, used) {
            vendor.insert(key.into(), node.value.clone());
            notes.push(
                NoteKind::Kept { key: key.into() },
                node.at.clone(),
                format!(
                    "{key:?} is given but \"type\" is {}; kept for Syllable, where it has no effect",
                    kind.map_or("absent".to_string(), |kind| format!("{kind:?}"))
                ),
            );
        }
    }

    if let Some(defaults) = entry.get("defaults") {
        tool.defaults = Some(read_defaults(&defaults, notes)?);
    }
    if let Some(parameters) = aliased(&entry, "static_parameters", notes) {
        tool.static_parameters = Some(read_static_parameters(&parameters, notes)?);
    }
    tool.fixed_result = entry.get("result").map(|result| result.value.clone());
    if let Some(options) = entry.get("options") {
        options.object()?;
        tool.propagate_result = aliased(&options, "propagate_tool_result", notes)
            .map(|flag| flag.bool())
            .transpose()?;
        note_ignored(&options, &["propagate_tool_result", "propagateToolResult"], notes);
    }
    if let Some(display) = aliased(&entry, "response_display", notes) {
        vendor.insert("response_display".into(), display.value.clone());
    }
    let camel_names: Vec<&str> = CAMEL_CASE.iter().map(|(_, camel)| *camel).collect();
    for (key, value) in entry.other_members(&FIELDS) {
        if camel_names.contains(&key.as_str()) {
            continue;
        }
        notes.push(
            NoteKind::Kept { key: key.clone() },
            entry.at.key(&key),
            format!("{key:?} is not a ToolDefinition field; kept for Syllable"),
        );
        vendor.insert(key, value);
    }
    tool.set_vendor_fields(ID, vendor);
    Ok(tool)
}

fn read_description(function: &Node<'_>, notes: &mut Notes) -> Result<Option<String>> {
    match function.opt_string("description")? {
        Some(description) if !description.is_empty() => Ok(Some(description)),
        Some(_) => {
            notes.push(
                NoteKind::Normalized {
                    field: "description".into(),
                },
                function.at.key("description"),
                "an empty description is read as none",
            );
            Ok(None)
        }
        None => {
            notes.push(
                NoteKind::Normalized {
                    field: "description".into(),
                },
                function.at.clone(),
                "no description: the seed-era shape allowed that; the current ToolDefinition requires one",
            );
            Ok(None)
        }
    }
}

/// Reads `parameters`, turning the seed-era bare map of properties into an
/// object schema.
fn read_parameters(function: &Node<'_>, notes: &mut Notes) -> Result<Value> {
    let Some(parameters) = function.get("parameters") else {
        return read_input_schema(None, &function.at, notes);
    };
    if !is_bare_properties(parameters.value) {
        return check_schema_value(parameters.value, &parameters.at, notes);
    }
    notes.push(
        NoteKind::Normalized {
            field: "parameters".into(),
        },
        parameters.at.clone(),
        "\"parameters\" is a bare map of properties (the seed-era shape); read as \
         {\"type\": \"object\", \"properties\": …}",
    );
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), parameters.value.clone());
    let mut inner = Notes::new();
    let wrapped = Pointer::root().key("properties");
    check_schema_value(&Value::Object(schema), &Pointer::root(), &mut inner).map_err(|err| {
        let relative = err
            .pointer()
            .as_str()
            .strip_prefix(wrapped.as_str())
            .unwrap_or("");
        let at = Pointer::parse(relative).unwrap_or_default();
        err.at(parameters.at.join(&at))
    })
}

/// JSON Schema keywords whose value is an object: a map holding one of these
/// is a schema, not a map of properties.
const OBJECT_KEYWORDS: [&str; 16] = [
    "$defs",
    "definitions",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "dependentSchemas",
    "dependencies",
    "not",
    "if",
    "then",
    "else",
    "items",
    "contains",
    "unevaluatedItems",
    "additionalItems",
];

fn is_bare_properties(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    !object.is_empty()
        && !object.contains_key("type")
        && !object.contains_key("properties")
        && object.iter().all(|(key, value)| {
            value.is_object() && !key.starts_with('$') && !OBJECT_KEYWORDS.contains(&key.as_str())
        })
}

fn read_endpoint(node: &Node<'_>, notes: &mut Notes) -> Result<EndpointRun> {
    node.object()?;
    let url_node = node.field("url")?;
    let url = url_node.str()?;
    if url.is_empty() {
        return Err(url_node.error("\"url\" must not be empty"));
    }
    let method_node = node.field("method")?;
    let method = match method_node.str()? {
        given if METHODS.contains(&given) => given.to_string(),
        given if METHODS.contains(&given.to_ascii_lowercase().as_str()) => {
            notes.push(
                NoteKind::Normalized {
                    field: "method".into(),
                },
                method_node.at.clone(),
                format!("read the method {given:?} as {:?}", given.to_ascii_lowercase()),
            );
            given.to_ascii_lowercase()
        }
        _ => one_of(&method_node, &METHODS)?.to_string(),
    };
    let method = match method.as_str() {
        "get" => HttpMethod::Get,
        "post" => HttpMethod::Post,
        "put" => HttpMethod::Put,
        _ => HttpMethod::Delete,
    };
    let location_node = aliased(node, "argument_location", notes)
        .ok_or_else(|| node.error("missing required field \"argument_location\""))?;
    let argument_location = match one_of(&location_node, &LOCATIONS)? {
        "body" => ArgumentLocation::Body,
        "form" => ArgumentLocation::Form,
        "path" => ArgumentLocation::Path,
        _ => ArgumentLocation::Query,
    };
    let mut endpoint = EndpointRun::new(url, method, argument_location);
    if let Some(timeout) = node.get("timeout") {
        endpoint.timeout = Some(
            timeout
                .value
                .as_f64()
                .filter(|seconds| *seconds > 0.0)
                .ok_or_else(|| {
                    timeout.error(format!(
                        "\"timeout\" must be a positive number of seconds, found {}",
                        describe(timeout.value)
                    ))
                })?,
        );
    }
    note_ignored(
        node,
        &[
            "url",
            "method",
            "argument_location",
            "argumentLocation",
            "timeout",
        ],
        notes,
    );
    Ok(endpoint)
}

/// Reads `context`, returning its `task` (checked only for the `type` that
/// tells the SDK's task kinds apart).
fn read_context(node: &Node<'_>, notes: &mut Notes) -> Result<Option<Value>> {
    node.object()?;
    note_ignored(node, &["task"], notes);
    let Some(task) = node.get("task") else {
        return Ok(None);
    };
    let tasks = match task.value {
        Value::Array(_) => task.array()?,
        _ => vec![task.clone()],
    };
    for each in &tasks {
        each.object()?;
        one_of(&each.field("type")?, &["steps", "event", "expression", "import"])?;
    }
    Ok(Some(task.value.clone()))
}

fn read_defaults(node: &Node<'_>, notes: &mut Notes) -> Result<IndexMap<String, ParameterDefault>> {
    let object = node.value.as_object().ok_or_else(|| {
        node.error(format!(
            "\"defaults\" must be an object mapping parameter names to values or {{\"transform\": …}}, found {}",
            describe(node.value)
        ))
    })?;
    let mut defaults = IndexMap::new();
    for (key, value) in object {
        let at = node.at.key(key);
        let default = match value {
            Value::Object(inner) if inner.len() == 1 && inner.contains_key("transform") => {
                let transform = Node::new(&inner["transform"], at.key("transform"));
                ParameterDefault::Transform(read_transform(&transform, notes)?)
            }
            value => ParameterDefault::Value(value.clone()),
        };
        defaults.insert(key.clone(), default);
    }
    Ok(defaults)
}

fn read_transform(node: &Node<'_>, notes: &mut Notes) -> Result<Transform> {
    node.object()?;
    let action = match node.get("action") {
        None => None,
        Some(action) => Some(match one_of(&action, &["default", "override", "remove"])? {
            "default" => TransformAction::Default,
            "override" => TransformAction::Override,
            _ => TransformAction::Remove,
        }),
    };
    let when = match node.get("when") {
        None => None,
        Some(when) => {
            when.object()?;
            let key = when.string_field("key")?;
            let value = when.string_field("value")?;
            let operator = match when.get("operator") {
                None => None,
                Some(operator) if operator.value == "eq" => Some("eq".to_string()),
                Some(operator) => {
                    return Err(operator.error(format!(
                        "\"operator\" must be \"eq\" (the only comparison Syllable has), found {}",
                        describe_value(operator.value)
                    )))
                }
            };
            note_ignored(&when, &["key", "value", "operator"], notes);
            Some(Condition {
                key,
                value: Value::String(value),
                operator,
            })
        }
    };
    let transform = Transform {
        action,
        when,
        value: node.get("value").map(|value| value.value.clone()),
        format: node.opt_string("format")?,
    };
    note_ignored(node, &["action", "when", "value", "format"], notes);
    Ok(transform)
}

fn read_static_parameters(node: &Node<'_>, notes: &mut Notes) -> Result<Vec<StaticParameter>> {
    let mut parameters: Vec<StaticParameter> = Vec::new();
    for item in node.array()? {
        item.object()?;
        let name_node = item.field("name")?;
        let name = name_node.str()?.to_string();
        if name.is_empty() {
            return Err(name_node.error("\"name\" must not be empty"));
        }
        if parameters.iter().any(|parameter| parameter.name == name) {
            return Err(name_node.error(format!("the static parameter {name:?} is defined twice")));
        }
        let value_type = match one_of(
            &item.field("type")?,
            &["string", "int", "boolean", "data_source_list"],
        )? {
            "string" => StaticParameterType::String,
            "int" => StaticParameterType::Integer,
            "boolean" => StaticParameterType::Boolean,
            _ => StaticParameterType::DataSourceList,
        };
        let mut parameter = StaticParameter::new(name, value_type);
        parameter.required = item.field("required")?.bool()?;
        parameter.description = item.opt_string("description")?;
        if let Some(default) = item.get("default") {
            if !value_type.accepts(default.value) {
                return Err(default.error(format!(
                    "\"default\" must be {}, found {}",
                    match value_type {
                        StaticParameterType::String => "a string",
                        StaticParameterType::Integer => "an integer",
                        StaticParameterType::Boolean => "true or false",
                        StaticParameterType::DataSourceList => "a list of data-source names",
                    },
                    describe(default.value)
                )));
            }
            parameter.default = Some(default.value.clone());
        }
        note_ignored(
            &item,
            &["name", "type", "required", "description", "default"],
            notes,
        );
        parameters.push(parameter);
    }
    Ok(parameters)
}

/// The member `snake`, or its TypeScript SDK spelling (with a note).
fn aliased<'a>(node: &Node<'a>, snake: &str, notes: &mut Notes) -> Option<Node<'a>> {
    if let Some(found) = node.get(snake) {
        return Some(found);
    }
    let (_, camel) = CAMEL_CASE.iter().find(|(wire, _)| *wire == snake)?;
    let found = node.get(camel)?;
    notes.push(
        NoteKind::Normalized { field: snake.into() },
        found.at.clone(),
        format!("read the TypeScript SDK spelling {camel:?} as {snake:?} (the JSON API uses snake_case)"),
    );
    Some(found)
}

/// The string at `node`, which must be one of `allowed`.
fn one_of<'a>(node: &Node<'_>, allowed: &[&'a str]) -> Result<&'a str> {
    let given = node.value.as_str();
    allowed
        .iter()
        .find(|choice| Some(**choice) == given)
        .copied()
        .ok_or_else(|| {
            let choices: Vec<String> = allowed.iter().map(|choice| format!("{choice:?}")).collect();
            node.error(format!(
                "{} must be one of {}; found {}",
                node.label(),
                choices.join(", "),
                describe_value(node.value)
            ))
        })
}

/// A short rendering of a found value: strings quoted, others by their kind.
fn describe_value(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text:?}"),
        other => describe(other).to_string(),
    }
}

/// Notes every member of `node` not in `known`: the SDK's models ignore
/// unknown keys, and so the platform never sees them.
fn note_ignored(node: &Node<'_>, known: &[&str], notes: &mut Notes) {
    for key in node.other_members(known).keys() {
        notes.push(
            NoteKind::Dropped { keyword: key.clone() },
            node.at.key(key),
            format!("Syllable ignores {key:?} here; left out"),
        );
    }
}

// ---------------------------------------------------------------- writing

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let run_at = Pointer::root().key("run");
    let vendor = tool.vendor_fields(ID);
    let mut out = Map::new();
    let mut endpoint = None;
    let mut context = None;
    let kind = match &tool.run {
        None => vendor.and_then(|fields| fields.get("type")).cloned(),
        Some(Run::Action(action)) => {
            if action.handler.is_some() {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "handler".into(),
                    },
                    run_at.key("handler"),
                    "Syllable action tools carry no handler code; the host implements them",
                );
            }
            Some(Value::String("action".into()))
        }
        Some(Run::Endpoint(run)) => match write_endpoint(run, &run_at, notes) {
            Some(written) => {
                endpoint = Some(written);
                Some(Value::String("endpoint".into()))
            }
            None => {
                notes.push(
                    NoteKind::Dropped { keyword: "run".into() },
                    run_at.key("method"),
                    "Syllable endpoints have no PATCH method; written as an action tool, so the host must make the call",
                );
                Some(Value::String("action".into()))
            }
        },
        Some(Run::Context(run)) => {
            if let Some(task) = &run.task {
                let mut object = Map::new();
                object.insert("task".into(), task.clone());
                context = Some(Value::Object(object));
            }
            Some(Value::String("context".into()))
        }
        Some(other) => {
            notes.push(
                NoteKind::Dropped {
                    keyword: "run".into(),
                },
                run_at.clone(),
                format!(
                    "Syllable cannot run {} tools; written as an action tool, so the host must implement it",
                    other.kind()
                ),
            );
            Some(Value::String("action".into()))
        }
    };
    let kind_from_vendor = tool.run.is_none() && kind.is_some();
    if let Some(kind) = kind {
        out.insert("type".into(), kind);
    }

    let description = match &tool.description {
        Some(description) => description.clone(),
        None => {
            notes.push(
                NoteKind::Placeholder {
                    field: "description".into(),
                },
                Pointer::root().key("description"),
                "Syllable requires a description; wrote an empty one",
            );
            String::new()
        }
    };
    let schema_at = Pointer::root().key("inputSchema");
    let parameters = lower(
        &tool.input_schema,
        Dialect::OpenAi { strict: false },
        &schema_at,
        &opts.limits,
        notes,
    )?
    .schema;
    let mut function = Map::new();
    function.insert("name".into(), Value::String(tool.name.clone()));
    function.insert("description".into(), Value::String(description));
    function.insert("parameters".into(), parameters);
    let mut internal = Map::new();
    internal.insert("type".into(), Value::String("function".into()));
    internal.insert("function".into(), Value::Object(function));
    out.insert("tool".into(), Value::Object(internal));

    if let Some(endpoint) = endpoint {
        out.insert("endpoint".into(), endpoint);
    }
    if let Some(context) = context {
        out.insert("context".into(), context);
    }
    if let Some(defaults) = &tool.defaults {
        out.insert("defaults".into(), write_defaults(defaults, notes));
    }
    if let Some(parameters) = &tool.static_parameters {
        out.insert(
            "static_parameters".into(),
            Value::Array(parameters.iter().map(write_static_parameter).collect()),
        );
    }
    if let Some(result) = &tool.fixed_result {
        out.insert("result".into(), result.clone());
    }
    if let Some(propagate) = tool.propagate_result {
        let mut options = Map::new();
        options.insert("propagate_tool_result".into(), Value::Bool(propagate));
        out.insert("options".into(), Value::Object(options));
    }
    for (key, value) in vendor.into_iter().flatten() {
        if key == "type" && kind_from_vendor {
            continue;
        }
        if out.contains_key(key) {
            notes.push(
                NoteKind::Dropped { keyword: key.clone() },
                Pointer::root().key("vendor").key(ID).key(key),
                format!("{key:?} is already written from the canonical tool; the vendor copy was left out"),
            );
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    note_uncarried(
        tool,
        &[
            "name",
            "description",
            "inputSchema",
            "run",
            "defaults",
            "staticParameters",
            "fixedResult",
            "propagateResult",
            "vendor",
        ],
        Format::Syllable,
        notes,
    );
    Ok(Value::Object(out))
}

/// The endpoint object, or `None` when Syllable has no such method (PATCH).
fn write_endpoint(run: &EndpointRun, run_at: &Pointer, notes: &mut Notes) -> Option<Value> {
    let method = match run.method {
        HttpMethod::Get => "get",
        HttpMethod::Post => "post",
        HttpMethod::Put => "put",
        HttpMethod::Delete => "delete",
        HttpMethod::Patch => return None,
    };
    let mut endpoint = Map::new();
    endpoint.insert("url".into(), Value::String(run.url.clone()));
    endpoint.insert("method".into(), Value::String(method.into()));
    let location = match run.argument_location {
        ArgumentLocation::Body => "body",
        ArgumentLocation::Form => "form",
        ArgumentLocation::Path => "path",
        ArgumentLocation::Query => "query",
    };
    endpoint.insert("argument_location".into(), Value::String(location.into()));
    if let Some(timeout) = run.timeout {
        endpoint.insert("timeout".into(), Value::from(timeout));
    }
    if run.headers.is_some() {
        notes.push(
            NoteKind::Dropped {
                keyword: "headers".into(),
            },
            run_at.key("headers"),
            "Syllable endpoints have no headers: authentication is configured on the tool's Service",
        );
    }
    Some(Value::Object(endpoint))
}

fn write_defaults(defaults: &IndexMap<String, ParameterDefault>, notes: &mut Notes) -> Value {
    let mut out = Map::new();
    for (key, default) in defaults {
        let mut value = default.to_value();
        if let ParameterDefault::Transform(Transform { when: Some(when), .. }) = default {
            let at = Pointer::root()
                .key("defaults")
                .key(key)
                .key("transform")
                .key("when");
            if !when.value.is_string() {
                let text = match &when.value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                notes.push(
                    NoteKind::Coerced {
                        from: describe(&when.value).to_string(),
                        to: "a string".into(),
                    },
                    at.key("value"),
                    format!("Syllable compares with a string value; wrote {text:?}"),
                );
                if let Some(condition) = value
                    .pointer_mut("/transform/when")
                    .and_then(Value::as_object_mut)
                {
                    condition.insert("value".into(), Value::String(text));
                }
            }
            if when.operator.as_deref().is_some_and(|operator| operator != "eq") {
                notes.push(
                    NoteKind::Unsupported {
                        keyword: "operator".into(),
                    },
                    at.key("operator"),
                    "Syllable compares with \"eq\" only and will reject this condition",
                );
            }
        }
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

fn write_static_parameter(parameter: &StaticParameter) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), Value::String(parameter.name.clone()));
    out.insert("required".into(), Value::Bool(parameter.required));
    let value_type = match parameter.value_type {
        StaticParameterType::String => "string",
        StaticParameterType::Integer => "int",
        StaticParameterType::Boolean => "boolean",
        StaticParameterType::DataSourceList => "data_source_list",
    };
    out.insert("type".into(), Value::String(value_type.into()));
    if let Some(description) = &parameter.description {
        out.insert("description".into(), Value::String(description.clone()));
    }
    if let Some(default) = &parameter.default {
        out.insert("default".into(), default.clone());
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_doc(doc: &Value) -> (Result<Tool>, Vec<String>) {
        let mut notes = Notes::new();
        let tool = read(Node::root(doc), &ReadOptions::default(), &mut notes);
        let lines = notes
            .iter()
            .map(|note| format!("{} {}", note.level, note.at))
            .collect();
        (tool, lines)
    }

    fn write_tool(tool: Value) -> (Value, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        let lines = notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level, note.at, note.message))
            .collect();
        (written, lines)
    }

    #[test]
    fn reads_the_seed_context_example() {
        let doc = json!({"type": "context", "tool": {"function": {"name": "set_language", "parameters": {
            "language": {"type": "string"}, "message": {"type": "string"}}}}});
        let (tool, notes) = read_doc(&doc);
        assert_eq!(
            tool.unwrap().to_value(),
            json!({"name": "set_language", "inputSchema": {"type": "object", "properties": {
                "language": {"type": "string"}, "message": {"type": "string"}}}, "run": {"kind": "context"}})
        );
        assert_eq!(notes, ["info /tool/function", "info /tool/function/parameters"]);
    }

    #[test]
    fn a_schema_is_not_mistaken_for_a_bare_map() {
        assert!(is_bare_properties(&json!({"city": {"type": "string"}})));
        assert!(!is_bare_properties(&json!({})));
        assert!(!is_bare_properties(&json!({"properties": {"city": {}}})));
        assert!(!is_bare_properties(&json!({"items": {}, "city": {}})));
        assert!(!is_bare_properties(&json!({"$defs": {}})));
        assert!(!is_bare_properties(&json!({"city": "string"})));
        let doc = json!({"tool": {"function": {"name": "t", "description": "d",
            "parameters": {"city": {"type": "text"}}}}});
        let (tool, _) = read_doc(&doc);
        assert_eq!(
            tool.unwrap_err().pointer().as_str(),
            "/tool/function/parameters/city/type"
        );
    }

    #[test]
    fn errors_name_the_place() {
        let function = json!({"name": "t", "description": "d", "parameters": {"type": "object"}});
        let with = |extra: Value| -> Value {
            let mut doc = json!({"tool": {"function": function.clone()}});
            for (key, value) in extra.as_object().unwrap() {
                doc.as_object_mut().unwrap().insert(key.clone(), value.clone());
            }
            doc
        };
        let endpoint = |method: &str, location: &str| {
            with(
                json!({"type": "endpoint", "endpoint": {"url": "https://x.test", "method": method, "argument_location": location}}),
            )
        };
        let cases = [
            (
                endpoint("patch", "body"),
                "invalid tool: \"method\" must be one of \"get\", \"post\", \"put\", \"delete\"; found \"patch\" (at /endpoint/method)",
            ),
            (
                endpoint("get", "header"),
                "invalid tool: \"argument_location\" must be one of \"body\", \"form\", \"path\", \"query\"; found \"header\" (at /endpoint/argument_location)",
            ),
            (
                with(json!({"defaults": {"city": {"transform": {"when": {"key": "city", "value": "Bronx", "operator": "ne"}}}}})),
                "invalid tool: \"operator\" must be \"eq\" (the only comparison Syllable has), found \"ne\" (at /defaults/city/transform/when/operator)",
            ),
            (
                with(json!({"defaults": {"city": {"transform": {"when": {"key": "city", "value": 3}}}}})),
                "invalid tool: \"value\" must be a string, found a number (at /defaults/city/transform/when/value)",
            ),
            (
                with(json!({"defaults": {"city": {"transform": {"action": "replace"}}}})),
                "invalid tool: \"action\" must be one of \"default\", \"override\", \"remove\"; found \"replace\" (at /defaults/city/transform/action)",
            ),
            (
                with(json!({"defaults": "<value>"})),
                "invalid tool: \"defaults\" must be an object mapping parameter names to values or {\"transform\": …}, found a string (at /defaults)",
            ),
            (
                with(json!({"type": "webhook"})),
                "invalid tool: \"type\" must be one of \"action\", \"endpoint\", \"context\", \"log\"; found \"webhook\" (at /type)",
            ),
            (
                json!({"tool": {"type": "retrieval", "function": function.clone()}}),
                "invalid tool: \"type\" must be \"function\", found a string (at /tool/type)",
            ),
            (
                json!({"tool": {"function": {"name": "", "description": "d"}}}),
                "invalid tool: \"name\" must not be empty (at /tool/function/name)",
            ),
            (
                with(json!({"type": "endpoint", "endpoint": {"url": "https://x.test", "method": "get", "argument_location": "query", "timeout": 0}})),
                "invalid tool: \"timeout\" must be a positive number of seconds, found a number (at /endpoint/timeout)",
            ),
            (
                with(json!({"static_parameters": [{"name": "a", "type": "float", "required": true}]})),
                "invalid tool: \"type\" must be one of \"string\", \"int\", \"boolean\", \"data_source_list\"; found \"float\" (at /static_parameters/0/type)",
            ),
            (
                with(json!({"static_parameters": [{"name": "a", "type": "string"}]})),
                "invalid tool: missing required field \"required\" (at /static_parameters/0)",
            ),
            (
                with(json!({"static_parameters": [{"name": "a", "type": "string", "required": true},
                    {"name": "a", "type": "int", "required": true}]})),
                "invalid tool: the static parameter \"a\" is defined twice (at /static_parameters/1/name)",
            ),
            (
                with(json!({"type": "context", "context": {"task": [{"type": "expression"}, {"type": "cron"}]}})),
                "invalid tool: \"type\" must be one of \"steps\", \"event\", \"expression\", \"import\"; found \"cron\" (at /context/task/1/type)",
            ),
            (
                with(json!({"options": {"propagate_tool_result": "yes"}})),
                "invalid tool: \"propagate_tool_result\" must be true or false, found a string (at /options/propagate_tool_result)",
            ),
        ];
        for (doc, expected) in cases {
            let (tool, _) = read_doc(&doc);
            assert_eq!(tool.unwrap_err().to_string(), expected, "{doc}");
        }
    }

    #[test]
    fn sloppy_spellings_and_unknown_keys_are_noted() {
        let doc = json!({"type": "endpoint",
            "tool": {"function": {"name": "t", "description": "", "parameters": {"type": "object"}, "strict": true}},
            "endpoint": {"url": "https://x.test", "method": "GET", "argumentLocation": "query", "headers": {}},
            "context": {"task": {"type": "event"}},
            "options": {"propagateToolResult": false, "cache": true},
            "service_id": 7});
        let mut notes = Notes::new();
        let tool = read(Node::root(&doc), &ReadOptions::default(), &mut notes).unwrap();
        let lines: Vec<String> = notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "loss: Syllable ignores \"strict\" here; left out (at /tool/function/strict)",
                "info: an empty description is read as none (at /tool/function/description)",
                "info: read the method \"GET\" as \"get\" (at /endpoint/method)",
                "info: read the TypeScript SDK spelling \"argumentLocation\" as \"argument_location\" (the JSON API uses snake_case) (at /endpoint/argumentLocation)",
                "loss: Syllable ignores \"headers\" here; left out (at /endpoint/headers)",
                "info: \"context\" is given but \"type\" is \"endpoint\"; kept for Syllable, where it has no effect (at /context)",
                "info: read the TypeScript SDK spelling \"propagateToolResult\" as \"propagate_tool_result\" (the JSON API uses snake_case) (at /options/propagateToolResult)",
                "loss: Syllable ignores \"cache\" here; left out (at /options/cache)",
                "info: \"service_id\" is not a ToolDefinition field; kept for Syllable (at /service_id)",
            ]
        );
        assert_eq!(tool.description, None);
        assert_eq!(tool.propagate_result, Some(false));
        assert_eq!(
            tool.vendor_fields(ID).unwrap(),
            json!({"context": {"task": {"type": "event"}}, "service_id": 7})
                .as_object()
                .unwrap()
        );
    }

    #[test]
    fn writes_the_current_shape() {
        let (written, notes) = write_tool(json!({
            "name": "move", "description": "Move an appointment.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "run": {"kind": "endpoint", "url": "https://x.test/{id}", "method": "put", "argumentLocation": "path", "timeout": 7.5},
            "defaults": {"id": {"transform": {"action": "remove"}}, "unit": "celsius"},
            "staticParameters": [{"name": "limit", "type": "integer", "default": 3}, {"name": "src", "type": "dataSourceList", "required": true}],
            "fixedResult": {"ok": true}, "propagateResult": false,
            "vendor": {"syllable": {"response_display": {"type": "card-list"}}}
        }));
        assert_eq!(
            written,
            json!({"type": "endpoint",
                "tool": {"type": "function", "function": {"name": "move", "description": "Move an appointment.",
                    "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}},
                "endpoint": {"url": "https://x.test/{id}", "method": "put", "argument_location": "path", "timeout": 7.5},
                "defaults": {"id": {"transform": {"action": "remove"}}, "unit": "celsius"},
                "static_parameters": [{"name": "limit", "required": false, "type": "int", "default": 3},
                    {"name": "src", "required": true, "type": "data_source_list"}],
                "result": {"ok": true},
                "options": {"propagate_tool_result": false},
                "response_display": {"type": "card-list"}})
        );
        assert_eq!(notes, Vec::<String>::new());
    }

    #[test]
    fn runs_syllable_cannot_execute_become_actions() {
        let cases = [
            (
                json!({"kind": "command", "program": "date"}),
                "loss /run: Syllable cannot run command tools; written as an action tool, so the host must implement it",
            ),
            (
                json!({"kind": "prompt", "template": "Hi {{name}}"}),
                "loss /run: Syllable cannot run prompt tools; written as an action tool, so the host must implement it",
            ),
            (
                json!({"kind": "endpoint", "url": "https://x.test", "method": "patch", "argumentLocation": "body"}),
                "loss /run/method: Syllable endpoints have no PATCH method; written as an action tool, so the host must make the call",
            ),
            (
                json!({"kind": "action", "handler": {"elisp": "#'my-fn"}}),
                "loss /run/handler: Syllable action tools carry no handler code; the host implements them",
            ),
        ];
        for (run, expected) in cases {
            let (written, notes) = write_tool(json!({"name": "t", "description": "d",
                "inputSchema": {"type": "object"}, "run": run}));
            assert_eq!(written["type"], "action");
            assert_eq!(written.get("endpoint"), None);
            assert_eq!(notes, [expected]);
        }
        let (written, notes) = write_tool(
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object"},
            "run": {"kind": "endpoint", "url": "https://x.test", "method": "get", "argumentLocation": "query",
                "headers": {"Authorization": "Bearer ${TOKEN}"}}}),
        );
        assert_eq!(
            written["endpoint"],
            json!({"url": "https://x.test", "method": "get", "argument_location": "query"})
        );
        assert_eq!(
            notes,
            ["loss /run/headers: Syllable endpoints have no headers: authentication is configured on the tool's Service"]
        );
    }

    #[test]
    fn placeholders_for_what_syllable_requires_or_compares_as_strings() {
        let (written, notes) = write_tool(json!({"name": "t", "inputSchema": {"type": "object"},
            "defaults": {"floor": {"transform": {"when": {"key": "minutes", "value": 60, "operator": "ne"}, "value": 2}}}}));
        assert_eq!(written["tool"]["function"]["description"], "");
        assert_eq!(written.get("type"), None);
        assert_eq!(
            written["defaults"],
            json!({"floor": {"transform": {"when": {"key": "minutes", "value": "60", "operator": "ne"}, "value": 2}}})
        );
        assert_eq!(
            notes,
            [
                "change /description: Syllable requires a description; wrote an empty one",
                "change /defaults/floor/transform/when/value: Syllable compares with a string value; wrote \"60\"",
                "error /defaults/floor/transform/when/operator: Syllable compares with \"eq\" only and will reject this condition",
            ]
        );
    }

    #[test]
    fn log_tools_keep_their_type_through_the_vendor_fields() {
        let doc = json!({"type": "log", "tool": {"type": "function", "function": {"name": "note_it",
            "description": "Record it.", "parameters": {"type": "object"}}}});
        let (tool, notes) = read_doc(&doc);
        let tool = tool.unwrap();
        assert_eq!(tool.run, None);
        assert_eq!(notes, ["info /type"]);
        let mut notes = Notes::new();
        assert_eq!(write(&tool, &WriteOptions::default(), &mut notes).unwrap(), doc);
        assert!(notes.is_empty());
        let mut action = tool.clone();
        action.run = Some(Run::Action(ActionRun::default()));
        let written = write(&action, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(written["type"], "action");
        assert_eq!(
            notes.iter().map(|note| note.at.as_str()).collect::<Vec<_>>(),
            ["/vendor/syllable/type"]
        );
    }
}
