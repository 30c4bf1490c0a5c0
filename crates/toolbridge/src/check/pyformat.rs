//! Python's `str.format` over a call's arguments, as Syllable evaluates a
//! transform's `format` (`"Hello, {name}!"`): the replacement-field syntax of
//! the Python docs' "Format String Syntax" — `{name}`, `{name[key]}`,
//! `{name[0]}`, `{name!r}`, `{{` and `}}` — with values printed as Python's
//! `str()` prints what `json.loads` gives (`True`, `None`, `['a', 1]`).
//!
//! Where Python would raise, this returns the reason instead: a missing name
//! (`KeyError`), a positional field (`{}` or `{0}`: there are no positional
//! arguments), an attribute (`{a.b}`: a dict has none), a lone `}` or an
//! unclosed `{`. A format spec (`{n:.2f}`) is refused rather than guessed.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Formats `template` with fields looked up by `lookup`; the result is at
/// most `max_bytes` long.
pub(super) fn format<'a>(
    template: &str,
    lookup: impl Fn(&str) -> Option<&'a Value>,
    max_bytes: usize,
) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = template.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' if chars.peek().is_some_and(|&(_, next)| next == '{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek().is_some_and(|&(_, next)| next == '}') => {
                chars.next();
                out.push('}');
            }
            '}' => return Err(format!("a single `}}` at offset {at} (write `}}}}` for a brace)")),
            '{' => {
                let field = Field::parse(&template[at + 1..])
                    .ok_or_else(|| format!("the field at offset {at} is not closed with `}}`"))?;
                for _ in 0..field.length {
                    chars.next();
                }
                field.write(&lookup, &mut out, max_bytes)?;
            }
            c => out.push(c),
        }
        if out.len() > max_bytes {
            return Err(too_long(max_bytes));
        }
    }
    Ok(out)
}

fn too_long(max_bytes: usize) -> String {
    format!("the formatted value would be longer than {max_bytes} bytes")
}

/// One replacement field: `name`, then `.attr` / `[index]` steps, then
/// `!conversion`, then `:spec`.
struct Field<'t> {
    name: &'t str,
    steps: Vec<Step<'t>>,
    conversion: Option<char>,
    spec: &'t str,
    /// Characters after the opening `{`, up to and including the closing `}`.
    length: usize,
}

enum Step<'t> {
    Attribute(&'t str),
    Index(&'t str),
}

impl<'t> Field<'t> {
    /// Reads the field in `text` (just after its `{`); `None` when no `}` closes it.
    fn parse(text: &'t str) -> Option<Field<'t>> {
        let name_end = text.find(['.', '[', '!', ':', '}'])?;
        let name = &text[..name_end];
        let mut rest = &text[name_end..];
        let mut steps = Vec::new();
        loop {
            if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[', '!', ':', '}'])?;
                steps.push(Step::Attribute(&after[..end]));
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let end = after.find(']')?;
                steps.push(Step::Index(&after[..end]));
                rest = &after[end + 1..];
            } else {
                break;
            }
        }
        let mut conversion = None;
        if let Some(after) = rest.strip_prefix('!') {
            let mut chars = after.chars();
            conversion = Some(chars.next()?);
            rest = chars.as_str();
        }
        let mut spec = "";
        if let Some(after) = rest.strip_prefix(':') {
            // A spec may hold nested fields (`{x:{width}}`): find the brace that closes this one.
            let mut depth = 0usize;
            let end = after.char_indices().find_map(|(at, c)| match c {
                '{' => {
                    depth += 1;
                    None
                }
                '}' if depth == 0 => Some(at),
                '}' => {
                    depth -= 1;
                    None
                }
                _ => None,
            })?;
            spec = &after[..end];
            rest = &after[end..];
        }
        let rest = rest.strip_prefix('}')?;
        let consumed = &text[..text.len() - rest.len()];
        Some(Field {
            name,
            steps,
            conversion,
            spec,
            length: consumed.chars().count(),
        })
    }

    fn write<'a>(
        &self,
        lookup: &impl Fn(&str) -> Option<&'a Value>,
        out: &mut String,
        max_bytes: usize,
    ) -> Result<(), String> {
        if self.name.is_empty() || self.name.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "`{{{}}}` is a positional field, and there are no positional arguments (use a parameter name)",
                self.name
            ));
        }
        let mut value = lookup(self.name).ok_or_else(|| format!("`{}` is not a parameter", self.name))?;
        let mut place = self.name.to_string();
        for step in &self.steps {
            match step {
                Step::Attribute(attribute) => {
                    return Err(format!(
                        "`{place}.{attribute}`: {} has no attribute `{attribute}` (use `[{attribute}]`)",
                        python_type(value)
                    ))
                }
                Step::Index(index) => {
                    value = item(value, index).ok_or_else(|| format!("`{place}[{index}]` does not exist"))?;
                    place = format!("{place}[{index}]");
                }
            }
        }
        if !self.spec.is_empty() {
            return Err(format!(
                "the format spec `:{}` of `{place}` is not supported",
                self.spec
            ));
        }
        let start = out.len();
        let budget = max_bytes.saturating_sub(start);
        match self.conversion {
            None | Some('s') => python_str(value, out, budget),
            Some('r') => python_repr(value, out, budget, false),
            Some('a') => python_repr(value, out, budget, true),
            Some(other) => {
                return Err(format!(
                    "unknown conversion `!{other}` (Python knows !s, !r and !a)"
                ))
            }
        }
        if out.len() > max_bytes {
            return Err(too_long(max_bytes));
        }
        Ok(())
    }
}

