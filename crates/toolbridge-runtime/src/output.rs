//! The result of running a tool, before it is tied to the call it answers.

use serde_json::{Map, Value};
use toolbridge::call::{ToolCall, ToolResult};

/// What running a tool produced, provider-neutral.
///
/// Handlers and the `run` kinds return this; [`Output::into_result`] ties it
/// to the call it answers, giving the [`ToolResult`] a format writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Output {
    /// The result as text for the model.
    pub text: Option<String>,
    /// The result as JSON (MCP's `structuredContent`).
    pub structured: Option<Value>,
    /// True when the tool failed; the text says why.
    pub is_error: bool,
    /// Metadata for the client, not the model (MCP's `_meta`).
    pub meta: Option<Map<String, Value>>,
}

impl Output {
    /// A text result.
    pub fn text(text: impl Into<String>) -> Output {
        Output {
            text: Some(text.into()),
            ..Output::default()
        }
    }

    /// A JSON result: the value as structured content, and as compact JSON text.
    pub fn json(value: Value) -> Output {
        Output {
            text: Some(value.to_string()),
            structured: Some(value),
            ..Output::default()
        }
    }

    /// An error result; `message` is what the model reads.
    pub fn error(message: impl Into<String>) -> Output {
        Output {
            is_error: true,
            ..Output::text(message)
        }
    }

    /// Adds structured content beside the text.
    pub fn with_structured(mut self, value: Value) -> Output {
        self.structured = Some(value);
        self
    }

    /// Adds one metadata entry.
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Output {
        self.meta.get_or_insert_with(Map::new).insert(key.into(), value);
        self
    }

    /// The result answering `call`.
    pub fn into_result(self, call: &ToolCall) -> ToolResult {
        let mut result = match (self.text, self.is_error) {
            (Some(text), true) => ToolResult::error(call, text),
            (None, true) => ToolResult::error(call, ""),
            (Some(text), false) => ToolResult::text(call, text),
            (None, false) => match self.structured.clone() {
                Some(value) => ToolResult::json(call, value),
                None => ToolResult::text(call, ""),
            },
        };
        if let Some(value) = self.structured {
            result = result.with_structured(value);
        }
        if let Some(meta) = self.meta {
            result = result.with_meta(meta);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn into_result_keeps_every_part() {
        let call = ToolCall::new("call_1", "t", json!({}));
        let result = Output::json(json!({"a": 1}))
            .with_meta("k", json!(true))
            .into_result(&call);
        assert_eq!(result.text.as_deref(), Some(r#"{"a":1}"#));
        assert_eq!(result.structured, Some(json!({"a": 1})));
        assert_eq!(result.meta, Some(json!({"k": true}).as_object().unwrap().clone()));
        assert!(!result.is_error);
        let error = Output::error("boom").into_result(&call);
        assert_eq!((error.text.as_deref(), error.is_error), (Some("boom"), true));
    }
}
