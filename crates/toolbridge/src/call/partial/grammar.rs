//! The grammar: what may come next, the stack of open containers, and
//! putting each value in its place in the partial value.

use serde_json::map::Entry;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};
use crate::pointer::Pointer;

use super::token::{decode, ends_plain_text, Escape, Literal, NumberPart, Token};
use super::{Change, Fault, PartialJson, Step};

/// One open object or array.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    /// Where the container is.
    pub(super) at: Pointer,
    /// An object (else an array).
    pub(super) is_object: bool,
    /// How many elements an array has begun (the index of the next one).
    pub(super) len: usize,
    /// The key of the current member when it repeated an earlier key, so
    /// that it is not the last entry of the map.
    repeated_key: Option<String>,
}

/// What may come next between tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Expect {
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

impl PartialJson {
    /// Reads one delta; on an error, returns the index where it happened.
    pub(super) fn read(
        &mut self,
        text: &str,
        changes: &mut Vec<Change>,
    ) -> std::result::Result<(), (usize, Error)> {
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
        self.deepest = self.deepest.max(self.frames.len());
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
                    let text = self.spare.copy_of(appended);
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

    /// The common case of a streamed argument, read without the grammar: a
    /// delta that starts inside a string already in the partial value (a
    /// long value written a token at a time). The string's text in the
    /// delta is decoded onto it, and `changes` is replaced by its append
    /// (when `changes` holds only the append of the delta before to the
    /// same string, that change takes the new text in place). Returns how
    /// much of the delta was read: all of it, or up to the end of the
    /// string (the grammar reads the rest); `None`, with nothing done, for
    /// a delta that starts elsewhere, breaks a limit or holds a problem
    /// before the string ends (the grammar reads it and reports the problem).
    #[inline]
    pub(super) fn extend_string(&mut self, delta: &str, changes: &mut Vec<Change>) -> Option<usize> {
        let ready = self.token == Token::Text
            && self.carry.len == 0
            && self.failed.is_none()
            && !delta.is_empty()
            && self.position.offset.saturating_add(delta.len()) <= self.limits.max_bytes;
        let at = self.string_at.as_ref().filter(|_| ready)?;
        let Some(Value::String(string)) = descend(&mut self.root, &self.frames) else {
            return None;
        };
        let (start, escape) = (string.len(), self.escape);
        // Text with nothing to decode (most tokens) is the string's text as it is.
        let plain = escape == Escape::None && !delta.bytes().any(ends_plain_text);
        let (read, closed) = if plain {
            string.push_str(delta);
            (delta.len(), false)
        } else if let Ok(step) = decode(&mut self.escape, string, delta, 0) {
            step
        } else {
            string.truncate(start);
            self.escape = escape;
            return None;
        };
        let appended = string.get(start..).unwrap_or_default();
        match changes.as_mut_slice() {
            [Change::Appended { at: last, text }] if last == at => {
                text.clear();
                text.push_str(appended);
                if appended.is_empty() {
                    changes.clear();
                }
            }
            _ => {
                super::recycle(&mut self.spare, changes);
                if !appended.is_empty() {
                    let text = self.spare.copy_of(appended);
                    changes.push(Change::Appended { at: at.clone(), text });
                }
            }
        }
        if closed {
            self.string_at = None;
            self.value_done();
        }
        self.position.advance(delta.get(..read).unwrap_or_default());
        Some(read)
    }

    /// Puts the string value begun in this delta into the partial value,
    /// with the text read so far ([`Change::Set`]).
    fn insert_text(&mut self, changes: &mut Vec<Change>) -> std::result::Result<(), Fault> {
        let copy = self.spare.copy_of(&self.piece);
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

    /// Puts the number just read in its place.
    pub(super) fn complete_number(&mut self, changes: &mut Vec<Change>) -> std::result::Result<(), Fault> {
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

    /// Reads the rest of `true`, `false` or `null`, of which `matched`
    /// bytes were read.
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
}

/// The value reached from `root` by following the current member of each
/// frame in `frames`.
#[inline]
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
