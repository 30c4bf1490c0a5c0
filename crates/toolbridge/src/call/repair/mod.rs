//! Repair of malformed tool-call argument JSON.
//!
//! Models send arguments that are almost JSON: wrapped in a code fence or in
//! prose, with trailing commas, single or typographic quotes, keys without
//! quotes, Python and JavaScript literals, comments, missing commas, raw line
//! breaks and unescaped quotes inside strings, doubled braces, an extra
//! closing bracket, cut off at any point, or encoded twice as a JSON string.
//! [`repair`] reads such text into the value it unambiguously means and says
//! what it changed: one [`Note`](crate::Note) of kind
//! [`NoteKind::Repaired`](crate::NoteKind::Repaired) per fix, pointing at the
//! place in the repaired value, with the line and column in the text.
//!
//! Where two readings are plausible it keeps the data rather than guessing
//! it away (a backslash before `\U` in `C:\Users` stays), and where no
//! reading is honest it refuses with an error naming the place: text without
//! JSON, several JSON values, a member without a value, nothing left after
//! truncation. It never answers `{}` for text that said something else.
//!
//! With the tool's input schema at hand it also makes the value fit the
//! schema where the intent is plain (see [`repair`]).

mod fixes;
mod parse;
mod schema;
mod string;
mod token;

pub(crate) use schema::member_schema;

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::Converted;
use crate::pointer::Pointer;

use fixes::{excerpt, line_column, Fixes, Kind};
use parse::Parser;
use string::quote_at;
use token::literal_word;

/// serde_json's own nesting limit: valid JSON nested deeper than this fails
/// the fast path and is measured against [`Limits::max_depth`] by the parser.
const SERDE_DEPTH: usize = 128;

/// How deep a value read from JSON text may nest and still read as
/// [`repair`] reads its text: through serde_json's fast path (which refuses
/// the `SERDE_DEPTH`th container) and within `limits`. A value a stream's
/// [`PartialJson`](crate::call::PartialJson) built from the same text, no
/// deeper than this, is the value `repair` would read.
pub(crate) fn fast_path_depth(limits: &Limits) -> usize {
    limits.max_depth.min(SERDE_DEPTH - 1)
}

/// At most this many starts in prose are tried before giving up.
const MAX_STARTS: usize = 16;

/// At most this many layers of JSON-in-a-string are decoded.
const MAX_LAYERS: usize = 4;

