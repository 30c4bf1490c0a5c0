//! Strings: where one ends, and what its backslashes mean.
//!
//! A key ends at its first closing quote. A value string ends at a closing
//! quote only when what follows fits the structure around it: a comma and
//! then a key with its colon (in an object) or a value (in an array), a
//! closing bracket that closes something open (for the top-level value, only
//! in the text's last run of closing brackets), the end of the text, or — a
//! missing comma — another quoted key. Any other quote is part of the string
//! (`"He said "hi" to me"`, code with `f("a", b: 1)` inside), and is noted.
//!
//! Backslashes: JSON's escapes are decoded; a backslash before a character
//! JSON cannot escape (`\d`, `\U`) is kept with it, and a string that looks
//! like a Windows path (`C:\…`, `\\server\…`) keeps all its backslashes as
//! written, since `\n` in `C:\new` is a folder, not a line break.

use super::fixes::Kind;
use super::parse::{Frame, Parser};
use super::token::is_word_byte;

/// The quote a string opened with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Quote {
    /// `"`
    Double,
    /// `'`
    Single,
    /// `“` or `”`
    SmartDouble,
    /// `‘` or `’`
    SmartSingle,
}

/// Where a string stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// An object key.
    Key,
    /// A value inside a container.
    Value,
    /// The top-level value.
    Root,
}

/// A string read from the text.
pub(super) struct Scanned {
    pub(super) value: String,
    /// The text ended before the closing quote.
    pub(super) truncated: bool,
}

/// The quote starting at `at`, with its length in bytes.
pub(super) fn quote_at(bytes: &[u8], at: usize) -> Option<(Quote, usize)> {
    match bytes.get(at)? {
        b'"' => Some((Quote::Double, 1)),
        b'\'' => Some((Quote::Single, 1)),
        0xE2 => match (bytes.get(at + 1), bytes.get(at + 2)) {
            (Some(0x80), Some(0x9C | 0x9D)) => Some((Quote::SmartDouble, 3)),
            (Some(0x80), Some(0x98 | 0x99)) => Some((Quote::SmartSingle, 3)),
            _ => None,
        },
        _ => None,
    }
}

/// The length of a quote at `at` that can close a string opened with `quote`.
fn closer_at(quote: Quote, bytes: &[u8], at: usize) -> Option<usize> {
    match (quote, quote_at(bytes, at)?) {
        (Quote::Double, (Quote::Double, len))
        | (Quote::Single, (Quote::Single, len))
        | (Quote::SmartDouble, (Quote::SmartDouble | Quote::Double, len))
        | (Quote::SmartSingle, (Quote::SmartSingle | Quote::Single, len)) => Some(len),
        _ => None,
    }
}

/// Four hex digits at `at` as a number.
fn hex4(text: &str, at: usize) -> Option<u32> {
    let digits = text.get(at..at + 4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// True when `rest` is the start of a `\uXXXX` escape cut off by the end of
/// the text (or empty).
fn partial_escape(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    bytes.len() < 6
        && bytes.first().is_none_or(|&b| b == b'\\')
        && bytes.get(1).is_none_or(|&b| b == b'u')
        && bytes.iter().skip(2).all(|b| b.is_ascii_hexdigit())
}

/// The decoded content of a string and what decoding met.
#[derive(Default)]
struct Decoded {
    text: String,
    invalid: usize,
    apostrophes: usize,
    lone: usize,
}

fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        one.to_string()
    } else {
        format!("{count} {many}")
    }
}

