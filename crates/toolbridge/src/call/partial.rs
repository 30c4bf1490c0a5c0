//! The resumable partial-JSON parser: tool-call arguments as they stream in.
//!
//! Every peer re-parses the whole buffer after each delta, which makes a
//! stream quadratic. [`PartialJson`] keeps its state between deltas instead —
//! the open containers, the token being read, an escape or a number cut in
//! half — so each delta costs time in proportion to its own length.
//!
//! The partial value is a `serde_json::Value` updated in place. A stack of
//! [`Frame`]s, one per open container, says how to reach the value being
//! read: the current member of an array is its last element, and the current
//! member of an object is its last entry (the map keeps insertion order),
//! unless the key repeated an earlier one, in which case the frame keeps the
//! key. Reaching the place to update is O(depth), never O(size).

use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::pointer::Pointer;

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
/// A stream is complete only when the provider says so; that a prefix
/// happens to be a whole JSON value proves nothing (`{"n": 1}` may yet go
/// on as `{"n": 12}` only if the number had not ended, but `"a"` followed by
/// more deltas is an error), so call [`finish`](PartialJson::finish) on the
/// provider's end event.
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
    spare: Vec<String>,
}

/// How many text buffers of earlier changes are kept for reuse, and the
/// largest kept (so that one large delta does not pin its memory).
const SPARE_BUFFERS: usize = 8;
const SPARE_CAPACITY: usize = 4096;

/// One open object or array.
#[derive(Clone, Debug)]
struct Frame {
    /// Where the container is.
    at: Pointer,
    is_object: bool,
    /// How many elements an array has begun (the index of the next one).
    len: usize,
    /// The key of the current member when it repeated an earlier key, so
    /// that it is not the last entry of the map.
    repeated_key: Option<String>,
}

/// What may come next between tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Expect {
    /// A value: the top-level one, an element after `,` or a member's after `:`.
    #[default]
    Value,
    /// An element or `]`, just after `[`.
    ValueOrEnd,
    /// A key, after `,` in an object.
    Key,
    /// A key or `}`, just after `{`.
    KeyOrEnd,
    /// The `:` after a key.
    Colon,
    /// `,` or the end of the innermost container, after one of its members.
    CommaOrEnd,
    /// Nothing but whitespace: the top-level value is complete.
    Done,
}

/// The token being read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Token {
    /// None: between tokens.
    #[default]
    Between,
    /// An object key (a string).
    Key,
    /// A string value.
    Text,
    /// A number, with the last part of its grammar read.
    Number(NumberPart),
    /// `true`, `false` or `null`, with how many of its bytes were read.
    Literal(Literal, usize),
}

/// The parts of a number (RFC 8259 §6), named for what was read last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumberPart {
    Minus,
    Zero,
    Integer,
    Point,
    Fraction,
    Exponent,
    ExponentSign,
    ExponentDigits,
}

impl NumberPart {
    /// True if the number may end after this part.
    fn may_end(self) -> bool {
        matches!(
            self,
            NumberPart::Zero | NumberPart::Integer | NumberPart::Fraction | NumberPart::ExponentDigits
        )
    }

    /// The part after reading `byte`, or `None` if `byte` cannot continue
    /// the number.
    fn next(self, byte: u8) -> Option<NumberPart> {
        use NumberPart::*;
        Some(match (self, byte) {
            (Minus, b'0') => Zero,
            (Minus | Integer, b'0'..=b'9') => Integer,
            (Zero | Integer, b'.') => Point,
            (Point | Fraction, b'0'..=b'9') => Fraction,
            (Zero | Integer | Fraction, b'e' | b'E') => Exponent,
            (Exponent, b'+' | b'-') => ExponentSign,
            (Exponent | ExponentSign | ExponentDigits, b'0'..=b'9') => ExponentDigits,
            _ => return None,
        })
    }
}

/// The text of the number being read, and its value while it is a plain
/// integer that fits a `u64`.
#[derive(Clone, Debug, Default)]
struct NumberText {
    text: String,
    negative: bool,
    magnitude: Option<u64>,
}

