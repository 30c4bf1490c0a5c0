//! One module per format, its reader and writer side by side; a format past
//! ~800 lines of non-test code is a folder (`ellmer/`, `elisp/`, …).
//!
//! Each module fills in a `CODEC` for the registry. Modules import only from
//! the layers below (`tool`, `note`, `error`, `json`, `schema`, `codec`,
//! `options`) and from `shared`; a format that builds on another (Ollama on
//! OpenAI Chat) imports that format's functions directly.
//!
//! Providers also read the calls that come back (`read_calls`, whole
//! responses) and decode their streams (a `Decode` for the `call::Assembler`),
//! built on `call/`; [`Format::read_calls`], [`Format::assembler`] and
//! [`Format::call_stream`] pick the provider's.

pub(crate) mod shared;

pub(crate) mod elisp;

pub(crate) mod anthropic;
pub(crate) mod bedrock;
pub(crate) mod cohere;
pub(crate) mod ellmer;
pub(crate) mod gemini;
pub(crate) mod gemini_call;
pub(crate) mod gemini_json;
pub(crate) mod gemini_result;
pub(crate) mod mcp;
pub(crate) mod mistral;
pub(crate) mod ollama;
pub(crate) mod openai;
pub(crate) mod openai_responses;
pub(crate) mod skydeck;
pub(crate) mod syllable;
pub(crate) mod toolbridge;

pub(crate) use elisp::{gptel, llm};

use serde_json::Value;

use crate::call::{Assembler, CallOptions, CallStream, Decode, IdMap, ToolCall, ToolResult};
use crate::error::{Error, ErrorKind, Result};
use crate::json;
use crate::note::{Converted, Note, NoteKind};
use crate::options::Format;
use crate::pointer::Pointer;

/// Reads a provider's whole response into calls.
type ReadCalls = fn(&Value, &CallOptions) -> Result<Converted<Vec<ToolCall>>>;

impl Format {
    /// Reads the tool calls of a provider's whole response (OpenAI Chat
    /// completion or message, Responses `output`, Anthropic message, Gemini
    /// `GenerateContentResponse`, Bedrock Converse response, Ollama chat
    /// response, Mistral completion, Cohere v2 response) or MCP `tools/call`
    /// request, in order. The notes returned are about the response as a
    /// whole (a call left out); each call carries its own.
    ///
    /// An error means the document is not that provider's response (or holds
    /// the provider's error); a call whose arguments cannot be read is not an
    /// error: its [`arguments`](ToolCall::arguments) hold one, with the raw text.
    ///
    /// ```
    /// use toolbridge::call::CallOptions;
    /// use toolbridge::Format;
    /// let response = serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [
    ///     {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"}]}}]});
    /// let calls = Format::Gemini.read_calls(&response, &CallOptions::default())?.value;
    /// assert_eq!(calls[0].id, "call_0");
    /// assert_eq!(calls[0].extras["thoughtSignature"], "c2ln");
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn read_calls(self, response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
        let read: ReadCalls = match self {
            Format::OpenAi => openai::call::read_calls,
            Format::OpenAiResponses => openai_responses::call::read_calls,
            Format::Anthropic => anthropic::call::read_calls,
            Format::Gemini | Format::GeminiJson => gemini_call::read_calls,
            Format::Bedrock => bedrock::call::read_calls,
            Format::Mcp => mcp::read_calls,
            Format::Ollama => ollama::read_calls,
            Format::Mistral => mistral::read_calls,
            Format::Cohere => cohere::call::read_calls,
            _ => return Err(no_calls(self, "tool calls")),
        };
        read(response, opts).map_err(|err| err.with_format(self))
    }

