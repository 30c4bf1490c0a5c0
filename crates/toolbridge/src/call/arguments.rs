//! A call's arguments: the accumulator a stream's fragments go into, the
//! normalisation every provider's arguments go through, and the per-call
//! error when they cannot be read.
//!
//! The rules (providers.md §0, §10.3, §15.3): empty or whitespace-only text
//! means `{}`; `null` means `{}`; an object where a JSON string was expected,
//! a JSON string where an object was expected, and an object encoded twice
//! are accepted with a note; anything else that is not an object is an
//! [`ArgumentsError`] that keeps the raw text. Never a panic, and never a
//! silent `{}`.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::call::partial::{Change, PartialJson};
use crate::json::{check_depth, describe};
use crate::limits::Limits;
use crate::note::{Converted, Note, NoteKind};
use crate::pointer::Pointer;

/// What went wrong with one call's arguments.
///
/// Each kind has one fixed phrase, the start of the error's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ArgumentsErrorKind {
    /// The text is not JSON (often: cut off by a token limit).
    InvalidJson,
    /// The text is JSON, but not an object.
    NotAnObject,
    /// The JSON is nested deeper than [`Limits::max_depth`].
    TooDeep,
    /// The stream ended before the provider's end of this call.
    Unfinished,
}

impl ArgumentsErrorKind {
    /// The fixed phrase that starts every message of this kind.
    pub fn phrase(self) -> &'static str {
        match self {
            ArgumentsErrorKind::InvalidJson => "arguments are not valid JSON",
            ArgumentsErrorKind::NotAnObject => "arguments are not a JSON object",
            ArgumentsErrorKind::TooDeep => "arguments are nested too deeply",
            ArgumentsErrorKind::Unfinished => "arguments are unfinished",
        }
    }
}

impl fmt::Display for ArgumentsErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.phrase())
    }
}

/// One call's arguments could not be read: the kind of problem, a sentence,
/// where in the text (for invalid JSON) and the raw text itself, so that it
/// can be repaired or sent back to the model.
///
/// ```
/// use toolbridge::call::{ArgumentsErrorKind, CallOptions};
/// use toolbridge::Format;
/// let response = serde_json::json!({"choices": [{"message": {"tool_calls": [
///     {"id": "call_1", "type": "function",
///      "function": {"name": "f", "arguments": "{\"city\": \"Par"}}]}}]});
/// let calls = Format::OpenAi.read_calls(&response, &CallOptions::default())?.value;
/// let err = calls[0].arguments.as_ref().unwrap_err();
/// assert_eq!(err.kind(), ArgumentsErrorKind::InvalidJson);
/// assert_eq!(err.raw(), "{\"city\": \"Par");
/// assert_eq!(err.to_string(), "arguments are not valid JSON: EOF while parsing a string (line 1, column 13)");
/// # Ok::<(), toolbridge::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArgumentsError {
    kind: ArgumentsErrorKind,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<(usize, usize)>,
    raw: String,
}

impl ArgumentsError {
    /// A new error of `kind` about `raw`, with a sentence saying what is wrong.
    pub fn new(
        kind: ArgumentsErrorKind,
        detail: impl Into<String>,
        raw: impl Into<String>,
    ) -> ArgumentsError {
        ArgumentsError {
            kind,
            detail: detail.into(),
            position: None,
            raw: raw.into(),
        }
    }

    /// The kind of problem.
    pub fn kind(&self) -> ArgumentsErrorKind {
        self.kind
    }

    /// The sentence after the kind's phrase (may be empty).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The 1-based line and column in the raw text, for invalid JSON.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.position
    }

    /// The arguments exactly as the provider sent them (a value that was not
    /// text is given as its compact JSON).
    pub fn raw(&self) -> &str {
        &self.raw
    }
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.phrase())?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        if let Some((line, column)) = self.position {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgumentsError {}

/// How a provider sends a call's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// A JSON string holding the object (OpenAI Chat and Responses, Mistral,
    /// Cohere); required.
    Text,
    /// An object (Anthropic, Bedrock, Ollama); required.
    Object,
    /// An object the provider may leave out for "no arguments" (Gemini, MCP).
    OptionalObject,
}