impl NumberText {
    fn begin(&mut self, first: u8) {
        self.text.clear();
        self.text.push(char::from(first));
        self.negative = first == b'-';
        self.magnitude = Some(if first.is_ascii_digit() {
            u64::from(first - b'0')
        } else {
            0
        });
    }

    /// The number's value, converted exactly as `serde_json` converts it
    /// (its float conversion differs from `str::parse::<f64>` in the last
    /// bit for some inputs, so anything but a small integer goes through
    /// `serde_json::Number`'s own parser).
    fn value(&self) -> Option<Number> {
        match (self.magnitude, self.negative) {
            (Some(magnitude), false) => Some(Number::from(magnitude)),
            (Some(magnitude @ 1..=0x8000_0000_0000_0000), true) => {
                Some(Number::from((magnitude as i64).wrapping_neg()))
            }
            _ => self.text.parse().ok(),
        }
    }
}

/// `true`, `false` and `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Literal {
    True,
    False,
    Null,
}

impl Literal {
    fn word(self) -> &'static str {
        match self {
            Literal::True => "true",
            Literal::False => "false",
            Literal::Null => "null",
        }
    }

    fn value(self) -> Value {
        match self {
            Literal::True => Value::Bool(true),
            Literal::False => Value::Bool(false),
            Literal::Null => Value::Null,
        }
    }
}

/// Where a string is in an escape sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Escape {
    /// Not in one.
    #[default]
    None,
    /// After `\`.
    Backslash,
    /// In the hex digits of `\uXXXX`; `high` is the high surrogate this
    /// escape has to complete, if any.
    Hex {
        high: Option<u32>,
        code: u32,
        digits: u8,
    },
    /// After a high surrogate's escape, waiting for the `\` of its low half.
    High(u32),
    /// After a high surrogate and `\`, waiting for the `u`.
    HighBackslash(u32),
}

impl Escape {
    /// Reads one byte of an escape sequence; returns the character once the
    /// sequence is complete, or what is wrong.
    fn read(&mut self, byte: u8) -> std::result::Result<Option<char>, &'static str> {
        let decoded = match *self {
            Escape::None => return Ok(None),
            Escape::Backslash => match byte {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    *self = Escape::Hex {
                        high: None,
                        code: 0,
                        digits: 0,
                    };
                    return Ok(None);
                }
                _ => {
                    return Err("invalid escape: a backslash must be followed by one of \" \\ / b f n r t u")
                }
            },
            Escape::Hex { high, code, digits } => {
                let digit = char::from(byte)
                    .to_digit(16)
                    .ok_or("invalid \\u escape: expected a hex digit")?;
                let code = code << 4 | digit;
                if digits < 3 {
                    *self = Escape::Hex {
                        high,
                        code,
                        digits: digits + 1,
                    };
                    return Ok(None);
                }
                match (high, code) {
                    (None, 0xD800..=0xDBFF) => {
                        *self = Escape::High(code);
                        return Ok(None);
                    }
                    (None, 0xDC00..=0xDFFF) => {
                        return Err(
                            "lone low surrogate: a \\uDC00-\\uDFFF escape must follow a high surrogate",
                        )
                    }
                    (None, code) => char::from_u32(code).ok_or("invalid \\u escape")?,
                    (Some(high), 0xDC00..=0xDFFF) => {
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                            .ok_or("invalid surrogate pair")?
                    }
                    (Some(_), _) => return Err(
                        "lone high surrogate: a \\uD800-\\uDBFF escape must be followed by a low surrogate",
                    ),
                }
            }
            Escape::High(high) if byte == b'\\' => {
                *self = Escape::HighBackslash(high);
                return Ok(None);
            }
            Escape::HighBackslash(high) if byte == b'u' => {
                *self = Escape::Hex {
                    high: Some(high),
                    code: 0,
                    digits: 0,
                };
                return Ok(None);
            }
            Escape::High(_) | Escape::HighBackslash(_) => {
                return Err(
                    "lone high surrogate: a \\uD800-\\uDBFF escape must be followed by a low surrogate",
                )
            }
        };
        *self = Escape::None;
        Ok(Some(decoded))
    }
}