/// Repairs tool-call argument text into the JSON value it means.
///
/// Valid JSON takes a fast path: one `serde_json` parse, no notes (the
/// schema-guided fixes below still apply). Anything else is read by a
/// tolerant parser; every fix becomes a note of kind
/// [`NoteKind::Repaired`](crate::NoteKind::Repaired) whose `fix` is one of
/// `empty-input` (empty text is `{}`), `byte-order-mark`, `code-fence`,
/// `prose`, `doubled-braces`, `missing-brace`, `trailing-comma`,
/// `extra-comma`, `missing-comma`, `missing-colon`, `single-quotes`,
/// `smart-quotes`, `unquoted-key`, `unquoted-string`, `python-literal`,
/// `literal-case`, `undefined` and `non-finite-number` (both written as
/// `null`), `comment`, `unescaped-quote`, `control-character`,
/// `invalid-escape`, `escaped-apostrophe`, `windows-path`, `lone-surrogate`,
/// `number-format`, `leading-zeros` (kept as a string), `truncated`,
/// `missing-bracket`, `extra-bracket`, `ellipsis` or `double-encoded`.
/// Style fixes (quotes, comments, trailing commas, …) are one note each,
/// counting their places; past 256 notes, the rest are counted in one last
/// note, `more-repairs`.
///
/// With `schema` (the tool's input schema) the value is then fitted to it,
/// following `properties`, `additionalProperties`, `items`, `prefixItems`,
/// `type` and `enum`, local `$ref`s (`#/$defs/…`, `#/definitions/…`, any
/// `#`-pointer into `schema`; remote ones are not followed) and an
/// `anyOf`/`oneOf` with one branch besides `null`. Each fix is noted:
/// `string-to-number` (`"5"` → `5` where an integer or number is expected),
/// `string-to-boolean`, `float-to-integer` (`5.0` → `5`), `double-encoded`
/// (a string holding the object or array expected), `wrapped-in-array`
/// (`"a"` → `["a"]`; `null` is left alone) and `enum-case` (`"Celsius"` →
/// `"celsius"` when exactly one allowed value matches). Values that fit no
/// better are left for validation to report.
///
/// # Errors
///
/// [`ErrorKind::InvalidJson`] with the line and column where repair gave up
/// and the pointer of the place in the value; [`ErrorKind::LimitExceeded`]
/// for text longer than [`Limits::max_bytes`] or nested deeper than
/// [`Limits::max_depth`].
///
/// ```
/// use toolbridge::{call::repair, Limits};
/// let repaired = repair("```json\n{'city': 'Paris', 'days': 3,}\n```", None, &Limits::default())?;
/// assert_eq!(repaired.value, serde_json::json!({"city": "Paris", "days": 3}));
/// let fixes: Vec<String> = repaired.notes.iter().map(|note| note.to_string()).collect();
/// assert_eq!(fixes, [
///     "change: the Markdown code fence around the JSON was removed (line 1, column 1) (at /)",
///     "change: 3 strings in single quotes were read as JSON strings (first at line 2, column 2) (at /)",
///     "change: a comma before a closing bracket was removed (line 2, column 29) (at /)",
/// ]);
///
/// let schema = serde_json::json!({"type": "object", "properties": {"days": {"type": "integer"}}});
/// let fitted = repair(r#"{"days": "3"}"#, Some(&schema), &Limits::default())?;
/// assert_eq!(fitted.value, serde_json::json!({"days": 3}));
///
/// let refused = repair(r#"{"city": }"#, None, &Limits::default()).unwrap_err();
/// assert_eq!(refused.to_string(), "invalid JSON: \"city\" has no value (at /city, line 1, column 10)");
/// # Ok::<(), toolbridge::Error>(())
/// ```
pub fn repair(text: &str, schema: Option<&Value>, limits: &Limits) -> Result<Converted<Value>> {
    if text.len() > limits.max_bytes {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("the arguments are larger than {} bytes", limits.max_bytes),
        ));
    }
    let mut fixes = Fixes::new(true);
    let mut value = read(text, limits, &mut fixes)?;
    decode_layers(&mut value, limits, &mut fixes);
    if let Some(schema) = schema {
        schema::fit(&mut value, schema, limits, &mut fixes);
    }
    Ok(Converted {
        value,
        notes: fixes.into_notes(text),
    })
}

/// [`repair`] for arguments already read as a JSON object (from a larger
/// document, such as a call envelope in raw model text, or parsed
/// arguments the Toolbox coerces): fitted to `schema`
/// in place, as `repair` fits the same object written out, without writing
/// it out and reading it back; the fixes' notes. `None`, with `value`
/// untouched, when it nests deeper than `limits` allow, so the caller goes
/// through [`repair`] on its text, which says where.
pub(crate) fn fit_parsed(
    value: &mut Value,
    schema: &Value,
    limits: &Limits,
) -> Option<Vec<crate::note::Note>> {
    if !value.is_object() || (limits.max_depth < SERDE_DEPTH && nests_deeper(value, limits.max_depth)) {
        return None;
    }
    let mut fixes = Fixes::new(true);
    schema::fit(value, schema, limits, &mut fixes);
    // Fitting places its fixes by pointer, never by offset: no text to locate them in.
    Some(fixes.into_notes(""))
}

/// Whether `value` nests deeper than `max_depth` (a scalar at the root is
/// depth 0, an object or array 1, as the text check counts brackets).
fn nests_deeper(value: &Value, max_depth: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((node, depth)) = stack.pop() {
        match node {
            Value::Object(_) | Value::Array(_) if depth > max_depth => return true,
            Value::Object(members) => stack.extend(members.values().map(|child| (child, depth + 1))),
            Value::Array(items) => stack.extend(items.iter().map(|child| (child, depth + 1))),
            _ => {}
        }
    }
    false
}

/// The fast path, then the tolerant parser.
fn read(text: &str, limits: &Limits, fixes: &mut Fixes) -> Result<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            if limits.max_depth < SERDE_DEPTH {
                crate::json::check_depth(text, limits.max_depth)?;
            }
            Ok(value)
        }
        Err(_) => {
            let (value, found) = parse_text(text, limits, fixes.locate())?;
            fixes.extend(found);
            Ok(value)
        }
    }
}

