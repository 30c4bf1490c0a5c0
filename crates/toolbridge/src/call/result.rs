//! Results going back: the one shape of a tool's result, and the map of call
//! ids for providers that restrict them.
//!
//! Each provider's message, item, block or part carrying results is written
//! by [`Format::write_results`](crate::Format::write_results).

use std::collections::HashMap;

use serde_json::Value;

use crate::call::ToolCall;
use crate::options::Format;

/// A call a [`ToolResult`] can answer: what the result echoes of it. A
/// [`ToolCall`], and the Toolbox's `Accepted` and `Rejection` (which carry
/// the provider's id and name, so a call given up to
/// `Toolbox::check_owned` can still be answered).
pub trait Answerable {
    /// The call's id ([`ToolCall::id`]).
    fn id(&self) -> &str;
    /// The tool's name ([`ToolCall::name`]).
    fn name(&self) -> &str;
    /// The id the provider sent, if any ([`ToolCall::provider_id`]).
    fn provider_id(&self) -> Option<&str>;
    /// The name the provider sent ([`ToolCall::provider_name`]).
    fn provider_name(&self) -> &str;
}

/// Implements [`Answerable`] for a type with the fields of the same names.
macro_rules! answerable {
    ($call:ty) => {
        impl $crate::call::Answerable for $call {
            fn id(&self) -> &str {
                &self.id
            }
            fn name(&self) -> &str {
                &self.name
            }
            fn provider_id(&self) -> Option<&str> {
                self.provider_id.as_deref()
            }
            fn provider_name(&self) -> &str {
                &self.provider_name
            }
        }
    };
}
pub(crate) use answerable;

answerable!(ToolCall);

/// The result of running one tool call, from any handler, in one shape:
/// what the model sees on its next turn.
///
/// Built from the call it answers ([`ToolResult::text`],
/// [`ToolResult::json`], [`ToolResult::error`]), so the provider's id and
/// name, which must be echoed, come along.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The call's id (toolbridge's, [`ToolCall::id`]).
    pub id: String,
    /// The tool's canonical name.
    pub name: String,
    /// The id the provider sent for the call, echoed back to it; `None` when
    /// it sent none (then [`id`](ToolResult::id) is used where an id is
    /// required, and left out where it is optional).
    pub provider_id: Option<String>,
    /// The name the provider sent (Gemini requires it to be echoed).
    pub provider_name: String,
    /// The result as text for the model, if any.
    pub text: Option<String>,
    /// The result as JSON, if any (MCP's `structuredContent`, Bedrock's
    /// `json` block, Gemini's `response`, Cohere's document).
    pub structured: Option<Value>,
    /// True when the tool failed, or the call was rejected.
    pub is_error: bool,
    /// Metadata beside the result for the client, not the model (MCP's
    /// `_meta`): the session variables a context tool set, the prompt
    /// variables that rendered empty.
    pub meta: Option<serde_json::Map<String, Value>>,
}

impl ToolResult {
    /// A result answering `call`, with no content yet.
    fn answering(call: &impl Answerable) -> ToolResult {
        ToolResult {
            id: call.id().to_string(),
            name: call.name().to_string(),
            provider_id: call.provider_id().map(str::to_string),
            provider_name: call.provider_name().to_string(),
            text: None,
            structured: None,
            is_error: false,
            meta: None,
        }
    }

    /// A text result answering `call`.
    pub fn text(call: &impl Answerable, text: impl Into<String>) -> ToolResult {
        ToolResult {
            text: Some(text.into()),
            ..ToolResult::answering(call)
        }
    }

    /// A JSON result answering `call` (written as text where a provider
    /// takes only text).
    pub fn json(call: &impl Answerable, value: Value) -> ToolResult {
        ToolResult {
            structured: Some(value),
            ..ToolResult::answering(call)
        }
    }

    /// An error answering `call`: the tool failed, or the call was rejected;
    /// `message` is what the model reads.
    pub fn error(call: &impl Answerable, message: impl Into<String>) -> ToolResult {
        ToolResult {
            is_error: true,
            ..ToolResult::text(call, message)
        }
    }

    /// Adds JSON beside the text (or text beside the JSON).
    pub fn with_structured(mut self, value: Value) -> ToolResult {
        self.structured = Some(value);
        self
    }

    /// Adds metadata for the client ([`meta`](ToolResult::meta)).
    pub fn with_meta(mut self, meta: serde_json::Map<String, Value>) -> ToolResult {
        self.meta = Some(meta);
        self
    }

    /// The result as one text: the text, else the JSON compact, else empty.
    pub fn as_text(&self) -> String {
        match (&self.text, &self.structured) {
            (Some(text), _) => text.clone(),
            (None, Some(value)) => value.to_string(),
            (None, None) => String::new(),
        }
    }

    /// The id to echo: the provider's, else toolbridge's.
    pub(crate) fn wire_id(&self) -> &str {
        self.provider_id.as_deref().unwrap_or(&self.id)
    }
}

