//! The ellmer writer checked with a real R (`Rscript`, Debian's `r-base-core`
//! with `r-cran-jsonlite`): the written file must parse, and evaluated against
//! stand-ins for ellmer's functions (`tests/r/ellmer_check.R`, written from
//! ellmer's documented contract) it must give exactly the JSON Schema and
//! annotations of the canonical tool, apart from what ellmer itself adds
//! (applied explicitly below: `description: ""` where there is none, and
//! `required` plus `additionalProperties: false` on every `type_object()` and
//! on the arguments) and the writer's documented, noted rewrites. The harness
//! also serialises every tool as ellmer does for OpenAI (strict) and Gemini
//! and stops on anything either would refuse, so every fixture of every
//! format written as ellmer is checked against both.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Map, Value};
use toolbridge::{Format, ReadOptions, Tool, WriteOptions};

/// One tool to check, and what ellmer must send for it.
struct Case {
    tool: Value,
    /// Places in the input schema written with `type_from_schema()`: sent as they are.
    verbatim: &'static [&'static str],
    /// Places the writer expressed otherwise (keywords after the description,
    /// JSON text): sent like this.
    rewritten: Vec<(&'static str, Value)>,
}

fn cases() -> Vec<Case> {
    let seed = std::fs::read_to_string(fixture("tool_rnorm.R")).unwrap();
    let rnorm = toolbridge::read(&seed, &ReadOptions::default().with_origin("tool_rnorm.R"))
        .unwrap()
        .into_converted()
        .unwrap()
        .value
        .remove(0);
    vec![
        Case {
            tool: rnorm.to_value(),
            verbatim: &[],
            rewritten: vec![],
        },
        Case {
            tool: json!({
                "name": "add-event",
                "title": "Add event",
                "description": "Add an event to the calendar.",
                "inputSchema": {"type": "object", "properties": {
                    "title": {"type": "string"},
                    "when": {"type": "object", "description": "When.", "properties": {
                        "date": {"type": "string", "description": "ISO date."},
                        "all_day": {"type": "boolean"}
                    }, "required": ["date"]},
                    "attendees": {"type": "array", "description": "People.", "items": {"type": "object", "properties": {
                        "email": {"type": "string"},
                        "role": {"type": "string", "enum": ["required", "optional"], "description": "Role."}
                    }, "required": ["email"]}},
                    "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
                    "reminder": {"type": "string", "enum": ["none", "10m", "1h"]},
                    "place": {"type": "object", "properties": {"room": {"type": "integer"}}, "required": ["room"]}
                }, "required": ["title", "when", "attendees"]},
                "annotations": {"destructiveHint": false}
            }),
            verbatim: &[],
            rewritten: vec![],
        },
        Case {
            tool: json!({
                "name": "book_room",
                "description": "Book a room.",
                "inputSchema": {"type": "object", "properties": {
                    "start": {"type": "string", "format": "date-time"},
                    "minutes": {"type": "integer", "minimum": 15, "maximum": 480, "multipleOf": 15},
                    "note": {"type": ["string", "null"], "maxLength": 200},
                    "filter": {"anyOf": [{"type": "object", "properties": {"sku": {"type": "string"}}}, {"type": "null"}]},
                    "opts": {"type": "object", "properties": {"when": {"type": "string", "pattern": "^[0-9]+$"}}},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "anything": true,
                    "tree": {"$ref": "#/$defs/node"}
                }, "required": ["start", "minutes", "tree", "anything"],
                "$defs": {"node": {"type": "object", "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                }}}}
            }),
            // Only start's JSON is in both OpenAI strict mode's and Gemini's subsets;
            // the rest is said with type_*() (keywords after the description), or
            // as JSON text where type_*() has no form for it.
            verbatim: &["/properties/start"],
            rewritten: vec![
                (
                    "/properties/minutes",
                    json!({"type": "integer", "description": "JSON Schema: {\"minimum\":15,\"maximum\":480,\"multipleOf\":15}"}),
                ),
                (
                    "/properties/note",
                    json!({"type": "string", "description": "JSON Schema: {\"maxLength\":200}"}),
                ),
                (
                    "/properties/filter",
                    json!({"type": "object", "description": "", "properties": {"sku": {"type": "string", "description": ""}},
                           "required": [], "additionalProperties": false}),
                ),
                (
                    "/properties/opts/properties/when",
                    json!({"type": "string", "description": "JSON Schema: {\"pattern\":\"^[0-9]+$\"}"}),
                ),
                (
                    "/properties/tags/items",
                    json!({"type": "string", "description": "JSON Schema: {\"minLength\":1}"}),
                ),
                (
                    "/properties/anything",
                    json!({"type": "string", "description": "A string holding JSON that matches this JSON Schema: {}"}),
                ),
                (
                    "/properties/tree",
                    json!({"type": "object", "description": "", "properties": {
                        "label": {"type": "string", "description": ""},
                        "children": {"type": "array", "description": "", "items": {"type": "string", "description":
                            "A string holding JSON that matches this JSON Schema: {\"$ref\":\"#/$defs/node\",\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"label\":{\"type\":\"string\"},\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}}}}}"}}
                    }, "required": [], "additionalProperties": false}),
                ),
            ],
        },
        Case {
            tool: json!({
                "name": "add",
                "description": "Add two numbers.",
                "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x"]},
                "run": {"kind": "action", "handler": {"r": "function(x, y = 2, verbose = FALSE) {\n  x + y\n}"}},
                "vendor": {"ellmer": {"convert": false, "ignore": ["verbose"]}}
            }),
            verbatim: &[],
            rewritten: vec![],
        },
        Case {
            tool: json!({
                "name": "odd_names",
                "title": "Odd \"names\"",
                "description": "Quotes \" and ', back\\slash, tab\t, newline\n, bell\u{7}, é, 😀, `tick`.",
                "inputSchema": {"type": "object", "properties": {
                    "if": {"type": "boolean", "description": "A reserved word."},
                    "with space": {"type": "string", "description": "say \"hi\"\\n"},
                    "naïve": {"type": "integer"},
                    ".hidden": {"type": "object", "properties": {"in": {"type": "string"}, "x-y": {"type": "number"}}, "required": ["in"]}
                }, "required": ["if"]},
                "annotations": {"readOnlyHint": true, "openWorldHint": false, "idempotentHint": true,
                    "x-owner": "tools", "tags": ["a", "b"], "limits": {"per_day": 10, "ratio": 0.5}, "read": "partial-name extra"}
            }),
            verbatim: &[],
            rewritten: vec![],
        },
        Case {
            tool: json!({"name": "ping", "inputSchema": {"type": "object"}}),
            verbatim: &[],
            rewritten: vec![],
        },
    ]
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ellmer")
        .join(name)
}

/// Runs the harness on `text`; its JSON output.
fn run_r(text: &str, label: &str) -> Value {
    let dir = std::env::temp_dir().join(format!("toolbridge-r-ellmer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{label}.R"));
    std::fs::write(&file, text).unwrap();
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/r/ellmer_check.R");
    let output = Command::new("Rscript")
        .arg("--vanilla")
        .arg(&harness)
        .arg(&file)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run Rscript ({err}): the ellmer check needs R; install r-base-core and r-cran-jsonlite \
                 (Debian: apt-get install r-base-core r-cran-jsonlite)"
            )
        });
    assert!(
        output.status.success(),
        "Rscript failed on the written R ({}):\n{}\n--- the file ---\n{text}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let sent = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "the harness printed no JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    let _ = std::fs::remove_file(&file);
    sent
}

