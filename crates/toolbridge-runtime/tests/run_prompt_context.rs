//! `prompt` and `context` tools, with exact outputs.

use std::sync::Arc;

use serde_json::{json, Map, Value};
use toolbridge::call::ToolCall;
use toolbridge::Tool;
use toolbridge_runtime::output::Output;
use toolbridge_runtime::run::{run, RunContext, RunLimits};
use toolbridge_runtime::session::Session;
use toolbridge_runtime::{Dispatcher, Registry};

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

/// The example prompt tool, as shipped (`examples/tools/run/review_prompt.json`).
fn review_tool() -> Tool {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/tools/run/review_prompt.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_prompt_renders_values_defaults_lists_and_escapes() {
    let tool = review_tool();
    let output = run(
        &tool,
        object(json!({"language": "Rust", "code": "fn main() {}", "focus": ["style", "performance"], "audience": "juniors"})),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output,
        Output::text(
            "Review this Rust code for style, performance.\nAudience: juniors.\n\nfn main() {}\n\n(Placeholders are written {{name}}.)"
        )
    );
    // Through the Dispatcher the Toolbox fills `focus` from its schema default (the one
    // owner of defaults); `audience` has none and renders empty, noted.
    let mut registry = Registry::new();
    registry.add_definition(review_tool(), None).unwrap();
    let dispatcher = Dispatcher::new(registry).unwrap();
    let call = ToolCall::new(
        "call_1",
        "review_code",
        json!({"language": "Go", "code": "x := 1"}),
    );
    let result = dispatcher.call(&call).await;
    assert_eq!(
        result.text.as_deref(),
        Some("Review this Go code for correctness.\nAudience: .\n\nx := 1\n\n(Placeholders are written {{name}}.)")
    );
    assert_eq!(
        Value::Object(result.meta.unwrap()),
        json!({"dev.toolbridge/notes": [{"kind": "defaulted", "field": "audience", "level": "info",
            "at": "/audience", "message": "the variable \"audience\" was not given and has no default; rendered empty"}]})
    );
    // `run` itself fills no default: `focus` renders empty too.
    let output = run(
        &tool,
        object(json!({"language": "Go", "code": "x := 1"})),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output.text.as_deref(),
        Some("Review this Go code for .\nAudience: .\n\nx := 1\n\n(Placeholders are written {{name}}.)")
    );
    assert_eq!(
        output.meta.unwrap()["dev.toolbridge/notes"][0]["message"],
        "the variable \"focus\" was not given (its default is filled by the Toolbox, which did not check \
         these arguments); rendered empty"
    );
}

#[tokio::test]
async fn select_values_are_checked_against_the_allowed_values() {
    let output = run(
        &review_tool(),
        object(json!({"language": "COBOL", "code": "", "focus": ["style", "vibes"]})),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output,
        Output::error(
            "tool \"review_code\": language: \"COBOL\" is not one of \"Rust\", \"Go\", \"Python\"; \
             focus: \"vibes\" is not one of \"correctness\", \"performance\", \"style\""
        )
    );
}

#[tokio::test]
async fn undeclared_placeholders_stay_and_numbers_render_as_json() {
    let tool: Tool = serde_json::from_value(json!({"name": "p", "inputSchema": {"type": "object",
        "properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"}, "o": {"type": "object"}}},
        "run": {"kind": "prompt", "template": "{{n}} {{ok}} {{o}} {{ other }} {{}} {{{x}}}"}}))
    .unwrap();
    let output = run(
        &tool,
        object(json!({"n": 3, "ok": false, "o": {"a": [1]}})),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output.text.as_deref(),
        Some(r#"3 false {"a":[1]} {{other}} {{}} {{{x}}}"#)
    );
    assert_eq!(
        output.meta.unwrap()["dev.toolbridge/notes"][0]["message"],
        "the placeholder {{other}} names no declared variable; kept in the prompt as written"
    );
}