/// Where the input is: enough to give the line and column of an error
/// without keeping the text.
#[derive(Clone, Debug)]
struct Position {
    /// Bytes read before the current delta.
    offset: usize,
    /// The current line, 1-based.
    line: usize,
    /// The byte offset where the current line starts.
    line_start: usize,
    /// Characters of the current line before the current delta (when the
    /// line started before it).
    columns_before: usize,
}

impl Default for Position {
    fn default() -> Position {
        Position {
            offset: 0,
            line: 1,
            line_start: 0,
            columns_before: 0,
        }
    }
}

impl Position {
    /// Records a line feed at `index` in the current delta.
    fn line_feed(&mut self, index: usize) {
        self.line += 1;
        self.line_start = self.offset + index + 1;
    }

    /// The line and column of byte `index` of the current delta `text`.
    fn locate(&self, text: &str, index: usize) -> (usize, usize) {
        let before = text.as_bytes().get(..index).unwrap_or(text.as_bytes());
        let column = if self.line_start >= self.offset {
            count_chars(before.get(self.line_start - self.offset..).unwrap_or_default())
        } else {
            self.columns_before + count_chars(before)
        };
        (self.line, column + 1)
    }

    /// Moves past the current delta `text`.
    fn advance(&mut self, text: &str) {
        let bytes = text.as_bytes();
        if self.line_start >= self.offset {
            self.columns_before = count_chars(bytes.get(self.line_start - self.offset..).unwrap_or_default());
        } else {
            self.columns_before += count_chars(bytes);
        }
        self.offset += bytes.len();
    }
}

/// The characters in UTF-8 `bytes`: those that do not continue a sequence.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&byte| byte & 0xC0 != 0x80).count()
}

/// The start of a UTF-8 sequence cut by the end of a delta.
#[derive(Clone, Debug, Default)]
struct Carry {
    bytes: [u8; 4],
    len: usize,
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

    /// Reads the next piece of the text, updating the partial value, and
    /// replaces the contents of `changes` with what changed.
    ///
    /// Takes time in proportion to `delta.len()` (plus the depth of
    /// nesting), however much text came before. Passing the same vector
    /// every time saves an allocation per delta: the text buffers of the
    /// changes it held are reused. On an error, `changes` holds what the
    /// part of `delta` before the problem changed.
    pub fn feed(&mut self, delta: &str, changes: &mut Vec<Change>) -> Result<()> {
        self.recycle(changes);
        self.read_text(delta, changes)
    }

    /// Empties `changes`, keeping a few of their text buffers for reuse.
    fn recycle(&mut self, changes: &mut Vec<Change>) {
        for change in changes.iter_mut() {
            if let Change::Appended { text, .. }
            | Change::Set {
                value: Value::String(text),
                ..
            } = change
            {
                if self.spare.len() < SPARE_BUFFERS && text.capacity() <= SPARE_CAPACITY {
                    let mut buffer = std::mem::take(text);
                    buffer.clear();
                    self.spare.push(buffer);
                }
            }
        }
        changes.clear();
    }