/// Call ids as a provider accepts them, mapped both ways.
///
/// Mistral refuses a `tool_call_id` that is not 9 ASCII letters or digits
/// (providers.md §8c, §10.2) and Bedrock a `toolUseId` outside
/// `[a-zA-Z0-9_.:-]{1,64}` (§5c): an id from elsewhere (a synthesised
/// `call_0`, another provider's `toolu_…`) is replaced by one derived from
/// it — the same id always maps to the same replacement, so the assistant
/// message echoing the calls and the results agree — and
/// [`original`](IdMap::original) maps it back. Other providers' ids pass
/// unchanged.
///
/// ```
/// use toolbridge::call::IdMap;
/// use toolbridge::Format;
/// let mut ids = IdMap::new(Format::Mistral);
/// let wire = ids.wire("call_0");
/// assert_eq!(wire.len(), 9);
/// assert_eq!(ids.wire("D681PevKs"), "D681PevKs");
/// assert_eq!(ids.original(&wire), Some("call_0"));
/// ```
#[derive(Clone, Debug)]
pub struct IdMap {
    format: Format,
    to_wire: HashMap<String, String>,
    from_wire: HashMap<String, String>,
}

impl IdMap {
    /// An empty map for `format`'s ids.
    pub fn new(format: Format) -> IdMap {
        IdMap {
            format,
            to_wire: HashMap::new(),
            from_wire: HashMap::new(),
        }
    }

    /// The id to send `format` for the call whose id is `id`.
    pub fn wire(&mut self, id: &str) -> String {
        if let Some(wire) = self.to_wire.get(id) {
            return wire.clone();
        }
        let accepted = match self.format {
            Format::Mistral => is_mistral_id(id),
            Format::Bedrock => is_bedrock_id(id),
            _ => true,
        };
        // Every wire id given out so far belongs to another id.
        let mut wire = id.to_string();
        let mut salt = 0u64;
        while !accepted || self.from_wire.contains_key(&wire) {
            wire = match self.format {
                Format::Bedrock => format!("tooluse_{}", base62(hash(id, salt), 22)),
                _ => base62(hash(id, salt), 9),
            };
            if !self.from_wire.contains_key(&wire) {
                break;
            }
            salt += 1;
        }
        self.to_wire.insert(id.to_string(), wire.clone());
        self.from_wire.insert(wire.clone(), id.to_string());
        wire
    }

    /// The id a wire id was made from (itself, when it was kept), if this
    /// map gave it out.
    pub fn original(&self, wire: &str) -> Option<&str> {
        self.from_wire.get(wire).map(String::as_str)
    }

    /// Every id given out, as (original, wire) pairs, in no set order.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.to_wire.iter().map(|(id, wire)| (id.as_str(), wire.as_str()))
    }
}

/// Mistral's rule: exactly 9 ASCII letters or digits.
fn is_mistral_id(id: &str) -> bool {
    id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Bedrock's `toolUseId` pattern `[a-zA-Z0-9_.:-]{1,64}`.
fn is_bedrock_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// FNV-1a (64 bits) of `text` and `salt`: stable across runs and
/// platforms, unlike the standard library's hasher.
fn hash(text: &str, salt: u64) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in text.bytes().chain(salt.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// `len` base-62 digits of `value` (repeating a mixed value past 11).
fn base62(mut value: u64, len: usize) -> String {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let seed = value;
    (0..len)
        .map(|index| {
            if value == 0 {
                value = seed.rotate_left(index as u32 * 7) | 1;
            }
            let digit = DIGITS[(value % 62) as usize] as char;
            value /= 62;
            digit
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mistral_ids_are_kept_when_valid_and_mapped_both_ways_otherwise() {
        let mut ids = IdMap::new(Format::Mistral);
        assert_eq!(ids.wire("D681PevKs"), "D681PevKs");
        let first = ids.wire("call_0");
        let second = ids.wire("call_1");
        assert!(is_mistral_id(&first) && is_mistral_id(&second));
        assert_ne!(first, second);
        assert_eq!(ids.wire("call_0"), first);
        assert_eq!(ids.original(&first), Some("call_0"));
        assert_eq!(ids.original("D681PevKs"), Some("D681PevKs"));
        // Deterministic: a new map gives the same replacement.
        assert_eq!(IdMap::new(Format::Mistral).wire("call_0"), first);
    }

    #[test]
    fn bedrock_ids_outside_the_pattern_are_replaced() {
        let mut ids = IdMap::new(Format::Bedrock);
        assert_eq!(
            ids.wire("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"),
            "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"
        );
        let wire = ids.wire("call 1/2");
        assert!(is_bedrock_id(&wire) && wire.starts_with("tooluse_"), "{wire}");
        assert_eq!(wire.len(), 30);
        assert!(!is_bedrock_id(&"x".repeat(65)));
    }

    #[test]
    fn other_providers_ids_pass_unchanged() {
        let mut ids = IdMap::new(Format::OpenAi);
        assert_eq!(ids.wire("call 1/2"), "call 1/2");
    }
}
