//! Accepted calls as the values the seed ecosystems hand a tool function:
//! an Emacs Lisp plist for gptel and llm.el (seed 001's
//! `parse-tool-call-arguments`) and an R expression for ellmer.
//!
//! Each rendering follows the package's own decoding, read in its source:
//! - gptel (karthink/gptel `gptel-request.el`): arguments sent as a JSON
//!   string go through `gptel--json-read-string` (`json-parse-string` with
//!   `:object-type 'plist :null-object nil :false-object :json-false`);
//!   arguments inside the response body go through `gptel--json-read`
//!   (`json-parse-buffer`, the same but `:null-object :null`). Arrays are
//!   vectors (the default `:array-type`).
//! - llm.el (ahyatt/llm): OpenAI-style argument strings go through
//!   `llm-provider-utils-parse-openai-tool-arguments` (`json-parse-string`
//!   with `:object-type 'alist`, so `null` is `:null` and `false` is
//!   `:false`); response bodies through plz-media-type's
//!   `application/json` (alists, `null` → nil, `false` → `:json-false`).
//!   `llm-provider-utils-execute-tool-uses` then turns every false keyword
//!   into nil (`llm-provider-utils--normalize-args`).
//! - ellmer (tidyverse/ellmer): the providers parse arguments with
//!   `jsonlite::parse_json` (`simplifyVector = FALSE`), and
//!   `tool_request_args` (`R/chat-tools.R`) converts them with
//!   `convert_from_type` (`R/chat-structured.R`) and drops `NULL`s.

use serde_json::Value;

use super::{Accepted, Toolbox};
use crate::error::{Error, ErrorKind, Result};
use crate::format::elisp::{
    float_text as elisp_float, keyword_text as elisp_keyword, string_literal as elisp_string,
    symbol_text as elisp_symbol,
};
use crate::format::ellmer::r::{is_writable_name as r_writable, name as r_name, string as r_string};
use crate::note::{Converted, Note, NoteKind};
use crate::pointer::Pointer;

/// Which of gptel's or llm.el's JSON decodings produced the arguments; it
/// depends on the package and on whether the provider sends arguments as a
/// JSON string or as an object inside the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElispDecoding {
    /// gptel, arguments sent as a JSON string (OpenAI chat and Responses,
    /// Bedrock, streamed Anthropic): `gptel--json-read-string`, a plist with
    /// `null` → `nil`, `false` → `:json-false`, arrays → vectors.
    GptelString,
    /// gptel, arguments inside the response body (Anthropic, Gemini,
    /// Ollama): `gptel--json-read`, as [`GptelString`](Self::GptelString)
    /// but `null` → `:null`.
    GptelBody,
    /// llm.el, arguments sent as a JSON string (OpenAI and compatible,
    /// streamed Claude): an alist with symbol keys, `null` → `:null`,
    /// `false` → `nil`, arrays → vectors.
    LlmString,
    /// llm.el, arguments inside the response body (Claude, Gemini, Ollama,
    /// via plz-media-type): as [`LlmString`](Self::LlmString) but `null` →
    /// `nil`.
    LlmBody,
}

impl ElispDecoding {
    fn plist(self) -> bool {
        matches!(self, ElispDecoding::GptelString | ElispDecoding::GptelBody)
    }

    fn null(self) -> &'static str {
        match self {
            ElispDecoding::GptelBody | ElispDecoding::LlmString => ":null",
            ElispDecoding::GptelString | ElispDecoding::LlmBody => "nil",
        }
    }

    fn false_value(self) -> &'static str {
        if self.plist() {
            ":json-false"
        } else {
            "nil"
        }
    }
}

impl Accepted {
    /// The call as the plist gptel or llm.el builds for it,
    /// `(:name "get_weather" :args (:city "Paris"))`: `:args` is exactly the
    /// value the package decodes the arguments to (see [`ElispDecoding`]),
    /// so `(plist-get call :args)` is what the tool's `:function` is fed
    /// from.
    pub fn to_elisp(&self, decoding: ElispDecoding) -> String {
        format!(
            "(:name {} :args {})",
            elisp_string(&self.name),
            elisp_value(&self.arguments, decoding)
        )
    }

