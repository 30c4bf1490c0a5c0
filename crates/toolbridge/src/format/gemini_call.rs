//! Gemini calls coming back (providers.md §4c), for both `gemini` and
//! `gemini-json`: `functionCall` parts of `candidates[i].content.parts`,
//! `{"functionCall": {"id"?, "name", "args": {…}}, "thoughtSignature"?}`.
//!
//! `id` is often absent (synthesised then; a result must not send one back).
//! `thoughtSignature` is a sibling of `functionCall` on the part and must go
//! back exactly, on the same part: it is kept in the extras with the part's
//! other keys, never merged or joined with anything (BerriAI/litellm #25869
//! corrupted it while merging chunks). A stream (`streamGenerateContent?alt=sse`)
//! sends each `functionCall` part whole in one chunk; Vertex's incremental
//! `partialArgs` (`streamFunctionCallArguments`) are not read yet and fail
//! visibly.
//!
//! (Beside `gemini.rs`, to be moved into a `gemini/` folder.)

use serde_json::{Map, Value};

use crate::call::read::{choice, extras, invalid_response, provider_error, Collector, Sent};
use crate::call::{CallOptions, Calls, Decode, Expect, Framing, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::Node;
use crate::note::Converted;

/// The keys of a `functionCall` that are read (the rest are extras).
const CALL_KEYS: [&str; 3] = ["id", "name", "args"];

/// Reads the calls of a `GenerateContentResponse` (candidate
/// `opts.choice`), of a `Content` (`parts`) or of a list of parts.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let root = Node::root(response);
    let mut collector = Collector::new(opts);
    let parts = match response {
        Value::Array(_) => Some(root.clone()),
        Value::Object(object) if object.contains_key("candidates") => {
            let candidates = invalid_response(invalid_response(root.field("candidates"))?.array())?;
            match choice(candidates, opts.choice) {
                Some(candidate) => match candidate.get("content") {
                    Some(content) => content.get("parts"),
                    None => None,
                },
                None => None,
            }
        }
        Value::Object(object) if object.contains_key("parts") => root.get("parts"),
        Value::Object(object) if object.contains_key("error") => return Err(provider_error(response)),
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidResponse,
                "not a Gemini response: no \"candidates\" and no content \"parts\"",
            ))
        }
    };
    for part in parts
        .map(|parts| invalid_response(parts.array()))
        .transpose()?
        .unwrap_or_default()
    {
        invalid_response(part.object())?;
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        invalid_response(call.object())?;
        collector.push(Sent {
            at: call.at.clone(),
            id: call.get("id"),
            name: call.get("name"),
            arguments: call.value.get("args"),
            arguments_at: call.at.key("args"),
            expect: Expect::OptionalObject,
            extras: extras(&part, &["functionCall"], Some(("functionCall", &CALL_KEYS))),
        })?;
    }
    Ok(collector.finish())
}

/// The `streamGenerateContent` chunk decoder: whole calls, in part order.
#[derive(Debug, Default)]
pub(crate) struct ChunkStream;

impl Decode for ChunkStream {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn event(&mut self, _name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        if data.get("error").is_some_and(|error| !error.is_null()) {
            return Err(provider_error(data));
        }
        let Some(candidates) = data.get("candidates").and_then(Value::as_array) else {
            return Ok(());
        };
        let wanted = calls.options().choice;
        let indexed = candidates
            .iter()
            .any(|candidate| candidate.get("index").is_some());
        let candidate = candidates.iter().enumerate().find(|(position, candidate)| {
            match candidate.get("index").and_then(Value::as_u64) {
                Some(index) => index == wanted as u64,
                None => !indexed && *position == wanted,
            }
        });
        let Some((_, candidate)) = candidate else {
            return Ok(());
        };
        let parts = candidate
            .get("content")
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            let Some(call) = part.get("functionCall") else {
                continue;
            };
            if call.get("partialArgs").is_some()
                || call.get("willContinue").and_then(Value::as_bool) == Some(true)
            {
                return Err(Error::new(
                    ErrorKind::InvalidResponse,
                    "incremental function call arguments (Vertex partialArgs) are not supported yet; \
                     stream without streamFunctionCallArguments",
                ));
            }
            let mut kept: Map<String, Value> = part
                .as_object()
                .map(|object| {
                    object
                        .iter()
                        .filter(|(key, _)| key.as_str() != "functionCall")
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(object) = call.as_object() {
                let inner: Map<String, Value> = object
                    .iter()
                    .filter(|(key, _)| !CALL_KEYS.contains(&key.as_str()))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                if !inner.is_empty() {
                    kept.insert("functionCall".into(), Value::Object(inner));
                }
            }
            calls.whole(
                call.get("id").and_then(Value::as_str),
                call.get("name").and_then(Value::as_str),
                call.get("args"),
                Expect::OptionalObject,
                kept,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_function_call_parts_and_keeps_the_signature_on_its_call() {
        let response = json!({"candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model",
            "parts": [
                {"text": "Let me check."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                 "thoughtSignature": "CiQB0e2Kb+/x=="},
                {"functionCall": {"id": "fc_2", "name": "get_time", "args": {"tz": "CET"}}}]}}]});
        let calls = read_calls(&response, &CallOptions::default()).unwrap().value;
        assert_eq!(
            (calls[0].id.as_str(), calls[0].provider_id.as_deref()),
            ("call_0", None)
        );
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"thoughtSignature": "CiQB0e2Kb+/x=="})
        );
        assert_eq!((calls[1].id.as_str(), calls[1].extras.len()), ("fc_2", 0));
        assert_eq!(calls[1].arguments, Ok(json!({"tz": "CET"})));
    }

    #[test]
    fn errors_and_other_documents() {
        let err = read_calls(
            &json!({"error": {"code": 400, "message": "bad"}}),
            &CallOptions::default(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ProviderError);
        let calls = read_calls(
            &json!({"candidates": [{"finishReason": "SAFETY"}]}),
            &CallOptions::default(),
        );
        assert!(calls.unwrap().value.is_empty());
    }
}
