//! Reading: a Syllable `ToolDefinition` (current or seed-era) to a canonical tool.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::format::shared::{check_schema_value, read_input_schema, unrequire_filled};
use crate::json::describe;
use crate::json::{Entry, Node};
use crate::note::{NoteKind, Notes};
use crate::options::ReadOptions;
use crate::pointer::Pointer;
use crate::tool::{
    ActionRun, ArgumentLocation, Condition, ContextRun, EndpointRun, HttpMethod, ParameterDefault, Run,
    StaticParameter, StaticParameterType, Tool, Transform, TransformAction,
};

use super::ID;

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

/// Reads one `ToolDefinition`.
pub(super) fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
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
        unrequire_filled(&mut tool, &defaults.at, notes);
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
            NoteKind::Kept {
                key: key.as_str().into(),
            },
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
            NoteKind::Dropped { keyword: key.into() },
            node.at.key(key),
            format!("Syllable ignores {key:?} here; left out"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_doc(doc: &Value) -> (Result<Tool>, Vec<String>) {
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes);
        let lines = notes
            .iter()
            .map(|note| format!("{} {}", note.level(), note.at))
            .collect();
        (tool, lines)
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
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
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
}