/// Runs the harness on `text`, which it must refuse; its message.
fn run_r_refused(text: &str, label: &str) -> String {
    let dir = std::env::temp_dir().join(format!("toolbridge-r-ellmer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{label}.R"));
    std::fs::write(&file, text).unwrap();
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/r/ellmer_check.R");
    let output = Command::new("Rscript")
        .arg("--vanilla")
        .arg(&harness)
        .arg(&file)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("the ellmer check needs Rscript");
    let _ = std::fs::remove_file(&file);
    assert!(!output.status.success(), "the harness accepted {text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    stderr.lines().next().unwrap_or_default().to_string()
}

#[test]
fn the_r_check_refuses_what_openai_strict_mode_or_gemini_refuse() {
    let cases = [
        (
            "tool(function(x) NULL, 'd', arguments = list(x = type_from_schema('{\"type\": \"object\"}')), name = 't')",
            "Error: OpenAI strict mode refuses tool t parameters/properties/x: additionalProperties is not false",
        ),
        (
            "tool(function(x) NULL, 'd', arguments = list(x = type_from_schema('{\"type\": \"string\", \"const\": \"a\"}')), name = 't')",
            "Error: Gemini refuses tool t parameters/properties/x: unknown field const",
        ),
        (
            "tool(function(x) NULL, 'd', arguments = list(x = type_from_schema('{\"type\": \"string\", \"minLength\": 1}')), name = 't')",
            "Error: OpenAI strict mode refuses tool t parameters/properties/x: unsupported keyword minLength",
        ),
        (
            "tool(function(x) NULL, 'd', arguments = list(x = type_from_schema('{\"type\": [\"string\", \"null\"]}')), name = 't')",
            "Error: Gemini refuses tool t parameters/properties/x: type is not one name",
        ),
        (
            "tool(function(x) NULL, 'd', arguments = list(x = type_from_schema('{}')), name = 't')",
            "Error: OpenAI strict mode refuses tool t parameters/properties/x: not a schema object",
        ),
    ];
    for (index, (text, expected)) in cases.iter().enumerate() {
        assert_eq!(
            run_r_refused(text, &format!("refused-{index}")),
            *expected,
            "{text}"
        );
    }
}

/// What ellmer sends for `schema` found at `at` (a pointer in the input schema).
fn ellmer_view(schema: &Value, at: &str, case: &Case) -> Value {
    if let Some((_, rewritten)) = case.rewritten.iter().find(|(place, _)| *place == at) {
        return rewritten.clone();
    }
    if case.verbatim.contains(&at) {
        return schema.clone();
    }
    let mut out = schema.as_object().cloned().unwrap_or_default();
    out.shift_remove("$defs");
    out.entry("description").or_insert(json!(""));
    match out.get("type").and_then(Value::as_str) {
        Some("object") => {
            let required: Vec<String> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|name| name.as_str().map(str::to_string))
                .collect();
            let mut properties = Map::new();
            let mut in_order = Vec::new();
            for (name, child) in schema["properties"].as_object().into_iter().flatten() {
                let place = format!("{at}/properties/{name}");
                properties.insert(name.clone(), ellmer_view(child, &place, case));
                if required.contains(name) {
                    in_order.push(json!(name));
                }
            }
            out.insert("properties".into(), Value::Object(properties));
            out.insert("required".into(), Value::Array(in_order));
            out.insert("additionalProperties".into(), json!(false));
        }
        Some("array") => {
            let items = ellmer_view(&schema["items"], &format!("{at}/items"), case);
            out.insert("items".into(), items);
        }
        _ => {}
    }
    Value::Object(out)
}