#[tokio::test]
async fn a_prompt_larger_than_the_cap_is_an_error() {
    let tool: Tool = serde_json::from_value(json!({"name": "p", "inputSchema": {"type": "object",
        "properties": {"x": {"type": "string"}}},
        "run": {"kind": "prompt", "template": "{{x}}".repeat(1000)}}))
    .unwrap();
    let context = RunContext::new().with_limits(RunLimits::default().with_max_response_bytes(10_000));
    let output = run(&tool, object(json!({"x": "y".repeat(100)})), &context).await;
    assert_eq!(
        output,
        Output::error("tool \"p\": the rendered prompt is larger than 10000 bytes")
    );
}

fn set_language() -> Tool {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/tools/run/set_language.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn context_sets_session_variables_and_returns_the_fixed_result() {
    let session = Arc::new(Session::new());
    let context = RunContext::new().with_session(session.clone());
    let output = run(
        &set_language(),
        object(json!({"language": "fr-FR", "say": "Bonjour"})),
        &context,
    )
    .await;
    assert_eq!(
        output,
        Output::json(json!({"status": "ok"})).with_meta(
            "dev.toolbridge/session",
            json!({"language": "fr-FR", "say": "Bonjour"})
        )
    );
    assert_eq!(output.text.as_deref(), Some(r#"{"status":"ok"}"#));
    run(&set_language(), object(json!({"language": "de-DE"})), &context).await;
    assert_eq!(
        Value::Object(session.variables()),
        json!({"language": "de-DE", "say": "Bonjour"})
    );
    // Another session is untouched.
    assert_eq!(RunContext::new().session.variables().len(), 0);
}

#[tokio::test]
async fn context_calls_that_would_grow_the_session_past_its_limits_set_nothing() {
    let session = Arc::new(Session::new());
    let limits = RunLimits::default()
        .with_max_session_variables(2)
        .with_max_session_bytes(40);
    let context = RunContext::new()
        .with_session(session.clone())
        .with_limits(limits);
    let tool = set_language();
    run(&tool, object(json!({"language": "fr"})), &context).await;
    let output = run(
        &tool,
        object(json!({"language": "de", "say": "Hallo", "x": 1})),
        &context,
    )
    .await;
    assert_eq!(
        output,
        Output::error(
            "tool \"set_language\": no variable was set: the session would hold 3 variables; \
             the limit is 2 (max_session_variables)"
        )
    );
    let output = run(&tool, object(json!({"say": "a".repeat(40)})), &context).await;
    assert_eq!(
        output,
        Output::error(
            "tool \"set_language\": no variable was set: the session's variables would take 57 bytes; \
             the limit is 40 (max_session_bytes)"
        )
    );
    assert_eq!(Value::Object(session.variables()), json!({"language": "fr"}));
}

#[tokio::test]
async fn context_results_strings_and_absent() {
    let mut tool = set_language();
    tool.fixed_result = Some(json!("Language changed."));
    let output = run(&tool, object(json!({"language": "it"})), &RunContext::new()).await;
    assert_eq!(
        output,
        Output::text("Language changed.").with_meta("dev.toolbridge/session", json!({"language": "it"}))
    );
    tool.fixed_result = None;
    let output = run(&tool, object(json!({"language": "it"})), &RunContext::new()).await;
    assert_eq!(
        output,
        Output::json(json!({"language": "it"}))
            .with_meta("dev.toolbridge/session", json!({"language": "it"}))
    );
}

#[tokio::test]
async fn context_tasks_are_refused_by_name() {
    let mut tool = set_language();
    tool.run = serde_json::from_value(
        json!({"kind": "context", "task": [{"type": "expression"}, {"type": "import"}]}),
    )
    .unwrap();
    let session = Arc::new(Session::new());
    let output = run(
        &tool,
        object(json!({"language": "it"})),
        &RunContext::new().with_session(session.clone()),
    )
    .await;
    assert_eq!(
        output,
        Output::error(
            "tool \"set_language\": the context task \"expression\", \"import\" is not supported; toolbridge runs \
             context tools without a task (each argument sets the session variable of its name)"
        )
    );
    assert!(session.variables().is_empty());
}

#[tokio::test]
async fn actions_are_for_the_host() {
    let tool = Tool::new("act", json!({"type": "object"}));
    assert_eq!(
        run(&tool, Map::new(), &RunContext::new()).await,
        Output::error("tool \"act\" is an action: the host program implements it, and none is registered")
    );
}
