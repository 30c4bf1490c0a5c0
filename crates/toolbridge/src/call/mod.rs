//! Calls coming back, provider-neutral: the one shape of a tool call, the
//! stream events, the SSE/NDJSON/AWS event-stream framer, the incremental
//! partial-JSON parser, argument repair and the results sent back ([`ToolResult`]). Each provider's own call, stream and result shapes
//! live with its format module and build on these.
//!
//! A whole response becomes a list of [`ToolCall`]s with
//! [`Format::read_calls`](crate::Format::read_calls); a stream becomes
//! [`CallEvent`]s with an [`Assembler`] (parsed events) or a [`CallStream`]
//! (raw bytes, through a [`Framer`]). While a call's arguments stream in,
//! each [`CallEvent::ArgumentsDelta`] says what its text changed in the
//! partial arguments ([`Change`]s), and [`Assembler::partial`] lends the
//! whole partial value:
//!
//! ```
//! use toolbridge::call::{CallEvent, CallOptions};
//! use toolbridge::Format;
//! let mut stream = Format::Anthropic.call_stream(&CallOptions::default())?;
//! let mut events = Vec::new();
//! stream.push(br#"event: content_block_start
//! data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}
//!
//! data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}}
//!
//! data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"is\"}"}}
//!
//! data: {"type":"content_block_stop","index":1}
//!
//! "#, &mut events)?;
//! stream.finish(&mut events)?;
//! let CallEvent::ArgumentsDelta { changes, .. } = &events[1] else { panic!() };
//! assert_eq!(serde_json::to_string(changes)?, r#"[{"at":"","set":{}},{"at":"/city","set":"Par"}]"#);
//! let CallEvent::Finished { call, .. } = &events[3] else { panic!() };
//! assert_eq!(call.arguments, Ok(serde_json::json!({"city": "Paris"})));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arguments;
mod assemble;
mod eventstream;
mod ids;
mod partial;
pub(crate) mod read;
mod repair;
mod result;
mod sse;
mod stream;

use std::collections::HashMap;

use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::limits::Limits;
use crate::note::Note;
use crate::rewrite::Inverse;

pub(crate) use arguments::is_truncation;
pub use arguments::{ArgumentsError, ArgumentsErrorKind};
pub use assemble::CallEvent;
pub(crate) use partial::{changes_of, SpareTexts};
pub use partial::{Change, PartialJson};
pub use repair::repair;
pub(crate) use repair::{fast_path_depth, fit_parsed, member_schema};
pub(crate) use result::answerable;
pub use result::{Answerable, IdMap, ToolResult};
pub use sse::{Frame, Framer, Framing};
pub use stream::{Assembler, CallStream};

pub(crate) use arguments::Expect;
pub(crate) use assemble::{Calls, Decode, Fragment, Opened};

/// One tool call, from any provider, in one shape.
///
/// Arguments come as a JSON string from OpenAI Chat and Responses, Mistral
/// and Cohere, and as an object from Anthropic, Gemini, Bedrock, Ollama and
/// MCP; either way [`arguments`](ToolCall::arguments) holds the parsed
/// object, or the error with the raw text.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The call's id, unique within its response or stream: the provider's
    /// id, made unique with `_2`, `_3`, … when the provider reused it, or
    /// `<prefix><n>` when it sent none (see [`CallOptions::with_id_prefix`]).
    pub id: String,
    /// The tool's name: the canonical name when the tools were written by
    /// toolbridge under other names (see [`CallOptions::with_inverses`]),
    /// else the name the provider sent.
    pub name: String,
    /// The arguments, always a JSON object; or why they could not be read,
    /// with the raw text.
    pub arguments: Result<Value, ArgumentsError>,
    /// The arguments exactly as sent, when the provider sent text (a JSON
    /// string, or streamed fragments).
    pub raw_arguments: Option<String>,
    /// The id the provider sent (`None` when it sent none): what must be
    /// echoed back to it.
    pub provider_id: Option<String>,
    /// The name the provider sent: what must be echoed back to it.
    pub provider_name: String,
    /// The members of the call that must be echoed back unchanged on the next
    /// turn, under their wire names and nesting: the keys of the provider's
    /// call entry besides the ones read, with those of its inner object under
    /// that object's name — Gemini's part-level `thoughtSignature`, a
    /// Responses item's `id` and `status`, a Bedrock block's
    /// `{"toolUse": {"type": …}}`, an MCP request's JSON-RPC `id` and
    /// `params._meta`.
    pub extras: Map<String, Value>,
    /// What was normalised while reading this call. Whole responses point
    /// into the response; streams point into the call (`/id`, `/arguments`).
    pub notes: Vec<Note>,
    /// The choice the call belongs to (OpenAI Chat's `choices[].index`),
    /// when every choice was read ([`CallOptions::with_all_choices`]);
    /// `None` when one choice was.
    pub choice: Option<usize>,
}

impl ToolCall {
    /// A call with these parts and nothing else: the provider's id and name
    /// are `id` and `name`, no raw text, no extras, no notes.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> ToolCall {
        let (id, name) = (id.into(), name.into());
        ToolCall {
            provider_id: Some(id.clone()),
            provider_name: name.clone(),
            id,
            name,
            arguments: Ok(arguments),
            raw_arguments: None,
            extras: Map::new(),
            notes: Vec::new(),
            choice: None,
        }
    }
}

