//! Small JSON helpers every layer above uses: a located view of an input
//! document ([`Node`]), the nesting check that runs before parsing, the
//! phrase for a value's type, and the one door to the `jsonschema` crate
//! ([`validate`]).

mod node;
pub(crate) mod validate;

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};

pub(crate) use node::{Entry, Node};

/// How deep `serde_json` itself lets a document nest: its recursion limit
/// of 128 refuses the 128th level already.
const SERDE_JSON_DEPTH: usize = 127;

/// Parses JSON text, refusing a document nested deeper than `max_depth`
/// with the line and column where the limit is passed.
///
/// Up to `serde_json`'s own recursion limit the parser enforces the depth
/// as it goes, so the text is read once; a lower limit is checked first.
pub(crate) fn parse(text: &str, max_depth: usize) -> Result<Value> {
    if max_depth < SERDE_JSON_DEPTH {
        check_depth(text, max_depth)?;
    }
    serde_json::from_str(text).map_err(|err| {
        if err.to_string().starts_with("recursion limit exceeded") {
            // Name the configured limit and the bracket that passes it; a
            // document within it that serde_json still refuses is at
            // serde_json's own limit.
            check_depth(text, max_depth).err().unwrap_or_else(|| {
                Error::new(
                    ErrorKind::LimitExceeded,
                    format!("the document is nested more than {SERDE_JSON_DEPTH} levels deep"),
                )
                .with_position(err.line(), err.column())
            })
        } else {
            Error::from(err)
        }
    })
}

/// The value JSON `text` holds within `max_depth`, or `None`: [`parse`]
/// without the error, for a caller that only asks whether a text is JSON
/// (a refused text builds no message, which costs more than most parses).
pub(crate) fn value_of(text: &str, max_depth: usize) -> Option<Value> {
    if max_depth < SERDE_JSON_DEPTH {
        check_depth(text, max_depth).ok()?;
    }
    serde_json::from_str(text).ok()
}

/// Refuses JSON text nested deeper than `max_depth`, before parsing it, with
/// the line and column where the limit is passed.
pub(crate) fn check_depth(text: &str, max_depth: usize) -> Result<()> {
    // Bytes, not chars: every byte that matters here is ASCII, and a UTF-8
    // continuation byte is never one of them. The column is counted only
    // when the limit is passed.
    let bytes = text.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (offset, &byte) in bytes.iter().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    let before = &text[..offset];
                    let line = before.matches('\n').count() + 1;
                    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
                    let column = text[line_start..=offset].chars().count();
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        format!("the document is nested more than {max_depth} levels deep"),
                    )
                    .with_position(line, column));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// "a number", "an object", … for a value.
/// The end (exclusive) of the bracketed value (`{…}` or `[…]`) starting at
/// `bytes[start]`, counting brackets outside double-quoted strings; `None`
/// when the bytes end first. A byte scan, for text that is not yet known to
/// be JSON (repair, raw model text).
pub(crate) fn bracket_end(bytes: &[u8], start: usize) -> Option<usize> {
    let end = Brackets::new(false).feed(bytes.get(start..)?)?;
    Some(start + end)
}

/// The end of a bracketed value (a JSON object or array, a Python list),
/// read a piece at a time (a stream's deltas) or at once ([`bracket_end`]):
/// brackets counted outside strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Brackets {
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
    /// Whether single quotes open strings too (Python).
    pub python: bool,
}

impl Brackets {
    /// A scanner of JSON (`python`: of Python literals, whose strings may
    /// be single-quoted).
    pub fn new(python: bool) -> Brackets {
        Brackets {
            python,
            ..Brackets::default()
        }
    }

    /// When the bytes read so far end inside a string: its quote, and
    /// whether a backslash escapes the next byte.
    pub fn open_string(&self) -> Option<(u8, bool)> {
        self.quote.map(|quote| (quote, self.escaped))
    }

    /// Moves past text inside the open string that holds no closing quote
    /// but escaped ones, known without reading it (its escapes were followed
    /// as it came): `escaped` says whether a backslash escapes the byte
    /// after it.
    pub fn pass_string(&mut self, escaped: bool) {
        debug_assert!(self.quote.is_some(), "inside a string");
        self.escaped = escaped;
    }

    /// Reads `bytes` (which continue those read before): the end of the
    /// value (exclusive, relative to `bytes`) once its last bracket closes.
    /// Runs of bytes that change nothing (a string's text, what lies
    /// between brackets and quotes) are skipped in tight loops.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut at = 0;
        while at < bytes.len() {
            if let Some(quote) = self.quote {
                if self.escaped {
                    self.escaped = false;
                    at += 1;
                    continue;
                }
                let offset = bytes[at..]
                    .iter()
                    .position(|&byte| byte == quote || byte == b'\\')?;
                at += offset;
                if bytes[at] == b'\\' {
                    self.escaped = true;
                } else {
                    self.quote = None;
                }
                at += 1;
                continue;
            }
            at += bytes[at..]
                .iter()
                .position(|&byte| STRUCTURAL[usize::from(byte)])?;
            let byte = bytes[at];
            at += 1;
            match byte {
                b'"' => self.quote = Some(b'"'),
                b'\'' if self.python => self.quote = Some(b'\''),
                b'{' | b'[' | b'(' if byte != b'(' || self.python => self.depth += 1,
                b'}' | b']' | b')' if byte != b')' || self.python => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// The bytes [`Brackets`] acts on outside strings: quotes and brackets.
const STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"\"'{}[]()";
    let mut index = 0;
    while index < bytes.len() {
        table[bytes[index] as usize] = true;
        index += 1;
    }
    table
};

/// Key lookup tuned for schema nodes, which hold a handful of keys: a small
/// object is searched by comparing keys, which costs less than hashing the
/// key with the map's SipHash; a large one is looked up by hash.
pub(crate) trait Field {
    /// The value under `key`, if there is one.
    fn field(&self, key: &str) -> Option<&Value>;

    /// Whether there is a value under `key`.
    fn has_field(&self, key: &str) -> bool {
        self.field(key).is_some()
    }
}

/// Up to this many keys a linear search beats hashing the key.
const LINEAR_SEARCH_KEYS: usize = 8;

impl Field for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= LINEAR_SEARCH_KEYS {
            self.iter()
                .find(|(name, _)| name.as_str() == key)
                .map(|(_, value)| value)
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|object| object.field(key))
    }
}

