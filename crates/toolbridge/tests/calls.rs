//! Whole responses: every fixture under `tests/fixtures/calls/<provider>/` is
//! read as its provider's response; the calls and the response's notes are
//! snapshotted together (`calls__<case>@<provider>.snap`), and `err_*`
//! fixtures snapshot their error. The quirks of providers.md §1c and §15.3
//! are pinned below with exact values, independently of the snapshots.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};
use toolbridge::call::{ArgumentsErrorKind, CallOptions, ToolCall};
use toolbridge::{ErrorKind, Format, NoteKind, Tool, WriteOptions};

fn provider(path: &Path) -> Format {
    let dir = path.parent().unwrap().file_name().unwrap().to_string_lossy();
    Format::from_id(&dir).unwrap()
}

fn is_error_fixture(path: &Path) -> bool {
    path.file_name().unwrap().to_string_lossy().starts_with("err_")
}

#[test]
fn fixtures_read_as_their_provider() {
    insta::glob!("fixtures/calls/*/*.json", |path| {
        let format = provider(path);
        let text = fs::read_to_string(path).unwrap();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_suffix(format.id());
        let _guard = settings.bind_to_scope();
        let body = match format.read_calls_text(&text, &CallOptions::default()) {
            Ok(read) => {
                assert!(!is_error_fixture(path), "{} should fail", path.display());
                let calls =
                    serde_json::to_string_pretty(&json!({"calls": read.value, "notes": read.notes})).unwrap();
                calls + "\n"
            }
            Err(err) => {
                assert!(is_error_fixture(path), "{} failed: {err}", path.display());
                format!("error: {err}\n")
            }
        };
        insta::assert_snapshot!(path.file_stem().unwrap().to_string_lossy().to_string(), body);
    });
}

fn read(provider: &str, case: &str) -> Vec<ToolCall> {
    read_with(provider, case, &CallOptions::default())
}

fn read_with(provider: &str, case: &str, options: &CallOptions) -> Vec<ToolCall> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/calls")
        .join(provider)
        .join(format!("{case}.json"));
    let text = fs::read_to_string(&path).unwrap();
    Format::from_id(provider)
        .unwrap()
        .read_calls_text(&text, options)
        .unwrap()
        .value
}

/// (id, provider id, name, arguments or the error's kind and raw text)
type Summary = (
    String,
    Option<String>,
    String,
    Result<Value, (ArgumentsErrorKind, String)>,
);

fn summary(calls: &[ToolCall]) -> Vec<Summary> {
    calls
        .iter()
        .map(|call| {
            (
                call.id.clone(),
                call.provider_id.clone(),
                call.name.clone(),
                call.arguments
                    .clone()
                    .map_err(|err| (err.kind(), err.raw().to_string())),
            )
        })
        .collect()
}

fn ok(id: &str, provider_id: Option<&str>, name: &str, arguments: Value) -> Summary {
    (id.into(), provider_id.map(Into::into), name.into(), Ok(arguments))
}

fn failed(id: &str, name: &str, kind: ArgumentsErrorKind, raw: &str) -> Summary {
    (id.into(), Some(id.into()), name.into(), Err((kind, raw.into())))
}

#[test]
fn openai_documented_message_and_custom_calls() {
    assert_eq!(
        summary(&read("openai", "documented")),
        [
            ok(
                "call_abc123",
                Some("call_abc123"),
                "get_weather",
                json!({"city": "Paris"})
            ),
            ok(
                "call_ghi789",
                Some("call_ghi789"),
                "get_time",
                json!({"tz": "Europe/Zürich"})
            ),
        ]
    );
}

#[test]
fn empty_or_whitespace_or_absent_arguments_are_no_arguments() {
    let calls = read("openai", "empty_arguments");
    assert_eq!(
        summary(&calls),
        [
            ok("call_1", Some("call_1"), "list_files", json!({})),
            ok("call_2", Some("call_2"), "get_time", json!({})),
            ok("call_3", Some("call_3"), "ping", json!({})),
        ]
    );
    assert_eq!(calls[0].raw_arguments.as_deref(), Some(""));
    assert_eq!(calls[1].raw_arguments.as_deref(), Some("  \n "));
    // Absent is not the same as "": it is noted (hermes-agent #89246: a silent {} hides a failure).
    assert!(calls[0].notes.is_empty() && calls[1].notes.is_empty());
    assert_eq!(
        calls[2].notes[0].kind,
        NoteKind::Defaulted {
            field: "arguments".into()
        }
    );
}

#[test]
fn invalid_arguments_are_a_per_call_error_with_the_raw_text() {
    let calls = read("openai", "invalid_json");
    assert_eq!(
        summary(&calls),
        [
            ok("call_ok", Some("call_ok"), "get_weather", json!({"city": "Oslo"})),
            failed(
                "call_cut",
                "write_file",
                ArgumentsErrorKind::InvalidJson,
                "{\"path\":\"notes.md\",\"content\":\"# Títle\\nfirst li"
            ),
            failed("call_list", "sum", ArgumentsErrorKind::NotAnObject, "[1, 2, 3]"),
        ]
    );
    let err = calls[1].arguments.as_ref().unwrap_err();
    assert_eq!(
        err.to_string(),
        "arguments are not valid JSON: EOF while parsing a string (line 1, column 48)"
    );
}