/// The arguments of one call as read: the value (always an object) or the
/// error, the raw text when the provider sent text, and what was normalised.
#[derive(Debug)]
pub(crate) struct Read {
    pub value: Result<Value, ArgumentsError>,
    pub raw: Option<String>,
    pub notes: Vec<Note>,
}

/// Reads a provider's `arguments` member (`None` when absent) sent the way
/// `expect` says; `at` is the member's place, for notes.
pub(crate) fn read(sent: Option<&Value>, expect: Expect, at: &Pointer, limits: &Limits) -> Read {
    let mut notes = Vec::new();
    let (value, raw) = match sent {
        None => {
            if expect != Expect::OptionalObject {
                notes.push(Note::new(
                    NoteKind::Defaulted {
                        field: "arguments".into(),
                    },
                    at.clone(),
                    "the call has no arguments; read as {}",
                ));
            }
            (Ok(empty()), None)
        }
        Some(Value::Null) => {
            notes.push(Note::new(
                NoteKind::Normalized {
                    field: "arguments".into(),
                },
                at.clone(),
                "arguments were null; read as {}",
            ));
            (Ok(empty()), None)
        }
        Some(Value::String(text)) => {
            if expect != Expect::Text {
                notes.push(Note::new(
                    NoteKind::Normalized {
                        field: "arguments".into(),
                    },
                    at.clone(),
                    "arguments were a JSON string where an object was expected; the string was parsed",
                ));
            }
            let parsed = parse(text, at, limits);
            notes.extend(parsed.notes);
            (parsed.value, Some(text.clone()))
        }
        Some(Value::Object(object)) => {
            if expect == Expect::Text {
                notes.push(Note::new(
                    NoteKind::Normalized {
                        field: "arguments".into(),
                    },
                    at.clone(),
                    "arguments were an object where a JSON string was expected; the object was taken as it is",
                ));
            }
            (Ok(Value::Object(object.clone())), None)
        }
        Some(other) => {
            let raw = other.to_string();
            (
                Err(ArgumentsError::new(
                    ArgumentsErrorKind::NotAnObject,
                    format!("found {}", describe(other)),
                    raw,
                )),
                None,
            )
        }
    };
    Read { value, raw, notes }
}