    /// A copy of `text` in a reused buffer if there is one.
    #[inline]
    fn text_buffer(spare: &mut Vec<String>, text: &str) -> String {
        match spare.pop() {
            Some(mut buffer) => {
                buffer.push_str(text);
                buffer
            }
            None => text.to_string(),
        }
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

    /// Reads one delta; on an error, returns the index where it happened.
    fn read(&mut self, text: &str, changes: &mut Vec<Change>) -> std::result::Result<(), (usize, Error)> {
        let mut index = 0;
        while index < text.len() {
            let step = match self.token {
                Token::Between => self.read_between(text, index, changes),
                Token::Key | Token::Text => self.read_string(text, index, changes),
                Token::Number(part) => self.read_number(text, index, part, changes),
                Token::Literal(literal, matched) => self.read_literal(text, index, literal, matched, changes),
            };
            index = step.map_err(|(at, fault)| (at, self.error_at(text, at, fault)))?;
        }
        if self.token == Token::Text && self.string_at.is_none() {
            self.insert_text(changes)
                .map_err(|fault| (text.len(), self.error_at(text, text.len(), fault)))?;
        }
        Ok(())
    }

    /// Reads structure and whitespace until a token starts (its first byte
    /// read) or the delta ends.
    fn read_between(&mut self, text: &str, mut index: usize, changes: &mut Vec<Change>) -> Step {
        let bytes = text.as_bytes();
        while let Some(&byte) = bytes.get(index) {
            match byte {
                b' ' | b'\t' | b'\r' => {
                    index += 1;
                    continue;
                }
                b'\n' => {
                    self.position.line_feed(index);
                    index += 1;
                    continue;
                }
                _ => {}
            }
            let at = index;
            index += 1;
            match self.expect {
                Expect::ValueOrEnd if byte == b']' => self.close(),
                Expect::Value | Expect::ValueOrEnd => {
                    if !self.begin_token(byte, changes).map_err(|fault| (at, fault))? {
                        return Err((at, Fault::expected("a value", text, at)));
                    }
                    if self.token != Token::Between {
                        return Ok(index);
                    }
                }
                Expect::Key | Expect::KeyOrEnd if byte == b'"' => {
                    self.key.clear();
                    self.token = Token::Key;
                    return Ok(index);
                }
                Expect::KeyOrEnd if byte == b'}' => self.close(),
                Expect::Colon if byte == b':' => self.expect = Expect::Value,
                Expect::CommaOrEnd => match (byte, self.frames.last().is_some_and(|frame| frame.is_object)) {
                    (b',', true) => self.expect = Expect::Key,
                    (b',', false) => self.expect = Expect::Value,
                    (b'}', true) | (b']', false) => self.close(),
                    (_, true) => {
                        return Err((at, Fault::expected("`,` or `}` after an object member", text, at)))
                    }
                    (_, false) => {
                        return Err((at, Fault::expected("`,` or `]` after an array element", text, at)))
                    }
                },
                Expect::Key => {
                    return Err((at, Fault::expected("a key (a string in double quotes)", text, at)))
                }
                Expect::KeyOrEnd => {
                    return Err((
                        at,
                        Fault::expected("a key (a string in double quotes) or `}`", text, at),
                    ))
                }
                Expect::Colon => return Err((at, Fault::expected("`:` after the key", text, at))),
                Expect::Done => {
                    return Err((
                        at,
                        Fault::expected("nothing but whitespace after the value", text, at),
                    ))
                }
            }
        }
        Ok(index)
    }

    /// Starts the value whose first byte is `byte`; false if no value
    /// starts with it.
    fn begin_token(&mut self, byte: u8, changes: &mut Vec<Change>) -> std::result::Result<bool, Fault> {
        self.token = match byte {
            b'{' | b'[' => {
                self.open(byte == b'{', changes)?;
                return Ok(true);
            }
            b'"' => {
                self.string_at = None;
                Token::Text
            }
            b'-' | b'0'..=b'9' => {
                self.number.begin(byte);
                Token::Number(match byte {
                    b'-' => NumberPart::Minus,
                    b'0' => NumberPart::Zero,
                    _ => NumberPart::Integer,
                })
            }
            b't' => Token::Literal(Literal::True, 1),
            b'f' => Token::Literal(Literal::False, 1),
            b'n' => Token::Literal(Literal::Null, 1),
            _ => return Ok(false),
        };
        Ok(true)
    }

    /// Opens an object or array as the next value.
    fn open(&mut self, is_object: bool, changes: &mut Vec<Change>) -> std::result::Result<(), Fault> {
        if self.frames.len() >= self.limits.max_depth {
            return Err(Fault {
                kind: ErrorKind::LimitExceeded,
                detail: format!(
                    "the JSON text is nested more than {} levels deep",
                    self.limits.max_depth
                ),
            });
        }
        let empty = if is_object {
            Value::Object(Map::new())
        } else {
            Value::Array(Vec::new())
        };
        let at = self.begin_value(empty.clone())?;
        changes.push(Change::Set {
            at: at.clone(),
            value: empty,
        });
        self.frames.push(Frame {
            at,
            is_object,
            len: 0,
            repeated_key: None,
        });
        self.expect = if is_object {
            Expect::KeyOrEnd
        } else {
            Expect::ValueOrEnd
        };
        Ok(())
    }

    /// Closes the innermost container.
    fn close(&mut self) {
        self.frames.pop();
        self.value_done();
    }

    /// After a value is complete: what may follow it.
    fn value_done(&mut self) {
        self.token = Token::Between;
        self.expect = if self.frames.is_empty() {
            Expect::Done
        } else {
            Expect::CommaOrEnd
        };
    }

    /// Puts `value` at the next place: the root, the next element of the
    /// innermost array, or the member of the innermost object named by the
    /// key just read. Returns the place.
    fn begin_value(&mut self, value: Value) -> std::result::Result<Pointer, Fault> {
        let Some((frame, outer)) = self.frames.split_last_mut() else {
            self.root = Some(value);
            return Ok(Pointer::root());
        };
        match descend(&mut self.root, outer) {
            Some(Value::Array(items)) => {
                let at = frame.at.index(frame.len);
                items.push(value);
                frame.len += 1;
                Ok(at)
            }
            Some(Value::Object(members)) => {
                let key = std::mem::take(&mut self.key);
                let at = frame.at.key(&key);
                match members.entry(key) {
                    Entry::Vacant(entry) => {
                        entry.insert(value);
                        frame.repeated_key = None;
                    }
                    Entry::Occupied(mut entry) => {
                        frame.repeated_key = Some(entry.key().clone());
                        entry.insert(value);
                    }
                }
                Ok(at)
            }
            _ => Err(Fault::lost()),
        }
    }

    /// Reads string text until the string ends (its closing quote read) or
    /// the delta ends. A key goes to `key`; a string value not yet in the
    /// partial value to `piece`; one already there straight onto its end.
    fn read_string(&mut self, text: &str, index: usize, changes: &mut Vec<Change>) -> Step {
        let (end, closed) = match (self.token, &self.string_at) {
            (Token::Key, _) => decode(&mut self.escape, &mut self.key, text, index)?,
            (_, None) => decode(&mut self.escape, &mut self.piece, text, index)?,
            (_, Some(at)) => {
                let Some(Value::String(string)) = descend(&mut self.root, &self.frames) else {
                    return Err((index, Fault::lost()));
                };
                let start = string.len();
                let step = decode(&mut self.escape, string, text, index);
                if step.is_err() {
                    string.truncate(start);
                }
                if let Some(appended) = string.get(start..).filter(|appended| !appended.is_empty()) {
                    let text = PartialJson::text_buffer(&mut self.spare, appended);
                    changes.push(Change::Appended { at: at.clone(), text });
                }
                step?
            }
        };
        if closed {
            if self.token == Token::Key {
                self.token = Token::Between;
                self.expect = Expect::Colon;
            } else {
                if self.string_at.is_none() {
                    self.insert_text(changes).map_err(|fault| (end, fault))?;
                }
                self.string_at = None;
                self.value_done();
            }
        }
        Ok(end)
    }

    /// Puts the string value begun in this delta into the partial value,
    /// with the text read so far ([`Change::Set`]).
    fn insert_text(&mut self, changes: &mut Vec<Change>) -> std::result::Result<(), Fault> {
        let copy = PartialJson::text_buffer(&mut self.spare, &self.piece);
        let text = std::mem::take(&mut self.piece);
        let at = self.begin_value(Value::String(text))?;
        self.string_at = Some(at.clone());
        changes.push(Change::Set {
            at,
            value: Value::String(copy),
        });
        Ok(())
    }

    /// Reads number bytes; a byte that cannot continue the number ends it
    /// and is left for the grammar.
    fn read_number(
        &mut self,
        text: &str,
        mut index: usize,
        mut part: NumberPart,
        changes: &mut Vec<Change>,
    ) -> Step {
        let bytes = text.as_bytes();
        let start = index;
        while let Some(&byte) = bytes.get(index) {
            let Some(next) = part.next(byte) else {
                break;
            };
            if next == NumberPart::Integer {
                self.number.magnitude = self
                    .number
                    .magnitude
                    .and_then(|magnitude| magnitude.checked_mul(10))
                    .and_then(|magnitude| magnitude.checked_add(u64::from(byte - b'0')));
            } else {
                self.number.magnitude = self.number.magnitude.filter(|_| next == NumberPart::Zero);
            }
            part = next;
            index += 1;
        }
        self.number
            .text
            .push_str(text.get(start..index).ok_or_else(|| (index, Fault::lost()))?);
        self.token = Token::Number(part);
        if index < bytes.len() {
            if !part.may_end() {
                return Err((index, Fault::expected("a digit in the number", text, index)));
            }
            self.complete_number(changes).map_err(|fault| (index, fault))?;
        }
        Ok(index)
    }

    fn complete_number(&mut self, changes: &mut Vec<Change>) -> std::result::Result<(), Fault> {
        let number = self
            .number
            .value()
            .ok_or_else(|| Fault::syntax("number out of range"))?;
        let at = self.begin_value(Value::Number(number.clone()))?;
        changes.push(Change::Set {
            at,
            value: Value::Number(number),
        });
        self.value_done();
        Ok(())
    }

    fn read_literal(
        &mut self,
        text: &str,
        mut index: usize,
        literal: Literal,
        mut matched: usize,
        changes: &mut Vec<Change>,
    ) -> Step {
        let word = literal.word().as_bytes();
        while let Some(&wanted) = word.get(matched) {
            let Some(&byte) = text.as_bytes().get(index) else {
                self.token = Token::Literal(literal, matched);
                return Ok(index);
            };
            if byte != wanted {
                let wanted = format!("`{}`", literal.word());
                return Err((index, Fault::expected(&wanted, text, index)));
            }
            matched += 1;
            index += 1;
        }
        let at = self
            .begin_value(literal.value())
            .map_err(|fault| (index, fault))?;
        changes.push(Change::Set {
            at,
            value: literal.value(),
        });
        self.value_done();
        Ok(index)
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

/// Decodes string text from byte `index` of `text` onto `out`, until the
/// closing quote (read) or the end of the delta: the index reached and
/// whether the string ended.
fn decode(
    escape: &mut Escape,
    out: &mut String,
    text: &str,
    mut index: usize,
) -> std::result::Result<(usize, bool), (usize, Fault)> {
    let bytes = text.as_bytes();
    loop {
        let Some(&byte) = bytes.get(index) else {
            return Ok((index, false));
        };
        if *escape != Escape::None {
            match escape.read(byte) {
                Ok(Some(decoded)) => out.push(decoded),
                Ok(None) => {}
                Err(detail) => return Err((index, Fault::syntax(detail))),
            }
            index += 1;
            continue;
        }
        let rest = bytes.get(index..).unwrap_or_default();
        let run = rest
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
            .unwrap_or(rest.len());
        if run > 0 {
            out.push_str(
                text.get(index..index + run)
                    .ok_or_else(|| (index, Fault::lost()))?,
            );
            index += run;
        }
        match bytes.get(index) {
            None => return Ok((index, false)),
            Some(b'"') => return Ok((index + 1, true)),
            Some(b'\\') => {
                *escape = Escape::Backslash;
                index += 1;
            }
            Some(&control) => {
                let detail = format!(
                    "control character U+{control:04X} in a string: it must be written as an escape (\\u{control:04X})"
                );
                return Err((index, Fault::syntax(detail)));
            }
        }
    }
}

/// The value reached from `root` by following the current member of each
/// frame in `frames`.
fn descend<'v>(root: &'v mut Option<Value>, frames: &[Frame]) -> Option<&'v mut Value> {
    let mut value = root.as_mut()?;
    for frame in frames {
        value = match value {
            Value::Array(items) => items.last_mut()?,
            Value::Object(members) => match &frame.repeated_key {
                Some(key) => members.get_mut(key)?,
                None => members.values_mut().next_back()?,
            },
            _ => return None,
        };
    }
    Some(value)
}

/// The byte length of the UTF-8 sequence that `lead` starts.
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
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