/// The JSON form: `id`, `name`, then `arguments` or `error`, then the rest
/// when present (`choice`, `rawArguments`, `providerId`, `providerName` when
/// it differs from `name`, `extras`, `notes`).
impl Serialize for ToolCall {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("name", &self.name)?;
        match &self.arguments {
            Ok(arguments) => map.serialize_entry("arguments", arguments)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        if let Some(choice) = self.choice {
            map.serialize_entry("choice", &choice)?;
        }
        if let Some(raw) = &self.raw_arguments {
            map.serialize_entry("rawArguments", raw)?;
        }
        if self.provider_id.as_deref() != Some(self.id.as_str()) {
            map.serialize_entry("providerId", &self.provider_id)?;
        }
        if self.provider_name != self.name {
            map.serialize_entry("providerName", &self.provider_name)?;
        }
        if !self.extras.is_empty() {
            map.serialize_entry("extras", &self.extras)?;
        }
        if !self.notes.is_empty() {
            map.serialize_entry("notes", &self.notes)?;
        }
        map.end()
    }
}

/// How calls are read: bounds, the prefix of synthesised ids, which choice
/// to read and the names to map back.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CallOptions {
    /// Bounds: a stream's buffered line, event and arguments are each at
    /// most [`max_bytes`](Limits::max_bytes) (the arguments of all calls
    /// in flight together), arguments at most
    /// [`max_depth`](Limits::max_depth) deep, and a response or stream at
    /// most [`max_tools`](Limits::max_tools) calls.
    pub limits: Limits,
    /// The start of the ids given to calls the provider sent none for
    /// (default `call_`): the call at position `n` gets `<prefix><n>`. Give
    /// each turn its own prefix when ids must be unique across a conversation.
    pub id_prefix: String,
    /// Which choice (OpenAI Chat, Mistral) or candidate (Gemini) to read
    /// (default 0); the others are alternatives, not more calls.
    pub choice: usize,
    /// Read every choice of an OpenAI Chat response or stream (`n > 1`)
    /// instead of [`choice`](CallOptions::choice) alone: each choice's calls
    /// are kept apart (keyed by choice, then by index) and each call says
    /// its [`ToolCall::choice`]. Off by default: the choices are
    /// alternatives, and running the calls of all of them would run each
    /// intended call several times.
    pub all_choices: bool,
    /// Written name → canonical name.
    names: HashMap<String, String>,
}

impl Default for CallOptions {
    fn default() -> CallOptions {
        CallOptions {
            limits: Limits::default(),
            id_prefix: "call_".into(),
            choice: 0,
            all_choices: false,
            names: HashMap::new(),
        }
    }
}

impl CallOptions {
    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> CallOptions {
        self.limits = limits;
        self
    }

    /// Sets the prefix of synthesised ids.
    pub fn with_id_prefix(mut self, prefix: impl Into<String>) -> CallOptions {
        self.id_prefix = prefix.into();
        self
    }

    /// Reads choice (or candidate) `choice` instead of the first.
    pub fn with_choice(mut self, choice: usize) -> CallOptions {
        self.choice = choice;
        self
    }

    /// Reads every choice of an OpenAI Chat response or stream (see
    /// [`all_choices`](CallOptions::all_choices)).
    ///
    /// ```
    /// use toolbridge::call::CallOptions;
    /// use toolbridge::Format;
    /// let call = |id: &str| serde_json::json!({"id": id, "type": "function",
    ///     "function": {"name": "f", "arguments": "{}"}});
    /// let response = serde_json::json!({"choices": [
    ///     {"index": 0, "message": {"tool_calls": [call("a")]}},
    ///     {"index": 1, "message": {"tool_calls": [call("b")]}}]});
    /// let options = CallOptions::default().with_all_choices(true);
    /// let calls = Format::OpenAi.read_calls(&response, &options)?.value;
    /// assert_eq!((calls[1].id.as_str(), calls[1].choice), ("b", Some(1)));
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn with_all_choices(mut self, all: bool) -> CallOptions {
        self.all_choices = all;
        self
    }

    /// Maps names back: a call to a tool's written name gets the tool's
    /// canonical name (from [`WrittenTool::inverse`](crate::WrittenTool)).
    ///
    /// ```
    /// use toolbridge::call::CallOptions;
    /// use toolbridge::{Format, Tool, WriteOptions};
    /// let tool = Tool::new("github.search", serde_json::json!({"type": "object"}));
    /// let written = toolbridge::write(&[tool], Format::OpenAi, &WriteOptions::default());
    /// let inverses: Vec<_> = written.tools.iter().map(|tool| tool.inverse.clone()).collect();
    /// let options = CallOptions::default().with_inverses(&inverses);
    /// let response = serde_json::json!({"choices": [{"message": {"tool_calls": [{"id": "call_1",
    ///     "type": "function", "function": {"name": "github_search", "arguments": "{}"}}]}}]});
    /// let call = &Format::OpenAi.read_calls(&response, &options)?.value[0];
    /// assert_eq!((call.name.as_str(), call.provider_name.as_str()), ("github.search", "github_search"));
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn with_inverses(mut self, inverses: &[Inverse]) -> CallOptions {
        for inverse in inverses {
            self.names
                .insert(inverse.written_name.clone(), inverse.name.clone());
        }
        self
    }

    /// Maps one written name back to its canonical name.
    pub fn with_name(mut self, written: impl Into<String>, canonical: impl Into<String>) -> CallOptions {
        self.names.insert(written.into(), canonical.into());
        self
    }

    /// The canonical name behind a name the provider sent.
    pub(crate) fn canonical_name(&self, sent: &str) -> String {
        self.names.get(sent).cloned().unwrap_or_else(|| sent.to_string())
    }
}
