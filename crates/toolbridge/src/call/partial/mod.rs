//! The resumable partial-JSON parser: tool-call arguments as they stream in.
//!
//! Every peer re-parses the whole buffer after each delta, which makes a
//! stream quadratic. [`PartialJson`] keeps its state between deltas instead —
//! the open containers, the token being read, an escape or a number cut in
//! half — so each delta costs time in proportion to its own length.
//!
//! The partial value is a `serde_json::Value` updated in place. A stack of
//! frames, one per open container, says how to reach the value being read: the current member of an array is its last element, and the current
//! member of an object is its last entry (the map keeps insertion order),
//! unless the key repeated an earlier one, in which case the frame keeps the
//! key. Reaching the place to update is O(depth), never O(size).
//!
//! Here: the public API and errors. `grammar.rs` drives the parse (what may
//! come next, the open containers, putting values in place); `token.rs`
//! reads the tokens (strings with their escapes, numbers, literals);
//! `position.rs` keeps the line and column, and a UTF-8 sequence cut by a
//! delta.

mod grammar;
mod position;
mod spare;
mod token;

use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::pointer::Pointer;

use grammar::{Expect, Frame};
use position::{utf8_width, Carry, Position};
pub(crate) use spare::SpareTexts;
use token::{Escape, NumberText, Token};

/// What one delta changed in the partial value of a [`PartialJson`].
///
/// Applying the changes of every delta, in order, to an empty document
/// rebuilds the partial value exactly, so a UI can update the one field that
/// changed instead of diffing the whole value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Change {
    /// A value appeared at `at`: a completed number, `true`, `false` or
    /// `null`; an object or array that just opened (so still empty); or a
    /// string, with the text read so far (perhaps empty).
    ///
    /// `at` is a new object member, the next element of an array, or the
    /// root. Only when an object repeats a key does `at` name a member that
    /// is already there; the new value replaces it, in its old position (as
    /// `serde_json` does).
    Set {
        /// Where the value is.
        at: Pointer,
        /// The value.
        value: Value,
    },
    /// The string at `at` grew by `text` (escapes already decoded).
    Appended {
        /// Where the string is.
        at: Pointer,
        /// The text added to its end.
        text: String,
    },
}

/// The changes a fresh [`PartialJson`] reports when `value`'s JSON text
/// (as `Value::to_string` writes it) is fed to it whole, appended to
/// `changes`: each object and array set empty where it opens, then its
/// members in order; every other value set whole. For a caller that holds
/// the value already and would otherwise write it and read it back.
pub(crate) fn changes_of(value: &Value, at: Pointer, changes: &mut Vec<Change>) {
    match value {
        Value::Object(members) => {
            changes.push(Change::Set {
                at: at.clone(),
                value: Value::Object(Map::new()),
            });
            for (key, member) in members {
                changes_of(member, at.key(key), changes);
            }
        }
        Value::Array(items) => {
            changes.push(Change::Set {
                at: at.clone(),
                value: Value::Array(Vec::new()),
            });
            for (index, item) in items.iter().enumerate() {
                changes_of(item, at.index(index), changes);
            }
        }
        other => changes.push(Change::Set {
            at,
            value: other.clone(),
        }),
    }
}

/// The JSON form: `{"at": "/a", "set": value}` or `{"at": "/a", "append":
/// "text"}`.
impl Serialize for Change {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            Change::Set { at, value } => {
                map.serialize_entry("at", at.as_str())?;
                map.serialize_entry("set", value)?;
            }
            Change::Appended { at, text } => {
                map.serialize_entry("at", at.as_str())?;
                map.serialize_entry("append", text)?;
            }
        }
        map.end()
    }
}