#[test]
fn arguments_in_the_other_carrier_are_accepted_with_a_note() {
    let normalized = NoteKind::Normalized {
        field: "arguments".into(),
    };
    for (provider, case, arguments) in [
        (
            "openai",
            "arguments_object",
            json!({"city": "Kyiv", "unit": "celsius"}),
        ),
        ("openai", "double_encoded", json!({"city": "Lima"})),
        ("anthropic", "input_as_string", json!({"city": "Cairo"})),
        ("ollama", "arguments_as_string", json!({"city": "Berlin"})),
    ] {
        let calls = read(provider, case);
        assert_eq!(calls[0].arguments, Ok(arguments), "{provider}/{case}");
        assert_eq!(calls[0].notes.len(), 1, "{provider}/{case}");
        assert_eq!(calls[0].notes[0].kind, normalized, "{provider}/{case}");
    }
}

#[test]
fn reused_ids_are_made_unique_and_missing_ids_synthesised() {
    let calls = read("openai", "duplicate_ids");
    assert_eq!(
        summary(&calls),
        [
            ok(
                "call_0_7f3a",
                Some("call_0_7f3a"),
                "get_weather",
                json!({"city": "Paris"})
            ),
            ok(
                "call_0_7f3a_2",
                Some("call_0_7f3a"),
                "get_weather",
                json!({"city": "Rome"})
            ),
        ]
    );
    assert_eq!(
        calls[1].notes[0].kind,
        NoteKind::Renamed {
            from: "call_0_7f3a".into(),
            to: "call_0_7f3a_2".into()
        }
    );
    assert_eq!(
        calls[1].notes[0].at.as_str(),
        "/choices/0/message/tool_calls/1/id"
    );
    assert_eq!(
        summary(&read("openai", "no_ids")),
        [
            ok("call_0", None, "get_weather", json!({"city": "Paris"})),
            ok("call_1", None, "get_time", json!({})),
        ]
    );
    let prefixed = read_with(
        "openai",
        "no_ids",
        &CallOptions::default().with_id_prefix("turn3_"),
    );
    assert_eq!(prefixed[1].id, "turn3_1");
}

#[test]
fn extras_to_echo_back() {
    let gemini = read("gemini", "documented");
    assert_eq!(
        Value::Object(gemini[0].extras.clone()),
        json!({"thoughtSignature": "CiQB0e2Kb9e0jOw5rZ+/u8Fg3kQ5ZLh1c2lnbmF0dXJlPT0="})
    );
    assert!(gemini[1].extras.is_empty());
    let responses = read("openai-responses", "documented");
    assert_eq!(
        summary(&responses),
        [
            ok(
                "call_12345xyz",
                Some("call_12345xyz"),
                "get_weather",
                json!({"city": "Paris"})
            ),
            ok(
                "call_67890abc",
                Some("call_67890abc"),
                "get_weather",
                json!({"city": "Bogotá"})
            ),
        ]
    );
    assert_eq!(
        Value::Object(responses[1].extras.clone()),
        json!({"id": "fc_67890abc", "status": "completed", "caller": {"type": "direct"}})
    );
    let mcp = read("mcp", "documented");
    assert_eq!(
        Value::Object(mcp[0].extras.clone()),
        json!({"id": 2, "params": {"_meta": {"progressToken": "abc"}}})
    );
    let anthropic = read("anthropic", "documented");
    assert_eq!(anthropic.len(), 2, "server_tool_use is not a client call");
    assert_eq!(anthropic[1].id, "toolu_01A09q90qw90lq917835lq9");
}

