//! The tolerant parser: one pass over the text with an explicit stack of open
//! containers (no recursion, so deep input cannot overflow the stack), a
//! state saying what may come next, and a fix for each thing that is not
//! JSON but whose meaning is clear. Strings, whose end is the hard part, are
//! in `string.rs`.

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};
use crate::pointer::Pointer;

use super::fixes::{excerpt, line_column, Fixes, Kind};
use super::string::{quote_at, Role};
use super::token::is_word_byte;

/// A parse that gave up. `last` says that no other start in the text should
/// be tried (a limit was passed, or the text holds several JSON values).
pub(super) struct Failure {
    pub(super) error: Error,
    pub(super) last: bool,
}

/// What a parse produced: the value, its fixes, and whether the value rests
/// on bare words read as strings (then a later start in the text may be the
/// real JSON, as in `[TOOL_CALLS]{…}`).
pub(super) struct Parsed {
    pub(super) value: Value,
    pub(super) fixes: Fixes,
    pub(super) weak: bool,
}

/// An open container.
pub(super) enum Frame {
    /// An object and the key whose value comes next.
    Object {
        map: Map<String, Value>,
        key: Option<String>,
    },
    /// An array.
    Array { items: Vec<Value> },
}

impl Frame {
    pub(super) fn is_object(&self) -> bool {
        matches!(self, Frame::Object { .. })
    }

    fn into_value(self) -> Value {
        match self {
            Frame::Object { map, .. } => Value::Object(map),
            Frame::Array { items } => Value::Array(items),
        }
    }
}

/// What may come next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// A value (after `[`, `,` in an array, `:`, or at the start).
    Value,
    /// A key or `}` (after `{` or `,` in an object).
    KeyOrEnd,
    /// The colon after a key.
    Colon,
    /// A comma or a closing bracket (after a value).
    CommaOrEnd,
}

/// The next state, or the finished top-level value.
pub(super) enum Step {
    /// Go on, expecting this.
    Next(Expect),
    /// The top-level value is complete.
    Root(Value),
}

/// The tolerant parser over one start position in the text.
pub(super) struct Parser<'t> {
    pub(super) text: &'t str,
    pub(super) bytes: &'t [u8],
    pub(super) pos: usize,
    pub(super) frames: Vec<Frame>,
    max_depth: usize,
    pub(super) fixes: Fixes,
    /// `{{ … }}` template escaping: `{{` and `}}` stand for one brace.
    pub(super) doubled: bool,
    /// The text has used a key without quotes (so `, word:` may start a key).
    pub(super) unquoted_keys: bool,
    pub(super) weak: bool,
    pub(super) dropped: bool,
    pub(super) truncated: bool,
    after_comma: bool,
    tail_start: Option<usize>,
    /// The text before the start held a code fence (noted by the caller).
    fenced: bool,
}

