//! Results going back: each provider's shape, exact (providers.md §10.4),
//! ids mapped where a provider restricts them, and a rejection as the
//! error result the model reads.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Map, Value};
use toolbridge::call::{CallOptions, IdMap, ToolCall, ToolResult};
use toolbridge::{Format, NoteKind, Tool, Toolbox};

/// Two parallel calls: one answered with JSON, one failed.
fn two_results(first_id: &str, second_id: &str) -> Vec<ToolResult> {
    let weather = ToolCall::new(first_id, "get_weather", json!({"city": "Paris"}));
    let time = ToolCall::new(second_id, "get_time", json!({"tz": "Mars"}));
    vec![
        ToolResult::json(&weather, json!({"temp_c": 14})),
        ToolResult::error(&time, "timezone not found"),
    ]
}

/// A toolbox of one tool, `get_weather(city: string)`.
fn weather_toolbox() -> Toolbox {
    let tool = Tool::new(
        "get_weather",
        json!({"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}),
    );
    Toolbox::new([tool]).unwrap()
}

/// The calls of a `format` response.
fn read_calls(format: Format, response: &Value) -> Vec<ToolCall> {
    format
        .read_calls(response, &CallOptions::default())
        .unwrap()
        .value
}

fn write(format: Format, results: &[ToolResult]) -> Value {
    let written = format.write_results(results).unwrap();
    assert_eq!(written.notes, [], "{format}");
    written.value
}

#[test]
fn openai_chat_one_tool_message_per_call() {
    assert_eq!(
        write(Format::OpenAi, &two_results("call_abc123", "call_def456")),
        json!([
            {"role": "tool", "tool_call_id": "call_abc123", "content": "{\"temp_c\":14}"},
            {"role": "tool", "tool_call_id": "call_def456", "content": "timezone not found"}
        ])
    );
}

#[test]
fn responses_function_call_output_items() {
    assert_eq!(
        write(Format::OpenAiResponses, &two_results("call_1", "call_2")),
        json!([
            {"type": "function_call_output", "call_id": "call_1", "output": "{\"temp_c\":14}"},
            {"type": "function_call_output", "call_id": "call_2", "output": "timezone not found"}
        ])
    );
}

#[test]
fn anthropic_one_user_message_with_is_error() {
    assert_eq!(
        write(Format::Anthropic, &two_results("toolu_01", "toolu_02")),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "{\"temp_c\":14}", "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_02", "content": "timezone not found", "is_error": true}
        ]})
    );
}

#[test]
fn gemini_function_responses_output_and_error_id_only_when_sent() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"},
        {"functionCall": {"name": "get_time", "args": {"tz": "Mars"}}}]}}]});
    let calls = read_calls(Format::Gemini, &response);
    let results = [
        ToolResult::json(&calls[0], json!({"temp_c": 14})),
        ToolResult::error(&calls[1], "timezone not found"),
    ];
    let expected = json!({"role": "user", "parts": [
        {"functionResponse": {"name": "get_weather", "id": "fc-1", "response": {"output": {"temp_c": 14}}}},
        {"functionResponse": {"name": "get_time", "response": {"error": "timezone not found"}}}
    ]});
    assert_eq!(write(Format::Gemini, &results), expected);
    assert_eq!(write(Format::GeminiJson, &results), expected);
    // The signature stays with the call, to be echoed on its functionCall part.
    assert_eq!(calls[0].extras["thoughtSignature"], "c2ln");
}

#[test]
fn gemini_text_output_and_text_with_json() {
    let call = ToolCall::new("fc-1", "get_weather", json!({}));
    assert_eq!(
        write(
            Format::Gemini,
            &[ToolResult::text(&call, "14 degrees").with_structured(json!({"temp_c": 14}))]
        ),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "id": "fc-1",
            "response": {"output": {"text": "14 degrees", "data": {"temp_c": 14}}}}}]})
    );
}

#[test]
fn bedrock_tool_results_with_json_blocks_and_status() {
    assert_eq!(
        write(
            Format::Bedrock,
            &two_results("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "tooluse_other")
        ),
        json!({"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "content": [{"json": {"temp_c": 14}}], "status": "success"}},
            {"toolResult": {"toolUseId": "tooluse_other", "content": [{"text": "timezone not found"}], "status": "error"}}
        ]})
    );
}