#[test]
fn every_provider_reads_its_documented_response() {
    let cases: [(&str, &str, Vec<Summary>); 7] = [
        (
            "anthropic",
            "documented",
            vec![
                ok(
                    "toolu_01KFbKqPYSuAKujiL6mTfzYA",
                    Some("toolu_01KFbKqPYSuAKujiL6mTfzYA"),
                    "get_weather",
                    json!({"city": "Paris"}),
                ),
                ok(
                    "toolu_01A09q90qw90lq917835lq9",
                    Some("toolu_01A09q90qw90lq917835lq9"),
                    "get_time",
                    json!({}),
                ),
            ],
        ),
        (
            "gemini",
            "with_ids",
            vec![
                ok("fc-8f0e", Some("fc-8f0e"), "list_files", json!({})),
                ok("fc-8f0f", Some("fc-8f0f"), "set_volume", json!({"level": 5.0})),
            ],
        ),
        (
            "bedrock",
            "documented",
            vec![
                ok(
                    "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                    Some("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"),
                    "get_weather",
                    json!({"city": "Paris"}),
                ),
                ok(
                    "tooluse_2b3Qx9LmRJ6eAyJE5GIl8R",
                    Some("tooluse_2b3Qx9LmRJ6eAyJE5GIl8R"),
                    "get_time",
                    json!({}),
                ),
            ],
        ),
        (
            "ollama",
            "documented",
            vec![
                ok(
                    "call_k3x9q2ab",
                    Some("call_k3x9q2ab"),
                    "get_temperature",
                    json!({"city": "New York"}),
                ),
                ok("call_1", None, "get_conditions", json!({"city": "New York"})),
            ],
        ),
        (
            "mistral",
            "documented",
            vec![
                ok(
                    "D681PevKs",
                    Some("D681PevKs"),
                    "get_weather",
                    json!({"city": "Paris"}),
                ),
                ok(
                    "E792QfwLt",
                    Some("E792QfwLt"),
                    "get_weather",
                    json!({"city": "Lyon"}),
                ),
            ],
        ),
        (
            "cohere",
            "documented",
            vec![ok(
                "get_weather_1byjy32y4hvq",
                Some("get_weather_1byjy32y4hvq"),
                "get_weather",
                json!({"location": "Toronto"}),
            )],
        ),
        (
            "mcp",
            "batch",
            vec![
                ok(
                    "req-1",
                    Some("req-1"),
                    "github.search",
                    json!({"q": "toolbridge"}),
                ),
                ok("req-2", Some("req-2"), "ping", json!({})),
            ],
        ),
    ];
    for (provider, case, expected) in cases {
        assert_eq!(summary(&read(provider, case)), expected, "{provider}/{case}");
    }
}

#[test]
fn names_written_by_toolbridge_are_mapped_back() {
    let tools = [
        Tool::new("github.search", json!({"type": "object"})),
        Tool::new("ping", json!({"type": "object"})),
    ];
    let written = toolbridge::write(&tools, Format::Anthropic, &WriteOptions::default());
    let inverses: Vec<_> = written.tools.iter().map(|tool| tool.inverse.clone()).collect();
    assert_eq!(inverses[0].written_name, "github_search");
    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "github_search", "input": {"q": "x"}},
        {"type": "tool_use", "id": "toolu_2", "name": "ping", "input": {}},
        {"type": "tool_use", "id": "toolu_3", "name": "unknown_tool", "input": {}}]});
    let calls = Format::Anthropic
        .read_calls(&message, &CallOptions::default().with_inverses(&inverses))
        .unwrap()
        .value;
    let names: Vec<(&str, &str)> = calls
        .iter()
        .map(|call| (call.name.as_str(), call.provider_name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("github.search", "github_search"),
            ("ping", "ping"),
            ("unknown_tool", "unknown_tool")
        ]
    );
}

#[test]
fn responses_that_are_not_responses_fail_at_the_place() {
    let options = CallOptions::default();
    let cases = [
        (Format::OpenAi, json!([1]), "invalid response: the document must be an object, found an array"),
        (
            Format::Anthropic,
            json!({"content": [{"type": "tool_use", "id": true, "name": "f"}]}),
            "invalid response: \"id\" must be a string, found a boolean (at /content/0/id)",
        ),
        (
            Format::Bedrock,
            json!({"output": {"message": {"content": [{"toolUse": {"toolUseId": "a", "name": 7}}]}}}),
            "invalid response: \"name\" must be a string, found a number (at /output/message/content/0/toolUse/name)",
        ),
        (
            Format::Gemini,
            json!({"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}),
            "provider error: Resource has been exhausted ({\"error\":{\"code\":429,\"message\":\"Resource has been exhausted\",\"status\":\"RESOURCE_EXHAUSTED\"}})",
        ),
        (Format::Gptel, json!({}), "unknown format: gptel is not a provider with tool calls"),
    ];
    for (format, response, message) in cases {
        let err = format.read_calls(&response, &options).unwrap_err();
        assert_eq!(err.to_string(), message, "{format}");
    }
}

#[test]
fn limits_bound_the_response() {
    let options = CallOptions::default().with_limits(toolbridge::Limits::default().with_max_tools(1));
    let response = json!({"content": [
        {"type": "tool_use", "id": "a", "name": "f", "input": {}},
        {"type": "tool_use", "id": "b", "name": "f", "input": {}}]});
    let err = Format::Anthropic.read_calls(&response, &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "limit exceeded: the response has more than 1 calls (at /content/1)"
    );
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let err = Format::OpenAi
        .read_calls_text(&deep, &CallOptions::default())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    let options = CallOptions::default().with_limits(toolbridge::Limits::default().with_max_depth(3));
    let calls = Format::Anthropic
        .read_calls(
            &json!({"content": [{"type": "tool_use", "id": "a", "name": "f", "input": "{\"a\": [[[[1]]]]}"}]}),
            &options,
        )
        .unwrap()
        .value;
    assert_eq!(
        calls[0].arguments.as_ref().unwrap_err().kind(),
        ArgumentsErrorKind::TooDeep
    );
}
