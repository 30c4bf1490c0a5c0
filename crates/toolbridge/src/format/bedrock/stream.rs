//! AWS Bedrock ConverseStream (providers.md §5c): the binary
//! `application/vnd.amazon.eventstream` HTTP body (each message's
//! `:event-type` header names the member, its payload is the member's body,
//! with an extra padding key `p` that is ignored), or the events as the AWS
//! SDKs surface them, one `{"<member>": {…}}` object per NDJSON line; the
//! framer tells them apart by the first byte ([`Framing::EventStream`]).
//! `contentBlockStart.start.toolUse` opens a call at its
//! `contentBlockIndex`, `contentBlockDelta.delta.toolUse.input` string
//! fragments append to it, `contentBlockStop` ends it (no fragment at all
//! means `{}`), `messageStop` ends any still open. Members ending in
//! `Exception` are provider errors; other members (`messageStart`,
//! `metadata`, text deltas, server tools' `toolResult`) carry nothing for
//! calls. An `exception` message of the binary framing is an error of the
//! framer, naming the exception.

use serde_json::{Map, Value};

use crate::call::{Calls, Decode, Framing, Opened};
use crate::error::{Error, ErrorKind, Result};
use crate::format::bedrock::call::TOOL_USE_KEYS;

/// The ConverseStream event decoder.
#[derive(Debug, Default)]
pub(crate) struct ConverseStream;

impl Decode for ConverseStream {
    fn framing(&self) -> Framing {
        Framing::EventStream
    }

    fn event(&mut self, name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        // A binary message names its member in `:event-type`; an SDK's line
        // wraps the body in it.
        if let Some(member) = name {
            return self.member(member, data, calls);
        }
        let Some(object) = data.as_object() else {
            return Ok(());
        };
        for (member, body) in object {
            self.member(member, body, calls)?;
        }
        Ok(())
    }
}

impl ConverseStream {
    /// One member of the event union and its body.
    fn member(&mut self, member: &str, body: &Value, calls: &mut Calls) -> Result<()> {
        let index = body.get("contentBlockIndex").and_then(Value::as_u64);
        match member {
            "contentBlockStart" => {
                let Some(tool_use) = body.get("start").and_then(|start| start.get("toolUse")) else {
                    return Ok(());
                };
                let inner: Map<String, Value> = tool_use
                    .as_object()
                    .map(|object| {
                        object
                            .iter()
                            .filter(|(key, _)| !TOOL_USE_KEYS.contains(&key.as_str()))
                            .map(|(key, value)| (key.clone(), value.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                let mut extras = Map::new();
                if !inner.is_empty() {
                    extras.insert("toolUse".into(), Value::Object(inner));
                }
                calls.open(Opened {
                    key: Some(index.ok_or_else(|| no_index(member))?),
                    id: tool_use.get("toolUseId").and_then(Value::as_str),
                    name: tool_use.get("name").and_then(Value::as_str),
                    extras,
                    fallback: None,
                    choice: None,
                })?;
            }
            "contentBlockDelta" => {
                let Some(input) = body
                    .get("delta")
                    .and_then(|delta| delta.get("toolUse"))
                    .and_then(|tool_use| tool_use.get("input"))
                else {
                    return Ok(());
                };
                let index = index.ok_or_else(|| no_index(member))?;
                if !calls.append(index, input)? {
                    return Err(Error::new(
                        ErrorKind::InvalidResponse,
                        format!("a toolUse delta for content block {index}, which no toolUse start opened"),
                    ));
                }
            }
            "contentBlockStop" => {
                calls.close(index.ok_or_else(|| no_index(member))?)?;
            }
            "messageStop" => calls.close_all(),
            exception if exception.ends_with("Exception") => {
                let message = body.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(Error::new(
                    ErrorKind::ProviderError,
                    format!("{exception}: {message}"),
                ));
            }
            _ => {}
        }
        Ok(())
    }
}

fn no_index(member: &str) -> Error {
    Error::new(
        ErrorKind::InvalidResponse,
        format!("a {member} event has no \"contentBlockIndex\""),
    )
}