/// `value[index]` as Python indexes what `json.loads` gives: a string of
/// digits is an integer index (into a list or a string), anything else a key.
fn item<'a>(value: &'a Value, index: &str) -> Option<&'a Value> {
    let number = (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        .then(|| index.parse::<usize>().ok())
        .flatten();
    match (value, number) {
        (Value::Array(items), Some(number)) => items.get(number),
        (Value::Object(map), None) => map.get(index),
        _ => None,
    }
}

fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "None",
        Value::Bool(_) => "a bool",
        Value::Number(number) if number.is_f64() => "a float",
        Value::Number(_) => "an int",
        Value::String(_) => "a str",
        Value::Array(_) => "a list",
        Value::Object(_) => "a dict",
    }
}

/// Python's `str()` of the value `json.loads` gives for `value`.
fn python_str(value: &Value, out: &mut String, budget: usize) {
    match value {
        Value::String(text) => out.push_str(text),
        other => python_repr(other, out, budget, false),
    }
}

/// Python's `repr()` (or `ascii()`), stopping once `budget` bytes are written.
fn python_repr(value: &Value, out: &mut String, budget: usize, ascii: bool) {
    let limit = out.len().saturating_add(budget).saturating_add(1);
    repr_into(value, out, limit, ascii);
}

fn repr_into(value: &Value, out: &mut String, limit: usize, ascii: bool) {
    if out.len() > limit {
        return;
    }
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(number) => match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(n), _, _) => {
                let _ = write!(out, "{n}");
            }
            (None, Some(n), _) => {
                let _ = write!(out, "{n}");
            }
            (None, None, Some(float)) => out.push_str(&float_repr(float)),
            (None, None, None) => out.push_str(&number.to_string()),
        },
        Value::String(text) => string_repr(text, out, ascii),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                repr_into(item, out, limit, ascii);
                if out.len() > limit {
                    return;
                }
            }
            out.push(']');
        }
        Value::Object(map) => object_repr(map, out, limit, ascii),
    }
}

fn object_repr(map: &Map<String, Value>, out: &mut String, limit: usize, ascii: bool) {
    out.push('{');
    for (index, (key, item)) in map.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        string_repr(key, out, ascii);
        out.push_str(": ");
        repr_into(item, out, limit, ascii);
        if out.len() > limit {
            return;
        }
    }
    out.push('}');
}