impl<'t> Parser<'t> {
    /// A parser for `text`, starting at byte `start`.
    pub(super) fn new(text: &'t str, start: usize, max_depth: usize, locate: bool) -> Parser<'t> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: start,
            frames: Vec::new(),
            max_depth,
            fixes: Fixes::new(locate),
            doubled: false,
            unquoted_keys: false,
            weak: false,
            dropped: false,
            truncated: false,
            after_comma: false,
            tail_start: None,
            fenced: false,
        }
    }

    /// Says that the text before the start held a code fence, so that its
    /// closing fence is not noted again.
    pub(super) fn in_fence(mut self, fenced: bool) -> Parser<'t> {
        self.fenced = fenced;
        self
    }

    /// Parses one value from the start position, then checks what follows it.
    pub(super) fn run(mut self) -> Result<Parsed, Failure> {
        let mut expect = Expect::Value;
        let root = loop {
            self.skip_space();
            let step = match self.byte(self.pos) {
                None => self.end_of_text(expect)?,
                Some(byte) => match expect {
                    Expect::Value => self.value(byte)?,
                    Expect::KeyOrEnd => self.key_or_end(byte)?,
                    Expect::Colon => self.colon(byte)?,
                    Expect::CommaOrEnd => self.comma_or_end(byte)?,
                },
            };
            match step {
                Step::Next(next) => expect = next,
                Step::Root(value) => break value,
            }
        };
        let empty = match &root {
            Value::Object(map) => map.is_empty(),
            Value::Array(items) => items.is_empty(),
            _ => false,
        };
        if empty && (self.truncated || self.dropped) {
            return Err(self.fail(
                "nothing is left to return: the text ends or breaks off before any member is complete",
                false,
            ));
        }
        self.trailing()?;
        Ok(Parsed {
            value: root,
            fixes: self.fixes,
            weak: self.weak,
        })
    }

    pub(super) fn byte(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    pub(super) fn starts_with(&self, at: usize, prefix: &str) -> bool {
        self.bytes
            .get(at..)
            .is_some_and(|rest| rest.starts_with(prefix.as_bytes()))
    }

    /// The pointer to the value being read now.
    pub(super) fn here(&self) -> Pointer {
        let mut at = Pointer::root();
        for frame in &self.frames {
            match frame {
                Frame::Object { key: Some(key), .. } => at = at.key(key),
                Frame::Object { key: None, .. } => break,
                Frame::Array { items } => at = at.index(items.len()),
            }
        }
        at
    }

    /// The pointer to the innermost open container.
    fn container(&self) -> Pointer {
        let mut at = Pointer::root();
        let Some((_, outer)) = self.frames.split_last() else {
            return at;
        };
        for frame in outer {
            match frame {
                Frame::Object { key: Some(key), .. } => at = at.key(key),
                Frame::Object { key: None, .. } => break,
                Frame::Array { items } => at = at.index(items.len()),
            }
        }
        at
    }

    /// Records a fix at the value being read now, made at byte `offset`.
    pub(super) fn fix(&mut self, kind: Kind, offset: usize, message: Option<String>) {
        if self.fixes.bump(kind) {
            return;
        }
        let at = self.here();
        self.fixes.add(kind, || at, Some(offset), message);
    }

    /// The sentence for a fix, written only while fixes are still listed.
    pub(super) fn message(&self, write: impl FnOnce() -> String) -> Option<String> {
        (!self.fixes.full()).then(write)
    }

    /// Records a fix at the innermost open container.
    pub(super) fn fix_container(&mut self, kind: Kind, offset: usize, message: Option<String>) {
        if self.fixes.bump(kind) {
            return;
        }
        let at = self.container();
        self.fixes.add(kind, || at, Some(offset), message);
    }

    /// A failure at the current position.
    pub(super) fn fail(&self, detail: impl Into<String>, last: bool) -> Failure {
        let (line, column) = line_column(self.text, self.pos);
        Failure {
            error: Error::new(ErrorKind::InvalidJson, detail)
                .with_position(line, column)
                .at(self.here()),
            last,
        }
    }

    /// Skips whitespace and comments (`//`, `/* */`, `#`), noting comments.
    fn skip_space(&mut self) {
        loop {
            match self.byte(self.pos) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.byte(self.pos + 1) == Some(b'/') => self.line_comment(),
                Some(b'#') => self.line_comment(),
                Some(b'/') if self.byte(self.pos + 1) == Some(b'*') => {
                    self.fix(Kind::Comment, self.pos, None);
                    let body = self.pos + 2;
                    self.pos = match self.bytes.get(body..).and_then(|rest| find(rest, b"*/")) {
                        Some(end) => body + end + 2,
                        None => self.bytes.len(),
                    };
                }
                _ => return,
            }
        }
    }

    fn line_comment(&mut self) {
        self.fix(Kind::Comment, self.pos, None);
        self.pos = match self
            .bytes
            .get(self.pos..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        {
            Some(end) => self.pos + end + 1,
            None => self.bytes.len(),
        };
    }

    /// Where the text's last run of closing brackets starts, after which only
    /// text without quotes or brackets follows: a quote followed by a
    /// bracket that closes the top-level value must sit there.
    pub(super) fn tail_start(&mut self) -> usize {
        if let Some(start) = self.tail_start {
            return start;
        }
        let mut at = self.bytes.len();
        while at > 0 && !matches!(self.bytes.get(at - 1), Some(b'"' | b'{' | b'}' | b'[' | b']')) {
            at -= 1;
        }
        while at > 0
            && matches!(
                self.bytes.get(at - 1),
                Some(b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            )
        {
            at -= 1;
        }
        self.tail_start = Some(at);
        at
    }

    /// Adds a finished value to the open container, or returns it as the
    /// top-level value.
    pub(super) fn finish(&mut self, value: Value) -> Step {
        self.after_comma = false;
        match self.frames.last_mut() {
            None => Step::Root(value),
            Some(Frame::Object { map, key }) => {
                if let Some(key) = key.take() {
                    map.insert(key, value);
                }
                Step::Next(Expect::CommaOrEnd)
            }
            Some(Frame::Array { items }) => {
                items.push(value);
                Step::Next(Expect::CommaOrEnd)
            }
        }
    }

    fn open(&mut self, frame: Frame) -> Result<(), Failure> {
        if self.frames.len() >= self.max_depth {
            let (line, column) = line_column(self.text, self.pos);
            return Err(Failure {
                error: Error::new(
                    ErrorKind::LimitExceeded,
                    format!(
                        "the arguments are nested more than {} levels deep",
                        self.max_depth
                    ),
                )
                .with_position(line, column)
                .at(self.here()),
                last: true,
            });
        }
        self.frames.push(frame);
        self.after_comma = false;
        Ok(())
    }

    /// Closes the innermost container, handing its value to the one around it.
    fn pop(&mut self) -> Step {
        match self.frames.pop() {
            Some(frame) => self.finish(frame.into_value()),
            None => Step::Next(Expect::CommaOrEnd),
        }
    }

    fn value(&mut self, byte: u8) -> Result<Step, Failure> {
        match byte {
            b'{' => {
                let at = self.pos;
                let top = self.frames.is_empty();
                self.open(Frame::Object {
                    map: Map::new(),
                    key: None,
                })?;
                self.pos += 1;
                if self.doubled && self.byte(self.pos) == Some(b'{') {
                    self.pos += 1;
                } else if top && self.byte(self.pos) == Some(b'{') {
                    self.doubled = true;
                    self.pos += 1;
                    self.fixes.add(
                        Kind::DoubledBraces,
                        Pointer::root,
                        Some(at),
                        Some("doubled braces {{ }} (template escaping) were read as single braces".into()),
                    );
                }
                Ok(Step::Next(Expect::KeyOrEnd))
            }
            b'[' => {
                self.open(Frame::Array { items: Vec::new() })?;
                self.pos += 1;
                Ok(Step::Next(Expect::Value))
            }
            b']' | b'}' => match self.frames.last() {
                Some(Frame::Array { .. }) => {
                    if self.after_comma && byte == b']' {
                        self.fix_container(Kind::TrailingComma, self.pos, None);
                    }
                    self.close(byte, Expect::Value)
                }
                Some(Frame::Object { key, .. }) => {
                    let detail = format!("{} has no value", quoted_key(key.as_deref()));
                    Err(self.fail(detail, false))
                }
                None => Err(self.fail(format!("unexpected `{}`", byte as char), false)),
            },
            b',' => match self.frames.last() {
                Some(Frame::Array { .. }) => {
                    self.fix_container(Kind::ExtraComma, self.pos, None);
                    self.pos += 1;
                    Ok(Step::Next(Expect::Value))
                }
                Some(Frame::Object { key, .. }) => {
                    let detail = format!("{} has no value", quoted_key(key.as_deref()));
                    Err(self.fail(detail, false))
                }
                None => Err(self.fail("unexpected `,`", false)),
            },
            _ => {
                if let Some((quote, open_len)) = quote_at(self.bytes, self.pos) {
                    let role = if self.frames.is_empty() {
                        Role::Root
                    } else {
                        Role::Value
                    };
                    let string = self.string(quote, open_len, role);
                    if role == Role::Root && !string.truncated && self.colon_follows() {
                        return self.implicit_object(string.value);
                    }
                    return Ok(self.finish(Value::String(string.value)));
                }
                self.token()
            }
        }
    }

    /// `"a": 1, "b": 2}`: an object whose opening brace is missing.
    fn implicit_object(&mut self, key: String) -> Result<Step, Failure> {
        self.fixes.add(
            Kind::MissingBrace,
            Pointer::root,
            Some(0),
            Some("the object had no opening brace; one was added".into()),
        );
        self.open(Frame::Object {
            map: Map::new(),
            key: Some(key),
        })?;
        Ok(Step::Next(Expect::Colon))
    }

    /// True when the next thing after whitespace is a colon.
    fn colon_follows(&self) -> bool {
        let at = self.space_ahead(self.pos);
        self.byte(at) == Some(b':')
    }

    fn key_or_end(&mut self, byte: u8) -> Result<Step, Failure> {
        match byte {
            b'}' => {
                if self.after_comma {
                    self.fix_container(Kind::TrailingComma, self.pos, None);
                }
                self.close(byte, Expect::KeyOrEnd)
            }
            b']' => self.close(byte, Expect::KeyOrEnd),
            b',' => {
                self.fix_container(Kind::ExtraComma, self.pos, None);
                self.pos += 1;
                Ok(Step::Next(Expect::KeyOrEnd))
            }
            b'{' | b'[' => Err(self.fail("expected a key", false)),
            _ if self.ellipsis_len(self.pos) > 0 => {
                self.ellipsis(false);
                Ok(Step::Next(Expect::CommaOrEnd))
            }
            _ => {
                let at = self.pos;
                let key = if let Some((quote, open_len)) = quote_at(self.bytes, self.pos) {
                    let string = self.string(quote, open_len, Role::Key);
                    (!string.truncated).then_some(string.value)
                } else {
                    self.unquoted_key()?
                };
                self.after_comma = false;
                match key {
                    Some(key) => {
                        if let Some(Frame::Object { key: slot, .. }) = self.frames.last_mut() {
                            *slot = Some(key);
                        }
                        Ok(Step::Next(Expect::Colon))
                    }
                    None => {
                        // The text ends inside the key.
                        self.dropped = true;
                        self.fix_container(
                            Kind::Truncated,
                            at,
                            Some("the text ends inside a key; the member was left out".into()),
                        );
                        Ok(Step::Next(Expect::KeyOrEnd))
                    }
                }
            }
        }
    }

    /// A key without quotes: everything up to the colon. `None` when the text
    /// ends first.
    fn unquoted_key(&mut self) -> Result<Option<String>, Failure> {
        let start = self.pos;
        let rest = self.bytes.get(start..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|&b| matches!(b, b':' | b',' | b'{' | b'}' | b'[' | b']' | b'"' | b'\'' | b'\n'))
            .unwrap_or(rest.len());
        let end = start + len;
        let key = self.text.get(start..end).unwrap_or_default().trim();
        match self.byte(end) {
            None => {
                self.pos = end;
                Ok(None)
            }
            Some(b':') if !key.is_empty() => {
                let key = key.to_string();
                self.unquoted_keys = true;
                self.fix(Kind::UnquotedKey, start, None);
                self.pos = end;
                Ok(Some(key))
            }
            _ if key.is_empty() => Err(self.fail("expected a key", false)),
            _ => {
                self.pos = end;
                Err(self.fail(format!("{} has no value", quoted_key(Some(key))), false))
            }
        }
    }

    fn colon(&mut self, byte: u8) -> Result<Step, Failure> {
        match byte {
            b':' => {
                self.pos += 1;
                Ok(Step::Next(Expect::Value))
            }
            b'}' | b']' | b',' => {
                let key = match self.frames.last() {
                    Some(Frame::Object { key, .. }) => key.as_deref(),
                    _ => None,
                };
                Err(self.fail(format!("{} has no value", quoted_key(key)), false))
            }
            _ => {
                let message = self.message(|| "a missing colon after a key was added".into());
                self.fix(Kind::MissingColon, self.pos, message);
                Ok(Step::Next(Expect::Value))
            }
        }
    }

    fn comma_or_end(&mut self, byte: u8) -> Result<Step, Failure> {
        match byte {
            b',' => {
                self.pos += 1;
                self.after_comma = true;
                match self.frames.last() {
                    Some(Frame::Object { .. }) => Ok(Step::Next(Expect::KeyOrEnd)),
                    _ => Ok(Step::Next(Expect::Value)),
                }
            }
            b'}' | b']' => self.close(byte, Expect::CommaOrEnd),
            _ => {
                let in_object = self.frames.last().is_some_and(Frame::is_object);
                let fits = if in_object {
                    quote_at(self.bytes, self.pos).is_some() || is_word_byte(byte)
                } else {
                    self.value_starts(self.pos)
                };
                if !fits {
                    return Err(self.fail(
                        format!(
                            "expected `,` or a closing bracket, found {}",
                            found(self.text, self.pos)
                        ),
                        false,
                    ));
                }
                let message = self.message(|| "a missing comma was added".into());
                self.fix(Kind::MissingComma, self.pos, message);
                Ok(Step::Next(if in_object {
                    Expect::KeyOrEnd
                } else {
                    Expect::Value
                }))
            }
        }
    }

    /// A closing bracket: closes the innermost container of its kind (adding
    /// the brackets of any still open inside it), or is dropped when none is
    /// open. `expect` is the state to stay in when it is dropped.
    fn close(&mut self, byte: u8, expect: Expect) -> Result<Step, Failure> {
        let object = byte == b'}';
        let len = if self.doubled && object && self.byte(self.pos + 1) == Some(b'}') {
            2
        } else {
            1
        };
        let Some(index) = self.frames.iter().rposition(|frame| frame.is_object() == object) else {
            self.fix_container(Kind::ExtraBracket, self.pos, None);
            self.pos += 1;
            return Ok(Step::Next(expect));
        };
        if index == 0 && self.frames.len() == 1 && object && self.reopens_after(self.pos + len) {
            // `{"a": {"b": 1}}, "c": 2}`: the top-level object goes on.
            self.fix_container(Kind::ExtraBracket, self.pos, None);
            self.pos += len;
            return Ok(Step::Next(Expect::CommaOrEnd));
        }
        while self.frames.len() > index + 1 {
            let missing = if self.frames.last().is_some_and(Frame::is_object) {
                '}'
            } else {
                ']'
            };
            self.fix_container(
                Kind::MissingBracket,
                self.pos,
                Some(format!("a closing `{missing}` was missing and was added")),
            );
            if let Step::Root(value) = self.pop() {
                return Ok(Step::Root(value));
            }
        }
        self.pos += len;
        Ok(self.pop())
    }

    /// The text ends: the member being read is left out if it has no value
    /// yet, and every open container is closed.
    fn end_of_text(&mut self, expect: Expect) -> Result<Step, Failure> {
        if self.frames.is_empty() {
            return Err(self.fail("the text ends before any value", false));
        }
        let at = self.pos;
        if matches!(expect, Expect::Value | Expect::Colon) {
            let key = match self.frames.last_mut() {
                Some(Frame::Object { key, .. }) => key.take(),
                _ => None,
            };
            if let Some(key) = key {
                self.dropped = true;
                let message = format!(
                    "the text ends after the key \"{}\", before its value; the member was left out",
                    excerpt(&key)
                );
                self.fix_container(Kind::Truncated, at, Some(message));
            }
        }
        let open = self.frames.len();
        let message = if open == 1 {
            "the text ends early; the open bracket was closed".to_string()
        } else {
            format!("the text ends early; {open} open brackets were closed")
        };
        self.fix_container(Kind::Truncated, at, Some(message));
        self.truncated = true;
        loop {
            if let Step::Root(value) = self.pop() {
                return Ok(Step::Root(value));
            }
        }
    }

    /// After the top-level value: closing brackets are dropped, a code fence
    /// or prose is left out, another JSON value is refused.
    fn trailing(&mut self) -> Result<(), Failure> {
        loop {
            self.skip_space();
            match self.byte(self.pos) {
                None => return Ok(()),
                Some(b'}' | b']') => {
                    self.fix(Kind::ExtraBracket, self.pos, None);
                    self.pos += 1;
                }
                Some(b'{' | b'[') => {
                    let detail = "the text holds more than one JSON value; the next one starts here";
                    return Err(self.fail(detail, !self.weak));
                }
                Some(_) if quote_at(self.bytes, self.pos).is_some() => {
                    let detail = "the text holds more than one JSON value; the next one starts here";
                    return Err(self.fail(detail, !self.weak));
                }
                Some(_) => {
                    if self.starts_with(self.pos, "```") || self.starts_with(self.pos, "~~~") {
                        if !self.fenced && !self.fixes.has(Kind::CodeFence) {
                            self.fixes.add(
                                Kind::CodeFence,
                                Pointer::root,
                                Some(self.pos),
                                Some("the Markdown code fence around the JSON was removed".into()),
                            );
                        }
                    } else {
                        let rest = self.text.get(self.pos..).unwrap_or_default().trim_end();
                        let message = format!("text after the JSON was left out: \"{}\"", excerpt(rest));
                        self.fixes
                            .add(Kind::Prose, Pointer::root, Some(self.pos), Some(message));
                    }
                    return Ok(());
                }
            }
        }
    }
}

/// `"key"` for messages, or "the member" when the key is unknown.
fn quoted_key(key: Option<&str>) -> String {
    match key {
        Some(key) => format!("\"{}\"", excerpt(key)),
        None => "the member".to_string(),
    }
}

/// The character at `at`, for messages.
pub(super) fn found(text: &str, at: usize) -> String {
    match text.get(at..).and_then(|rest| rest.chars().next()) {
        Some(c) => format!("`{c}`"),
        None => "the end of the text".to_string(),
    }
}

/// The first occurrence of `needle` in `haystack`.
pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::limits::Limits;

    fn repaired(text: &str) -> Value {
        crate::call::repair(text, None, &Limits::default()).unwrap().value
    }

    fn refused(text: &str) -> String {
        crate::call::repair(text, None, &Limits::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn closing_brackets_close_what_is_open() {
        assert_eq!(repaired(r#"{"a": [1, 2}"#), json!({"a": [1, 2]}));
        assert_eq!(repaired(r#"{"a": {"b": 1]}"#), json!({"a": {"b": 1}}));
        assert_eq!(
            repaired(r#"{"a": {"b": 1}}, "c": 2}"#),
            json!({"a": {"b": 1}, "c": 2})
        );
        assert_eq!(repaired("[1, 2]]]"), json!([1, 2]));
    }

    #[test]
    fn missing_punctuation_is_added() {
        assert_eq!(repaired(r#"{"a" 1, "b": [1 2]}"#), json!({"a": 1, "b": [1, 2]}));
        assert_eq!(repaired(r#""a": 1, "b": 2}"#), json!({"a": 1, "b": 2}));
    }

    #[test]
    fn members_without_values_are_refused() {
        assert_eq!(
            refused(r#"{"a": 1, "b"}"#),
            "invalid JSON: \"b\" has no value (at /b, line 1, column 13)"
        );
        assert_eq!(
            refused("{a}"),
            "invalid JSON: \"a\" has no value (line 1, column 3)"
        );
        assert_eq!(refused("{...}").split(':').next(), Some("invalid JSON"));
    }
}
