//! Our Syllable output is checked by Syllable's own models: every fixture
//! that reads (Syllable, SkyDeck and canonical ones) and a set of canonical
//! tools covering every run kind, argument location, transform and static
//! parameter type are written as Syllable `ToolDefinition`s and validated by
//! `tests/sdk/check_syllable.py` with the `syllable-sdk` Python package.
//!
//! The interpreter is `$TOOLBRIDGE_SDK_PYTHON`, else `<workspace>/.venv/bin/python`
//! (`scripts/test` sets it up). Without it the test fails and says how to
//! create it: it never passes by skipping.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

use serde_json::{json, Value};
use toolbridge::{Format, ReadOptions, Tool, WriteOptions};

const SETUP: &str = "create it from the workspace root with\n    python3 -m venv .venv && \
     .venv/bin/pip install -r crates/toolbridge/tests/sdk/requirements.txt\n\
     or point TOOLBRIDGE_SDK_PYTHON at a Python that has syllable-sdk installed";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    let python = match env::var_os("TOOLBRIDGE_SDK_PYTHON") {
        Some(path) => PathBuf::from(path),
        None => workspace_root().join(".venv/bin/python"),
    };
    assert!(
        python.exists(),
        "the Syllable SDK check needs a Python interpreter at {}; {SETUP}",
        python.display()
    );
    python
}

/// Canonical tools that exercise every part of the Syllable writer.
fn canonical_tools() -> Vec<Tool> {
    let schema = json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]});
    let mut tools: Vec<Value> = [
        ("get", "query"),
        ("post", "body"),
        ("put", "path"),
        ("delete", "form"),
    ]
    .into_iter()
    .map(|(method, location)| {
        json!({"name": format!("{method}_by_{location}"), "description": "Call the records API.",
                "inputSchema": schema,
                "run": {"kind": "endpoint", "url": "https://records.example.com/api/{id}", "method": method,
                    "argumentLocation": location, "timeout": 5}})
    })
    .collect();
    tools.extend([
        json!({"name": "set_mood", "description": "Set the session mood.", "inputSchema": schema,
            "run": {"kind": "context", "task": {"type": "expression", "version": "v1alpha",
                "expression": {"type": "cel", "expression": "{'vars.mood': inputs.id}"}}},
            "fixedResult": {"saved": true}, "propagateResult": true}),
        json!({"name": "seed_context", "inputSchema": {"type": "object"}, "run": {"kind": "context"},
            "fixedResult": "Now speaking French."}),
        json!({"name": "book", "description": "Book a room.", "inputSchema": {"type": "object",
                "properties": {"room": {"type": "string"}, "minutes": {"type": "integer"}, "greeting": {"type": "string"}}},
            "defaults": {
                "minutes": 30,
                "room": {"transform": {"when": {"key": "room", "value": "Board"}, "action": "override", "value": "Boardroom"}},
                "floor": {"transform": {"when": {"key": "minutes", "value": 60, "operator": "eq"}, "value": 2}},
                "greeting": {"transform": {"format": "Hello, {name}!"}},
                "secret": {"transform": {"action": "remove"}},
                "empty": {"transform": {}}
            },
            "staticParameters": [
                {"name": "code", "type": "string", "required": true, "description": "Clinic code."},
                {"name": "limit", "type": "integer", "default": 3},
                {"name": "notify", "type": "boolean", "default": false},
                {"name": "sources", "type": "dataSourceList", "default": ["faq", "policies"]}
            ]}),
        json!({"name": "record_call", "description": "Record the call outcome.", "inputSchema": schema,
            "vendor": {"syllable": {"type": "log"}}}),
        json!({"name": "run_script", "description": "Run a script.", "inputSchema": schema,
            "run": {"kind": "command", "program": "/usr/local/bin/report", "args": ["--json"]}}),
        json!({"name": "patch_record", "description": "Patch a record.", "inputSchema": schema,
            "run": {"kind": "endpoint", "url": "https://records.example.com/api/{id}", "method": "patch",
                "argumentLocation": "body", "headers": {"Authorization": "Bearer ${TOKEN}"}}}),
        json!({"name": "summarize", "inputSchema": {"type": "object"}, "run": {"kind": "prompt", "template": "Summarize."}}),
    ]);
    tools
        .into_iter()
        .map(|value| serde_json::from_value(value).expect("a canonical tool"))
        .collect()
}

fn fixture_tools() -> Vec<Tool> {
    let mut tools = Vec::new();
    for format in ["syllable", "skydeck", "toolbridge"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(format);
        let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| !common::is_error_fixture(path))
            .collect();
        paths.sort();
        for path in paths {
            let text = fs::read_to_string(&path).unwrap();
            let options = ReadOptions::default().with_from(common::fixture_format(&path));
            tools.extend(
                toolbridge::read(&text, &options)
                    .unwrap()
                    .into_converted()
                    .unwrap()
                    .value,
            );
        }
    }
    tools
}

#[test]
fn syllable_output_validates_with_the_syllable_sdk() {
    let python = python();
    let mut tools = fixture_tools();
    tools.extend(canonical_tools());
    let written = toolbridge::write(&tools, Format::Syllable, &WriteOptions::default());
    for tool in &written.tools {
        if let Err(err) = &tool.result {
            panic!("{} was not written: {err}", tool.name);
        }
    }
    let output = written.output();
    let entries = output.as_json().and_then(Value::as_array).unwrap();
    assert_eq!(entries.len(), tools.len());
    assert!(entries.len() > 30, "only {} entries", entries.len());

    let file = env::temp_dir().join(format!("toolbridge-sdk-syllable-{}.json", std::process::id()));
    fs::write(&file, written.output().to_text()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/check_syllable.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&file)
        .output()
        .unwrap_or_else(|err| panic!("could not run {}: {err}; {SETUP}", python.display()));
    let _ = fs::remove_file(&file);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => assert!(
            stdout.contains(&format!(
                "{0} of {0} ToolDefinition entries are valid",
                entries.len()
            )),
            "{stdout}"
        ),
        Some(3) => panic!(
            "{} cannot import syllable_sdk ({}); {SETUP}",
            python.display(),
            stderr.trim()
        ),
        _ => panic!("the Syllable SDK rejected our output:\n{stdout}{stderr}"),
    }
}