/// Python's string repr: single quotes unless the text holds a single quote
/// and no double quote; `\\`, `\n`, `\r`, `\t` and other control characters
/// escaped; with `ascii`, every non-ASCII character escaped too.
fn string_repr(text: &str, out: &mut String, ascii: bool) {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (ascii && (0x80..0x100).contains(&(c as u32))) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (0x80..0xa0).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if ascii && (c as u32) > 0xffff => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
            c if ascii && (c as u32) > 0x7f => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `repr()` of a float: the shortest digits that read back, in
/// fixed notation for exponents from -4 to 15, else as `1e+16`, `1.5e-07`.
fn float_repr(float: f64) -> String {
    if float.is_nan() {
        return "nan".into();
    }
    if float.is_infinite() {
        return if float > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `-1.25e-7`, `1e16`.
    let scientific = format!("{float:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        if point <= 0 {
            format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
        } else if digits.len() <= point as usize {
            format!("{sign}{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (whole, fraction) = digits.split_at(point as usize);
            format!("{sign}{whole}.{fraction}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}{fraction}e{exponent_sign}{:02}", exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, arguments: &Value) -> Result<String, String> {
        format(template, |name| arguments.get(name), 1 << 20)
    }

    #[test]
    fn fields_escapes_and_python_values() {
        let arguments = json!({"name": "Ada", "n": 3, "ok": true, "none": null, "x": 0.5,
            "list": ["a", 1, false], "map": {"k": "it's"}});
        assert_eq!(run("Hello, {name}!", &arguments).unwrap(), "Hello, Ada!");
        assert_eq!(run("{{literal}} {n}}}", &arguments).unwrap(), "{literal} 3}");
        assert_eq!(run("{ok} {none} {x}", &arguments).unwrap(), "True None 0.5");
        assert_eq!(
            run("{list} {map}", &arguments).unwrap(),
            "['a', 1, False] {'k': \"it's\"}"
        );
        assert_eq!(
            run("{list[0]}{map[k]} {name!r}", &arguments).unwrap(),
            "ait's 'Ada'"
        );
        assert_eq!(run("{name!a}", &json!({"name": "é"})).unwrap(), "'\\xe9'");
    }

    #[test]
    fn python_errors_become_reasons() {
        let arguments = json!({"name": "Ada", "list": [1]});
        assert_eq!(
            run("{missing}", &arguments).unwrap_err(),
            "`missing` is not a parameter"
        );
        assert!(run("{}", &arguments).unwrap_err().contains("positional field"));
        assert!(run("{0}", &arguments).unwrap_err().contains("positional field"));
        assert!(run("a } b", &arguments).unwrap_err().starts_with("a single `}`"));
        assert!(run("{name", &arguments).unwrap_err().contains("not closed"));
        assert!(run("{name.upper}", &arguments)
            .unwrap_err()
            .contains("has no attribute"));
        assert_eq!(
            run("{list[3]}", &arguments).unwrap_err(),
            "`list[3]` does not exist"
        );
        assert!(run("{name:>10}", &arguments)
            .unwrap_err()
            .contains("not supported"));
        assert!(run("{name!x}", &arguments)
            .unwrap_err()
            .contains("unknown conversion"));
    }

    #[test]
    fn expansion_is_bounded() {
        let arguments = json!({"a": "x".repeat(100)});
        let err = format("{a}{a}{a}", |name| arguments.get(name), 250).unwrap_err();
        assert_eq!(err, "the formatted value would be longer than 250 bytes");
        let nested = json!({"a": vec![json!("y".repeat(50)); 1000]});
        assert!(format("{a}", |name| nested.get(name), 300).is_err());
    }

    #[test]
    fn floats_print_as_python_repr() {
        for (float, text) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (123.456, "123.456"),
            (-2.5e20, "-2.5e+20"),
        ] {
            assert_eq!(float_repr(float), text, "{float}");
        }
    }
}
