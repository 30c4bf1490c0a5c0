//! Anthropic Messages calls: `tool_use` blocks of a message's `content`,
//! `{"type": "tool_use", "id": "toolu_…", "name", "input": {…}}`
//! (providers.md §3c). Other keys of the block (`caller`, `toolset_name`,
//! `cache_control`) are kept as extras. `server_tool_use` and `mcp_tool_use`
//! blocks are run by Anthropic, not by the client, so they are not calls.

use serde_json::Value;

use crate::call::read::{extras, invalid_response, Collector, Sent};
use crate::call::{CallOptions, Expect, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::Node;
use crate::note::Converted;

/// The keys of a `tool_use` block that are read (the rest are extras).
pub(crate) const BLOCK_KEYS: [&str; 4] = ["type", "id", "name", "input"];

/// Reads the calls of a message (`content`) or of a list of content blocks.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let root = Node::root(response);
    let blocks = match response {
        Value::Array(_) => invalid_response(root.array())?,
        Value::Object(object) if object.contains_key("content") => {
            invalid_response(invalid_response(root.field("content"))?.array())?
        }
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidResponse,
                "not an Anthropic message: no \"content\" blocks",
            ))
        }
    };
    let mut collector = Collector::new(opts);
    for block in blocks {
        invalid_response(block.object())?;
        if block.value.get("type").and_then(Value::as_str) == Some("tool_use") {
            collector.push(Sent {
                at: block.at.clone(),
                id: block.get("id"),
                name: block.get("name"),
                arguments: block.value.get("input"),
                arguments_at: block.at.key("input"),
                expect: Expect::Object,
                extras: extras(&block, &BLOCK_KEYS, None),
            })?;
        }
    }
    Ok(collector.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_tool_use_blocks_after_text() {
        let message = json!({"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_01KFbKqPYSuAKujiL6mTfzYA", "name": "get_weather",
             "input": {"city": "Paris"}, "caller": {"type": "direct"}},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}]});
        let calls = read_calls(&message, &CallOptions::default()).unwrap().value;
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, "toolu_01KFbKqPYSuAKujiL6mTfzYA");
        assert_eq!(calls[0].arguments, Ok(json!({"city": "Paris"})));
        assert_eq!(calls[0].raw_arguments, None);
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"caller": {"type": "direct"}})
        );
    }
}
