//! `command` tools against the small scripts in `tests/scripts/`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use toolbridge::Tool;
use toolbridge_runtime::output::Output;
use toolbridge_runtime::run::{run, RunContext, RunLimits};

fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn tool(run: Value) -> Tool {
    serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}, "run": run})).unwrap()
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

async fn call(tool: &Tool, args: Value, context: &RunContext) -> Output {
    run(tool, arguments(args), context).await
}

fn context() -> RunContext {
    RunContext::new().with_base_dir(tests_dir())
}

#[tokio::test]
async fn arguments_arrive_as_json_on_stdin_and_stdout_is_the_result() {
    let tool = tool(json!({"kind": "command", "program": "scripts/echo_stdin.sh", "args": ["a b", "$HOME"]}));
    let output = call(&tool, json!({"city": "Paris", "days": 3}), &context()).await;
    // One trailing newline trimmed; the argument "a b" is one argv entry, "$HOME" is not expanded.
    assert_eq!(
        output,
        Output::text(r#"args=a b $HOME cwd=tests stdin={"city":"Paris","days":3}"#)
    );
}

#[tokio::test]
async fn working_directory_resolves_against_the_tool_folder_and_defaults_to_it() {
    let scripts = RunContext::new().with_base_dir(tests_dir().join("scripts"));
    let tool = tool(json!({"kind": "command", "program": "./echo_stdin.sh"}));
    assert_eq!(
        call(&tool, json!({}), &scripts).await,
        Output::text("args= cwd=scripts stdin={}")
    );
    let tool = self::tool(
        json!({"kind": "command", "program": "scripts/echo_stdin.sh", "workingDirectory": "scripts"}),
    );
    assert_eq!(
        call(&tool, json!({}), &context()).await,
        Output::text("args= cwd=scripts stdin={}")
    );
    let tool =
        self::tool(json!({"kind": "command", "program": "./echo_stdin.sh", "workingDirectory": "missing"}));
    let output = call(&tool, json!({}), &scripts).await;
    assert!(output.is_error);
    assert!(output
        .text
        .unwrap()
        .ends_with("scripts/missing is not a directory"));
}

#[tokio::test]
async fn a_non_zero_exit_is_an_error_with_the_trimmed_stderr() {
    let tool = tool(json!({"kind": "command", "program": "scripts/fail.sh"}));
    let output = call(&tool, json!({"city": "nowhere"}), &context()).await;
    assert_eq!(
        output,
        Output::error("the program exited with status 3: the city nowhere is unknown")
    );
}

#[tokio::test]
async fn a_missing_program_is_an_error() {
    let tool = tool(json!({"kind": "command", "program": "scripts/no_such_script.sh"}));
    let output = call(&tool, json!({}), &context()).await;
    assert!(output.is_error);
    let text = output.text.unwrap();
    assert!(text.starts_with("tool \"t\": cannot start "), "{text}");
    assert!(
        text.ends_with("scripts/no_such_script.sh: No such file or directory (os error 2)"),
        "{text}"
    );
}

#[tokio::test]
async fn a_slow_program_is_killed_at_its_timeout() {
    let tool = tool(json!({"kind": "command", "program": "scripts/sleep.sh", "timeout": 0.5}));
    let started = Instant::now();
    let output = call(&tool, json!({}), &context()).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        output,
        Output::error("tool \"t\": the program did not finish within 0.5 s and was killed")
    );
    // The run limit applies when the tool has no timeout.
    let tool = self::tool(json!({"kind": "command", "program": "scripts/sleep.sh"}));
    let context =
        context().with_limits(RunLimits::default().with_command_timeout(Duration::from_millis(300)));
    let output = call(&tool, json!({}), &context).await;
    assert_eq!(
        output,
        Output::error("tool \"t\": the program did not finish within 0.3 s and was killed")
    );
}