    /// The arguments as the R value `jsonlite::parse_json` gives, which is
    /// what ellmer passes a tool made with `convert = FALSE`
    /// (`list(city = "Paris")`); see [`Toolbox::to_r`] for the default,
    /// converted form.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Unrepresentable`] if a string holds a NUL, which R
    /// strings cannot.
    pub fn to_r(&self) -> Result<String> {
        r_plain(&self.arguments, &Pointer::root())
    }
}

impl Toolbox {
    /// The accepted call's arguments as the R expression that evaluates to
    /// what ellmer passes the tool function by default (`convert = TRUE`):
    /// `jsonlite::parse_json`'s value converted by ellmer's
    /// `convert_from_type` against the tool's parameters, top-level `NULL`s
    /// dropped. Where ellmer would build a tibble (an array of objects that
    /// allow no other properties) the rows are written as a list, with a
    /// note; where it would drop an undeclared nested property, a note
    /// says so.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotATool`] if no tool is named `accepted.name`;
    /// [`ErrorKind::Unrepresentable`] if a string holds a NUL.
    pub fn to_r(&self, accepted: &Accepted) -> Result<Converted<String>> {
        let tool = self
            .tools()
            .find(|tool| tool.name == accepted.name)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NotATool,
                    format!("no tool is named `{}`", accepted.name),
                )
            })?;
        let mut notes = Vec::new();
        let ty = RType::of(&tool.input_schema, true);
        let text = match (&ty, &accepted.arguments) {
            (RType::Object { .. }, Value::Object(_)) => {
                let converted = convert(&accepted.arguments, &ty, &Pointer::root(), &mut notes)?;
                // tool_request_args: `args[!map_lgl(args, is.null)]`.
                match converted {
                    RValue::List(items) => {
                        RValue::List(items.into_iter().filter(|(_, v)| *v != RValue::Null).collect())
                    }
                    other => other,
                }
                .render()
            }
            _ => r_plain(&accepted.arguments, &Pointer::root())?,
        };
        Ok(Converted { value: text, notes })
    }
}

/// A JSON value as gptel or llm.el decodes it.
pub fn elisp_value(value: &Value, decoding: ElispDecoding) -> String {
    let mut out = String::new();
    write_elisp(value, decoding, &mut out);
    out
}

fn write_elisp(value: &Value, decoding: ElispDecoding, out: &mut String) {
    match value {
        Value::Null => out.push_str(decoding.null()),
        Value::Bool(true) => out.push('t'),
        Value::Bool(false) => out.push_str(decoding.false_value()),
        Value::Number(number) => out.push_str(&elisp_number(number)),
        Value::String(text) => out.push_str(&elisp_string(text)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_elisp(item, decoding, out);
            }
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("nil"),
        Value::Object(map) if decoding.plist() => {
            out.push('(');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                // json-parse-string interns ":" + key; for "" that is `:`.
                out.push_str(&if key.is_empty() {
                    ":".to_string()
                } else {
                    elisp_keyword(key)
                });
                out.push(' ');
                write_elisp(item, decoding, out);
            }
            out.push(')');
        }
        Value::Object(map) => {
            out.push('(');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                let value = elisp_value(item, decoding);
                // As prin1 prints a pair whose cdr is a list.
                match value.strip_prefix('(').and_then(|v| v.strip_suffix(')')) {
                    Some(inner) => out.push_str(&format!("({} {inner})", elisp_symbol(key))),
                    None if value == "nil" => out.push_str(&format!("({})", elisp_symbol(key))),
                    None => out.push_str(&format!("({} . {value})", elisp_symbol(key))),
                }
            }
            out.push(')');
        }
    }
}

