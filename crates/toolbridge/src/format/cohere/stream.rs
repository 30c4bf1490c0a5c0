//! Cohere Chat v2 streams (providers.md §9c): `tool-call-start` opens a call
//! at its `index` (its `delta.message.tool_calls` is one object, not a
//! list; a list is accepted too), `tool-call-delta` appends
//! `function.arguments`, `tool-call-end` ends it, `message-end` ends any
//! still open. `tool-plan-delta` (`delta.message.tool_plan`) is the plan
//! the model writes before its calls: each piece is a `PlanDelta` event, and
//! the whole plan goes into the extras of the next call opened, as
//! `tool_plan` (as [`read_calls`](super::call::read_calls) puts the
//! message's `tool_plan` on its first call). Text and citation events carry
//! nothing for calls.

use serde_json::{Map, Value};

use crate::call::read::provider_error;
use crate::call::{Calls, Decode, Framing, Opened};
use crate::error::{Error, ErrorKind, Result};

/// The v2 chat stream decoder.
#[derive(Debug, Default)]
pub(crate) struct ChatStream;

/// The call object of an event: `delta.message.tool_calls` (an object, or the first of a list).
fn call_of(data: &Value) -> Option<&Value> {
    let calls = data.get("delta")?.get("message")?.get("tool_calls")?;
    match calls {
        Value::Array(items) => items.first(),
        other => Some(other),
    }
}

impl Decode for ChatStream {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn event(&mut self, name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        let kind = data.get("type").and_then(Value::as_str).or(name).unwrap_or("");
        let index = data.get("index").and_then(Value::as_u64);
        let no_index = || {
            Error::new(
                ErrorKind::InvalidResponse,
                format!("a {kind} event has no \"index\""),
            )
        };
        match kind {
            "tool-call-start" => {
                let call = call_of(data);
                let function = call.and_then(|call| call.get("function"));
                let key = index.ok_or_else(no_index)?;
                let mut extras = Map::new();
                if let Some(plan) = calls.take_plan() {
                    extras.insert("tool_plan".into(), Value::String(plan));
                }
                calls.open(Opened {
                    key: Some(key),
                    id: call.and_then(|call| call.get("id")).and_then(Value::as_str),
                    name: function
                        .and_then(|function| function.get("name"))
                        .and_then(Value::as_str),
                    extras,
                    ..Opened::default()
                })?;
                if let Some(arguments) = function.and_then(|function| function.get("arguments")) {
                    calls.append(key, arguments)?;
                }
            }
            "tool-call-delta" => {
                let key = index.ok_or_else(no_index)?;
                let arguments = call_of(data)
                    .and_then(|call| call.get("function"))
                    .and_then(|function| function.get("arguments"))
                    .unwrap_or(&Value::Null);
                if !calls.append(key, arguments)? {
                    return Err(Error::new(
                        ErrorKind::InvalidResponse,
                        format!("a tool-call-delta for index {key}, which no tool-call-start opened"),
                    ));
                }
            }
            "tool-plan-delta" => {
                let plan = data
                    .get("delta")
                    .and_then(|delta| delta.get("message"))
                    .and_then(|message| message.get("tool_plan"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                calls.plan(plan)?;
            }
            "tool-call-end" => {
                calls.close(index.ok_or_else(no_index)?)?;
            }
            "message-end" => calls.close_all(),
            "error" => return Err(provider_error(data)),
            _ => {}
        }
        Ok(())
    }
}
