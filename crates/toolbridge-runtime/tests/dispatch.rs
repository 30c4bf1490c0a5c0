//! The dispatcher: rejections, the confirmation hook, the concurrency
//! limit, timeouts, panics, result order, and Rust and file tools side by side.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use toolbridge::call::{CallOptions, ToolCall, ToolResult};
use toolbridge::{Format, Tool};
use toolbridge_runtime::{
    ConfirmPolicy, Decision, DispatchOptions, Dispatcher, Handler, Output, Registry, RustTool,
};

fn object_tool(name: &str, schema: Value) -> Tool {
    Tool::new(name, schema)
}

fn sleeper(name: &str, millis: u64, running: Arc<AtomicUsize>, most: Arc<AtomicUsize>) -> RustTool {
    let tool = object_tool(
        name,
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
    );
    RustTool::new(
        tool,
        Handler::from_async(move |arguments| {
            let (running, most) = (Arc::clone(&running), Arc::clone(&most));
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                let n = arguments["n"].as_u64().unwrap_or(0);
                // Later calls finish first, so the order of results is the calls', not completion's.
                tokio::time::sleep(Duration::from_millis(millis * (10 - n))).await;
                running.fetch_sub(1, Ordering::SeqCst);
                Output::text(format!("done {n}"))
            }
        }),
    )
}