fn elisp_number(number: &serde_json::Number) -> String {
    if let Some(int) = number.as_i64() {
        int.to_string()
    } else if let Some(int) = number.as_u64() {
        int.to_string()
    } else {
        // JSON numbers are finite, so this always has text.
        number
            .as_f64()
            .and_then(elisp_float)
            .unwrap_or_else(|| "0.0".into())
    }
}

/// An R value under construction (so that `NULL` entries can be dropped
/// after conversion).
#[derive(Clone, Debug, PartialEq)]
enum RValue {
    Null,
    /// Source text of an atomic value or a call.
    Atom(String),
    /// `list(...)`, names where the JSON had keys.
    List(Vec<(Option<String>, RValue)>),
    /// A JSON object: a named list even when empty.
    Named(Vec<(String, RValue)>),
}

impl RValue {
    fn render(&self) -> String {
        match self {
            RValue::Null => "NULL".into(),
            RValue::Atom(text) => text.clone(),
            RValue::List(items) => {
                if items.iter().all(|(name, _)| name.is_none()) {
                    let parts: Vec<String> = items.iter().map(|(_, v)| v.render()).collect();
                    return format!("list({})", parts.join(", "));
                }
                named_list(items.iter().map(|(n, v)| (n.clone().unwrap_or_default(), v)))
            }
            RValue::Named(items) => named_list(items.iter().map(|(n, v)| (n.clone(), v))),
        }
    }
}

fn named_list<'a>(items: impl Iterator<Item = (String, &'a RValue)>) -> String {
    let items: Vec<(String, &RValue)> = items.collect();
    if items.is_empty() {
        return "structure(list(), names = character(0))".into();
    }
    // `list()` cannot name an element "" (or `...`): set the names apart.
    if items.iter().all(|(name, _)| r_writable(name)) {
        let parts: Vec<String> = items
            .iter()
            .map(|(name, value)| format!("{} = {}", r_name(name), value.render()))
            .collect();
        return format!("list({})", parts.join(", "));
    }
    let values: Vec<String> = items.iter().map(|(_, value)| value.render()).collect();
    let names: Vec<String> = items.iter().map(|(name, _)| r_string(name)).collect();
    format!(
        "structure(list({}), names = c({}))",
        values.join(", "),
        names.join(", ")
    )
}

fn r_plain(value: &Value, at: &Pointer) -> Result<String> {
    Ok(plain(value, at)?.render())
}

/// `jsonlite::parse_json(text)` (`simplifyVector = FALSE`).
fn plain(value: &Value, at: &Pointer) -> Result<RValue> {
    Ok(match value {
        Value::Null => RValue::Null,
        Value::Bool(b) => RValue::Atom(if *b { "TRUE" } else { "FALSE" }.into()),
        Value::Number(number) => RValue::Atom(r_number(number)),
        Value::String(text) => RValue::Atom(r_text(text, at)?),
        Value::Array(items) => RValue::List(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| Ok((None, plain(item, &at.index(i))?)))
                .collect::<Result<_>>()?,
        ),
        Value::Object(map) => RValue::Named(
            map.iter()
                .map(|(key, item)| Ok((key.clone(), plain(item, &at.key(key))?)))
                .collect::<Result<_>>()?,
        ),
    })
}

fn r_text(text: &str, at: &Pointer) -> Result<String> {
    if text.contains('\0') {
        return Err(Error::new(
            ErrorKind::Unrepresentable,
            "R strings cannot hold a NUL character",
        )
        .at(at.clone()));
    }
    Ok(r_string(text))
}

/// jsonlite reads an integer that fits R's integers (±2147483647) as an
/// integer, anything else as a double.
fn r_number(number: &serde_json::Number) -> String {
    match number.as_i64() {
        Some(int) if int.unsigned_abs() <= i32::MAX as u64 => format!("{int}L"),
        Some(int) => int.to_string(),
        None => match number.as_u64() {
            Some(int) => int.to_string(),
            None => r_double(number.as_f64().unwrap_or(0.0)),
        },
    }
}