/// A JSON parser fed one delta at a time, with the partial value available
/// after every delta.
///
/// - **Resumable.** A delta costs time in proportion to its length, not to
///   the text before it; nothing is parsed twice.
/// - **Values only extend.** A string grows at its end, with escapes
///   decoded (a `\u` escape or a surrogate pair cut by a delta waits for
///   its end); objects and arrays are visible as soon as they open and gain
///   members; a number, `true`, `false` or `null` appears only once complete
///   and never changes after. (One exception: a key repeated in the same
///   object replaces the earlier member, as `serde_json` does.)
/// - **Changes.** [`feed`](PartialJson::feed) also says what changed, as
///   [`Change`]s naming the place with a JSON Pointer.
/// - **Strict.** The text must be one JSON value (RFC 8259), nothing after
///   it but whitespace; the first problem is an
///   [`InvalidJson`](ErrorKind::InvalidJson) error with the line and column
///   (1-based; columns count characters) and the pointer of the value being
///   read, and [`offset`](PartialJson::offset) gives its byte offset. After an
///   error every call returns the same error.
/// - **Bounded.** Text longer than [`Limits::max_bytes`] or nested deeper
///   than [`Limits::max_depth`] is refused with
///   [`LimitExceeded`](ErrorKind::LimitExceeded); the parser uses no
///   recursion.
///
/// The call is over when the provider's end event says so, never because
/// the text so far happens to parse (a peer that finalised on parseability
/// ran tools with truncated arguments): call [`finish`](PartialJson::finish)
/// on that event. [`is_complete`](PartialJson::is_complete) only says that
/// the top-level value has closed.
///
/// ```
/// use serde_json::json;
/// use toolbridge::call::{Change, PartialJson};
/// use toolbridge::Pointer;
///
/// let mut parser = PartialJson::new();
/// let mut changes = Vec::new();
/// parser.feed(r#"{"path": "src/ma"#, &mut changes)?;
/// assert_eq!(parser.value(), Some(&json!({"path": "src/ma"})));
/// parser.feed(r#"in.rs", "lines": [1"#, &mut changes)?;
/// assert_eq!(parser.value(), Some(&json!({"path": "src/main.rs", "lines": []})));
/// assert_eq!(changes, [
///     Change::Appended { at: Pointer::parse("/path").unwrap(), text: "in.rs".into() },
///     Change::Set { at: Pointer::parse("/lines").unwrap(), value: json!([]) },
/// ]);
/// parser.feed("2]}", &mut changes)?;
/// assert!(parser.is_complete());
/// assert_eq!(parser.finish()?, json!({"path": "src/main.rs", "lines": [12]}));
/// # Ok::<(), toolbridge::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct PartialJson {
    limits: Limits,
    /// The partial value; `None` until the top-level value begins.
    root: Option<Value>,
    /// The open containers, outermost first.
    frames: Vec<Frame>,
    /// What the grammar allows next, between tokens.
    expect: Expect,
    /// The token being read, if any.
    token: Token,
    /// Where a string is inside an escape sequence.
    escape: Escape,
    /// The object key being read, or read and waiting for its value.
    key: String,
    /// Text of the string value being read, decoded in this delta and not
    /// yet added to the partial value.
    piece: String,
    /// Where the string value being read is, once it is in the partial value.
    string_at: Option<Pointer>,
    /// The number being read.
    number: NumberText,
    /// Where the input is, for error positions.
    position: Position,
    /// The start of a UTF-8 sequence that [`feed_bytes`](PartialJson::feed_bytes)
    /// received without its end.
    carry: Carry,
    /// The error that stopped the parser, returned again by every call.
    failed: Option<Error>,
    /// Empty text buffers of earlier changes, for the text of new ones.
    spare: SpareTexts,
    /// The most containers that were open at once.
    deepest: usize,
}

impl PartialJson {
    /// A parser with the default [`Limits`].
    pub fn new() -> PartialJson {
        PartialJson::default()
    }

    /// A parser refusing text longer than `limits.max_bytes` or nested
    /// deeper than `limits.max_depth`.
    pub fn with_limits(limits: Limits) -> PartialJson {
        PartialJson {
            limits,
            ..PartialJson::default()
        }
    }

    /// The limits this parser enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Reads the next piece of the text, updating the partial value, and
    /// replaces the contents of `changes` with what changed.
    ///
    /// Takes time in proportion to `delta.len()` (plus the depth of
    /// nesting), however much text came before. Passing the same vector
    /// every time saves an allocation per delta: the text buffers of the
    /// changes it held are reused. On an error, `changes` holds what the
    /// part of `delta` before the problem changed.
    pub fn feed(&mut self, delta: &str, changes: &mut Vec<Change>) -> Result<()> {
        match self.extend_string(delta, changes) {
            Some(read) if read == delta.len() => Ok(()),
            Some(read) => self.read_text(delta.get(read..).unwrap_or_default(), changes),
            None => {
                self.recycle(changes);
                self.read_text(delta, changes)
            }
        }
    }

    /// Empties `changes`, keeping a few of their text buffers for reuse.
    fn recycle(&mut self, changes: &mut Vec<Change>) {
        recycle(&mut self.spare, changes);
    }