/// `forever`, run by `forever`, and `quick`, which answers "quick" at once.
fn forever_and_quick(forever: Handler) -> Registry {
    let mut registry = Registry::new();
    registry
        .add(RustTool::new(
            object_tool("forever", json!({"type": "object"})),
            forever,
        ))
        .unwrap();
    registry
        .add(RustTool::new(
            object_tool("quick", json!({"type": "object"})),
            Handler::from_sync(|_| Output::text("quick")),
        ))
        .unwrap();
    registry
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

fn texts(results: &[ToolResult]) -> Vec<(String, bool)> {
    results
        .iter()
        .map(|result| (result.as_text(), result.is_error))
        .collect()
}

#[tokio::test]
async fn a_batch_runs_at_most_the_limit_at_once_and_answers_in_call_order() {
    let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut registry = Registry::new();
    registry
        .add(sleeper("slow", 5, Arc::clone(&running), Arc::clone(&most)))
        .unwrap();
    let dispatcher =
        Dispatcher::with_options(registry, DispatchOptions::default().with_concurrency(3)).unwrap();
    let calls: Vec<ToolCall> = (0..8)
        .map(|n| call(&format!("c{n}"), "slow", json!({"n": n})))
        .collect();
    let results = dispatcher.dispatch(&calls).await;
    let expected: Vec<(String, bool)> = (0..8).map(|n| (format!("done {n}"), false)).collect();
    assert_eq!(texts(&results), expected);
    assert_eq!(
        results
            .iter()
            .map(|result| result.id.as_str())
            .collect::<Vec<_>>(),
        ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"]
    );
    assert_eq!(most.load(Ordering::SeqCst), 3);
    assert_eq!(running.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_call_past_its_timeout_is_given_up_and_the_others_answer() {
    let registry = forever_and_quick(Handler::from_async(|_| async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Output::text("never")
    }));
    let options = DispatchOptions::default().with_timeout(Duration::from_millis(150));
    let dispatcher = Dispatcher::with_options(registry, options).unwrap();
    let started = std::time::Instant::now();
    let results = dispatcher
        .dispatch(&[call("a", "forever", json!({})), call("b", "quick", json!({}))])
        .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        texts(&results),
        [
            (
                "The call to `forever` did not finish within 150 ms (the time limit for a call) and was given up; \
                 its result is lost."
                    .to_string(),
                true
            ),
            ("quick".to_string(), false),
        ]
    );
}

#[tokio::test]
async fn a_call_waiting_for_a_slot_past_its_timeout_is_answered_and_a_reload_shares_the_slots() {
    // A blocking handler keeps its slot past its timeout, until it returns.
    let registry = forever_and_quick(Handler::from_sync(|_| {
        std::thread::sleep(Duration::from_millis(1000));
        Output::text("late")
    }));
    let options = DispatchOptions::default()
        .with_concurrency(1)
        .with_timeout(Duration::from_millis(300));
    let dispatcher = Arc::new(Dispatcher::with_options(registry.clone(), options).unwrap());
    let reloaded = dispatcher.reload(registry).unwrap();
    let holder = Arc::clone(&dispatcher);
    let blocking = tokio::spawn(async move { holder.call(&call("a", "forever", json!({}))).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = std::time::Instant::now();
    // The reloaded dispatcher counts the first one's running call against its limit.
    let waited = reloaded.call(&call("b", "quick", json!({}))).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        (waited.as_text(), waited.is_error),
        (
            "The call to `quick` did not start within 300 ms (the time limit for a call): other calls \
             held every slot (the limit on calls running at once); it did not run."
                .to_string(),
            true
        )
    );
    let given_up = blocking.await.unwrap();
    assert!(given_up
        .as_text()
        .starts_with("The call to `forever` did not finish within 300 ms"));
    // The slot is free again once the blocking handler returned.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        reloaded.call(&call("c", "quick", json!({}))).await.as_text(),
        "quick"
    );
}

#[tokio::test]
async fn panics_and_errors_become_error_results() {
    let mut registry = Registry::new();
    registry
        .add(RustTool::new(
            object_tool("sync_panic", json!({"type": "object"})),
            Handler::from_sync(|_| panic!("index out of bounds: the len is 0")),
        ))
        .unwrap();
    registry
        .add(RustTool::new(
            object_tool("async_panic", json!({"type": "object"})),
            Handler::from_async(|_| async { panic!("{} went wrong", "something") }),
        ))
        .unwrap();
    registry
        .add(RustTool::new(
            object_tool("fails", json!({"type": "object"})),
            Handler::from_sync(|_| Output::error("disk full")),
        ))
        .unwrap();
    let dispatcher = Dispatcher::new(registry).unwrap();
    let results = dispatcher
        .dispatch(&[
            call("1", "sync_panic", json!({})),
            call("2", "async_panic", json!({})),
            call("3", "fails", json!({})),
        ])
        .await;
    assert_eq!(
        texts(&results),
        [
            (
                "The tool `sync_panic` failed: it panicked with \"index out of bounds: the len is 0\"."
                    .to_string(),
                true
            ),
            (
                "The tool `async_panic` failed: it panicked with \"something went wrong\".".to_string(),
                true
            ),
            ("disk full".to_string(), true),
        ]
    );
    // The dispatcher is still usable after a panic.
    let again = dispatcher.call(&call("4", "fails", json!({}))).await;
    assert_eq!(again.as_text(), "disk full");
}

fn confirmed_registry() -> Registry {
    let mut registry = Registry::new();
    let mut tool = object_tool(
        "delete",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    );
    tool.confirm = Some(toolbridge::tool::Confirm::Always(true));
    registry
        .add(RustTool::new(
            tool,
            Handler::from_sync(|arguments| Output::text(format!("deleted {}", arguments["path"]))),
        ))
        .unwrap();
    registry
        .add(RustTool::new(
            object_tool("list", json!({"type": "object"})),
            Handler::from_sync(|_| Output::text("a b")),
        ))
        .unwrap();
    registry
}

#[tokio::test]
async fn the_hook_runs_rejects_or_edits_calls_of_tools_that_ask() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let dispatcher = Dispatcher::new(confirmed_registry())
        .unwrap()
        .with_confirm(move |request| {
            log.lock().unwrap().push(format!(
                "{} {}",
                request.tool.name,
                Value::Object(request.arguments.clone())
            ));
            async move {
                match request.arguments["path"].as_str() {
                    Some("/etc/passwd") => Decision::reject(),
                    Some("/home") => Decision::reject_because("Not the whole home folder."),
                    Some("tmp") => {
                        Decision::Edit(json!({"path": "/tmp/scratch"}).as_object().unwrap().clone())
                    }
                    Some("bad") => Decision::Edit(json!({"path": 7}).as_object().unwrap().clone()),
                    _ => Decision::Run,
                }
            }
        });
    let calls = [
        call("1", "delete", json!({"path": "a.txt"})),
        call("2", "delete", json!({"path": "/etc/passwd"})),
        call("3", "delete", json!({"path": "/home"})),
        call("4", "delete", json!({"path": "tmp"})),
        call("5", "delete", json!({"path": "bad"})),
        call("6", "list", json!({})),
    ];
    let results = dispatcher.dispatch_with_notes(&calls).await;
    assert_eq!(
        texts(&results.value),
        [
            ("deleted \"a.txt\"".to_string(), false),
            (
                "Tool call rejected. The user has chosen to disallow the tool call.".to_string(),
                true
            ),
            ("Tool call rejected. Not the whole home folder.".to_string(), true),
            ("deleted \"/tmp/scratch\"".to_string(), false),
            (
                "The call to `delete` was rejected: 1 problem with its arguments.\n\
                 - /path: expected a string; got 7 (a number)\n\
                 Expected: delete(path: string)"
                    .to_string(),
                true
            ),
            ("a b".to_string(), false),
        ]
    );
    // Only the tool that asks for confirmation is asked about, in call order.
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "delete {\"path\":\"a.txt\"}",
            "delete {\"path\":\"/etc/passwd\"}",
            "delete {\"path\":\"/home\"}",
            "delete {\"path\":\"tmp\"}",
            "delete {\"path\":\"bad\"}",
        ]
    );
    let edited: Vec<String> = results
        .notes
        .iter()
        .map(|note| format!("{} {}", note.at, note.message))
        .collect();
    assert_eq!(
        edited,
        ["/3 the arguments were edited before the call ran (confirmation hook)"]
    );
}

