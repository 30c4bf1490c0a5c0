//! Anthropic Messages streams (providers.md §3c): `content_block_start` with
//! a `tool_use` block opens a call at its `index`, `input_json_delta`
//! fragments (`partial_json`) append to it, `content_block_stop` ends it, and
//! `message_stop` ends any still open. The start event's `input` is always
//! `{}` and is used only when no fragment follows; no fragment at all (or
//! only `""`) means `{}`. `ping` and text blocks carry nothing for calls;
//! `error` is a provider error.

use serde_json::{Map, Value};

use crate::call::read::provider_error;
use crate::call::{Calls, Decode, Framing, Opened};
use crate::error::{Error, ErrorKind, Result};
use crate::format::anthropic::call::BLOCK_KEYS;

/// The Messages event decoder.
#[derive(Debug, Default)]
pub(crate) struct Messages;

impl Decode for Messages {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn event(&mut self, name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        let kind = data.get("type").and_then(Value::as_str).or(name).unwrap_or("");
        let index = data.get("index").and_then(Value::as_u64);
        match kind {
            "content_block_start" => {
                let Some(block) = data
                    .get("content_block")
                    .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
                else {
                    return Ok(());
                };
                let extras: Map<String, Value> = block
                    .as_object()
                    .map(|object| {
                        object
                            .iter()
                            .filter(|(key, _)| !BLOCK_KEYS.contains(&key.as_str()))
                            .map(|(key, value)| (key.clone(), value.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                calls.open(Opened {
                    key: Some(index.ok_or_else(|| no_index(kind))?),
                    id: block.get("id").and_then(Value::as_str),
                    name: block.get("name").and_then(Value::as_str),
                    extras,
                    fallback: block
                        .get("input")
                        .filter(|input| input.as_object().is_some_and(|input| !input.is_empty()))
                        .cloned(),
                    choice: None,
                })?;
            }
            "content_block_delta" => {
                let Some(delta) = data
                    .get("delta")
                    .filter(|delta| delta.get("type").and_then(Value::as_str) == Some("input_json_delta"))
                else {
                    return Ok(());
                };
                let index = index.ok_or_else(|| no_index(kind))?;
                let fragment = delta.get("partial_json").unwrap_or(&Value::Null);
                if !calls.append(index, fragment)? {
                    return Err(Error::new(
                        ErrorKind::InvalidResponse,
                        format!(
                            "an input_json_delta for content block {index}, which no tool_use block started"
                        ),
                    ));
                }
            }
            "content_block_stop" => {
                calls.close(index.ok_or_else(|| no_index(kind))?)?;
            }
            "message_stop" => calls.close_all(),
            "error" => return Err(provider_error(data)),
            _ => {}
        }
        Ok(())
    }
}

fn no_index(kind: &str) -> Error {
    Error::new(
        ErrorKind::InvalidResponse,
        format!("a {kind} event has no \"index\""),
    )
}