    /// [`feed`](PartialJson::feed) without emptying `changes` first.
    fn read_text(&mut self, delta: &str, changes: &mut Vec<Change>) -> Result<()> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if delta.is_empty() {
            return Ok(());
        }
        if self.carry.len > 0 {
            let error = self.syntax_error(delta, 0, "invalid UTF-8: a multi-byte sequence was cut short");
            return Err(self.fail(error));
        }
        let total = self.position.offset.saturating_add(delta.len());
        if total > self.limits.max_bytes {
            let index = self.limits.max_bytes.saturating_sub(self.position.offset);
            let (line, column) = self.position.locate(delta, index);
            let error = Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the streamed JSON text is longer than {} bytes",
                    self.limits.max_bytes
                ),
            )
            .at(self.place())
            .with_position(line, column);
            self.position.offset = self.limits.max_bytes;
            return Err(self.fail(error));
        }
        match self.read(delta, changes) {
            Ok(()) => {
                self.position.advance(delta);
                Ok(())
            }
            Err((index, error)) => {
                self.position.offset += index;
                Err(self.fail(error))
            }
        }
    }

    /// Like [`feed`](PartialJson::feed), for bytes: a UTF-8 sequence cut by
    /// the end of `delta` is kept until the next delta completes it.
    pub fn feed_bytes(&mut self, delta: &[u8], changes: &mut Vec<Change>) -> Result<()> {
        self.recycle(changes);
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut rest = delta;
        if self.carry.len > 0 {
            let width = utf8_width(self.carry.bytes[0]);
            while self.carry.len < width {
                let Some((&byte, tail)) = rest.split_first() else {
                    return Ok(());
                };
                if let Some(slot) = self.carry.bytes.get_mut(self.carry.len) {
                    *slot = byte;
                }
                self.carry.len += 1;
                rest = tail;
            }
            let sequence = self.carry.bytes;
            self.carry.len = 0;
            match std::str::from_utf8(sequence.get(..width).unwrap_or_default()) {
                Ok(text) => self.read_text(text, changes)?,
                Err(_) => return Err(self.invalid_utf8()),
            }
        }
        match std::str::from_utf8(rest) {
            Ok(text) => self.read_text(text, changes),
            Err(utf8_error) => {
                let (valid, tail) = rest.split_at(utf8_error.valid_up_to());
                if let Ok(text) = std::str::from_utf8(valid) {
                    self.read_text(text, changes)?;
                }
                if utf8_error.error_len().is_some() || tail.len() >= 4 {
                    return Err(self.invalid_utf8());
                }
                if let Some(slots) = self.carry.bytes.get_mut(..tail.len()) {
                    slots.copy_from_slice(tail);
                    self.carry.len = tail.len();
                }
                Ok(())
            }
        }
    }

    /// The partial value so far: `None` until the top-level value begins
    /// (or, for a top-level number, until it is complete).
    pub fn value(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    /// True once a whole top-level value has been read.
    ///
    /// A top-level number is complete only when something follows it, so
    /// `42` alone is not (yet) complete; [`finish`](PartialJson::finish)
    /// accepts it.
    pub fn is_complete(&self) -> bool {
        self.expect == Expect::Done && self.failed.is_none()
    }

    /// The value, once the top-level value has closed and nests at most
    /// `depth` containers deep; the parser is then left without one.
    ///
    /// For a stream that read a call's argument text whole already and
    /// would otherwise read the same text again when the call ends.
    pub(crate) fn take_complete(&mut self, depth: usize) -> Option<Value> {
        if self.is_complete() && self.deepest <= depth {
            self.root.take()
        } else {
            None
        }
    }

    /// Bytes read so far; after an error, the byte offset of the problem.
    pub fn offset(&self) -> usize {
        self.position.offset
    }

    /// Ends the text: the complete value, or an
    /// [`InvalidJson`](ErrorKind::InvalidJson) error saying where the text
    /// stopped (the line and column of its end, the pointer of the value
    /// left open).
    pub fn finish(mut self) -> Result<Value> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        if self.carry.len > 0 {
            return Err(self.end_error("the text stopped inside a UTF-8 sequence"));
        }
        if let Token::Number(part) = self.token {
            if part.may_end() && self.frames.is_empty() {
                if let Err(fault) = self.complete_number(&mut Vec::new()) {
                    return Err(self.error_at("", 0, fault));
                }
            }
        }
        if self.expect == Expect::Done {
            if let Some(value) = self.root.take() {
                return Ok(value);
            }
        }
        let (detail, at) = match self.token {
            Token::Key => ("the text stopped inside an object key", self.place()),
            Token::Text => ("the text stopped inside a string", self.place()),
            Token::Number(_) => ("the text stopped inside a number", self.place()),
            Token::Literal(..) => ("the text stopped inside `true`, `false` or `null`", self.place()),
            Token::Between => match self.frames.last() {
                None => ("the text stopped before a value", Pointer::root()),
                Some(frame) if frame.is_object => ("the text stopped inside an object", frame.at.clone()),
                Some(frame) => ("the text stopped inside an array", frame.at.clone()),
            },
        };
        Err(self.end_error(detail).at(at))
    }

    /// The place of the value being read, or of the innermost container.
    fn place(&self) -> Pointer {
        let next = |frame: &Frame| {
            if frame.is_object {
                frame.at.key(&self.key)
            } else {
                frame.at.index(frame.len)
            }
        };
        match (self.token, self.frames.last()) {
            (Token::Text, _) if self.string_at.is_some() => self.string_at.clone().unwrap_or_default(),
            (Token::Text | Token::Number(_) | Token::Literal(..), Some(frame)) => next(frame),
            (Token::Between, Some(frame)) if self.expect == Expect::Value => next(frame),
            (_, Some(frame)) => frame.at.clone(),
            (_, None) => Pointer::root(),
        }
    }

    /// An error about byte `index` of the delta `text`.
    fn error_at(&self, text: &str, index: usize, fault: Fault) -> Error {
        let (line, column) = self.position.locate(text, index);
        Error::new(fault.kind, fault.detail)
            .at(self.place())
            .with_position(line, column)
    }

    fn syntax_error(&self, text: &str, index: usize, detail: &str) -> Error {
        self.error_at(text, index, Fault::syntax(detail))
    }

    /// An error about the end of the text.
    fn end_error(&self, detail: &str) -> Error {
        self.syntax_error("", 0, detail)
    }

    fn invalid_utf8(&mut self) -> Error {
        let error = self.end_error("invalid UTF-8");
        self.fail(error)
    }

    /// Stops the parser: every later call returns `error`.
    fn fail(&mut self, error: Error) -> Error {
        self.failed = Some(error.clone());
        error
    }
}