/// `value` as compact JSON text, as `Value::to_string` writes it, without
/// going through `fmt` (a call per piece written: a fifth of a typed-call
/// stream's cost).
pub(crate) fn compact(value: &Value) -> String {
    // Writing a `Value` cannot fail: its keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}

/// Appends `value` to `out` as [`compact`] writes it; a string is escaped
/// in place (a long parameter value streamed by a typed family is written
/// once, without a `String` of its own).
pub(crate) fn push_compact(out: &mut String, value: &Value) {
    match value {
        Value::String(text) => push_quoted(out, text),
        other => out.push_str(&compact(other)),
    }
}

/// Appends `text` to `out` as a JSON string, escaped exactly as
/// `serde_json` escapes it: `"`, `\\` and the control characters, those
/// with a short form (`\n`, `\t`, …) in it, the others as `\u00XX`.
pub(crate) fn push_quoted(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    let mut plain = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPES[usize::from(byte)];
        if escape == 0 {
            continue;
        }
        out.push_str(&text[plain..at]);
        out.push('\\');
        out.push(char::from(escape));
        if escape == b'u' {
            out.push_str("00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        plain = at + 1;
    }
    out.push_str(&text[plain..]);
    out.push('"');
}

/// For each byte, what follows the backslash that escapes it in a JSON
/// string (`u`: the `\u00XX` form), or 0 for a byte written as it is.
const ESCAPES: [u8; 256] = {
    let mut escapes = [0; 256];
    let mut byte = 0;
    while byte < 0x20 {
        escapes[byte] = b'u';
        byte += 1;
    }
    escapes[0x08] = b'b';
    escapes[0x0c] = b'f';
    escapes[b'\n' as usize] = b'n';
    escapes[b'\r' as usize] = b'r';
    escapes[b'\t' as usize] = b't';
    escapes[b'"' as usize] = b'"';
    escapes[b'\\' as usize] = b'\\';
    escapes
};

pub(crate) fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_quoted_as_serde_json_quotes_it() {
        let every_byte: String = (0..=0x7f_u8).map(char::from).collect();
        for text in [
            "",
            "plain",
            "a \"quoted\" \\ path\n\ttab",
            "héllo ✓ 🦀",
            &every_byte,
            "\u{7f}\u{1f}x\u{0}",
        ] {
            let mut out = String::from("[");
            push_quoted(&mut out, text);
            assert_eq!(
                out,
                format!("[{}", compact(&Value::String(text.into()))),
                "{text:?}"
            );
        }
        let mut out = String::new();
        push_compact(&mut out, &serde_json::json!({"a": [1, "b\n"]}));
        assert_eq!(out, r#"{"a":[1,"b\n"]}"#);
    }

    #[test]
    fn field_finds_keys_in_small_and_large_objects_alike() {
        for size in [0, 1, 3, LINEAR_SEARCH_KEYS, LINEAR_SEARCH_KEYS + 1, 40] {
            let object: Map<String, Value> = (0..size).map(|i| (format!("k{i}"), Value::from(i))).collect();
            for i in 0..size {
                assert_eq!(
                    object.field(&format!("k{i}")),
                    Some(&Value::from(i)),
                    "size {size}"
                );
            }
            assert_eq!(object.field("absent"), None, "size {size}");
            assert!(!Value::Object(object.clone()).has_field("absent"));
        }
        assert_eq!(Value::from(1).field("k0"), None);
    }

    #[test]
    fn depth_check_reports_position_and_ignores_strings() {
        assert!(check_depth(r#"{"a": "[[[[[[[["}"#, 2).is_ok());
        let err = check_depth("[\n [[[", 3).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert_eq!(err.position(), Some((2, 4)));
        // Columns count characters, not bytes.
        let err = check_depth("[\"é\", [", 1).unwrap_err();
        assert_eq!(err.position(), Some((1, 7)));
    }

    #[test]
    fn parsing_refuses_deep_documents_at_the_limit_or_below_it() {
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        let err = parse(&deep, 128).unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the document is nested more than 128 levels deep (line 1, column 129)"
        );
        let err = parse(&deep[1..deep.len() - 1], 128).unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the document is nested more than 127 levels deep (line 1, column 128)"
        );
        let deep = &deep[2..deep.len() - 2];
        assert!(parse(deep, 128).is_ok(), "127 levels are read");
        let err = parse("[[[]]]", 2).unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the document is nested more than 2 levels deep (line 1, column 3)"
        );
    }
}