/// Reads text that is not valid JSON: finds where the JSON starts (past a
/// byte-order mark, prose or a code fence) and parses from there, trying
/// later starts when one fails.
fn parse_text(text: &str, limits: &Limits, locate: bool) -> Result<(Value, Fixes)> {
    let mut fixes = Fixes::new(locate);
    let body_start = if text.starts_with('\u{feff}') {
        fixes.add(Kind::ByteOrderMark, Pointer::root, Some(0), None);
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let body = text.get(body_start..).unwrap_or_default();
    let trimmed = body.trim_start();
    if trimmed.trim_end().is_empty() {
        fixes.add(
            Kind::EmptyInput,
            Pointer::root,
            None,
            Some("the arguments were empty and were read as {}".into()),
        );
        return Ok((Value::Object(Map::new()), fixes));
    }
    let first = text.len() - trimmed.len();
    let bytes = text.as_bytes();
    let starts_value = value_starts_text(text, first);
    let brackets = bytes
        .iter()
        .enumerate()
        .skip(first + usize::from(starts_value))
        .filter(|(_, &b)| b == b'{' || b == b'[')
        .map(|(at, _)| at);
    let mut starts = starts_value.then_some(first).into_iter().chain(brackets);
    let mut resume = 0;
    let mut fallback = None;
    let mut first_error = None;
    for _ in 0..MAX_STARTS {
        let Some(start) = starts.by_ref().find(|&start| start >= resume) else {
            break;
        };
        let fenced = text.get(first..start).is_some_and(is_fence);
        match Parser::new(text, start, limits.max_depth, locate)
            .in_fence(fenced)
            .run()
        {
            Ok(parsed) if !parsed.weak => {
                return Ok(finish(text, first, start, parsed.value, fixes, parsed.fixes))
            }
            Ok(parsed) => {
                // Bare words read as strings: perhaps prose in brackets
                // (`[TOOL_CALLS]{…}`); a later start may be the real JSON.
                fallback.get_or_insert((start, parsed));
                resume = balanced_end(bytes, start);
            }
            Err(failure) if failure.last => return Err(failure.error),
            Err(failure) => {
                first_error.get_or_insert(failure.error);
                resume = balanced_end(bytes, start);
            }
        }
    }
    if let Some((start, parsed)) = fallback {
        return Ok(finish(text, first, start, parsed.value, fixes, parsed.fixes));
    }
    Err(first_error.unwrap_or_else(|| {
        let (line, column) = line_column(text, first);
        Error::new(
            ErrorKind::InvalidJson,
            "no JSON object or array found in the text",
        )
        .with_position(line, column)
    }))
}

/// The parsed value, with a note for the text skipped before its start.
fn finish(
    text: &str,
    first: usize,
    start: usize,
    value: Value,
    mut fixes: Fixes,
    found: Fixes,
) -> (Value, Fixes) {
    if start > first {
        let skipped = text.get(first..start).unwrap_or_default();
        if is_fence(skipped) {
            fixes.add(
                Kind::CodeFence,
                Pointer::root,
                Some(first),
                Some("the Markdown code fence around the JSON was removed".into()),
            );
        } else {
            let message = format!(
                "text before the JSON was left out: \"{}\"",
                excerpt(skipped.trim_end())
            );
            fixes.add(Kind::Prose, Pointer::root, Some(first), Some(message));
        }
    }
    fixes.extend(found);
    (value, fixes)
}

/// True when skipped text holds a Markdown code fence.
fn is_fence(skipped: &str) -> bool {
    skipped.contains("```") || skipped.contains("~~~")
}

/// True when the text at `at` (its first visible character) starts a value
/// rather than prose: a bracket, a quote, a number, a comment, or a literal
/// that is the whole text.
fn value_starts_text(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        Some(b'{' | b'[' | b'-' | b'#') => true,
        Some(b'/') => matches!(bytes.get(at + 1), Some(b'/' | b'*')),
        Some(b) if b.is_ascii_digit() => true,
        Some(_) if quote_at(bytes, at).is_some() => true,
        Some(_) => literal_word(text.get(at..).unwrap_or_default().trim_end()).is_some(),
        None => false,
    }
}

/// Where the bracketed value starting at `start` ends, counting brackets
/// outside double-quoted strings (the end of the text if it never closes).
fn balanced_end(bytes: &[u8], start: usize) -> usize {
    crate::json::bracket_end(bytes, start).unwrap_or(bytes.len())
}