impl Parser<'_> {
    /// Reads the string whose opening quote is at the current position.
    pub(super) fn string(&mut self, quote: Quote, open_len: usize, role: Role) -> Scanned {
        let open_at = self.pos;
        let start = open_at + open_len;
        let mut at = start;
        let mut inner_quotes = 0usize;
        let mut control = false;
        let mut path = false;
        let mut invalid_escape = false;
        let (end, close_len, truncated) = loop {
            let Some(byte) = self.byte(at) else {
                break (self.bytes.len(), 0, true);
            };
            match byte {
                b'\\' => {
                    if path {
                        // `"C:\dir\"`: a path ending in a backslash, then the closing quote.
                        if let Some(len) = closer_at(quote, self.bytes, at + 1) {
                            if self.closes_after(at + 1 + len, role) {
                                break (at + 1, len, false);
                            }
                        }
                    }
                    if let Some(next) = self.byte(at + 1) {
                        let valid = matches!(
                            next,
                            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'\''
                        ) || (next == b'u'
                            && (hex4(self.text, at + 2).is_some() || at + 6 > self.bytes.len()));
                        invalid_escape |= !valid;
                    }
                    at += 2;
                }
                b':' => {
                    if self.byte(at + 1) == Some(b'\\') && self.drive_letter_before(start, at) {
                        path = true;
                    }
                    at += 1;
                }
                0..=0x1F => {
                    control = true;
                    at += 1;
                }
                _ => match closer_at(quote, self.bytes, at) {
                    Some(len) => {
                        if role != Role::Value || self.closes_after(at + len, role) {
                            break (at, len, false);
                        }
                        inner_quotes += 1;
                        at += len;
                    }
                    None => at += 1,
                },
            }
        };
        self.pos = if truncated {
            self.bytes.len()
        } else {
            end + close_len
        };
        let unc = !path
            && invalid_escape
            && self.bytes.get(start..start + 2) == Some(b"\\\\")
            && self.byte(start + 2).is_some_and(|b| b.is_ascii_alphanumeric());
        let raw = path || unc;
        let decoded = self.decode(start, end, quote, raw, unc, truncated);
        self.string_fixes(quote, open_at, inner_quotes, control, raw, &decoded);
        if truncated && role != Role::Key {
            self.fix(
                Kind::Truncated,
                open_at,
                Some("the text ends inside a string; the string was closed".into()),
            );
        }
        Scanned {
            value: decoded.text,
            truncated,
        }
    }

    fn string_fixes(
        &mut self,
        quote: Quote,
        at: usize,
        inner_quotes: usize,
        control: bool,
        raw: bool,
        decoded: &Decoded,
    ) {
        match quote {
            Quote::Single => self.fix(Kind::SingleQuotes, at, None),
            Quote::SmartDouble | Quote::SmartSingle => self.fix(Kind::SmartQuotes, at, None),
            Quote::Double => {}
        }
        if inner_quotes > 0 {
            let what = plural(
                inner_quotes,
                "a quote inside the string was not escaped; it was kept as part of the string",
                "quotes inside the string were not escaped; they were kept as part of the string",
            );
            self.fix(Kind::UnescapedQuote, at, Some(what));
        }
        if control {
            self.fix(Kind::ControlCharacter, at, None);
        }
        if raw {
            self.fix(
                Kind::WindowsPath,
                at,
                Some("the string looks like a Windows path; its backslashes were kept as written".into()),
            );
        } else if decoded.invalid > 0 {
            let what = plural(
                decoded.invalid,
                "a backslash before a character JSON does not escape (like \\d or \\U) was kept",
                "backslashes before characters JSON does not escape (like \\d or \\U) were kept",
            );
            self.fix(Kind::InvalidEscape, at, Some(what));
        }
        if decoded.apostrophes > 0 {
            self.fix(Kind::EscapedApostrophe, at, None);
        }
        if decoded.lone > 0 {
            self.fix(
                Kind::LoneSurrogate,
                at,
                Some("a \\u escape names half of a UTF-16 surrogate pair; it was kept as text".into()),
            );
        }
    }

    /// `X:` at `colon`, the letter at the start of the string or after a
    /// character that is not a letter or digit (`C:\`, `dir D:\`).
    fn drive_letter_before(&self, start: usize, colon: usize) -> bool {
        colon > start
            && self.byte(colon - 1).is_some_and(|b| b.is_ascii_alphabetic())
            && (colon - 1 == start || !self.byte(colon - 2).is_some_and(|b| b.is_ascii_alphanumeric()))
    }

    /// The content between `start` and `end` with its escapes decoded.
    fn decode(
        &self,
        start: usize,
        end: usize,
        quote: Quote,
        raw: bool,
        unc: bool,
        truncated: bool,
    ) -> Decoded {
        let content = self.text.get(start..end).unwrap_or_default();
        if !content.contains('\\') {
            return Decoded {
                text: content.to_string(),
                ..Decoded::default()
            };
        }
        let bytes = content.as_bytes();
        let mut decoded = Decoded {
            text: String::with_capacity(content.len()),
            ..Decoded::default()
        };
        let out = &mut decoded.text;
        let (mut at, mut run) = (0, 0);
        while let Some(&byte) = bytes.get(at) {
            if byte != b'\\' {
                at += 1;
                continue;
            }
            out.push_str(content.get(run..at).unwrap_or_default());
            let Some(&next) = bytes.get(at + 1) else {
                // A backslash last: cut off by the end of the text, or a
                // path's last character.
                if !truncated {
                    out.push('\\');
                }
                at += 1;
                run = at;
                break;
            };
            if raw {
                match next {
                    b'\\' if at == 0 && unc => {
                        out.push_str("\\\\");
                        at += 2;
                    }
                    b'\\' => {
                        out.push('\\');
                        at += 2;
                    }
                    _ => {
                        out.push('\\');
                        at += 1;
                    }
                }
                run = at;
                continue;
            }
            let simple = match next {
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                b'/' => Some('/'),
                b'b' => Some('\u{8}'),
                b'f' => Some('\u{c}'),
                b'n' => Some('\n'),
                b'r' => Some('\r'),
                b't' => Some('\t'),
                b'\'' => {
                    if quote != Quote::Single {
                        decoded.apostrophes += 1;
                    }
                    Some('\'')
                }
                _ => None,
            };
            if let Some(c) = simple {
                out.push(c);
                at += 2;
            } else if next == b'u' {
                at = unicode_escape(
                    content,
                    at,
                    truncated,
                    out,
                    &mut decoded.invalid,
                    &mut decoded.lone,
                );
            } else {
                out.push('\\');
                decoded.invalid += 1;
                at += 1;
            }
            run = at;
        }
        out.push_str(content.get(run..).unwrap_or_default());
        decoded
    }

    /// True when a closing quote just before `after` ends a string in `role`.
    pub(super) fn closes_after(&mut self, after: usize, role: Role) -> bool {
        if role != Role::Value {
            return true;
        }
        let next = self.space_ahead(after);
        let Some(byte) = self.byte(next) else {
            return true;
        };
        let in_object = self
            .frames
            .last()
            .is_some_and(|frame| matches!(frame, Frame::Object { .. }));
        match byte {
            b',' => {
                let after_comma = self.space_ahead(next + 1);
                match self.byte(after_comma) {
                    None => true,
                    Some(b'}') => in_object,
                    Some(b']') => !in_object,
                    Some(_) if self.ellipsis_len(after_comma) > 0 => true,
                    Some(_) if in_object => self.key_follows(after_comma),
                    Some(_) => self.value_starts(after_comma),
                }
            }
            b'}' | b']' => self.closer_fits(next),
            _ if quote_at(self.bytes, next).is_some() => {
                !in_object || self.key_pattern(next) || self.quoted_then_end(next)
            }
            _ => false,
        }
    }

    /// True when the closing bracket at `at` closes something open, and what
    /// follows it fits.
    fn closer_fits(&mut self, at: usize) -> bool {
        let object = self.byte(at) == Some(b'}');
        let len = if self.doubled && object && self.byte(at + 1) == Some(b'}') {
            2
        } else {
            1
        };
        let Some(index) = self
            .frames
            .iter()
            .rposition(|frame| matches!(frame, Frame::Object { .. }) == object)
        else {
            return false;
        };
        if index == 0 {
            // The top-level value closes in the text's last run of closing
            // brackets, or where more members or another value follow (the
            // one is repaired, the other refused).
            return at >= self.tail_start()
                || (object && self.reopens_after(at + len))
                || matches!(self.byte(self.space_ahead(at + len)), Some(b'{' | b'['));
        }
        let next = self.space_ahead(at + len);
        matches!(self.byte(next), None | Some(b',' | b'}' | b']'))
    }

    /// `, "key":` after `at`: the top-level object closed too early goes on.
    pub(super) fn reopens_after(&self, at: usize) -> bool {
        let next = self.space_ahead(at);
        self.byte(next) == Some(b',') && self.key_follows(self.space_ahead(next + 1))
    }

    /// True when a key and its colon start at `at`.
    fn key_follows(&self, at: usize) -> bool {
        match self.byte(at) {
            Some(b) if is_word_byte(b) => {
                self.unquoted_keys
                    && self
                        .word_colon(at)
                        .is_some_and(|value| self.value_then_end(value))
            }
            Some(_) => self.key_pattern(at),
            None => false,
        }
    }

    /// A whole quoted string at `at` followed by `}` or `,`: a separate
    /// token (`{"a" "b" "c"}`), so the quote before it ended a string rather
    /// than sat inside one. Refusing the broken structure is better than
    /// gluing tokens into one string.
    fn quoted_then_end(&self, at: usize) -> bool {
        self.quoted_end(at)
            .is_some_and(|end| matches!(self.byte(self.space_ahead(end)), Some(b'}' | b',')))
    }

    /// A quoted key followed by a colon at `at`.
    fn key_pattern(&self, at: usize) -> bool {
        self.quoted_end(at)
            .is_some_and(|end| self.byte(self.space_ahead(end)) == Some(b':'))
    }

    /// Where the quoted string at `at` ends (after its closing quote),
    /// looking at most 256 bytes ahead, on one line.
    fn quoted_end(&self, at: usize) -> Option<usize> {
        let (quote, open_len) = quote_at(self.bytes, at)?;
        let mut at = at + open_len;
        let limit = (at + 256).min(self.bytes.len());
        while at < limit {
            match self.byte(at) {
                Some(b'\\') => at += 2,
                Some(b'\n') | None => return None,
                Some(_) => match closer_at(quote, self.bytes, at) {
                    Some(len) => return Some(at + len),
                    None => at += 1,
                },
            }
        }
        None
    }

    /// A bare key followed by a colon at `at`: where its value starts.
    fn word_colon(&self, at: usize) -> Option<usize> {
        let len = self.run_len(at, |b| is_word_byte(b) || b == b'-');
        if len == 0 || len > 64 {
            return None;
        }
        let after = at + len + self.run_len(at + len, |b| b == b' ' || b == b'\t');
        (self.byte(after) == Some(b':')).then(|| self.space_ahead(after + 1))
    }

    /// A simple value at `at` that ends where a member may end (a comma, a
    /// closing bracket, the end of the text), or a container's start: so
    /// that `y: 1)` inside a code string is not taken for a member.
    fn value_then_end(&self, at: usize) -> bool {
        let end = match self.byte(at) {
            None | Some(b'{' | b'[') => return true,
            Some(_) if quote_at(self.bytes, at).is_some() => match self.quoted_end(at) {
                Some(end) => end,
                None => return false,
            },
            Some(_) => at + self.run_len(at, |b| is_word_byte(b) || matches!(b, b'.' | b'-' | b'+')),
        };
        matches!(self.byte(self.space_ahead(end)), None | Some(b',' | b'}' | b']'))
    }

    /// The first position from `at` that is not whitespace or a comment.
    pub(super) fn space_ahead(&self, mut at: usize) -> usize {
        loop {
            match self.byte(at) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => at += 1,
                Some(b'/') if self.byte(at + 1) == Some(b'/') => {
                    at += self.run_len(at, |b| b != b'\n');
                }
                Some(b'/') if self.byte(at + 1) == Some(b'*') => {
                    let body = at + 2;
                    at = match self
                        .bytes
                        .get(body..)
                        .and_then(|rest| super::parse::find(rest, b"*/"))
                    {
                        Some(end) => body + end + 2,
                        None => self.bytes.len(),
                    };
                }
                _ => return at,
            }
        }
    }
}

