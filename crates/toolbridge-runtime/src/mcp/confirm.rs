//! Asking the client's user before a `confirm: true` tool runs (MCP
//! elicitation): a server-to-client `elicitation/create` request in a
//! 2025-11-25 session; on 2026-07-28, which forbids server-to-client
//! requests, an `input_required` result the client answers by retrying the
//! call with `inputResponses` (no state is kept between the two).

use rmcp::model::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequiredResult,
    ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{json, Value};
use toolbridge::Tool;

/// The `inputRequests` key of the confirmation.
const KEY: &str = "dev.toolbridge/confirm";

/// What asking gave.
pub(crate) enum Answer {
    /// Run it.
    Yes,
    /// Do not run it; the message is for the model.
    No(String),
    /// Ask by answering `input_required`; the client retries the call.
    Pending(InputRequiredResult),
}

/// Asks whether `tool` may run with `arguments`.
pub(crate) async fn ask(
    tool: &Tool,
    arguments: &Value,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Answer {
    if let Some(response) = request
        .input_responses
        .as_ref()
        .and_then(|responses| responses.get(KEY))
    {
        return match serde_json::from_value::<ElicitResult>(response.clone()) {
            Ok(result) => verdict(tool, &result.action),
            Err(_) => Answer::No(format!(
                "The confirmation for `{}` was not an elicitation result; it did not run.",
                tool.name
            )),
        };
    }
    let can_ask = context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
    if !can_ask {
        return Answer::No(format!(
            "`{}` runs only when the user confirms it, and this client cannot ask (it declares no \
             form elicitation); it did not run. The server's operator can allow it with `--confirm allow`.",
            tool.name
        ));
    }
    let params = json!({
        "mode": "form",
        "message": message(tool, arguments),
        "requestedSchema": {"type": "object", "properties": {}},
    });
    let modern = context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if modern {
        let requests = json!({ KEY: {"method": "elicitation/create", "params": params} });
        return match serde_json::from_value(requests) {
            Ok(requests) => Answer::Pending(InputRequiredResult::from_input_requests(requests)),
            Err(err) => Answer::No(format!("cannot ask to confirm `{}`: {err}", tool.name)),
        };
    }
    let params: ElicitRequestParams = match serde_json::from_value(params) {
        Ok(params) => params,
        Err(err) => return Answer::No(format!("cannot ask to confirm `{}`: {err}", tool.name)),
    };
    match context.peer.create_elicitation(params).await {
        Ok(result) => verdict(tool, &result.action),
        Err(err) => Answer::No(format!(
            "`{}` runs only when the user confirms it, and asking failed ({err}); it did not run.",
            tool.name
        )),
    }
}

fn verdict(tool: &Tool, action: &ElicitationAction) -> Answer {
    match action {
        ElicitationAction::Accept => Answer::Yes,
        ElicitationAction::Decline => Answer::No(format!("The user declined to run `{}`.", tool.name)),
        _ => Answer::No(format!(
            "The user dismissed the request to run `{}`; it did not run.",
            tool.name
        )),
    }
}

/// What the user is asked: the tool (its title when it has one) and the
/// arguments it would run with.
fn message(tool: &Tool, arguments: &Value) -> String {
    let arguments = serde_json::to_string_pretty(arguments).unwrap_or_default();
    format!(
        "Run `{}` ({}) with these arguments?\n{arguments}",
        tool.name,
        tool.display_title()
    )
}
