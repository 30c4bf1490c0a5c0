//! Values that are not strings or containers: numbers (with their
//! malformed spellings: `.5`, `+1`, `1.`, leading zeros), literals in any
//! spelling (`True`, `None`, `undefined`, `NaN`), ellipses standing for
//! left-out items, and bare words read as strings.

use serde_json::{Number, Value};

use super::fixes::{excerpt, Kind};
use super::parse::{found, Expect, Failure, Frame, Parser, Step};
use super::string::quote_at;

/// Literal words and what they mean; matched without regard to case, with
/// the note their spelling earns.
const LITERALS: [(&str, Literal); 7] = [
    ("true", Literal::True),
    ("false", Literal::False),
    ("null", Literal::Null),
    ("none", Literal::Null),
    ("undefined", Literal::Undefined),
    ("nan", Literal::NonFinite),
    ("infinity", Literal::NonFinite),
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Literal {
    True,
    False,
    Null,
    Undefined,
    NonFinite,
}

impl Literal {
    fn value(self) -> Value {
        match self {
            Literal::True => Value::Bool(true),
            Literal::False => Value::Bool(false),
            _ => Value::Null,
        }
    }
}

/// The literal a whole word spells, if any (`inf` too).
pub(super) fn literal_word(word: &str) -> Option<Literal> {
    if word.eq_ignore_ascii_case("inf") {
        return Some(Literal::NonFinite);
    }
    LITERALS
        .iter()
        .find(|(spelling, _)| spelling.eq_ignore_ascii_case(word))
        .map(|&(_, literal)| literal)
}

pub(super) fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

impl Parser<'_> {
    /// `…` or `...` at `at`: its length in bytes, or 0.
    pub(super) fn ellipsis_len(&self, at: usize) -> usize {
        if self.starts_with(at, "…") {
            return "…".len();
        }
        if self.starts_with(at, "...") {
            let rest = self.bytes.get(at..).unwrap_or_default();
            return rest.iter().take_while(|&&b| b == b'.').count();
        }
        0
    }

    /// Skips an ellipsis standing for left-out items; `value` says it stood
    /// where a member's value belongs, so the member goes too.
    pub(super) fn ellipsis(&mut self, value: bool) {
        let at = self.pos;
        self.pos += self.ellipsis_len(at);
        self.dropped = true;
        let full = self.fixes.full();
        let message = if value {
            let key = match self.frames.last_mut() {
                Some(Frame::Object { key, .. }) => key.take(),
                _ => None,
            };
            match key {
                Some(key) => {
                    format!(
                        "an ellipsis stood for the value of \"{}\"; the member was left out",
                        excerpt(&key)
                    )
                }
                None => "an ellipsis standing for left-out items was removed".to_string(),
            }
        } else {
            "an ellipsis standing for left-out members was removed".to_string()
        };
        self.fix_container(Kind::Ellipsis, at, (!full).then_some(message));
    }

    /// A value that is not a string or a container: a number, a literal, an
    /// ellipsis or a bare word.
    pub(super) fn token(&mut self) -> Result<Step, Failure> {
        if self.ellipsis_len(self.pos) > 0 {
            if self.frames.is_empty() {
                return Err(self.fail("an ellipsis is not a value", false));
            }
            self.ellipsis(true);
            return Ok(Step::Next(Expect::CommaOrEnd));
        }
        let start = self.pos;
        let Some(byte) = self.byte(start) else {
            return Err(self.fail("the text ends before any value", false));
        };
        if byte.is_ascii_digit() || matches!(byte, b'-' | b'+' | b'.') {
            return self.number();
        }
        if is_word_byte(byte) {
            return self.word();
        }
        Err(self.fail(
            format!("expected a value, found {}", found(self.text, start)),
            false,
        ))
    }

    fn number(&mut self) -> Result<Step, Failure> {
        let start = self.pos;
        let mut at = start;
        let negative = self.byte(at) == Some(b'-');
        if matches!(self.byte(at), Some(b'-' | b'+')) {
            at += 1;
        }
        if self.byte(at).is_some_and(|b| b.is_ascii_alphabetic()) {
            // -Infinity, -inf, +NaN
            let end = at + self.run_len(at, is_word_byte);
            let word = self.text.get(at..end).unwrap_or_default();
            if literal_word(word) == Some(Literal::NonFinite) {
                self.pos = end;
                return Ok(self.non_finite(start));
            }
            return self.bare_string(start);
        }
        let int_start = at;
        at += self.run_len(at, |b| b.is_ascii_digit());
        let int_digits = at - int_start;
        let mut frac_digits = None;
        if self.byte(at) == Some(b'.') {
            let digits = self.run_len(at + 1, |b| b.is_ascii_digit());
            frac_digits = Some(digits);
            at += 1 + digits;
        }
        let mut exponent = None;
        if matches!(self.byte(at), Some(b'e' | b'E')) {
            let exp_start = at;
            let mut exp_at = at + 1;
            if matches!(self.byte(exp_at), Some(b'-' | b'+')) {
                exp_at += 1;
            }
            let digits = self.run_len(exp_at, |b| b.is_ascii_digit());
            exponent = Some((exp_start, digits));
            at = exp_at + digits;
        }
        if self.byte(at).is_some_and(|b| is_word_byte(b) || b == b'.') {
            // 12px, 0x1F, 1.2.3: not a number.
            return self.bare_string(start);
        }
        let at_end = at >= self.bytes.len();
        let raw = self.text.get(start..at).unwrap_or_default();
        if int_digits == 0 && frac_digits.unwrap_or(0) == 0 {
            if at_end {
                // The text ends in `-` or `.`: the value never started.
                self.pos = at;
                return Ok(self.drop_member(start, raw));
            }
            return Err(self.fail(
                format!("expected a value, found {}", found(self.text, start)),
                false,
            ));
        }
        let int = self
            .text
            .get(int_start..int_start + int_digits)
            .unwrap_or_default();
        if int_digits > 1 && int.starts_with('0') {
            self.pos = at;
            let message = self.message(|| {
                format!("the number `{raw}` has leading zeros; it was kept as the string \"{raw}\"")
            });
            self.fix(Kind::LeadingZeros, start, message);
            return Ok(self.finish(Value::String(raw.to_string())));
        }
        let well_formed = raw.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            && int_digits > 0
            && frac_digits != Some(0)
            && exponent.is_none_or(|(_, digits)| digits > 0);
        if well_formed {
            // The common case: already JSON, parsed as serde_json would.
            self.pos = at;
            let number = match (frac_digits, exponent) {
                (None, None) if !negative => raw.parse::<u64>().ok().map(Number::from),
                _ => None,
            }
            .or_else(|| serde_json::from_str::<Number>(raw).ok());
            return Ok(match number {
                Some(number) => self.finish(Value::Number(number)),
                None => self.non_finite(start),
            });
        }
        let mut normal = String::with_capacity(raw.len() + 2);
        if negative {
            normal.push('-');
        }
        normal.push_str(if int.is_empty() { "0" } else { int });
        if let Some(digits) = frac_digits {
            let frac_start = int_start + int_digits + 1;
            match self.text.get(frac_start..frac_start + digits) {
                Some(frac) if !frac.is_empty() => {
                    normal.push('.');
                    normal.push_str(frac);
                }
                _ => normal.push_str(".0"),
            }
        }
        if let Some((exp_start, digits)) = exponent {
            if digits > 0 {
                normal.push_str(self.text.get(exp_start..at).unwrap_or_default());
            }
        }
        self.pos = at;
        if normal != raw {
            let message = if at_end {
                format!("the text ends inside the number `{raw}`; it was read as {normal}")
            } else {
                format!("the number `{raw}` was written as {normal}")
            };
            let kind = if at_end {
                Kind::Truncated
            } else {
                Kind::NumberFormat
            };
            self.fix(kind, start, Some(message));
        }
        match serde_json::from_str::<Number>(&normal) {
            Ok(number) => Ok(self.finish(Value::Number(number))),
            Err(_) => Ok(self.non_finite(start)),
        }
    }

    /// A number or literal with no JSON form (NaN, ±Infinity, 1e999): null.
    fn non_finite(&mut self, start: usize) -> Step {
        let raw = self.text.get(start..self.pos).unwrap_or_default();
        let message = self.message(|| format!("`{}` has no JSON form and was written as null", excerpt(raw)));
        self.fix(Kind::NonFinite, start, message);
        self.finish(Value::Null)
    }

    /// The text ends where a member's value was starting: the member goes.
    fn drop_member(&mut self, start: usize, raw: &str) -> Step {
        let key = match self.frames.last_mut() {
            Some(Frame::Object { key, .. }) => key.take(),
            _ => None,
        };
        if let Some(key) = key {
            self.dropped = true;
            let message = format!(
                "the text ends at `{raw}`, before the value of \"{}\"; the member was left out",
                excerpt(&key)
            );
            self.fix_container(Kind::Truncated, start, Some(message));
        }
        Step::Next(Expect::CommaOrEnd)
    }

    fn word(&mut self) -> Result<Step, Failure> {
        let start = self.pos;
        let end = start + self.run_len(start, is_word_byte);
        let word = self.text.get(start..end).unwrap_or_default();
        if let Some(literal) = literal_word(word) {
            self.pos = end;
            let note = match (word, literal) {
                ("true" | "false" | "null", _) => None,
                ("True" | "False" | "None", _) => Some(Kind::PythonLiteral),
                (_, Literal::Undefined) => Some(Kind::Undefined),
                (_, Literal::NonFinite) => return Ok(self.non_finite(start)),
                _ => Some(Kind::LiteralCase),
            };
            match note {
                Some(Kind::Undefined) => self.fix(
                    Kind::Undefined,
                    start,
                    Some("`undefined` has no JSON form and was written as null".into()),
                ),
                Some(kind) => self.fix(kind, start, None),
                None => {}
            }
            return Ok(self.finish(literal.value()));
        }
        if end >= self.bytes.len() {
            // The text ends inside a word: complete it if it can only be a literal.
            let completed = LITERALS
                .iter()
                .chain(&[("inf", Literal::NonFinite)])
                .filter(|(spelling, _)| {
                    spelling.len() > word.len()
                        && spelling
                            .get(..word.len())
                            .is_some_and(|p| p.eq_ignore_ascii_case(word))
                })
                .map(|&(spelling, literal)| (spelling, literal.value()))
                .collect::<Vec<_>>();
            if let Some((spelling, value)) = completed.first() {
                if completed.iter().all(|(_, other)| other == value) {
                    self.pos = end;
                    let message =
                        format!("the text ends inside `{word}`; it was read as {value} (`{spelling}`)");
                    self.fix(Kind::Truncated, start, Some(message));
                    return Ok(self.finish(value.clone()));
                }
            }
        }
        self.bare_string(start)
    }

    /// A bare word or phrase where a value belongs: read as a string, up to
    /// the next comma, closing bracket, quote or line end.
    fn bare_string(&mut self, start: usize) -> Result<Step, Failure> {
        let len = self.run_len(start, |b| !matches!(b, b',' | b'}' | b']' | b'"' | b'\n' | b'\r'));
        let end = start + len;
        let value = self
            .text
            .get(start..end)
            .unwrap_or_default()
            .trim_end()
            .to_string();
        self.pos = end;
        self.weak = true;
        let message = self.message(|| format!("the bare word `{}` was read as a string", excerpt(&value)));
        self.fix(Kind::UnquotedString, start, message);
        Ok(self.finish(Value::String(value)))
    }

    /// The number of bytes from `at` that satisfy `test`.
    pub(super) fn run_len(&self, at: usize, test: impl Fn(u8) -> bool) -> usize {
        self.bytes
            .get(at..)
            .map_or(0, |rest| rest.iter().take_while(|&&b| test(b)).count())
    }

    /// True when a value starts at `at` (used where a comma is missing
    /// between array items).
    pub(super) fn value_starts(&self, at: usize) -> bool {
        match self.byte(at) {
            Some(b'{' | b'[' | b'-') => true,
            Some(b) if b.is_ascii_digit() => true,
            Some(b) if is_word_byte(b) => {
                let end = at + self.run_len(at, is_word_byte);
                literal_word(self.text.get(at..end).unwrap_or_default()).is_some()
            }
            Some(_) => quote_at(self.bytes, at).is_some(),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::limits::Limits;

    fn member(text: &str) -> Value {
        let repaired =
            crate::call::repair(&format!("{{\"x\": 0, \"a\": {text}"), None, &Limits::default()).unwrap();
        repaired
            .value
            .get("a")
            .cloned()
            .unwrap_or(Value::String("<dropped>".into()))
    }

    #[test]
    fn numbers_in_every_spelling() {
        let cases = [
            ("12}", json!(12)),
            ("1.}", json!(1.0)),
            (".5}", json!(0.5)),
            ("+1}", json!(1)),
            ("-0.5e", json!(-0.5)),
            ("007}", json!("007")),
            ("1e999}", Value::Null),
            ("12px}", json!("12px")),
            ("-Infinity}", Value::Null),
            ("-", json!("<dropped>")),
        ];
        for (text, expected) in cases {
            assert_eq!(member(text), expected, "{text}");
        }
    }

    #[test]
    fn literals_in_every_spelling_and_cut_short() {
        let cases = [
            ("True}", json!(true)),
            ("FALSE}", json!(false)),
            ("None}", Value::Null),
            ("undefined}", Value::Null),
            ("nan}", Value::Null),
            ("tr", json!(true)),
            ("N", Value::Null),
            ("celsius}", json!("celsius")),
            ("hello world, \"b\": 1}", json!("hello world")),
            ("[1, ..., 3]}", json!([1, 3])),
        ];
        for (text, expected) in cases {
            assert_eq!(member(text), expected, "{text}");
        }
    }
}