/// Decodes the `\u` escape at `at` in `content` into `out`; returns where
/// decoding goes on. A surrogate pair becomes its character; half a pair is
/// kept as text; an escape cut off by the end of the text is dropped; `\u`
/// without four hex digits keeps its backslash.
fn unicode_escape(
    content: &str,
    at: usize,
    truncated: bool,
    out: &mut String,
    invalid: &mut usize,
    lone: &mut usize,
) -> usize {
    let rest = |from: usize| content.get(from..).unwrap_or_default();
    let Some(first) = hex4(content, at + 2) else {
        if truncated && partial_escape(rest(at)) {
            return content.len();
        }
        out.push('\\');
        *invalid += 1;
        return at + 1;
    };
    let after = at + 6;
    if (0xD800..0xDC00).contains(&first) {
        if rest(after).starts_with("\\u") {
            if let Some(second) = hex4(content, after + 2).filter(|second| (0xDC00..0xE000).contains(second))
            {
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                if let Some(c) = char::from_u32(combined) {
                    out.push(c);
                    return after + 6;
                }
            }
        }
        if truncated && partial_escape(rest(after)) {
            return content.len();
        }
    }
    match char::from_u32(first) {
        Some(c) => out.push(c),
        None => {
            out.push_str(content.get(at..after).unwrap_or_default());
            *lone += 1;
        }
    }
    after
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::limits::Limits;

    fn repaired(text: &str) -> Value {
        crate::call::repair(text, None, &Limits::default()).unwrap().value
    }

    #[test]
    fn a_quote_ends_a_value_only_where_the_structure_goes_on() {
        let cases = [
            (
                r#"{"a": "say "hi" now", "b": 1}"#,
                json!({"a": "say \"hi\" now", "b": 1}),
            ),
            (
                r#"{"a": "f("x", y: 1)", "b": 1}"#,
                json!({"a": "f(\"x\", y: 1)", "b": 1}),
            ),
            (r#"{a: "f("x", y: 1)"}"#, json!({"a": "f(\"x\", y: 1)"})),
            (r#"["a "b" c", "d"]"#, json!(["a \"b\" c", "d"])),
            (r#"{"a": "x" "b": "y"}"#, json!({"a": "x", "b": "y"})),
            (
                r#"{"a": "if (x) {return "y"}"}"#,
                json!({"a": "if (x) {return \"y\"}"}),
            ),
            (r#"{"a": "b"} hope this helps"#, json!({"a": "b"})),
        ];
        for (text, expected) in cases {
            assert_eq!(repaired(text), expected, "{text}");
        }
    }

    #[test]
    fn backslashes_keep_their_data() {
        let cases = [
            (r#"{"p": "C:\Users\new"}"#, json!({"p": r"C:\Users\new"})),
            (r#"{"p": "C:\\Users\\bob",}"#, json!({"p": r"C:\Users\bob"})),
            (
                r#"{"r": "\d+\s", "n": "a\nb",}"#,
                json!({"r": r"\d+\s", "n": "a\nb"}),
            ),
            (r#"{"a": "\ud800x",}"#, json!({"a": r"\ud800x"})),
            (r#"{"a": "\ud83d\ude00",}"#, json!({"a": "😀"})),
            (r#"{"a": "it\'s",}"#, json!({"a": "it's"})),
        ];
        for (text, expected) in cases {
            assert_eq!(repaired(text), expected, "{text}");
        }
    }
}