#[test]
fn bedrock_maps_an_id_outside_its_pattern_with_a_note() {
    let call = ToolCall::new("call 0", "get_weather", json!({}));
    let written = Format::Bedrock
        .write_results(&[ToolResult::text(&call, "ok")])
        .unwrap();
    let wire = written.value["content"][0]["toolResult"]["toolUseId"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(wire.starts_with("tooluse_") && wire.len() == 30, "{wire}");
    assert_eq!(
        written.notes[0].kind,
        NoteKind::Renamed {
            from: "call 0".into(),
            to: wire.into()
        }
    );
    assert_eq!(written.notes[0].at.as_str(), "/0");
}

#[test]
fn mcp_call_tool_results_with_structured_content() {
    assert_eq!(
        write(Format::Mcp, &two_results("2", "3")),
        json!([
            {"content": [{"type": "text", "text": "{\"temp_c\":14}"}], "structuredContent": {"temp_c": 14}, "isError": false},
            {"content": [{"type": "text", "text": "timezone not found"}], "isError": true}
        ])
    );
}

#[test]
fn ollama_tool_messages_by_tool_name_without_ids() {
    let response = json!({"model": "llama3.1", "done": true, "message": {"role": "assistant", "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                       {"id": "call_k3xq9z1p", "function": {"name": "get_time", "arguments": {"tz": "Mars"}}}]}});
    let calls = read_calls(Format::Ollama, &response);
    let results = [
        ToolResult::text(&calls[0], "14 degrees"),
        ToolResult::error(&calls[1], "timezone not found"),
    ];
    assert_eq!(
        write(Format::Ollama, &results),
        json!([
            {"role": "tool", "tool_name": "get_weather", "content": "14 degrees"},
            {"role": "tool", "tool_name": "get_time", "content": "timezone not found"}
        ])
    );
}

#[test]
fn mistral_tool_messages_keep_valid_ids_and_map_others_both_ways() {
    assert_eq!(
        write(Format::Mistral, &two_results("D681PevKs", "x9Y8z7W6v")),
        json!([
            {"role": "tool", "tool_call_id": "D681PevKs", "name": "get_weather", "content": "{\"temp_c\":14}"},
            {"role": "tool", "tool_call_id": "x9Y8z7W6v", "name": "get_time", "content": "timezone not found"}
        ])
    );
    // Calls from another provider: their ids are replaced, the same way
    // every time, and the map gives the originals back.
    let mut ids = IdMap::new(Format::Mistral);
    let written = Format::Mistral
        .write_results_with(&two_results("call_0", "toolu_01A09q90qw90lq917835lq9"), &mut ids)
        .unwrap();
    let first = written.value[0]["tool_call_id"].as_str().unwrap();
    let second = written.value[1]["tool_call_id"].as_str().unwrap();
    for wire in [first, second] {
        assert!(
            wire.len() == 9 && wire.bytes().all(|b| b.is_ascii_alphanumeric()),
            "{wire}"
        );
    }
    assert_eq!(ids.original(first), Some("call_0"));
    assert_eq!(ids.original(second), Some("toolu_01A09q90qw90lq917835lq9"));
    assert_eq!(ids.wire("call_0"), first);
    assert_eq!(written.notes.len(), 2);
    assert_eq!(IdMap::new(Format::Mistral).wire("call_0"), first);
}

#[test]
fn cohere_tool_messages_with_documents() {
    assert_eq!(
        write(
            Format::Cohere,
            &two_results("get_weather_1byjy32y4hvq", "get_time_2")
        ),
        json!([
            {"role": "tool", "tool_call_id": "get_weather_1byjy32y4hvq",
             "content": [{"type": "document", "document": {"data": {"temp_c": 14}}}]},
            {"role": "tool", "tool_call_id": "get_time_2", "content": [{"type": "text", "text": "timezone not found"}]}
        ])
    );
}

#[test]
fn a_non_object_json_result_goes_as_text_where_an_object_is_required() {
    let call = ToolCall::new("c1", "list", json!({}));
    let result = [ToolResult::json(&call, json!([1, 2]))];
    assert_eq!(
        write(Format::Bedrock, &result)["content"][0]["toolResult"]["content"],
        json!([{"text": "[1,2]"}])
    );
    assert_eq!(
        write(Format::Mcp, &result)[0],
        json!({"content": [{"type": "text", "text": "[1,2]"}], "isError": false})
    );
    assert_eq!(
        write(Format::Gemini, &result)["parts"][0]["functionResponse"]["response"],
        json!({"output": [1, 2]})
    );
}

#[test]
fn formats_that_are_not_providers_have_no_results() {
    let error = Format::Gptel.write_results(&[]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown format: gptel is not a provider with tool results"
    );
}

#[test]
fn a_rejection_becomes_the_error_result_the_model_reads() {
    let toolbox = weather_toolbox();
    let response = json!({"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"town": "Paris"}}]});
    let calls = read_calls(Format::Anthropic, &response);
    let rejection = toolbox.check(&calls[0]).rejection().cloned().unwrap();
    let message = "The call to `get_weather` was rejected: 1 problem with its arguments.\n\
                   - missing required parameter `city` (string)\n\
                   Expected: get_weather(city: string)";
    assert_eq!(rejection.message, message);
    assert_eq!(
        write(Format::Anthropic, &[rejection.to_result(&calls[0])]),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": message, "is_error": true}]})
    );
}

/// The providers with results, each checked by `tests/sdk/check_results.py`.
const PROVIDERS: [Format; 10] = [
    Format::OpenAi,
    Format::OpenAiResponses,
    Format::Anthropic,
    Format::Gemini,
    Format::GeminiJson,
    Format::Bedrock,
    Format::Mcp,
    Format::Ollama,
    Format::Mistral,
    Format::Cohere,
];

/// Results of every kind: text, JSON object, JSON besides text, JSON that is
/// not an object, empty, an error, a rejection; ids from several providers
/// (mapped where the provider refuses them) and one the provider never sent.
fn every_kind_of_result() -> Vec<ToolResult> {
    let toolbox = weather_toolbox();
    let bad = ToolCall::new("toolu_01A09q90qw90lq917835lq9", "get_weather", json!({"city": 7}));
    let rejection = toolbox.check(&bad).rejection().cloned().unwrap();
    let gemini = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_time", "args": {}}}]}}]});
    let unnamed = read_calls(Format::Gemini, &gemini);
    let call = |id: &str| ToolCall::new(id, "get_weather", json!({"city": "Paris"}));
    vec![
        ToolResult::text(&call("call_abc123"), "14 degrees"),
        ToolResult::json(&call("D681PevKs"), json!({"temp_c": 14, "sky": ["clear"]})),
        ToolResult::text(&call("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"), "14 degrees")
            .with_structured(json!({"temp_c": 14})),
        ToolResult::json(&call("get_weather_1byjy32y4hvq"), json!([1, 2])),
        ToolResult::text(&call("call_empty"), ""),
        ToolResult::error(&call("call 9"), "city not found"),
        rejection.to_result(&bad),
        ToolResult::text(&unnamed[0], "12:00"),
    ]
}

fn sdk_python() -> PathBuf {
    std::env::var_os("TOOLBRIDGE_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"))
}

/// Every provider's results pass its own SDK's types (or botocore's
/// validator); a missing SDK fails the test, as in tests/sdk.rs.
#[test]
fn every_providers_results_pass_its_sdk() {
    let results = every_kind_of_result();
    let mut documents = Map::new();
    for format in PROVIDERS {
        let written = format.write_results(&results).unwrap();
        // Single results too: a lone one is its own message.
        let values = match &written.value {
            Value::Array(items) => items.clone(),
            value => vec![value.clone()],
        };
        documents.insert(format.to_string(), Value::Array(values));
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sdk");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&documents).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/check_results.py");
    let python = sdk_python();
    let output = Command::new(&python)
        .arg(&script)
        .arg(&path)
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run {} (scripts/test makes the venv): {err}",
                python.display()
            )
        });
    assert!(
        output.status.success(),
        "{} rejected results ({}):\n{}",
        script.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_provider_gets_every_result_in_order() {
    let results = every_kind_of_result();
    for format in PROVIDERS {
        let written = format.write_results(&results).unwrap();
        let count = match &written.value {
            Value::Array(items) => items.len(),
            Value::Object(message) => message
                .get("content")
                .or_else(|| message.get("parts"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
            _ => 0,
        };
        assert_eq!(count, results.len(), "{format}");
        // Only Mistral and Bedrock restrict ids; each replacement is noted.
        let renamed: Vec<String> = written.notes.iter().map(|note| note.at.to_string()).collect();
        let expected: &[&str] = match format {
            Format::Mistral => &["/0", "/2", "/3", "/4", "/5", "/6", "/7"],
            Format::Bedrock => &["/5"],
            _ => &[],
        };
        assert_eq!(renamed, expected, "{format}");
    }
}

/// A call given up to `check_owned` is still answered: the accepted call and
/// the rejection carry the provider's id and name, so their results equal
/// those answering the call itself — here Gemini's, which sends no id and
/// whose name must be echoed.
#[test]
fn calls_given_up_to_the_toolbox_are_answered_as_the_calls() {
    let toolbox = weather_toolbox();
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "get_weather", "args": {"town": "Paris"}}}]}}]});
    let calls = read_calls(Format::Gemini, &response);
    let checked: Vec<_> = calls
        .iter()
        .cloned()
        .map(|call| toolbox.check_owned(call))
        .collect();
    let accepted = checked[0].accepted().unwrap();
    assert_eq!(accepted.provider_id, None);
    assert_eq!(accepted.provider_name, "get_weather");
    let rejection = checked[1].rejection().unwrap();
    assert_eq!(
        [ToolResult::text(accepted, "14 degrees"), rejection.result()],
        [
            ToolResult::text(&calls[0], "14 degrees"),
            rejection.to_result(&calls[1])
        ]
    );
    assert_eq!(
        write(Format::Gemini, &[rejection.result()]),
        json!({"role": "user", "parts": [{"functionResponse": {
            "name": "get_weather",
            "response": {"error": rejection.message}}}]})
    );
    // The JSON form is unchanged: the provider's id and name stay out.
    assert_eq!(
        serde_json::to_value(accepted).unwrap(),
        json!({"id": "call_0", "name": "get_weather", "arguments": {"city": "Paris"}, "notes": []})
    );
}