/// Parses argument text: empty or whitespace means `{}`; a JSON string that
/// holds an object (arguments encoded twice) and `null` are accepted with a
/// note; anything else not an object is an error carrying `text`.
pub(crate) fn parse(text: &str, at: &Pointer, limits: &Limits) -> Read {
    let mut notes = Vec::new();
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Read {
            value: Ok(empty()),
            raw: Some(text.to_string()),
            notes,
        };
    }
    let error = |kind, detail: String| Err(ArgumentsError::new(kind, detail, text));
    let value = if let Err(err) = check_depth(trimmed, limits.max_depth) {
        let mut error = ArgumentsError::new(ArgumentsErrorKind::TooDeep, err.detail(), text);
        error.position = err.position();
        Err(error)
    } else {
        let parsed = serde_json::from_str::<Value>(text).or_else(|err| {
            // Malformed text is repaired where what it means is unambiguous
            // (each fix a note); otherwise the parse error stands.
            // Text cut off before its end is not repaired here: the call was
            // cut off too (a token limit), and running it on what arrived
            // would act on half an argument.
            match super::repair(text, None, limits) {
                Ok(repaired) if !repaired.notes.iter().any(is_truncation) => {
                    notes.extend(
                        repaired
                            .notes
                            .into_iter()
                            .map(|note| Note::new(note.kind, at.join(&note.at), note.message)),
                    );
                    Ok(repaired.value)
                }
                _ => Err(err),
            }
        });
        match parsed {
            Err(err) => {
                let suffix = format!(" at line {} column {}", err.line(), err.column());
                let message = err.to_string();
                let mut error = ArgumentsError::new(
                    ArgumentsErrorKind::InvalidJson,
                    message.strip_suffix(&suffix).unwrap_or(&message),
                    text,
                );
                error.position = Some((err.line(), err.column()));
                Err(error)
            }
            Ok(Value::Object(object)) => Ok(Value::Object(object)),
            Ok(Value::Null) => {
                notes.push(Note::new(
                    NoteKind::Normalized {
                        field: "arguments".into(),
                    },
                    at.clone(),
                    "arguments were null; read as {}",
                ));
                Ok(empty())
            }
            Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
                Ok(Value::Object(object)) if check_depth(&inner, limits.max_depth).is_ok() => {
                    notes.push(Note::new(
                        NoteKind::Normalized {
                            field: "arguments".into(),
                        },
                        at.clone(),
                        "arguments were JSON-encoded twice (a string holding the object); decoded once more",
                    ));
                    Ok(Value::Object(object))
                }
                _ => error(ArgumentsErrorKind::NotAnObject, "found a string".into()),
            },
            Ok(other) => error(
                ArgumentsErrorKind::NotAnObject,
                format!("found {}", describe(&other)),
            ),
        }
    };
    Read {
        value,
        raw: Some(text.to_string()),
        notes,
    }
}

/// A note saying the text ended before a call's arguments did (the
/// repair's `truncated`, a raw-text reader's `truncated-call`): the call
/// was cut off (a token limit), and running it would act on half an
/// argument.
pub(crate) fn is_truncation(note: &Note) -> bool {
    matches!(&note.kind, NoteKind::Repaired { fix } if fix == "truncated" || fix == "truncated-call")
}

fn empty() -> Value {
    Value::Object(Map::new())
}

/// One streamed call's argument text, fragment by fragment, until the
/// provider ends the call, and its partial value.
///
/// The text is kept (it is the call's raw arguments) and fed to a
/// [`PartialJson`] as it comes, so the partial value is there after every
/// fragment at a cost proportional to the fragment. Text not yet fed waits
/// for [`feed`](Arguments::feed): a stream feeds only once the call has
/// started, so the changes of text that came before its name go out with
/// its first delta.
///
/// Once the text stops being JSON the parser stops where it was (later
/// fragments change nothing), and [`finish`](Arguments::finish) reads the
/// whole text the usual way, repair included.
#[derive(Clone, Debug)]
pub(crate) struct Arguments {
    text: String,
    /// True once any fragment came (a provider that sends none, like Bedrock
    /// for a tool without parameters, sent no text).
    sent: bool,
    /// The partial value of `text[..fed]`.
    parser: PartialJson,
    /// Bytes of `text` fed to the parser.
    fed: usize,
    /// The parser met text that is not JSON (or a limit) and was left there.
    stalled: bool,
}

impl Arguments {
    /// An empty buffer whose parser is bounded by `limits`.
    pub fn new(limits: &Limits) -> Arguments {
        Arguments {
            text: String::new(),
            sent: false,
            parser: PartialJson::with_limits(limits.clone()),
            fed: 0,
            stalled: false,
        }
    }

    /// Appends a fragment (not yet fed to the parser).
    pub fn push(&mut self, fragment: &str) {
        self.sent = true;
        self.text.push_str(fragment);
    }

    /// Feeds the text not yet fed to the parser; `changes` receives what
    /// changed in the partial value (nothing once the parser has stalled).
    pub fn feed(&mut self, changes: &mut Vec<Change>) {
        let rest = self.text.get(self.fed..).unwrap_or_default();
        if rest.is_empty() {
            return;
        }
        self.fed = self.text.len();
        if self.stalled {
            return;
        }
        if self.parser.feed(rest, changes).is_err() {
            self.stalled = true;
        }
    }