/// True while process `pid` runs (a zombie waiting to be reaped counts as ended).
#[cfg(unix)]
fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits up to 2 s for the pid the script wrote to `file` to end; true when it did.
#[cfg(unix)]
async fn ends(file: &std::path::Path) -> bool {
    let pid = std::fs::read_to_string(file).unwrap().trim().to_string();
    assert!(!pid.is_empty());
    for _ in 0..40 {
        if !alive(&pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[cfg(unix)]
#[tokio::test]
async fn what_a_program_started_is_killed_with_it() {
    let pid_file = std::env::temp_dir().join(format!("toolbridge-grandchild-{}", std::process::id()));
    let pid_path = pid_file.display().to_string();
    let cases = [
        // At the timeout: the grandchild holding stdout is killed with the script.
        (
            json!([pid_path]),
            Output::error("tool \"t\": the program did not finish within 0.5 s and was killed"),
        ),
        // A script that exits leaving `sleep 60` on its stdout answers at once, and the sleep ends.
        (json!([pid_path, "exit"]), Output::text("started")),
    ];
    for (args, expected) in cases {
        let tool = tool(json!({"kind": "command", "program": "scripts/grandchild.sh",
            "args": args, "timeout": 0.5}));
        let started = Instant::now();
        let output = call(&tool, json!({}), &context()).await;
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(output, expected);
        assert!(
            ends(&pid_file).await,
            "the grandchild of {args} outlived the call"
        );
    }
    let _ = std::fs::remove_file(&pid_file);
}

#[tokio::test]
async fn stdout_over_the_cap_is_an_error_and_stderr_is_cut_with_a_note() {
    let limits = RunLimits::default()
        .with_max_stdout_bytes(1000)
        .with_max_stderr_bytes(10);
    let context = context().with_limits(limits);
    let tool = tool(json!({"kind": "command", "program": "scripts/flood.sh"}));
    let output = call(&tool, json!({}), &context).await;
    assert_eq!(
        output,
        Output::error("tool \"t\": the program wrote more than 1000 bytes to stdout")
    );
    let tool = self::tool(json!({"kind": "command", "program": "scripts/flood.sh", "args": ["stderr"]}));
    let output = call(&tool, json!({}), &context).await;
    assert_eq!(output.text.as_deref(), Some("ok"));
    assert_eq!(
        output.meta.unwrap()["dev.toolbridge/notes"],
        json!([{"kind": "over-limit", "limit": "10 bytes", "level": "error", "at": "/stderr",
            "message": "stderr was cut to its first 10 bytes"}])
    );
}

#[tokio::test]
async fn stdout_is_parsed_when_the_tool_has_an_output_schema() {
    let mut tool = tool(json!({"kind": "command", "program": "scripts/json_out.sh"}));
    tool.output_schema = Some(json!({"type": "object"}));
    let output = call(&tool, json!({}), &context()).await;
    assert_eq!(
        output,
        Output::text(r#"{"ok": true}"#).with_structured(json!({"ok": true}))
    );
    let mut text_tool =
        self::tool(json!({"kind": "command", "program": "scripts/json_out.sh", "args": ["text"]}));
    text_tool.output_schema = Some(json!({"type": "object"}));
    let output = call(&text_tool, json!({}), &context()).await;
    assert_eq!(output.text.as_deref(), Some("not json"));
    assert_eq!(output.structured, None);
    assert_eq!(
        output.meta.unwrap()["dev.toolbridge/notes"][0]["message"],
        "the tool declares an outputSchema but its output is not JSON (expected ident at line 1 column 2); returned as text only"
    );
}

#[tokio::test]
async fn bad_timeouts_are_errors_not_panics() {
    for timeout in [json!(-1), json!(0), json!(1e300)] {
        let tool = tool(json!({"kind": "command", "program": "scripts/echo_stdin.sh", "timeout": timeout}));
        let output = call(&tool, json!({}), &context()).await;
        assert!(output.is_error, "{timeout}");
        assert!(output
            .text
            .unwrap()
            .contains("is not a positive number of seconds"));
    }
}
