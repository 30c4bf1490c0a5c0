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

mod elisp;

pub(crate) mod anthropic;
pub(crate) mod bedrock;
pub(crate) mod cohere;
pub(crate) mod ellmer;
pub(crate) mod gemini;
pub(crate) mod gemini_call;
pub(crate) mod gemini_json;
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

use crate::call::{Assembler, CallOptions, CallStream, Decode, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::check_depth;
use crate::note::Converted;
use crate::options::Format;

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
        check_depth(text, opts.limits.max_depth).map_err(|err| err.with_format(self))?;
        let value: Value = serde_json::from_str(text).map_err(|err| Error::from(err).with_format(self))?;
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
            Format::Gemini | Format::GeminiJson => Box::new(gemini_call::ChunkStream),
            Format::Bedrock => Box::new(bedrock::stream::ConverseStream),
            Format::Ollama => Box::new(ollama::ChatStream),
            Format::Cohere => Box::new(cohere::stream::ChatStream),
            _ => return Err(no_calls(self, "call streams")),
        };
        Ok(Assembler::new(decoder, opts))
    }

    /// A [`CallStream`]: this provider's framing (SSE, or NDJSON for Ollama
    /// and Bedrock's events as the AWS SDKs give them) and its assembler,
    /// fed raw bytes.
    pub fn call_stream(self, opts: &CallOptions) -> Result<CallStream> {
        Ok(CallStream::new(self.assembler(opts)?, opts))
    }
}

fn no_calls(format: Format, what: &str) -> Error {
    Error::new(
        ErrorKind::UnknownFormat,
        format!("{format} is not a provider with {what}"),
    )
    .with_format(format)
}