/// The annotations ellmer holds: snake_case hints, the tool title when the
/// annotations have none, null extras dropped.
fn ellmer_annotations(tool: &Tool) -> Value {
    let mut out = Map::new();
    let annotations = tool.annotations.clone().unwrap_or_default();
    if let Some(title) = annotations.title.clone().or_else(|| tool.title.clone()) {
        out.insert("title".into(), json!(title));
    }
    for (camel, snake) in [
        ("readOnlyHint", "read_only_hint"),
        ("openWorldHint", "open_world_hint"),
        ("idempotentHint", "idempotent_hint"),
        ("destructiveHint", "destructive_hint"),
    ] {
        if let Some(flag) = annotations.hint(camel) {
            out.insert(snake.into(), json!(flag));
        }
    }
    for (key, value) in &annotations.extra {
        if !value.is_null() {
            out.insert(key.clone(), value.clone());
        }
    }
    Value::Object(out)
}

/// Numbers compared by value (jsonlite writes 1.0 as 1).
fn numbers_as_floats(value: &Value) -> Value {
    match value {
        Value::Number(number) => json!(number.as_f64().unwrap_or(f64::NAN)),
        Value::Array(items) => Value::Array(items.iter().map(numbers_as_floats).collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), numbers_as_floats(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn ellmer_output_runs_in_r_and_sends_the_canonical_schema() {
    let cases = cases();
    let tools: Vec<Tool> = cases
        .iter()
        .map(|case| serde_json::from_value(case.tool.clone()).unwrap())
        .collect();
    let written = toolbridge::write(&tools, Format::Ellmer, &WriteOptions::default());
    assert!(written.is_complete());
    let text = written.output().to_text();
    let sent = run_r(&text, "cases");
    let sent = sent.as_array().expect("the harness prints a list");
    assert_eq!(sent.len(), tools.len(), "{text}");
    for ((case, tool), sent) in cases.iter().zip(&tools).zip(sent) {
        let expected = json!({
            "name": tool.name,
            "description": tool.description.clone().unwrap_or_default(),
            "convert": tool.vendor_fields("ellmer").and_then(|fields| fields.get("convert")).cloned().unwrap_or(json!(true)),
            "parameters": ellmer_view(&tool.input_schema, "", case),
            "annotations": ellmer_annotations(tool),
        });
        assert_eq!(
            numbers_as_floats(sent),
            numbers_as_floats(&expected),
            "tool {}:\nR sent     {sent}\nexpected   {expected}\n--- written ---\n{text}",
            tool.name
        );
    }
}

#[test]
fn every_fixture_of_every_format_written_as_ellmer_runs_in_r() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut tools = Vec::new();
    let mut formats: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        // fixtures/repair (and later calls, streams) hold no tool files.
        .filter(|name| Format::from_id(name).is_ok())
        .collect();
    formats.sort();
    for format in &formats {
        // Calls and streams coming back are not tool definitions.
        if ["calls", "streams"].contains(&format.as_str()) {
            continue;
        }
        let from = Format::from_id(format).unwrap();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir.join(format))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| !path.file_name().unwrap().to_string_lossy().starts_with("err_"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let origin = path.file_name().unwrap().to_string_lossy().to_string();
            tools.extend(
                toolbridge::read(&text, &ReadOptions::default().with_from(from).with_origin(origin))
                    .unwrap()
                    .into_converted()
                    .unwrap()
                    .value,
            );
        }
    }
    for defaults in [false, true] {
        let options = WriteOptions::default().with_annotation_defaults(defaults);
        let written = toolbridge::write(&tools, Format::Ellmer, &options);
        assert!(written.is_complete());
        // The R functions the ellmer fixtures name (defined in their own files or,
        // for posit-dev/btw's, in other files of that package).
        let text = format!(
            "get_weather <- function(city, unit = \"celsius\", days = 1L) NULL\n\
             btw_tool_sessioninfo_platform_impl <- function() NULL\n\
             btw_tool_sessioninfo_package_impl <- function(packages, dependencies = NULL) NULL\n{}",
            written.output().to_text()
        );
        let sent = run_r(&text, if defaults { "fixtures-defaults" } else { "fixtures" });
        let names: Vec<&str> = sent
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        let expected: Vec<&str> = written
            .tools
            .iter()
            .enumerate()
            .map(|(index, tool)| written.names.target_at(index).unwrap_or(&tool.name))
            .collect();
        assert_eq!(names, expected, "{text}");
    }
}
