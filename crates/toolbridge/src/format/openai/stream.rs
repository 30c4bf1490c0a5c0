//! OpenAI Chat Completions streams: SSE chunks whose
//! `choices[i].delta.tool_calls[]` carry `{index, id?, type?, function?:
//! {name?, arguments?}}` fragments, ended by `finish_reason` or `[DONE]`
//! (providers.md §1c). Mistral and OpenAI-compatible servers (Groq, vLLM,
//! DeepSeek, DashScope, Fireworks, LM Studio, Ollama's `/v1`) stream the
//! same chunks with the quirks [`Calls::fragment`] handles: `index` left
//! out, `id` only on the first fragment or on every one or `""`, parallel
//! calls all on `index: 0`, whole calls in one chunk, `arguments` as an
//! object.
//!
//! One choice is read ([`CallOptions::choice`]), unless every choice is
//! ([`CallOptions::all_choices`], for `n > 1`): then fragments are keyed by
//! choice, then by index, and a choice's `finish_reason` ends only its own
//! calls.
//!
//! [`CallOptions::choice`]: crate::call::CallOptions::choice
//! [`CallOptions::all_choices`]: crate::call::CallOptions::all_choices

use serde_json::{Map, Value};

use crate::call::read::provider_error;
use crate::call::{Calls, Decode, Fragment, Framing};
use crate::error::Result;

/// The keys of a `delta.tool_calls[]` entry that are read.
const ENTRY_KEYS: [&str; 4] = ["index", "id", "type", "function"];

/// The Chat chunk decoder.
#[derive(Debug, Default)]
pub(crate) struct Chat;

impl Decode for Chat {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn event(&mut self, _name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        if data.get("error").is_some_and(|error| !error.is_null()) {
            return Err(provider_error(data));
        }
        let Some(choices) = data.get("choices").and_then(Value::as_array) else {
            return Ok(());
        };
        let wanted = calls.options().choice as u64;
        let all = calls.options().all_choices;
        for (position, choice) in choices.iter().enumerate() {
            let index = choice
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(position as u64);
            if !all && index != wanted {
                continue;
            }
            // With every choice read, calls are kept apart by choice.
            let group = all.then(|| usize::try_from(index).unwrap_or(usize::MAX));
            if let Some(delta) = choice.get("delta") {
                match delta.get("tool_calls") {
                    Some(Value::Array(entries)) => {
                        for entry in entries {
                            fragment(entry, group, calls)?;
                        }
                    }
                    Some(entry @ Value::Object(_)) => fragment(entry, group, calls)?,
                    _ => {}
                }
                if let Some(function) = delta.get("function_call").filter(|value| value.is_object()) {
                    calls.fragment(Fragment {
                        name: function.get("name").and_then(Value::as_str),
                        arguments: function.get("arguments"),
                        choice: group,
                        ..Fragment::default()
                    })?;
                }
            }
            if choice
                .get("finish_reason")
                .is_some_and(|reason| !reason.is_null())
            {
                match group {
                    Some(_) => calls.close_choice(group),
                    None => calls.close_all(),
                }
            }
        }
        Ok(())
    }
}

/// One `tool_calls[]` entry of choice `choice` (when every choice is read);
/// entries of another type (`custom`) are skipped.
fn fragment(entry: &Value, choice: Option<usize>, calls: &mut Calls) -> Result<()> {
    let function = entry.get("function").filter(|function| function.is_object());
    let kind = entry.get("type").and_then(Value::as_str);
    if function.is_none() && kind.is_some_and(|kind| kind != "function") {
        return Ok(());
    }
    let mut extras: Map<String, Value> = entry
        .as_object()
        .map(|object| {
            object
                .iter()
                .filter(|(key, _)| !ENTRY_KEYS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(function)) = function {
        let inner: Map<String, Value> = function
            .iter()
            .filter(|(key, _)| !["name", "arguments"].contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !inner.is_empty() {
            extras.insert("function".into(), Value::Object(inner));
        }
    }
    calls.fragment(Fragment {
        key: entry.get("index").and_then(Value::as_u64),
        id: entry.get("id").and_then(Value::as_str),
        name: function
            .and_then(|function| function.get("name"))
            .and_then(Value::as_str),
        arguments: function.and_then(|function| function.get("arguments")),
        extras,
        choice,
    })
}
