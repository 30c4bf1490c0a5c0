//! `ellmer`: R tool definitions for the ellmer package (alias `r`, files `.R`).
//!
//! Written in ellmer's current (≥ 0.3.0) API:
//!
//! ```r
//! tool_rnorm <- tool(
//!   rnorm,
//!   "Draw numbers from a random normal distribution",
//!   arguments = list(
//!     n = type_integer("The number of observations."),
//!     sd = type_number("The standard deviation.", required = FALSE)
//!   ),
//!   name = "rnorm",
//!   annotations = tool_annotations(
//!     title = "Draw Random Normal Numbers",
//!     read_only_hint = TRUE
//!   )
//! )
//! ```
//!
//! Read: every `tool()` call in the file (top level, assigned, or inside
//! `list()`), in the current form or the deprecated pre-0.3.0 form
//! (`.description`, `.name`, `.annotations`, argument types in `...`).
//!
//! Mapping decisions:
//!
//! - **Schemas.** ellmer lowers `type_*()` calls per provider itself (strict
//!   OpenAI: every property required, optional ones nullable; Gemini: no
//!   `additionalProperties`) but sends `type_from_schema()` JSON as written,
//!   with `strict = TRUE` to OpenAI and as Gemini `parameters`
//!   (tidyverse/ellmer `R/as-json.R`, `R/provider-openai*.R`,
//!   `R/provider-google.R`). So `type_*()` is used wherever it can say the
//!   schema: `type_boolean/integer/number/string()` for `{type,
//!   description}`, `type_enum()` for a string enum, `type_array()` with
//!   `items`, `type_object()` for every object with properties (optional
//!   children `required = FALSE`); a nullable value is `required = FALSE`
//!   (ellmer drops `NULL` arguments, so null and absent are one); a `$ref` is
//!   written in place. Other keywords go into `type_from_schema()` only when
//!   its JSON is in both OpenAI strict mode's and Gemini's subsets and the
//!   value is required (`write/portable.rs`), else after the description as
//!   `JSON Schema: {…}`; what `type_*()` cannot say at all (a free-form
//!   object or map, a union, any value, a recursive `$ref`) is a
//!   `type_string()` asking for JSON text, its schema after the description.
//!   Each change is noted; reading restores both description forms.
//! - **`additionalProperties`.** ellmer sends `additionalProperties: false`
//!   for every `type_object()` and the tool's arguments to every provider but
//!   Gemini; the R code does not say it. Reading never invents it; writing an
//!   object without it notes once per tool that ellmer will forbid extra keys,
//!   and writing `additionalProperties: false` notes that it is implied and
//!   does not come back. Any other `additionalProperties` follows the
//!   description (objects with properties) or makes the object JSON text
//!   (without properties). `.additional_properties = TRUE/FALSE` is read as
//!   the keyword (never written: it is deprecated, and ellmer aborts on it
//!   for OpenAI, Gemini and Ollama).
//! - **Descriptions.** A missing description is read as absent, never as the
//!   `""` ellmer sends.
//! - **`$defs`.** ellmer builds the arguments object itself, so root `$defs`
//!   cannot stay at the root: a definition is written in place, or embedded
//!   in the JSON text of a recursive value; reading moves embedded ones back
//!   (also from `type_from_schema()` JSON, `#/properties/x/$defs/node`).
//! - **Descriptions built in R** (`paste()`, `paste0()`, `c()`, `trimws()`,
//!   raw strings, `glue()` without interpolation) are evaluated as R does
//!   (`r/eval.rs`); anything else fails that tool, at its line and column.
//! - **Argument order of `type_enum()`/`type_array()`.** Named arguments are
//!   matched as R does. Positional ones follow ellmer ≥ 0.3.0 (`values`/`items`
//!   first) unless the first is a string or `NULL` — for `type_array()` always
//!   then, for `type_enum()` when a second, non-string value follows — which
//!   is 0.2's description-first order (read with a note).
//! - **`fun`.** Kept verbatim as `run.handler.r` (a name, `pkg::fun`, a
//!   function literal, any expression). Without one, a placeholder function
//!   with the arguments as formals (optional ones `= NULL`) that stops with a
//!   message is written, and read back as "no handler".
//! - **Names.** `name = "…"` is always written. When reading without one,
//!   the tool is named as ellmer does after a bare function name, else after
//!   the variable it is assigned to, else `tool_001`, … (noted).
//! - **Annotations.** MCP's camelCase hints map to `tool_annotations()`'s
//!   snake_case; unset hints stay unset (MCP's defaults only with
//!   [`crate::WriteOptions::annotation_defaults`]). ellmer has no tool title: `title`
//!   is written as `tool_annotations(title = …)` when the annotations have
//!   none (noted), and noted as lost when they have a different one. Extra
//!   annotations are extra arguments; when one would be taken by R for a
//!   prefix of a hint (`read = 1`), the whole set is written as `list(…)`.
//! - **Root keywords** other than `type`, `properties`, `required` and
//!   `$defs` have no place (ellmer builds the arguments object) and are noted
//!   as dropped; boolean sub-schemas become `{}` / `{"not": {}}` in
//!   `type_from_schema()`, which needs an object.
//! - **ellmer-only settings** travel in `vendor.ellmer`: `convert` (when
//!   `FALSE`) and `ignore` (the `type_ignore()` arguments, hidden from the
//!   model but needed to match the function's formals).
//!
//! The R itself is read and printed by [`r`]; `read/` maps R calls to
//! the canonical tool and `write/` maps it back.

