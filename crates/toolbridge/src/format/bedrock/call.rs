//! AWS Bedrock Converse calls: `toolUse` blocks of `output.message.content`,
//! `{"toolUse": {"toolUseId", "name", "input": {…}}}` (providers.md §5c).
//! The block's other keys, and the `toolUse` object's (`type`), are kept as
//! extras.

use serde_json::Value;

use crate::call::read::{extras, invalid_response, Collector, Sent};
use crate::call::{CallOptions, Expect, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::Node;
use crate::note::Converted;

/// The keys of a `toolUse` object that are read (the rest are extras).
pub(crate) const TOOL_USE_KEYS: [&str; 3] = ["toolUseId", "name", "input"];

/// Reads the calls of a Converse response (`output.message`), of a message
/// (`content`) or of a list of content blocks.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let root = Node::root(response);
    let content = if response.is_array() {
        root.clone()
    } else if response.get("output").is_some() {
        invalid_response(invalid_response(root.field("output")?.field("message"))?.field("content"))?
    } else if response.get("content").is_some() {
        invalid_response(root.field("content"))?
    } else {
        return Err(Error::new(
            ErrorKind::InvalidResponse,
            "not a Converse response: no \"output.message.content\" or \"content\"",
        ));
    };
    let mut collector = Collector::new(opts);
    for block in invalid_response(content.array())? {
        invalid_response(block.object())?;
        let Some(tool_use) = block.get("toolUse") else {
            continue;
        };
        invalid_response(tool_use.object())?;
        collector.push(Sent {
            at: tool_use.at.clone(),
            id: tool_use.get("toolUseId"),
            name: tool_use.get("name"),
            arguments: tool_use.value.get("input"),
            arguments_at: tool_use.at.key("input"),
            expect: Expect::Object,
            extras: extras(&block, &["toolUse"], Some(("toolUse", &TOOL_USE_KEYS))),
        })?;
    }
    Ok(collector.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_tool_use_blocks() {
        let response = json!({"output": {"message": {"role": "assistant", "content": [
            {"text": "Checking…"},
            {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "get_weather",
                         "input": {"city": "Paris"}, "type": "tool_use"}}]}},
            "stopReason": "tool_use"});
        let calls = read_calls(&response, &CallOptions::default()).unwrap().value;
        assert_eq!(calls[0].id, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
        assert_eq!(calls[0].arguments, Ok(json!({"city": "Paris"})));
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"toolUse": {"type": "tool_use"}})
        );
        let err = read_calls(&json!({"output": {}}), &CallOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid response: missing required field \"message\" (at /output)"
        );
    }
}