/// Arguments sent as a JSON string holding JSON (`"{\"a\": 1}"`) are
/// decoded, layer by layer, when the string holds an object or an array.
fn decode_layers(value: &mut Value, limits: &Limits, fixes: &mut Fixes) {
    for _ in 0..MAX_LAYERS {
        let Value::String(inner) = &*value else {
            return;
        };
        if !inner.trim_start().starts_with(['{', '[', '"']) {
            return;
        }
        let mut inner_fixes = Fixes::new(false);
        let Ok(decoded) = read(inner, limits, &mut inner_fixes) else {
            return;
        };
        if inner_fixes.has(Kind::UnquotedString)
            || !matches!(decoded, Value::Object(_) | Value::Array(_) | Value::String(_))
        {
            return;
        }
        fixes.add(
            Kind::DoubleEncoded,
            Pointer::root,
            None,
            Some("the arguments were a JSON string holding JSON; it was decoded".into()),
        );
        fixes.extend(inner_fixes.nested_at(&Pointer::root()));
        *value = decoded;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn fitting_a_parsed_object_equals_repairing_its_text() {
        let schema = json!({"type": "object", "properties": {
            "days": {"type": "integer"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "tags": {"type": "array", "items": {"type": "string"}}, "name": {"type": "string"}}});
        for value in [
            json!({"days": "3", "unit": "Celsius", "tags": "one", "name": 12341234}),
            json!({"days": 3, "unit": "celsius", "tags": ["a"], "name": "x"}),
            json!({"nested": {"deep": [[[1]]]}}),
        ] {
            let whole = repair(&value.to_string(), Some(&schema), &Limits::default()).unwrap();
            let mut fitted = value.clone();
            let notes = fit_parsed(&mut fitted, &schema, &Limits::default()).unwrap();
            assert_eq!((fitted, notes), (whole.value, whole.notes), "{value}");
        }
        // Deeper than the limits: left to the text path, which says where.
        let mut deep = json!({"a": {"b": {"c": 1}}});
        assert_eq!(
            fit_parsed(&mut deep, &schema, &Limits::default().with_max_depth(2)),
            None
        );
        assert_eq!(deep, json!({"a": {"b": {"c": 1}}}));
        assert!(fit_parsed(&mut deep, &schema, &Limits::default().with_max_depth(3)).is_some());
        assert!(repair(&deep.to_string(), None, &Limits::default().with_max_depth(2)).is_err());
        assert!(repair(&deep.to_string(), None, &Limits::default().with_max_depth(3)).is_ok());
    }

    use super::*;
    use crate::note::NoteKind;

    fn fixes_of(text: &str) -> (Value, Vec<String>) {
        let repaired = repair(text, None, &Limits::default()).unwrap();
        let fixes = repaired
            .notes
            .iter()
            .map(|note| match &note.kind {
                NoteKind::Repaired { fix } => fix.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        (repaired.value, fixes)
    }

    #[test]
    fn valid_json_takes_the_fast_path_without_notes() {
        assert_eq!(fixes_of(r#"{"a": [1, "x"]}"#), (json!({"a": [1, "x"]}), vec![]));
        assert_eq!(fixes_of(r#""hello""#), (json!("hello"), vec![]));
    }

    #[test]
    fn empty_text_is_an_empty_object_and_said_so() {
        assert_eq!(fixes_of("  \n"), (json!({}), vec!["empty-input".to_string()]));
    }

    #[test]
    fn json_in_a_string_is_decoded_layer_by_layer() {
        let (value, fixes) = fixes_of(r#""\"{\\\"a\\\": 1}\"""#);
        assert_eq!(value, json!({"a": 1}));
        assert_eq!(fixes, ["double-encoded", "double-encoded"]);
        // A string that is not JSON stays a string.
        assert_eq!(fixes_of(r#""[see docs]""#).0, json!("[see docs]"));
    }

    #[test]
    fn prose_in_brackets_gives_way_to_the_json_after_it() {
        assert_eq!(fixes_of(r#"[TOOL_CALLS]{"a": 1}"#).0, json!({"a": 1}));
        assert_eq!(fixes_of("[note] then [1, 2]").0, json!([1, 2]));
        assert_eq!(fixes_of("[a: b]").0, json!(["a: b"]));
        let several = repair(r#"[note] {"a": 1}{"a": 2}"#, None, &Limits::default()).unwrap_err();
        assert_eq!(several.kind(), ErrorKind::InvalidJson);
    }

    #[test]
    fn a_lower_depth_limit_applies_to_valid_json_too() {
        let limits = Limits::default().with_max_depth(2);
        assert_eq!(repair("[[1]]", None, &limits).unwrap().value, json!([[1]]));
        assert_eq!(
            repair("[[[1]]]", None, &limits).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        assert_eq!(
            repair("[[[1]]", None, &limits).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
    }
}
