//! The tokens: strings with their escapes, numbers and literals, each
//! readable a byte at a time so that a delta may end anywhere in one.

use serde_json::{Number, Value};

use super::Fault;

/// The token being read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Token {
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
pub(super) enum NumberPart {
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
    pub(super) fn may_end(self) -> bool {
        matches!(
            self,
            NumberPart::Zero | NumberPart::Integer | NumberPart::Fraction | NumberPart::ExponentDigits
        )
    }

    /// The part after reading `byte`, or `None` if `byte` cannot continue
    /// the number.
    pub(super) fn next(self, byte: u8) -> Option<NumberPart> {
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
pub(super) struct NumberText {
    pub(super) text: String,
    negative: bool,
    pub(super) magnitude: Option<u64>,
}

impl NumberText {
    pub(super) fn begin(&mut self, first: u8) {
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
    pub(super) fn value(&self) -> Option<Number> {
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
pub(super) enum Literal {
    True,
    False,
    Null,
}

impl Literal {
    pub(super) fn word(self) -> &'static str {
        match self {
            Literal::True => "true",
            Literal::False => "false",
            Literal::Null => "null",
        }
    }

    pub(super) fn value(self) -> Value {
        match self {
            Literal::True => Value::Bool(true),
            Literal::False => Value::Bool(false),
            Literal::Null => Value::Null,
        }
    }
}

/// Where a string is in an escape sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Escape {
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
                b'u' => {
                    *self = Escape::Hex {
                        high: None,
                        code: 0,
                        digits: 0,
                    };
                    return Ok(None);
                }
                _ => short_escape(byte)
                    .ok_or("invalid escape: a backslash must be followed by one of \" \\ / b f n r t u")?,
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

/// The character a backslash and `byte` stand for, for the escapes of one
/// character (`None`: `u`, or no escape).
#[inline]
fn short_escape(byte: u8) -> Option<char> {
    Some(match byte {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// Whether `byte` ends a run of string text that is its own decoding: a
/// quote, a backslash or a control character (refused unescaped).
#[inline]
pub(super) fn ends_plain_text(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// Decodes string text from byte `index` of `text` onto `out`, until the
/// closing quote (read) or the end of the delta: the index reached and
/// whether the string ended.
pub(super) fn decode(
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
            .position(|&byte| ends_plain_text(byte))
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
            // An escape whole in the delta, but `\u`, is decoded at once
            // (the state machine takes the others, and any error).
            Some(b'\\') => match bytes.get(index + 1).and_then(|&next| short_escape(next)) {
                Some(decoded) => {
                    out.push(decoded);
                    index += 2;
                }
                None => {
                    *escape = Escape::Backslash;
                    index += 1;
                }
            },
            Some(&control) => {
                let detail = format!(
                    "control character U+{control:04X} in a string: it must be written as an escape (\\u{control:04X})"
                );
                return Err((index, Fault::syntax(detail)));
            }
        }
    }
}
