//! Values a dialect cannot describe, written as a string holding their JSON.
//!
//! Gemini refuses an OBJECT without `properties` ("should be non-empty for
//! OBJECT type") and strict modes refuse a schema without a type or an
//! object that takes any key, yet real tools are full of free-form objects,
//! maps (`additionalProperties: {…}`), recursive objects and "any" values.
//! Peers keep such a value an OBJECT the API refuses, or lose it without a
//! word: Vercel AI's `convertJSONSchemaToOpenAPISchema` (`@ai-sdk/google`)
//! writes a nested empty object as `{type: 'object'}`, LiteLLM's
//! `add_object_type` (`litellm/llms/vertex_ai/common_utils.py`) removes the
//! empty `properties` and keeps `type: object`, and LangChain's
//! `_get_properties_from_schema` (`langchain_google_genai/_function_utils.py`)
//! skips what it does not support with a log line.
//! Here the value keeps its meaning: it is written as a string, the
//! description says the string holds JSON (and, for a map, what its values
//! are, from the keywords written into the description), and the rewrite is
//! recorded as [`Rewrite::JsonEncoded`], so that
//! [`Inverse::restore`](crate::Inverse::restore) parses the string back when
//! the call comes in.

use serde_json::Value;

use crate::note::NoteKind;
use crate::pointer::Pointer;
use crate::rewrite::Rewrite;

use super::keywords::Object;
use super::walk::{Ctx, Place};
use crate::json::Field;

/// What an encoded value is: an object (decoded only from a string holding
/// an object), or any value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoded {
    /// A free-form object, a map, or a recursive object cut short.
    Object,
    /// A schema that accepts any value.
    Any,
}

impl Encoded {
    fn sentence(self) -> &'static str {
        match self {
            Encoded::Object => "Send a JSON object here, encoded as a string of JSON.",
            Encoded::Any => "Send any JSON value here, encoded as a string of JSON.",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Encoded::Object => "an object that takes any keys",
            Encoded::Any => "a value of any type",
        }
    }
}

/// `out`'s description with the sentence saying the string holds JSON.
pub(super) fn describe_encoded(out: &mut Object, encoded: Encoded) {
    let text = match out.field("description").and_then(Value::as_str) {
        Some(existing) if !existing.is_empty() => format!("{existing}\n\n{}", encoded.sentence()),
        _ => encoded.sentence().to_string(),
    };
    out.insert("description".into(), Value::String(text));
}

/// A value written as a string of JSON where the schema had it whole
/// (`default`, `example`): `null` stays `null`.
pub(super) fn encode_value(value: &Value) -> Value {
    match value {
        Value::Null => Value::Null,
        other => Value::String(other.to_string()),
    }
}

/// The pointer for argument-path tokens (`*` for any array index).
pub(super) fn argument_place(tokens: &[String]) -> Pointer {
    tokens
        .iter()
        .fold(Pointer::root(), |pointer, token| pointer.key(token))
}

impl Ctx<'_> {
    /// Notes that the node at `place` was written as a string of JSON
    /// because `why`.
    pub(super) fn note_encoded(&mut self, place: &Place, encoded: Encoded, why: &str) {
        let target = self.target;
        self.note(
            NoteKind::Rewritten {
                keyword: "type".into(),
            },
            place.note.clone(),
            format!(
                "{target} {why}; this schema takes {}, so it was written as a string holding the value as JSON (the call's arguments are decoded back)",
                encoded.what()
            ),
        );
    }

    /// Gives an array node `out` (at `place`) that has no `items` items of
    /// any value, written as strings of JSON (`string_type`: the dialect's
    /// spelling of "string"), noted; true if it did (the caller records
    /// where the items are in the arguments).
    pub(super) fn encode_missing_items(
        &mut self,
        out: &mut Object,
        place: &Place,
        string_type: &str,
    ) -> bool {
        if out.has_field("items") {
            return false;
        }
        let mut items = Object::new();
        items.insert("type".into(), Value::String(string_type.into()));
        describe_encoded(&mut items, Encoded::Any);
        out.insert("items".into(), Value::Object(items));
        self.note_encoded(
            &place.key("items"),
            Encoded::Any,
            "needs items on an array, and the items of this one may be any value",
        );
        true
    }

    /// Records that a string at `at` in the arguments holds JSON (once per
    /// place).
    pub(super) fn record_encoded(&mut self, at: Pointer, encoded: Encoded) {
        let rewrite = Rewrite::JsonEncoded {
            at,
            object: encoded == Encoded::Object,
        };
        let schema = self.at.clone();
        self.notes.record(&schema, rewrite);
    }
}