    /// [`read_calls`](Format::read_calls) on JSON text, refused past the
    /// size and depth limits of `opts`.
    pub fn read_calls_text(self, text: &str, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
        if text.len() > opts.limits.max_bytes {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("the response is larger than {} bytes", opts.limits.max_bytes),
            )
            .with_format(self));
        }
        let value = json::parse(text, opts.limits.max_depth).map_err(|err| err.with_format(self))?;
        self.read_calls(&value, opts)
    }

    /// An [`Assembler`] for this provider's stream events (Mistral and
    /// OpenAI-compatible servers use [`Format::OpenAi`]'s chunks; `gemini`
    /// and `gemini-json` are one stream). MCP has no call streams.
    pub fn assembler(self, opts: &CallOptions) -> Result<Assembler> {
        let decoder: Box<dyn Decode> = match self {
            Format::OpenAi | Format::Mistral => Box::new(openai::stream::Chat),
            Format::OpenAiResponses => Box::new(openai_responses::stream::Responses::default()),
            Format::Anthropic => Box::new(anthropic::stream::Messages),
            Format::Gemini | Format::GeminiJson => Box::new(gemini_call::ChunkStream::default()),
            Format::Bedrock => Box::new(bedrock::stream::ConverseStream),
            Format::Ollama => Box::new(ollama::ChatStream),
            Format::Cohere => Box::new(cohere::stream::ChatStream),
            _ => return Err(no_calls(self, "call streams")),
        };
        Ok(Assembler::new(decoder, opts))
    }

    /// A [`CallStream`]: this provider's framing (SSE; NDJSON for Ollama;
    /// for Bedrock the binary event stream, or its events as the AWS SDKs
    /// give them, one JSON object per line) and its assembler, fed raw bytes.
    pub fn call_stream(self, opts: &CallOptions) -> Result<CallStream> {
        Ok(CallStream::new(self.assembler(opts)?, opts))
    }
}

/// Writes results in a provider's shape.
type WriteResults = fn(&[ToolResult]) -> Value;

