//! The `context` run kind: sets session variables from the arguments
//! (Syllable's `context` tools, seeds.md §4).

use serde_json::{Map, Value};
use toolbridge::tool::ContextRun;
use toolbridge::Tool;

use super::RunContext;
use crate::output::Output;

/// The `_meta` key holding the variables a context tool set, so that a
/// stateless client (an MCP 2026-07-28 client, a load-balanced server) can
/// keep them itself.
pub const SESSION_META_KEY: &str = "dev.toolbridge/session";

/// Runs a `context` tool: each argument sets the session variable of the
/// same name; the reply is the tool's fixed result. A call that would grow
/// the session past [`RunLimits::max_session_variables`](super::RunLimits::max_session_variables)
/// or [`max_session_bytes`](super::RunLimits::max_session_bytes) sets
/// nothing and is an error result naming the limit.
///
/// The fixed result is returned as text when it is a string, else as JSON
/// text and structured content; without one, the reply is the variables set,
/// as JSON. Syllable's context `task`s (`steps`, `event`, `expression`,
/// `import`) run Syllable's own engine and are not specified closely enough
/// to reimplement: a tool with a `task` is an error result naming it.
pub(super) fn run(
    tool: &Tool,
    run: &ContextRun,
    arguments: Map<String, Value>,
    context: &RunContext,
) -> Output {
    if let Some(task) = &run.task {
        return Output::error(format!(
            "tool {:?}: the context task {} is not supported; toolbridge runs context tools \
             without a task (each argument sets the session variable of its name)",
            tool.name,
            task_names(task)
        ));
    }
    let limits = &context.limits;
    if let Err(full) =
        context
            .session
            .set_all(&arguments, limits.max_session_variables, limits.max_session_bytes)
    {
        return Output::error(format!("tool {:?}: no variable was set: {full}", tool.name));
    }
    let set = Value::Object(arguments);
    let output = match tool.fixed_result.as_ref().filter(|result| !result.is_null()) {
        Some(Value::String(text)) => Output::text(text.clone()),
        Some(result) => Output::json(result.clone()),
        None => Output::json(set.clone()),
    };
    output.with_meta(SESSION_META_KEY, set)
}

/// The task's type names, quoted and joined (`"steps"`, `"event", "import"`).
fn task_names(task: &Value) -> String {
    let name = |task: &Value| match task.get("type") {
        Some(Value::String(kind)) => format!("{kind:?}"),
        _ => "without a type".to_string(),
    };
    match task {
        Value::Array(tasks) if !tasks.is_empty() => tasks.iter().map(name).collect::<Vec<_>>().join(", "),
        other => name(other),
    }
}