pub(crate) mod r;
mod read;
mod write;

use serde_json::Value;

use crate::codec::TextCodec;
use crate::pointer::Pointer;
use crate::schema::names::NameRule;

pub(crate) const CODEC: TextCodec = TextCodec {
    detect,
    read: read::read,
    write: write::write,
    join,
};

/// ellmer's tool-name rule: `^[a-zA-Z0-9_-]+$`, with no length limit.
pub(crate) const NAME_RULE: NameRule = NameRule {
    max_len: usize::MAX,
    extra_chars: "_-",
    letter_first: false,
};

const ID: &str = "ellmer";

const ANNOTATION_FORMALS: [&str; 6] = [
    "title",
    "read_only_hint",
    "open_world_hint",
    "idempotent_hint",
    "destructive_hint",
    "...",
];
/// Before keywords `type_*()` cannot say, written after a description as
/// JSON (reading restores them).
const KEYWORDS_MARKER: &str = "JSON Schema: ";
/// Before the schema of a value written as JSON text in a `type_string()`.
const JSON_TEXT_MARKER: &str = "A string holding JSON that matches this JSON Schema: ";
const PLACEHOLDER_START: &str = "toolbridge: tool '";
const PLACEHOLDER_END: &str = "' has no R function; define one";

/// True if `text` holds a `tool(` call (at a word boundary).
fn detect(text: &str) -> bool {
    text.match_indices("tool(").any(|(at, _)| {
        let before = &text[..at];
        let boundary = |prefix: &str| {
            !prefix
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '$' | '@'))
        };
        match before.strip_suffix("ellmer::") {
            Some(rest) => boundary(rest),
            None => boundary(before),
        }
    })
}

fn join(tools: Vec<String>) -> String {
    if tools.is_empty() {
        return String::new();
    }
    format!("library(ellmer)\n\n{}", tools.join("\n"))
}

/// The keys root definitions live under.
const DEF_KEYS: [&str; 2] = ["$defs", "definitions"];