impl Format {
    /// The results of a turn's calls as the provider takes them back on the
    /// next turn, after the echoed assistant turn (providers.md §10.4):
    /// - OpenAI Chat, Mistral, Ollama, Cohere: a list of `role: "tool"`
    ///   messages, one per call;
    /// - Responses: a list of `function_call_output` input items;
    /// - Anthropic: one user message of `tool_result` blocks (`is_error`);
    /// - Bedrock: one user message of `toolResult` blocks (`status`);
    /// - Gemini: one user content of `functionResponse` parts (the result
    ///   under `response.output`, an error under `response.error`);
    /// - MCP: a list of `CallToolResult`s (`isError`, `structuredContent`).
    ///
    /// Give the results in the order of the calls: every provider wants them
    /// so, and they are written in the order given. Where the provider has
    /// no error flag an error is its text alone.
    ///
    /// Ids the provider would refuse (Mistral's 9 letters or digits,
    /// Bedrock's pattern) are replaced through a fresh [`IdMap`], each with
    /// a note; use [`write_results_with`](Format::write_results_with) to
    /// share the map with the echoed calls.
    ///
    /// ```
    /// use toolbridge::call::{ToolCall, ToolResult};
    /// use toolbridge::Format;
    /// let call = ToolCall::new("toolu_01", "get_weather", serde_json::json!({"city": "Paris"}));
    /// let message = Format::Anthropic.write_results(&[ToolResult::error(&call, "city not found")])?.value;
    /// assert_eq!(message, serde_json::json!({"role": "user", "content": [{"type": "tool_result",
    ///     "tool_use_id": "toolu_01", "content": "city not found", "is_error": true}]}));
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnknownFormat`] for a format that is not a provider.
    pub fn write_results(self, results: &[ToolResult]) -> Result<Converted<Value>> {
        self.write_results_with(results, &mut IdMap::new(self))
    }

    /// [`write_results`](Format::write_results) with the ids mapped through
    /// `ids` (made for this format), which keeps every replacement both ways.
    pub fn write_results_with(self, results: &[ToolResult], ids: &mut IdMap) -> Result<Converted<Value>> {
        let write: WriteResults = match self {
            Format::OpenAi => openai::result::write_results,
            Format::OpenAiResponses => openai_responses::result::write_results,
            Format::Anthropic => anthropic::result::write_results,
            Format::Gemini | Format::GeminiJson => gemini_result::write_results,
            Format::Bedrock => bedrock::result::write_results,
            Format::Mcp => mcp::write_results,
            Format::Ollama => ollama::write_results,
            Format::Mistral => mistral::write_results,
            Format::Cohere => cohere::result::write_results,
            _ => return Err(no_calls(self, "tool results")),
        };
        let mut notes = Vec::new();
        let mut mapped = Vec::with_capacity(results.len());
        for (index, result) in results.iter().enumerate() {
            let sent = result.wire_id();
            let wire = ids.wire(sent);
            let mut result = result.clone();
            if wire != sent {
                notes.push(Note::new(
                    NoteKind::Renamed {
                        from: sent.into(),
                        to: wire.as_str().into(),
                    },
                    Pointer::root().index(index),
                    format!("{self} does not take the call id {sent:?}; the result is sent as {wire:?} (echo the call under the same id)"),
                ));
                result.provider_id = Some(wire);
            }
            mapped.push(result);
        }
        Ok(Converted {
            value: write(&mapped),
            notes,
        })
    }
}

impl Format {
    /// The provider whose whole response (or MCP `tools/call` request) has
    /// the shape of `response`, judged by the keys only that provider uses.
    /// Mistral answers in OpenAI Chat's shape and is read as OpenAI.
    pub fn detect_response(response: &Value) -> Option<Format> {
        let response = match response {
            Value::Array(batch) => batch.first()?,
            other => other,
        };
        let has = |key: &str| response.get(key).is_some();
        let message_has = |key: &str| response.get("message").and_then(|m| m.get(key)).is_some();
        Some(if has("choices") {
            Format::OpenAi
        } else if response.get("object").and_then(Value::as_str) == Some("response")
            || has("output") && response["output"].is_array()
        {
            Format::OpenAiResponses
        } else if response.get("type").and_then(Value::as_str) == Some("message")
            || has("stop_reason")
            || response
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| blocks.iter().any(|block| block.get("type").is_some()))
        {
            Format::Anthropic
        } else if has("candidates") {
            Format::Gemini
        } else if has("stopReason") || response.get("output").and_then(|o| o.get("message")).is_some() {
            Format::Bedrock
        } else if has("done") && has("message") {
            Format::Ollama
        } else if has("finish_reason") && message_has("role") {
            Format::Cohere
        } else if response.get("method").and_then(Value::as_str) == Some("tools/call")
            || has("params")
            || has("name") && has("arguments")
        {
            Format::Mcp
        } else {
            return None;
        })
    }

    /// The provider whose stream starts with `head` (the first bytes, a few
    /// events' worth), judged by its event names or its first JSON payload.
    pub fn detect_stream(head: &[u8]) -> Option<Format> {
        // AWS's binary event stream (Bedrock): a big-endian length whose
        // high byte is 0, then headers named `:event-type`, `:message-type`.
        let has = |name: &[u8]| head.windows(name.len()).any(|window| window == name);
        if head.first() == Some(&0) && (has(b":event-type") || has(b":message-type")) {
            return Some(Format::Bedrock);
        }
        let text = String::from_utf8_lossy(head);
        for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
            if let Some(event) = line.strip_prefix("event:").map(str::trim) {
                if event.starts_with("message_start") || event.starts_with("content_block") {
                    return Some(Format::Anthropic);
                }
                if event.starts_with("response.") {
                    return Some(Format::OpenAiResponses);
                }
                if [
                    "message-start",
                    "tool-plan-delta",
                    "tool-call-start",
                    "content-delta",
                ]
                .contains(&event)
                {
                    return Some(Format::Cohere);
                }
                continue;
            }
            let payload = line.strip_prefix("data:").map(str::trim).unwrap_or(line);
            let Ok(value) = serde_json::from_str::<Value>(payload) else {
                continue;
            };
            let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
            let has = |key: &str| value.get(key).is_some();
            return Some(if has("choices") {
                Format::OpenAi
            } else if has("candidates") {
                Format::Gemini
            } else if kind.starts_with("response.") {
                Format::OpenAiResponses
            } else if kind.starts_with("message_") || kind.starts_with("content_block") {
                Format::Anthropic
            } else if kind.contains('-') {
                Format::Cohere
            } else if [
                "messageStart",
                "contentBlockStart",
                "contentBlockDelta",
                "contentBlockStop",
                "messageStop",
                "metadata",
            ]
            .iter()
            .any(|key| has(key))
            {
                Format::Bedrock
            } else if has("message") && has("done") {
                Format::Ollama
            } else {
                continue;
            });
        }
        None
    }
}

fn no_calls(format: Format, what: &str) -> Error {
    Error::new(
        ErrorKind::UnknownFormat,
        format!("{format} is not a provider with {what}"),
    )
    .with_format(format)
}
