//! Writing: a canonical tool as a Syllable `ToolDefinition` in the current shape.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::format::shared::note_uncarried;
use crate::json::describe;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::{
    ArgumentLocation, EndpointRun, HttpMethod, ParameterDefault, Run, StaticParameter, StaticParameterType,
    Tool, Transform,
};

use super::record::RECORD_KEY;
use super::ID;

/// Writes one tool as a `ToolDefinition`.
pub(super) fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
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
        if (key == "type" && kind_from_vendor) || key == RECORD_KEY {
            continue;
        }
        if out.contains_key(key) {
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
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
    if let Some(locations) = &run.parameter_locations {
        notes.push(
            NoteKind::Dropped {
                keyword: "parameterLocations".into(),
            },
            run_at.key("parameterLocations"),
            format!(
                "Syllable endpoints have one argument_location for every argument; \
                 the locations of {} were dropped",
                locations
                    .keys()
                    .map(|name| format!("{name:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
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
                        from: describe(&when.value).into(),
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

    fn write_tool(tool: Value) -> (Value, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        let lines = notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level(), note.at, note.message))
            .collect();
        (written, lines)
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
            "run": {"kind": "endpoint", "url": "https://x.test/{id}", "method": "get", "argumentLocation": "query",
                "parameterLocations": {"token": "body"},
                "headers": {"Authorization": "Bearer ${TOKEN}"}}}),
        );
        assert_eq!(
            written["endpoint"],
            json!({"url": "https://x.test/{id}", "method": "get", "argument_location": "query"})
        );
        assert_eq!(
            notes,
            ["loss /run/parameterLocations: Syllable endpoints have one argument_location for every argument; the locations of \"token\" were dropped",
             "loss /run/headers: Syllable endpoints have no headers: authentication is configured on the tool's Service"]
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
}