/// A JSON Pointer as a URI fragment (percent-encoding what a fragment cannot hold).
fn fragment(pointer: &Pointer) -> String {
    let mut out = String::new();
    for byte in pointer.as_str().bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Every `$ref` string in a schema (iteratively, so depth costs no stack).
fn refs_of(value: &Value) -> Vec<String> {
    let mut refs = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                for (key, child) in object {
                    match (key.as_str(), child) {
                        ("$ref", Value::String(reference)) => refs.push(reference.clone()),
                        _ => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    refs
}

/// Replaces the prefix `from` of every `$ref` in `value` with `to`.
fn rewrite_refs(value: &mut Value, from: &str, to: &str) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                for (key, child) in object.iter_mut() {
                    match child {
                        Value::String(reference) if key == "$ref" => {
                            if let Some(rest) = reference.strip_prefix(from) {
                                *reference = format!("{to}{rest}");
                            }
                        }
                        child => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// The definition a `$ref` into root `$defs`/`definitions` names.
fn root_def_of(reference: &str) -> Option<(&'static str, String)> {
    for key in DEF_KEYS {
        if let Some(rest) = reference.strip_prefix(&format!("#/{key}/")) {
            let token = rest.split('/').next().unwrap_or("");
            let decoded = percent_decode(token);
            return Some((key, decoded.replace("~1", "/").replace("~0", "~")));
        }
    }
    None
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' && index + 2 < bytes.len() {
            let digit = |byte: u8| (byte as char).to_digit(16);
            if let (Some(high), Some(low)) = (digit(bytes[index + 1]), digit(bytes[index + 2])) {
                out.push((high * 16 + low) as u8);
                index += 3;
                continue;
            }
        }
        out.push(bytes[index]);
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod testing {
    use serde_json::Value;

    use crate::error::Result;
    use crate::note::{Converted, Notes};
    use crate::options::{ReadOptions, WriteOptions};
    use crate::tool::Tool;

    pub(super) fn read_one(text: &str) -> Result<Converted<Tool>> {
        let mut tools = super::read::read(text, &ReadOptions::default())?;
        assert_eq!(tools.len(), 1, "{text}");
        tools.remove(0)
    }

    pub(super) fn read_value(text: &str) -> Value {
        match read_one(text) {
            Ok(converted) => converted.value.to_value(),
            Err(err) => panic!("{text}\n{err}"),
        }
    }

    pub(super) fn read_error(text: &str) -> String {
        match super::read::read(text, &ReadOptions::default()) {
            Err(err) => err.to_string(),
            Ok(tools) => match tools.into_iter().find_map(|tool| tool.err()) {
                Some(err) => err.to_string(),
                None => panic!("{text} was read without error"),
            },
        }
    }

    pub(super) fn tool_from(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    pub(super) fn written(tool: &Tool) -> (String, Vec<String>) {
        let mut notes = Notes::new();
        let text = super::write::write(tool, &WriteOptions::default(), &mut notes).unwrap();
        (
            text,
            notes
                .iter()
                .map(|note| format!("{} {}", note.at, note.message))
                .collect(),
        )
    }

    pub(super) const SEED: &str = r#"
tool_rnorm <- tool(
  rnorm,
  # Describe the tool function to the LLM
  .description = "Drawn numbers from a random normal distribution",
  n = type_integer("The number of observations. Must be a positive integer."),
  mean = type_number("The mean value of the distribution."),
  sd = type_number("The standard deviation of the distribution. Must be a non-negative number."),
  .annotations = tool_annotations(
    title = "Draw Random Normal Numbers",
    read_only_hint = TRUE, # the tool does not modify any state
    open_world_hint = FALSE
  )
)
"#;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::testing::*;
    use super::*;
    use crate::options::{Format, Output, WriteOptions};

    #[test]
    fn ignored_arguments_travel_in_vendor_fields() {
        let text = "tool(function(x, verbose = FALSE) x, 'd', arguments = list(x = type_string(), verbose = type_ignore()))";
        let converted = read_one(text).unwrap();
        let tool = converted.value;
        assert_eq!(tool.vendor_fields(ID).unwrap()["ignore"], json!(["verbose"]));
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]})
        );
        let (text, _) = written(&tool);
        assert!(text.contains("    verbose = type_ignore()\n"), "{text}");
        assert_eq!(read_value(&text), tool.to_value());
    }

    #[test]
    fn annotations_that_are_r_code_are_kept_as_source() {
        // As posit-dev/btw writes them (R/tool-sessioninfo.R).
        let text = "tool(f, 'd', annotations = ellmer::tool_annotations(title = 'T', btw_can_register = function() TRUE))";
        let converted = read_one(text).unwrap();
        let tool = converted.value;
        assert_eq!(
            tool.vendor_fields(ID).unwrap()["annotation_code"],
            json!({"btw_can_register": "function() TRUE"})
        );
        assert_eq!(tool.annotations.as_ref().unwrap().title.as_deref(), Some("T"));
        assert_eq!(
            converted.notes[0].message,
            "the annotation `btw_can_register` is R code (a function), not data; kept as source under \
             vendor.ellmer.annotation_code (line 1, column 85)"
        );
        let (written, _) = written(&tool);
        assert!(
            written.contains("  annotations = tool_annotations(\n    title = \"T\",\n    btw_can_register = function() TRUE\n  )\n"),
            "{written}"
        );
        assert_eq!(read_value(&written), tool.to_value());
    }

    #[test]
    fn round_trips_what_ellmer_expresses() {
        let tool = tool_from(json!({
            "name": "search-issues",
            "description": "Search issues. 'Quotes', \"doubles\", back\\slash, tab\t, é😀.",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string", "description": ""},
                "state": {"type": "string", "enum": ["open", "closed"], "description": "State."},
                "labels": {"type": "array", "items": {"type": "string"}},
                "page": {"type": "object", "properties": {"size": {"type": "integer"}, "after": {"type": "string"}},
                         "required": ["size"], "description": "Paging."},
                "if": {"type": "boolean"},
                "with space": {"type": "integer", "minimum": 1},
                "when": {"type": "string", "format": "date-time"},
                "meta": {"type": "object", "description": "Labels.", "additionalProperties": {"type": "string"}},
                "any": {}
            }, "required": ["query", "when", "any"]},
            "annotations": {"title": "Search", "readOnlyHint": true, "openWorldHint": true, "idempotentHint": true, "destructiveHint": false},
            "run": {"kind": "action", "handler": {"r": "gh::search_issues"}},
            "vendor": {"ellmer": {"convert": false}}
        }));
        let (text, _) = written(&tool);
        assert_eq!(read_value(&text), tool.to_value(), "{text}");
        let written = crate::pipeline::write_tool(&tool, Format::Ellmer, &WriteOptions::default()).unwrap();
        let Output::Text(again) = written.value else {
            panic!()
        };
        assert_eq!(again, text);
    }
}
