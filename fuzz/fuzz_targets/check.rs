#![no_main]
//! Any argument text, sent under any of the tools' names, through the
//! Toolbox (repair, the writer's inverse undone, defaults and transforms,
//! coercion, validation): no panic, no hang; an accepted call's arguments
//! are an object, a rejection names at least one violation, and every
//! message, note, native value and error result prints.
//!
//! The first byte picks the target the tools were written for (OpenAI
//! strict mode, Gemini, Mistral) and the name the call uses; the rest is
//! the arguments' text, as OpenAI Chat sends it (a JSON string).
use std::sync::OnceLock;

use serde_json::json;
use toolbridge::call::{CallOptions, ToolCall};
use toolbridge::{Checked, ElispDecoding, Format, ReadOptions, Tool, Toolbox, WriteOptions};

const TARGETS: [Format; 3] = [Format::OpenAi, Format::Gemini, Format::Mistral];

fn tools() -> Vec<Tool> {
    let mcp = json!({"tools": [
        {"name": "github.search_issues", "inputSchema": {"type": "object",
            "properties": {
                "repository": {"type": "string", "pattern": "^[\\w.-]+/[\\w.-]+$"},
                "state": {"enum": ["open", "closed", "all"], "default": "open"},
                "labels": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "created": {"type": "object", "properties": {
                    "from": {"type": "string", "format": "date"},
                    "to": {"type": ["string", "null"], "format": "date"}}},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "filter": {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": true}]},
                "extra": {"type": "object", "additionalProperties": {"type": "number"}}},
            "required": ["repository"], "additionalProperties": false}}
    ]});
    // Roots a provider cannot take as they are (lowered by the writers,
    // restored by the Toolbox).
    let pair = Tool::new(
        "pair",
        json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}),
    );
    let either = Tool::new(
        "either",
        json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "boolean"}}, "required": ["b"]}]}),
    );
    let syllable = json!({"type": "endpoint",
        "tool": {"type": "function", "function": {"name": "find_hospital", "description": "Find a hospital.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string"}, "hospital": {"type": "string"},
                "name": {"type": "string"}, "hello": {"type": "string"}}}}},
        "endpoint": {"url": "https://example.com/hospitals", "method": "get", "argument_location": "query"},
        "defaults": {"hospital": "Queens Hospital",
            "hello": {"transform": {"format": "Hello, {name}! {{{city}}}", "when": {"key": "city", "value": "Queens"}}},
            "name": {"transform": {"action": "override", "value": "Ada"}}}});
    [(mcp, Format::Mcp), (syllable, Format::Syllable)]
        .into_iter()
        .flat_map(|(document, format)| {
            let read = toolbridge::read(&document.to_string(), &ReadOptions::default().with_from(format))
                .expect("the fuzz tools read");
            read.tools
                .into_iter()
                .map(|tool| tool.expect("each fuzz tool reads").value)
        })
        .chain([pair, either])
        .collect()
}

/// For each target: its Toolbox and the names a call may use (each tool's
/// canonical and written name, and one no tool has).
fn toolboxes() -> &'static [(Format, Toolbox, Vec<String>)] {
    static TOOLBOXES: OnceLock<Vec<(Format, Toolbox, Vec<String>)>> = OnceLock::new();
    TOOLBOXES.get_or_init(|| {
        let tools = tools();
        TARGETS
            .into_iter()
            .map(|target| {
                let written = toolbridge::write(&tools, target, &WriteOptions::default().with_strict(true));
                let mut names: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
                names.extend(written.tools.iter().map(|tool| tool.inverse.written_name.clone()));
                names.push("github_search_issue".into());
                let toolbox = Toolbox::new(tools.clone())
                    .expect("the fuzz tools differ")
                    .with_written(&written);
                (target, toolbox, names)
            })
            .collect()
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(arguments) = std::str::from_utf8(rest) else {
        return;
    };
    let toolboxes = toolboxes();
    let (target, toolbox, names) = &toolboxes[usize::from(pick) % toolboxes.len()];
    let name = &names[usize::from(pick / 3) % names.len()];
    let response = json!({"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [
        {"id": "call_0", "type": "function", "function": {"name": name, "arguments": arguments}}]}}]});
    let Ok(read) = Format::OpenAi.read_calls(&response, &CallOptions::default()) else {
        return;
    };
    let calls: Vec<ToolCall> = read.value;
    for (call, checked) in calls.iter().zip(toolbox.check_all(&calls)) {
        match &checked {
            Checked::Accepted(accepted) => {
                assert!(accepted.arguments.is_object());
                accepted.notes.iter().for_each(|note| drop(note.to_string()));
                let decoding = [
                    ElispDecoding::GptelString,
                    ElispDecoding::GptelBody,
                    ElispDecoding::LlmString,
                ][usize::from(pick) % 3];
                drop(accepted.to_elisp(decoding));
                drop(accepted.to_r());
            }
            Checked::Rejected(rejection) => {
                assert!(!rejection.violations.is_empty());
                assert!(!rejection.message.is_empty());
                rejection.notes.iter().for_each(|note| drop(note.to_string()));
                let result = rejection.to_result(call);
                drop(target.write_results(&[result]));
            }
        }
        drop(serde_json::to_string(&checked));
    }
});