fn r_double(value: f64) -> String {
    // Debug keeps full precision; R reads `1.0`, `1e300`, `-0.0`.
    format!("{value:?}")
}

/// ellmer's type of a parameter, as its `type_*()` constructors would have
/// made it for this schema.
#[derive(Debug)]
enum RType<'a> {
    Basic {
        kind: &'a str,
        required: bool,
    },
    Enum {
        values: Vec<String>,
        required: bool,
    },
    Array {
        items: Box<RType<'a>>,
        required: bool,
    },
    Object {
        properties: Vec<(&'a str, RType<'a>)>,
        additional: bool,
        required: bool,
    },
    /// `type_from_schema()` or anything else: left as parsed.
    Other,
}

impl<'a> RType<'a> {
    fn of(schema: &'a Value, required: bool) -> RType<'a> {
        let Some(schema) = schema.as_object() else {
            return RType::Other;
        };
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            if let Some(values) = values
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
            {
                return RType::Enum { values, required };
            }
        }
        // A schema with properties but no type is the object it describes.
        let kind = schema
            .get("type")
            .and_then(Value::as_str)
            .or_else(|| schema.contains_key("properties").then_some("object"));
        match kind {
            Some(kind @ ("string" | "integer" | "number" | "boolean")) => RType::Basic { kind, required },
            Some("array") => RType::Array {
                items: Box::new(
                    schema
                        .get("items")
                        .map_or(RType::Other, |items| RType::of(items, true)),
                ),
                required,
            },
            Some("object") => {
                let needed: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let properties = schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|props| {
                        props
                            .iter()
                            .map(|(name, sub)| {
                                (name.as_str(), RType::of(sub, needed.contains(&name.as_str())))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                // type_object()'s `.additional_properties` defaults to FALSE.
                let additional = schema
                    .get("additionalProperties")
                    .is_some_and(|a| a != &Value::Bool(false));
                RType::Object {
                    properties,
                    additional,
                    required,
                }
            }
            _ => RType::Other,
        }
    }

    fn required(&self) -> bool {
        match self {
            RType::Basic { required, .. }
            | RType::Enum { required, .. }
            | RType::Array { required, .. }
            | RType::Object { required, .. } => *required,
            RType::Other => true,
        }
    }
}

/// `convert_from_type(x, type)`; `Value::Null` stands for R's `NULL`
/// (absent or JSON null alike, as `x[[name]]` gives).
fn convert(value: &Value, ty: &RType, at: &Pointer, notes: &mut Vec<Note>) -> Result<RValue> {
    if value.is_null() && !ty.required() {
        return Ok(RValue::Null);
    }
    match ty {
        RType::Array { items, .. } => convert_array(value, items, at, notes),
        RType::Object {
            properties,
            additional,
            ..
        } => {
            let map = value.as_object();
            let get = |name: &str| map.and_then(|m| m.get(name)).unwrap_or(&Value::Null);
            let mut out = Vec::new();
            for (name, sub) in properties {
                out.push((
                    Some(name.to_string()),
                    convert(get(name), sub, &at.key(name), notes)?,
                ));
            }
            for (key, item) in map.into_iter().flatten() {
                if properties.iter().any(|(name, _)| name == key) {
                    continue;
                }
                if *additional {
                    out.push((Some(key.clone()), plain(item, &at.key(key))?));
                } else {
                    let message = if at.is_root() {
                        format!("left out: ellmer refuses a call with an argument its tool does not declare (`{key}`)")
                    } else {
                        format!("ellmer drops `{key}`: the object type declares no such property")
                    };
                    notes.push(Note::new(
                        NoteKind::Dropped { keyword: key.into() },
                        at.key(key),
                        message,
                    ));
                }
            }
            if out.is_empty() {
                return Ok(RValue::Atom("list()".into()));
            }
            Ok(RValue::List(out))
        }
        RType::Basic { kind, .. } => match value {
            Value::Null => Ok(RValue::Atom(na_of(kind).into())),
            // "Some models intermittently wrap scalars in a JSON array (#931)".
            Value::Array(items) if items.len() == 1 => plain(&items[0], &at.index(0)),
            other => plain(other, at),
        },
        RType::Enum { .. } => match value {
            Value::Null => Ok(RValue::Atom("NA_character_".into())),
            Value::String(text) => Ok(RValue::Atom(r_text(text, at)?)),
            other => Ok(RValue::Atom(format!(
                "as.character({})",
                plain(other, at)?.render()
            ))),
        },
        RType::Other => plain(value, at),
    }
}

fn convert_array(value: &Value, items: &RType, at: &Pointer, notes: &mut Vec<Note>) -> Result<RValue> {
    let empty = Vec::new();
    let elements = match value {
        Value::Array(elements) => elements,
        Value::Null => &empty,
        // Not an array after validation only when the schema allowed it;
        // ellmer would pass such a value through list_to_atomic unchanged.
        other => return plain(other, at),
    };
    match items {
        RType::Basic { kind, .. } => {
            let r_type = match *kind {
                "boolean" => "logical",
                "integer" => "integer",
                "number" => "double",
                _ => "character",
            };
            if elements.is_empty() {
                return Ok(RValue::Atom(format!("{r_type}(0)")));
            }
            let parts = elements
                .iter()
                .enumerate()
                .map(|(i, element)| atomic(element, kind, &at.index(i)))
                .collect::<Result<Vec<_>>>()?;
            Ok(RValue::Atom(format!("c({})", parts.join(", "))))
        }
        RType::Array { .. } => Ok(RValue::List(
            elements
                .iter()
                .enumerate()
                .map(|(i, element)| Ok((None, convert(element, items, &at.index(i), notes)?)))
                .collect::<Result<_>>()?,
        )),
        RType::Enum { values, .. } => {
            let parts = elements
                .iter()
                .map(|element| match element {
                    Value::String(text) => r_text(text, at),
                    _ => Ok("NA".into()),
                })
                .collect::<Result<Vec<_>>>()?;
            let levels = values.iter().map(|v| r_text(v, at)).collect::<Result<Vec<_>>>()?;
            Ok(RValue::Atom(format!(
                "factor(c({}), levels = c({}))",
                parts.join(", "),
                levels.join(", ")
            )))
        }
        RType::Object { additional, .. } => {
            if !additional {
                notes.push(Note::new(
                    NoteKind::Rewritten {
                        keyword: "tibble".into(),
                    },
                    at.clone(),
                    "ellmer turns an array of objects into a tibble; written as a list of rows",
                ));
            }
            Ok(RValue::List(
                elements
                    .iter()
                    .enumerate()
                    .map(|(i, element)| Ok((None, convert(element, items, &at.index(i), notes)?)))
                    .collect::<Result<_>>()?,
            ))
        }
        RType::Other => plain(value, at),
    }
}

fn na_of(kind: &str) -> &'static str {
    match kind {
        "boolean" => "NA",
        "integer" => "NA_integer_",
        "number" => "NA_real_",
        _ => "NA_character_",
    }
}

/// One element of `list_to_atomic(x, type)`: doubles truncated to integers
/// for `integer`, integers widened for `number`, anything else of the wrong
/// type (`NULL` included) `NA`.
fn atomic(element: &Value, kind: &str, at: &Pointer) -> Result<String> {
    Ok(match (kind, element) {
        ("boolean", Value::Bool(b)) => if *b { "TRUE" } else { "FALSE" }.into(),
        ("string", Value::String(text)) => r_text(text, at)?,
        ("integer", Value::Number(number)) => {
            let int = number.as_i64().filter(|i| i.unsigned_abs() <= i32::MAX as u64);
            match int {
                Some(int) => format!("{int}L"),
                None => format!("as.integer({})", r_number(number)),
            }
        }
        ("number", Value::Number(number)) => match number.as_i64() {
            Some(int) => format!("{int}"),
            None => r_number(number),
        },
        _ => na_of(kind).into(),
    })
}
