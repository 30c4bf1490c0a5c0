//! Running an accepted call of a served tool: the one place the MCP
//! adapter hands a call to the runtime.

use std::sync::Arc;

use serde_json::{Map, Value};
use toolbridge::call::{ToolCall, ToolResult};
use toolbridge::Accepted;

use super::catalog::Served;
use crate::run::RunContext;
use crate::session::Session;

/// One connection's session variables (set by `context` tools).
pub(crate) type SessionHandle = Arc<Session>;

/// Runs the tool's `run` with the accepted arguments, in its own task so
/// that a panic becomes an error result, never a dead connection.
pub(crate) async fn run(
    served: &Served,
    accepted: &Accepted,
    call: &ToolCall,
    session: &SessionHandle,
    base: &RunContext,
) -> ToolResult {
    let context = base
        .clone()
        .with_base_dir(served.base_dir.clone())
        .with_session(session.clone());
    let arguments = match &accepted.arguments {
        Value::Object(arguments) => arguments.clone(),
        _ => Map::new(),
    };
    let tool = served.tool.clone();
    let task = tokio::spawn(async move { crate::run::run(&tool, arguments, &context).await });
    match task.await {
        Ok(output) => output.into_result(call),
        Err(err) if err.is_panic() => {
            ToolResult::error(call, format!("`{}` failed: the tool panicked", call.name))
        }
        Err(_) => ToolResult::error(call, format!("`{}` was cancelled", call.name)),
    }
}
