//! OpenAI Responses calls: `function_call` items of a response's `output`,
//! `{"type": "function_call", "id": "fc_…", "call_id": "call_…", "name",
//! "arguments": "<JSON text>", "status"}` (providers.md §2c).
//!
//! `call_id` is the call's id (what a `function_call_output` answers);
//! the item's own `id`, `status` and any newer member (`namespace`, `caller`)
//! are kept as extras, since a replayed item needs them.

use serde_json::Value;

use crate::call::read::{extras, invalid_response, Collector, Sent};
use crate::call::{CallOptions, Expect, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::Node;
use crate::note::{Converted, NoteKind};

/// The keys of a `function_call` item that are read (the rest are extras).
pub(crate) const ITEM_KEYS: [&str; 4] = ["type", "call_id", "name", "arguments"];

/// Reads the calls of a response (`output`), of a `response.completed`
/// event (`response.output`), of a list of items or of one item.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let root = Node::root(response);
    let items = match response {
        Value::Array(_) => invalid_response(root.array())?,
        Value::Object(object) if object.contains_key("output") => {
            invalid_response(root.field("output")?.array())?
        }
        Value::Object(object)
            if object
                .get("response")
                .is_some_and(|inner| inner.get("output").is_some()) =>
        {
            invalid_response(root.field("response")?.field("output")?.array())?
        }
        Value::Object(object) if object.contains_key("type") => vec![root.clone()],
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidResponse,
                "not a Responses response: no \"output\" items",
            ))
        }
    };
    let mut collector = Collector::new(opts);
    for item in items {
        invalid_response(item.object())?;
        match item.value.get("type").and_then(Value::as_str) {
            Some("function_call") => collector.push(Sent {
                at: item.at.clone(),
                id: item.get("call_id"),
                name: item.get("name"),
                arguments: item.value.get("arguments"),
                arguments_at: item.at.key("arguments"),
                expect: Expect::Text,
                extras: extras(&item, &ITEM_KEYS, None),
            })?,
            Some(kind @ "custom_tool_call") => collector.note(
                NoteKind::Dropped { keyword: kind.into() },
                item.at.clone(),
                "a custom tool call takes free-form text, not JSON arguments; it was left out",
            ),
            // `message`, `reasoning`, hosted tools' items: not calls to run.
            _ => {}
        }
    }
    Ok(collector.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_function_call_items_and_keeps_the_item_id() {
        let response = json!({"id": "resp_1", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz",
             "name": "get_weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"}]});
        let calls = read_calls(&response, &CallOptions::default()).unwrap().value;
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, "call_12345xyz");
        assert_eq!(calls[0].arguments, Ok(json!({"city": "Paris"})));
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"id": "fc_12345xyz", "status": "completed"})
        );
        let item = &response["output"][1];
        assert_eq!(read_calls(item, &CallOptions::default()).unwrap().value, calls);
    }
}