/// Empties `changes`, keeping a few of their text buffers in `spare`.
fn recycle(spare: &mut SpareTexts, changes: &mut Vec<Change>) {
    for change in changes.iter_mut() {
        if let Change::Appended { text, .. }
        | Change::Set {
            value: Value::String(text),
            ..
        } = change
        {
            spare.keep(std::mem::take(text));
        }
    }
    changes.clear();
}

/// The result of reading part of a delta: the index reached, or the index
/// of a problem and what it is.
type Step = std::result::Result<usize, (usize, Fault)>;

/// A problem found while reading a delta, before its position and place
/// are added to make an [`Error`].
#[derive(Debug)]
struct Fault {
    kind: ErrorKind,
    detail: String,
}

impl Fault {
    fn syntax(detail: impl Into<String>) -> Fault {
        Fault {
            kind: ErrorKind::InvalidJson,
            detail: detail.into(),
        }
    }

    /// "expected `what`, found `x`", about byte `index` of `text`.
    fn expected(what: &str, text: &str, index: usize) -> Fault {
        Fault::syntax(format!("expected {what}, found {}", describe_at(text, index)))
    }

    /// An internal inconsistency; no input should produce it.
    fn lost() -> Fault {
        Fault::syntax("the parser lost its place in the partial value (a bug in toolbridge)")
    }
}