    /// Replaces the whole text (a provider's final, authoritative
    /// arguments): the parser starts again, with nothing fed, so the next
    /// [`feed`](Arguments::feed) sets the root anew.
    pub fn replace(&mut self, text: &str) {
        self.sent = true;
        self.text.clear();
        self.text.push_str(text);
        self.parser = PartialJson::with_limits(self.parser.limits().clone());
        self.fed = 0;
        self.stalled = false;
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The partial value of the text fed so far (`None` before its first
    /// value begins).
    pub fn partial(&self) -> Option<&Value> {
        self.parser.value()
    }

    /// The number of bytes held.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// True when a fragment came (even an empty one).
    pub fn was_sent(&self) -> bool {
        self.sent
    }

    /// The arguments, once the provider has ended the call; notes point at
    /// `at`. When the parser read the whole text to a complete object, its
    /// value is taken as it is (no second parse); anything else (empty text,
    /// a value that is not an object, text that is not JSON) is read by
    /// [`parse`], with its notes and repair.
    pub fn finish(mut self, at: &Pointer, limits: &Limits) -> Result<Converted<Value>, ArgumentsError> {
        let mut rest = Vec::new();
        self.feed(&mut rest);
        if !self.stalled && self.parser.is_complete() {
            if let Ok(value @ Value::Object(_)) = self.parser.finish() {
                return Ok(Converted {
                    value,
                    notes: Vec::new(),
                });
            }
        }
        let read = parse(&self.text, at, limits);
        read.value.map(|value| Converted {
            value,
            notes: read.notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(text: &str) -> Read {
        parse(text, &Pointer::root().key("arguments"), &Limits::default())
    }

    #[test]
    fn empty_and_whitespace_mean_no_arguments() {
        for sent in ["", "   ", "\n\t "] {
            let read = text(sent);
            assert_eq!(read.value, Ok(json!({})));
            assert_eq!(read.raw.as_deref(), Some(sent));
            assert!(read.notes.is_empty());
        }
    }

    #[test]
    fn invalid_json_keeps_the_raw_text_and_the_place() {
        let err = text("{\"a\": }").value.unwrap_err();
        assert_eq!(err.kind(), ArgumentsErrorKind::InvalidJson);
        assert_eq!(err.raw(), "{\"a\": }");
        assert_eq!(err.position(), Some((1, 7)));
        assert_eq!(
            err.to_string(),
            "arguments are not valid JSON: expected value (line 1, column 7)"
        );
    }

    #[test]
    fn repairable_text_is_repaired_with_a_note_at_the_arguments() {
        let read = text("{\"a\": 1,}");
        assert_eq!(read.value, Ok(json!({"a": 1})));
        assert_eq!(read.raw.as_deref(), Some("{\"a\": 1,}"));
        let notes: Vec<String> = read.notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            notes,
            ["change: a comma before a closing bracket was removed (line 1, column 9) (at /arguments)"]
        );
    }

    #[test]
    fn non_objects_are_errors_not_empty_objects() {
        let err = text("[1, 2]").value.unwrap_err();
        assert_eq!(err.kind(), ArgumentsErrorKind::NotAnObject);
        assert_eq!(err.to_string(), "arguments are not a JSON object: found an array");
        assert_eq!(text("\"hello\"").value.unwrap_err().detail(), "found a string");
        let err = read(
            Some(&json!(5)),
            Expect::Object,
            &Pointer::root(),
            &Limits::default(),
        )
        .value
        .unwrap_err();
        assert_eq!((err.kind(), err.raw()), (ArgumentsErrorKind::NotAnObject, "5"));
    }

    #[test]
    fn double_encoded_objects_and_null_are_noted() {
        let read = text(r#""{\"city\": \"Paris\"}""#);
        assert_eq!(read.value, Ok(json!({"city": "Paris"})));
        assert_eq!(read.notes.len(), 1);
        assert_eq!(read.notes[0].at.as_str(), "/arguments");
        let read = text("null");
        assert_eq!(read.value, Ok(json!({})));
        assert_eq!(read.notes.len(), 1);
    }

    #[test]
    fn the_wrong_carrier_is_accepted_with_a_note() {
        let at = Pointer::root().key("arguments");
        let read_object = read(Some(&json!({"a": 1})), Expect::Text, &at, &Limits::default());
        assert_eq!((read_object.value, read_object.raw), (Ok(json!({"a": 1})), None));
        assert_eq!(
            read_object.notes[0].kind,
            NoteKind::Normalized {
                field: "arguments".into()
            }
        );
        let read_string = read(
            Some(&json!("{\"a\": 1}")),
            Expect::Object,
            &at,
            &Limits::default(),
        );
        assert_eq!(read_string.value, Ok(json!({"a": 1})));
        assert_eq!(read_string.raw.as_deref(), Some("{\"a\": 1}"));
        assert_eq!(read_string.notes.len(), 1);
        let absent = read(None, Expect::OptionalObject, &at, &Limits::default());
        assert_eq!((absent.value, absent.notes.len()), (Ok(json!({})), 0));
        let absent = read(None, Expect::Object, &at, &Limits::default());
        assert_eq!((absent.value, absent.notes.len()), (Ok(json!({})), 1));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(200), "]".repeat(200));
        let err = text(&deep).value.unwrap_err();
        assert_eq!(err.kind(), ArgumentsErrorKind::TooDeep);
        assert_eq!(err.raw(), deep);
    }

    #[test]
    fn the_accumulator_feeds_its_parser_and_parses_only_when_finished() {
        let limits = Limits::default();
        let mut arguments = Arguments::new(&limits);
        assert!(!arguments.was_sent());
        arguments.push("{\"a\": \"x");
        assert_eq!(arguments.partial(), None, "nothing is fed before feed");
        let mut changes = Vec::new();
        arguments.feed(&mut changes);
        assert_eq!(arguments.partial(), Some(&json!({"a": "x"})));
        assert_eq!(changes.len(), 2);
        arguments.push("y\"}");
        arguments.feed(&mut changes);
        assert_eq!(
            changes,
            [Change::Appended {
                at: Pointer::parse("/a").unwrap(),
                text: "y".into()
            }]
        );
        let at = Pointer::root().key("arguments");
        assert_eq!(arguments.finish(&at, &limits).unwrap().value, json!({"a": "xy"}));

        // Text that stops being JSON stalls the parser; finish still repairs it.
        let mut broken = Arguments::new(&limits);
        broken.push("{\"a\": 1,");
        broken.feed(&mut changes);
        broken.push("}");
        broken.feed(&mut changes);
        assert_eq!(changes, []);
        assert_eq!(broken.partial(), Some(&json!({"a": 1})));
        let repaired = broken.finish(&at, &limits).unwrap();
        assert_eq!((repaired.value, repaired.notes.len()), (json!({"a": 1}), 1));

        let mut broken = Arguments::new(&limits);
        broken.push("{\"city\": ");
        broken.push("}");
        assert_eq!(
            broken.finish(&at, &limits).unwrap_err().to_string(),
            "arguments are not valid JSON: expected value (line 1, column 10)"
        );

        // A replacement starts the parser again: the root is set anew.
        let mut replaced = Arguments::new(&limits);
        replaced.push("[1, ");
        replaced.feed(&mut changes);
        replaced.replace("{\"b\": true}");
        replaced.feed(&mut changes);
        assert_eq!(
            changes[0],
            Change::Set {
                at: Pointer::root(),
                value: json!({})
            }
        );
        assert_eq!(replaced.partial(), Some(&json!({"b": true})));
    }
}
