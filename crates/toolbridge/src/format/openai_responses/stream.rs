//! OpenAI Responses streams (providers.md §2c): `response.output_item.added`
//! opens a `function_call` item, `response.function_call_arguments.delta`
//! appends to it (found by `output_index`, or by `item_id`; `content_index`
//! is not needed — rig #1827 dropped deltas without it),
//! `response.function_call_arguments.done` and `response.output_item.done`
//! carry the final arguments and item, which win over what streamed (the
//! guide's own sample shows another `call_id` in `done` than in `added`), and
//! `output_item.done` ends the call. `response.completed` and
//! `response.incomplete` end any call still open; `error` and
//! `response.failed` are provider errors.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::call::read::provider_error;
use crate::call::{Calls, Decode, Fragment, Framing, Opened};
use crate::error::{Error, ErrorKind, Result};
use crate::format::openai_responses::call::ITEM_KEYS;

/// The Responses event decoder.
#[derive(Debug, Default)]
pub(crate) struct Responses {
    /// Item id → output index, for events that give only the item id.
    items: HashMap<String, u64>,
}

impl Responses {
    /// The output index an event is about.
    fn key(&self, data: &Value) -> Result<u64> {
        if let Some(index) = data.get("output_index").and_then(Value::as_u64) {
            return Ok(index);
        }
        data.get("item_id")
            .and_then(Value::as_str)
            .and_then(|id| self.items.get(id).copied())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidResponse,
                    "an arguments event has no \"output_index\" and no \"item_id\" of a known item",
                )
            })
    }
}

fn function_call(item: Option<&Value>) -> Option<&Value> {
    item.filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call"))
}

fn item_extras(item: &Value) -> Map<String, Value> {
    item.as_object()
        .map(|object| {
            object
                .iter()
                .filter(|(key, _)| !ITEM_KEYS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default()
}

impl Decode for Responses {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn event(&mut self, name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        let kind = data.get("type").and_then(Value::as_str).or(name).unwrap_or("");
        match kind {
            "response.output_item.added" => {
                let Some(item) = function_call(data.get("item")) else {
                    return Ok(());
                };
                let key = self.open(data, item, calls)?;
                if let Some(arguments) = item.get("arguments").filter(|text| text.as_str() != Some("")) {
                    calls.append(key, arguments)?;
                }
            }
            "response.function_call_arguments.delta" => {
                let key = self.key(data)?;
                let delta = data.get("delta").unwrap_or(&Value::Null);
                if !calls.append(key, delta)? {
                    // No `output_item.added` came for it: open a call without a name yet.
                    calls.fragment(Fragment {
                        key: Some(key),
                        arguments: Some(delta),
                        ..Fragment::default()
                    })?;
                }
            }
            "response.function_call_arguments.done" => {
                let key = self.key(data)?;
                if let Some(text) = data.get("arguments").and_then(Value::as_str) {
                    if !calls.settle(key, text)? {
                        calls.fragment(Fragment {
                            key: Some(key),
                            arguments: data.get("arguments"),
                            ..Fragment::default()
                        })?;
                    }
                }
            }
            "response.output_item.done" => {
                let Some(item) = function_call(data.get("item")) else {
                    return Ok(());
                };
                let key = match data.get("output_index").and_then(Value::as_u64) {
                    Some(key) if calls.is_open(key) => key,
                    _ => self.open(data, item, calls)?,
                };
                if let Some(text) = item.get("arguments").and_then(Value::as_str) {
                    calls.settle(key, text)?;
                }
                calls.settle_item(
                    key,
                    item.get("call_id").and_then(Value::as_str),
                    item.get("name").and_then(Value::as_str),
                    item_extras(item),
                );
                calls.close(key)?;
            }
            "response.completed" | "response.incomplete" => calls.close_all(),
            "error" | "response.failed" => return Err(provider_error(data.get("response").unwrap_or(data))),
            _ => {}
        }
        Ok(())
    }
}

impl Responses {
    /// Opens the call of a `function_call` item; its output index (or, when
    /// the event has none, one past the highest seen).
    fn open(&mut self, data: &Value, item: &Value, calls: &mut Calls) -> Result<u64> {
        let key = match data.get("output_index").and_then(Value::as_u64) {
            Some(key) => key,
            None => self.items.values().max().map_or(0, |max| max + 1),
        };
        if let Some(id) = item.get("id").and_then(Value::as_str) {
            self.items.insert(id.to_string(), key);
        }
        calls.open(Opened {
            key: Some(key),
            id: item.get("call_id").and_then(Value::as_str),
            name: item.get("name").and_then(Value::as_str),
            extras: item_extras(item),
            fallback: None,
            choice: None,
        })?;
        Ok(key)
    }
}