#[tokio::test]
async fn without_a_hook_a_call_that_needs_confirmation_is_refused() {
    let dispatcher = Dispatcher::new(confirmed_registry()).unwrap();
    let result = dispatcher.call(&call("1", "delete", json!({"path": "a"}))).await;
    assert_eq!(
        (result.as_text(), result.is_error),
        (
            "The call to `delete` needs the user's confirmation, and no one can be asked here; it did not run."
                .to_string(),
            true
        )
    );
    let never = DispatchOptions::default().with_confirm(ConfirmPolicy::Never);
    let dispatcher = Dispatcher::with_options(confirmed_registry(), never).unwrap();
    let result = dispatcher.call(&call("1", "delete", json!({"path": "a"}))).await;
    assert_eq!(result.as_text(), "deleted \"a\"");
    let always = DispatchOptions::default().with_confirm(ConfirmPolicy::Always);
    let dispatcher = Dispatcher::with_options(confirmed_registry(), always)
        .unwrap()
        .with_confirm(|_| async { Decision::reject() });
    let result = dispatcher.call(&call("1", "list", json!({}))).await;
    assert!(result.is_error);
}

#[tokio::test]
async fn bad_calls_are_rejected_for_the_model_and_never_run() {
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    let mut registry = Registry::new();
    let tool = object_tool(
        "get_weather",
        json!({"type": "object", "properties": {"city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}),
    );
    registry
        .add(RustTool::new(
            tool,
            Handler::from_sync(move |arguments| {
                counter.fetch_add(1, Ordering::SeqCst);
                Output::json(Value::Object(arguments))
            }),
        ))
        .unwrap();
    let dispatcher = Dispatcher::new(registry).unwrap();
    let results = dispatcher
        .dispatch(&[
            call("1", "get_weather", json!({"city": "Paris", "unit": "kelvin"})),
            call("2", "get_wether", json!({"city": "Paris"})),
            call("3", "get_weather", json!({"city": "Paris", "unit": "Celsius"})),
        ])
        .await;
    assert_eq!(
        texts(&results),
        [
            (
                "The call to `get_weather` was rejected: 1 problem with its arguments.\n\
                 - /unit: expected one of \"celsius\", \"fahrenheit\"; got \"kelvin\"\n\
                 Expected: get_weather(city: string, unit?: \"celsius\" | \"fahrenheit\")"
                    .to_string(),
                true
            ),
            (
                "There is no tool named \"get_wether\" — did you mean `get_weather`? The tools are: `get_weather`."
                    .to_string(),
                true
            ),
            ("{\"city\":\"Paris\",\"unit\":\"celsius\"}".to_string(), false),
        ]
    );
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn rust_and_file_tools_run_side_by_side_and_reply_in_the_providers_shape() {
    let mut registry = Registry::new();
    registry
        .add(RustTool::new(
            object_tool("ping", json!({"type": "object"})),
            Handler::from_sync(|_| Output::text("pong")),
        ))
        .unwrap();
    let notes = registry
        .add_text(
            r#"[{"name": "greet", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                 "run": {"kind": "prompt", "template": "Say hello to {{name}}."}},
                {"name": "lookup", "inputSchema": {"type": "object"}}]"#,
            None,
            &Default::default(),
        )
        .unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let duplicate = registry
        .add_text(
            r#"{"name": "ping", "inputSchema": {"type": "object"}}"#,
            None,
            &Default::default(),
        )
        .unwrap_err();
    assert_eq!(
        duplicate.to_string(),
        "invalid tool: two tools are named \"ping\" (tool \"ping\")"
    );
    registry
        .bind("lookup", Handler::from_sync(|_| Output::text("found")))
        .unwrap();
    assert_eq!(
        registry
            .bind("missing", Handler::from_sync(|_| Output::text("")))
            .unwrap_err()
            .to_string(),
        "invalid tool: no tool is named \"missing\" (tool \"missing\")"
    );
    let dispatcher = Dispatcher::new(registry).unwrap();
    let response = json!({"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "greet", "input": {"name": "Ada"}},
        {"type": "tool_use", "id": "toolu_2", "name": "ping", "input": {}},
        {"type": "tool_use", "id": "toolu_3", "name": "lookup", "input": {}}]});
    let reply = dispatcher
        .reply(Format::Anthropic, &response, &CallOptions::default())
        .await
        .unwrap();
    assert_eq!(
        reply.message,
        Some(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Say hello to Ada.", "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "pong", "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": "found", "is_error": false}]}))
    );
    let empty = json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]});
    let reply = dispatcher
        .reply(Format::Anthropic, &empty, &CallOptions::default())
        .await
        .unwrap();
    assert_eq!((reply.calls.len(), reply.message), (0, None));
}