/// "`x`" for the character at byte `index` of `text`.
fn describe_at(text: &str, index: usize) -> String {
    match text.get(index..).and_then(|rest| rest.chars().next()) {
        Some(' ') => "a space".to_string(),
        Some(c) if c.is_control() => format!("U+{:04X}", u32::from(c)),
        Some(c) => format!("`{c}`"),
        None => "the end of the text".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A change as one line: `/a = "x"` for a set, `/a + "x"` for an append.
    fn line(change: &Change) -> String {
        match change {
            Change::Set { at, value } => format!("{} = {value}", at.as_str()),
            Change::Appended { at, text } => format!("{} + {}", at.as_str(), Value::String(text.clone())),
        }
    }

    /// Feeds `deltas` one by one; after each, checks the changes (as lines)
    /// and the partial value; then checks what `finish` returns.
    fn check(deltas: &[(&str, &[&str], Option<Value>)], finished: Value) {
        let mut parser = PartialJson::new();
        for (delta, lines, value) in deltas {
            let mut changes = Vec::new();
            parser.feed(delta, &mut changes).unwrap();
            let got: Vec<String> = changes.iter().map(line).collect();
            assert_eq!(got, *lines, "changes after {delta:?}");
            assert_eq!(parser.value(), value.as_ref(), "value after {delta:?}");
        }
        assert_eq!(parser.finish().unwrap(), finished);
    }

    #[test]
    fn changes_of_a_value_are_those_of_its_text_fed_whole() {
        let value = json!({
            "path": "src/é \"x\"\n\u{1F600}",
            "n": -12, "f": 0.5, "big": 18446744073709551615u64, "t": true, "z": null,
            "empty": {}, "none": [],
            "nested": [{"a": [1, [2, {"b": "c"}]]}, "s", []],
            "a/b~c": {"": 1}
        });
        let mut derived = Vec::new();
        changes_of(&value, Pointer::root(), &mut derived);
        let mut parser = PartialJson::new();
        let mut fed = Vec::new();
        parser.feed(&value.to_string(), &mut fed).unwrap();
        assert_eq!(
            derived.iter().map(line).collect::<Vec<_>>(),
            fed.iter().map(line).collect::<Vec<_>>()
        );
        assert_eq!(derived.len(), 21);
        let mut scalar = Vec::new();
        changes_of(&json!("x"), Pointer::root(), &mut scalar);
        assert_eq!(scalar.iter().map(line).collect::<Vec<_>>(), [r#" = "x""#]);
    }

    #[test]
    fn strings_grow_with_escapes_decoded_once_complete() {
        check(
            &[
                (
                    r#"{"path": "a"#,
                    &[" = {}", r#"/path = "a""#],
                    Some(json!({"path": "a"})),
                ),
                (r#"\"#, &[], Some(json!({"path": "a"}))),
                (r#"u00"#, &[], Some(json!({"path": "a"}))),
                (r#"e9b\n"#, &[r#"/path + "éb\n""#], Some(json!({"path": "aéb\n"}))),
                (
                    r#"\t\"\\\/\b\f\r"#,
                    &[r#"/path + "\t\"\\/\b\f\r""#],
                    Some(json!({"path": "aéb\n\t\"\\/\u{8}\u{c}\r"})),
                ),
                (r#"""#, &[], Some(json!({"path": "aéb\n\t\"\\/\u{8}\u{c}\r"}))),
                ("}", &[], Some(json!({"path": "aéb\n\t\"\\/\u{8}\u{c}\r"}))),
            ],
            json!({"path": "aéb\n\t\"\\/\u{8}\u{c}\r"}),
        );
    }

    #[test]
    fn a_surrogate_pair_waits_for_its_low_half() {
        check(
            &[
                (r#"["\uD83D"#, &[" = []", r#"/0 = """#], Some(json!([""]))),
                (r#"\u"#, &[], Some(json!([""]))),
                (r#"DE00x"#, &[r#"/0 + "😀x""#], Some(json!(["😀x"]))),
                (
                    r#"", "\ud83d\ude00"]"#,
                    &[r#"/1 = "😀""#],
                    Some(json!(["😀x", "😀"])),
                ),
            ],
            json!(["😀x", "😀"]),
        );
    }

    #[test]
    fn scalars_appear_only_when_complete() {
        check(
            &[
                ("[1", &[" = []"], Some(json!([]))),
                ("2, -0.5e", &["/0 = 12"], Some(json!([12]))),
                ("3,tr", &["/1 = -500.0"], Some(json!([12, -500.0]))),
                ("ue, nu", &["/2 = true"], Some(json!([12, -500.0, true]))),
                (
                    "ll,false",
                    &["/3 = null", "/4 = false"],
                    Some(json!([12, -500.0, true, null, false])),
                ),
                ("]", &[], Some(json!([12, -500.0, true, null, false]))),
            ],
            json!([12, -500.0, true, null, false]),
        );
    }

    #[test]
    fn nested_containers_are_visible_while_they_grow() {
        check(
            &[
                (
                    r#"{"items": [{"id": 1}, {"na"#,
                    &[
                        " = {}",
                        "/items = []",
                        "/items/0 = {}",
                        "/items/0/id = 1",
                        "/items/1 = {}",
                    ],
                    Some(json!({"items": [{"id": 1}, {}]})),
                ),
                (
                    r#"me": "x"#,
                    &[r#"/items/1/name = "x""#],
                    Some(json!({"items": [{"id": 1}, {"name": "x"}]})),
                ),
                (
                    "y\"}], \"done\": {}, \"e\": [[], \"\"",
                    &[
                        r#"/items/1/name + "y""#,
                        "/done = {}",
                        "/e = []",
                        "/e/0 = []",
                        r#"/e/1 = """#,
                    ],
                    Some(json!({"items": [{"id": 1}, {"name": "xy"}], "done": {}, "e": [[], ""]})),
                ),
                (
                    "]}",
                    &[],
                    Some(json!({"items": [{"id": 1}, {"name": "xy"}], "done": {}, "e": [[], ""]})),
                ),
            ],
            json!({"items": [{"id": 1}, {"name": "xy"}], "done": {}, "e": [[], ""]}),
        );
    }

    #[test]
    fn pointers_escape_keys() {
        check(
            &[(
                r#"{"a/b": {"c~d": 1, "": 2}}"#,
                &[" = {}", "/a~1b = {}", "/a~1b/c~0d = 1", "/a~1b/ = 2"],
                Some(json!({"a/b": {"c~d": 1, "": 2}})),
            )],
            json!({"a/b": {"c~d": 1, "": 2}}),
        );
    }

    #[test]
    fn top_level_scalars_and_whitespace() {
        check(
            &[
                (" \n\t\r", &[], None),
                (r#""a"#, &[r#" = "a""#], Some(json!("a"))),
                (r#"b" "#, &[r#" + "b""#], Some(json!("ab"))),
            ],
            json!("ab"),
        );
        check(&[("4", &[], None), ("2", &[], None)], json!(42));
        check(
            &[("42 ", &[" = 42"], Some(json!(42))), ("\n", &[], Some(json!(42)))],
            json!(42),
        );
        check(
            &[("nul", &[], None), ("l", &[" = null"], Some(json!(null)))],
            json!(null),
        );
    }

    #[test]
    fn a_repeated_key_replaces_the_member_in_place() {
        let text = r#"{"a": {"x": 1}, "b": 2, "a": {"y": "z"}, "c": 3}"#;
        let mut parser = PartialJson::new();
        let (mut changes, mut lines) = (Vec::new(), Vec::new());
        for delta in text.as_bytes().chunks(3) {
            parser
                .feed(std::str::from_utf8(delta).unwrap(), &mut changes)
                .unwrap();
            lines.extend(changes.iter().map(line));
        }
        assert_eq!(
            lines,
            [
                " = {}",
                "/a = {}",
                "/a/x = 1",
                "/b = 2",
                "/a = {}",
                "/a/y = \"\"",
                "/a/y + \"z\"",
                "/c = 3"
            ]
        );
        let value = parser.finish().unwrap();
        let expected: Value = serde_json::from_str(text).unwrap();
        assert_eq!(value.to_string(), expected.to_string());
        assert_eq!(value.to_string(), r#"{"a":{"y":"z"},"b":2,"c":3}"#);
    }

    #[test]
    fn numbers_convert_exactly_as_serde_json_does() {
        let numbers = [
            "0",
            "-0",
            "-0.0",
            "7",
            "-7",
            "1.5",
            "-1.25e-3",
            "1E+2",
            "1e2",
            "2.5E-2",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "0.1",
            "2.2250738585072011e-308",
            "1.7976931348623157e308",
            "0.30000000000000004",
            "9007199254740993",
        ];
        for number in numbers {
            let text = format!("[{number}]");
            let mut parser = PartialJson::new();
            let mut changes = Vec::new();
            for delta in text.as_bytes().chunks(1) {
                parser
                    .feed(std::str::from_utf8(delta).unwrap(), &mut changes)
                    .unwrap();
            }
            let expected: Value = serde_json::from_str(&text).unwrap();
            let value = parser.finish().unwrap();
            assert_eq!(value, expected, "{number}");
            assert_eq!(value.to_string(), expected.to_string(), "{number}");
        }
    }

    #[test]
    fn feed_bytes_waits_for_the_end_of_a_utf8_sequence() {
        let text = "[\"é😀\", \"x\"]".as_bytes();
        let mut parser = PartialJson::new();
        let mut values = Vec::new();
        for byte in text {
            let mut changes = Vec::new();
            parser
                .feed_bytes(std::slice::from_ref(byte), &mut changes)
                .unwrap();
            values.push(parser.value().cloned());
        }
        assert_eq!(values[2], Some(json!([""])), "after the first byte of é");
        assert_eq!(values[3], Some(json!(["é"])));
        assert_eq!(values[6], Some(json!(["é"])), "three bytes of 😀");
        assert_eq!(values[7], Some(json!(["é😀"])));
        assert_eq!(parser.finish().unwrap(), json!(["é😀", "x"]));

        let mut parser = PartialJson::new();
        parser.feed_bytes(b"[\"\xC3", &mut Vec::new()).unwrap();
        let error = parser.feed_bytes(b"(\"]", &mut Vec::new()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid JSON: invalid UTF-8 (at /0, line 1, column 3)"
        );
        let mut parser = PartialJson::new();
        parser.feed_bytes(b"[\"\xF0\x9F", &mut Vec::new()).unwrap();
        let error = parser.finish().unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid JSON: the text stopped inside a UTF-8 sequence (at /0, line 1, column 3)"
        );
        let error = PartialJson::new()
            .feed_bytes(b"[\"\xFF\"]", &mut Vec::new())
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid JSON: invalid UTF-8 (at /0, line 1, column 3)"
        );
    }

    /// Feeds `deltas`; the first error's Display and the byte offset.
    fn failure(parser: &mut PartialJson, deltas: &[&str]) -> (ErrorKind, String, usize) {
        for delta in deltas {
            if let Err(error) = parser.feed(delta, &mut Vec::new()) {
                return (error.kind(), error.to_string(), parser.offset());
            }
        }
        let offset = parser.offset();
        let error = parser.clone().finish().unwrap_err();
        (error.kind(), error.to_string(), offset)
    }

    #[test]
    fn errors_name_the_problem_and_the_place() {
        use ErrorKind::{InvalidJson, LimitExceeded};
        let cases: &[(&[&str], ErrorKind, &str, usize)] = &[
            (&[r#"{"a" 1}"#], InvalidJson, "invalid JSON: expected `:` after the key, found `1` (line 1, column 6)", 5),
            (&["[1,", "]"], InvalidJson, "invalid JSON: expected a value, found `]` (at /1, line 1, column 4)", 3),
            (&[r#"{"a": tr"#, "ue,}"], InvalidJson, "invalid JSON: expected a key (a string in double quotes), found `}` (line 1, column 12)", 11),
            (&[r#"{"a": tr"#, "e}"], InvalidJson, "invalid JSON: expected `true`, found `e` (at /a, line 1, column 9)", 8),
            (&["{} x"], InvalidJson, "invalid JSON: expected nothing but whitespace after the value, found `x` (line 1, column 4)", 3),
            (&["[1 2]"], InvalidJson, "invalid JSON: expected `,` or `]` after an array element, found `2` (line 1, column 4)", 3),
            (&[r#"{"a": 1 "b"}"#], InvalidJson, "invalid JSON: expected `,` or `}` after an object member, found `\"` (line 1, column 9)", 8),
            (&["{1: 2}"], InvalidJson, "invalid JSON: expected a key (a string in double quotes) or `}`, found `1` (line 1, column 2)", 1),
            (&["[\"a\nb\"]"], InvalidJson, "invalid JSON: control character U+000A in a string: it must be written as an escape (\\u000A) (at /0, line 1, column 4)", 3),
            (&[r#"["\x"]"#], InvalidJson, "invalid JSON: invalid escape: a backslash must be followed by one of \" \\ / b f n r t u (at /0, line 1, column 4)", 3),
            (&[r#"["\u12g4"]"#], InvalidJson, "invalid JSON: invalid \\u escape: expected a hex digit (at /0, line 1, column 7)", 6),
            (&[r#"["\uD800"]"#], InvalidJson, "invalid JSON: lone high surrogate: a \\uD800-\\uDBFF escape must be followed by a low surrogate (at /0, line 1, column 9)", 8),
            (&[r#"["\uD800\u0041"]"#], InvalidJson, "invalid JSON: lone high surrogate: a \\uD800-\\uDBFF escape must be followed by a low surrogate (at /0, line 1, column 14)", 13),
            (&[r#"["\uDC00"]"#], InvalidJson, "invalid JSON: lone low surrogate: a \\uDC00-\\uDFFF escape must follow a high surrogate (at /0, line 1, column 8)", 7),
            (&["[1.]"], InvalidJson, "invalid JSON: expected a digit in the number, found `]` (at /0, line 1, column 4)", 3),
            (&["[-x]"], InvalidJson, "invalid JSON: expected a digit in the number, found `x` (at /0, line 1, column 3)", 2),
            (&["01"], InvalidJson, "invalid JSON: expected nothing but whitespace after the value, found `1` (line 1, column 2)", 1),
            (&["[1e400]"], InvalidJson, "invalid JSON: number out of range (at /0, line 1, column 7)", 6),
            (&["1e400"], InvalidJson, "invalid JSON: number out of range (line 1, column 6)", 5),
            (&["{\n  \"a\": [\n    \"é\", x"], InvalidJson, "invalid JSON: expected a value, found `x` (at /a/1, line 3, column 10)", 21),
            (&["{\n  \"a\": [\n    \"é\",", " x"], InvalidJson, "invalid JSON: expected a value, found `x` (at /a/1, line 3, column 10)", 21),
            (&["[\"é\", ", "\n", "  ", "x]"], InvalidJson, "invalid JSON: expected a value, found `x` (at /1, line 2, column 3)", 10),
            (&["{\"a\": \"x"], InvalidJson, "invalid JSON: the text stopped inside a string (at /a, line 1, column 9)", 8),
            (&["{\"a\": 12"], InvalidJson, "invalid JSON: the text stopped inside a number (at /a, line 1, column 9)", 8),
            (&["{\"a"], InvalidJson, "invalid JSON: the text stopped inside an object key (line 1, column 4)", 3),
            (&["[[1], "], InvalidJson, "invalid JSON: the text stopped inside an array (line 1, column 7)", 6),
            (&["{\"a\": {"], InvalidJson, "invalid JSON: the text stopped inside an object (at /a, line 1, column 8)", 7),
            (&["-"], InvalidJson, "invalid JSON: the text stopped inside a number (line 1, column 2)", 1),
            (&["  "], InvalidJson, "invalid JSON: the text stopped before a value (line 1, column 3)", 2),
            (&["[nul"], InvalidJson, "invalid JSON: the text stopped inside `true`, `false` or `null` (at /0, line 1, column 5)", 4),
            (&["x"], InvalidJson, "invalid JSON: expected a value, found `x` (line 1, column 1)", 0),
            (&["[\"a\", é]"], InvalidJson, "invalid JSON: expected a value, found `é` (at /1, line 1, column 7)", 6),
            // Deltas that start inside a string (the fast path): a problem in
            // it, or after it ends, is reported as the grammar reports it.
            (&["[\"ab", "c\nd\"]"], InvalidJson, "invalid JSON: control character U+000A in a string: it must be written as an escape (\\u000A) (at /0, line 1, column 6)", 5),
            (&["[\"ab", "c\", x]"], InvalidJson, "invalid JSON: expected a value, found `x` (at /1, line 1, column 9)", 8),
            (&["[\"a", "\\u00", "e9\\x\"]"], InvalidJson, "invalid JSON: invalid escape: a backslash must be followed by one of \" \\ / b f n r t u (at /0, line 1, column 11)", 10),
        ];
        for (deltas, kind, message, offset) in cases {
            let got = failure(&mut PartialJson::new(), deltas);
            assert_eq!(got, (*kind, message.to_string(), *offset), "{deltas:?}");
        }
        let limited = |bytes, depth| {
            PartialJson::with_limits(Limits::default().with_max_bytes(bytes).with_max_depth(depth))
        };
        let got = failure(&mut limited(100, 2), &["[{\"a\": ", "[1]}]"]);
        assert_eq!(
            got,
            (
                LimitExceeded,
                "limit exceeded: the JSON text is nested more than 2 levels deep (at /0/a, line 1, column 8)"
                    .into(),
                7
            )
        );
        let got = failure(&mut limited(5, 128), &["[1,2,", "3]"]);
        assert_eq!(
            got,
            (
                LimitExceeded,
                "limit exceeded: the streamed JSON text is longer than 5 bytes (at /2, line 1, column 6)"
                    .into(),
                5
            )
        );
    }

    #[test]
    fn feed_replaces_the_changes_of_the_delta_before() {
        let mut parser = PartialJson::new();
        let mut changes = Vec::new();
        let mut seen = Vec::new();
        for delta in [r#"["ab"#, "cd", r#"", "e"#, "f", r#""]"#] {
            parser.feed(delta, &mut changes).unwrap();
            seen.push(changes.iter().map(line).collect::<Vec<_>>());
        }
        let expected: [&[&str]; 5] = [
            &[" = []", r#"/0 = "ab""#],
            &[r#"/0 + "cd""#],
            &[r#"/1 = "e""#],
            &[r#"/1 + "f""#],
            &[],
        ];
        assert_eq!(seen, expected);
        let mut bytes_changes = vec![Change::Appended {
            at: Pointer::root(),
            text: "old".into(),
        }];
        PartialJson::new().feed_bytes(b"[", &mut bytes_changes).unwrap();
        assert_eq!(bytes_changes.iter().map(line).collect::<Vec<_>>(), [" = []"]);
    }

    #[test]
    fn after_an_error_every_call_returns_it() {
        let mut parser = PartialJson::new();
        let first = parser.feed("[1}", &mut Vec::new()).unwrap_err();
        let again = parser.feed("]", &mut Vec::new()).unwrap_err();
        assert_eq!(again.to_string(), first.to_string());
        assert_eq!(
            parser.feed_bytes(b"]", &mut Vec::new()).unwrap_err().to_string(),
            first.to_string()
        );
        assert!(!parser.is_complete());
        assert_eq!(parser.finish().unwrap_err().to_string(), first.to_string());
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let mut parser = PartialJson::new();
        let error = parser.feed(&"[".repeat(1_000_000), &mut Vec::new()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::LimitExceeded);
        assert_eq!(error.position(), Some((1, 129)));
        let mut parser = PartialJson::new();
        let mut changes = Vec::new();
        parser.feed(&"[".repeat(128), &mut changes).unwrap();
        assert_eq!(changes.len(), 128);
        assert_eq!(
            changes.last().map(line).as_deref(),
            Some(format!("{} = []", "/0".repeat(127)).as_str())
        );
        parser.feed(&"]".repeat(128), &mut changes).unwrap();
        assert!(parser.is_complete());
        assert_eq!(changes, []);
    }

    #[test]
    fn completion_is_the_end_of_the_top_level_value() {
        let mut parser = PartialJson::new();
        assert!(!parser.is_complete());
        assert_eq!(parser.value(), None);
        parser.feed("{\"a\": [1]", &mut Vec::new()).unwrap();
        assert!(!parser.is_complete());
        parser.feed("}", &mut Vec::new()).unwrap();
        assert!(parser.is_complete());
        parser.feed(" \n", &mut Vec::new()).unwrap();
        assert!(parser.is_complete());
        assert_eq!(parser.offset(), 12);
        assert_eq!(parser.finish().unwrap(), json!({"a": [1]}));
    }
}
