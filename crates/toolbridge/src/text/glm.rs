//! GLM-4.5, 4.6 and 4.7: `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V
//! </arg_value>\n</tool_call>` (vLLM `glm4_moe_tool_parser.py`; GLM-4.7
//! drops the line break after the name). Values are raw text typed by the
//! tool's schema ([`super::typed`]); without a schema they stay
//! strings (ollama's rule; vLLM would read `42` as a number), and a note says
//! so.

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::scan::{delimited_calls, recovered, Out};
use super::stream::markup::{Region, Streaming, Until};
use super::typed;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const KEY: &str = "<arg_key>";
const KEY_END: &str = "</arg_key>";
const VALUE: &str = "<arg_value>";
const VALUE_END: &str = "</arg_value>";

pub(super) fn detect(text: &str) -> bool {
    text.find(OPEN).is_some_and(|at| {
        let body = &text[at + OPEN.len()..];
        let line_end = body.find(['\n', '<']).unwrap_or(body.len());
        let name = body[..line_end].trim();
        let next = body[line_end..].trim_start();
        !name.is_empty() && !name.starts_with('{') && (next.starts_with(KEY) || next.starts_with(CLOSE))
    })
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    delimited_calls(
        text,
        OPEN,
        CLOSE,
        out,
        |_| None,
        |prose, out| out.prose.push_str(prose),
        call,
    );
}

/// One call: the name, then key/value pairs.
fn call(body: &str, markup: &str, out: &mut Out<'_>, mut notes: Vec<Note>) {
    let name_end = body.find(KEY).unwrap_or(body.len());
    let name = body[..name_end].trim();
    if name.is_empty() || name.contains(['{', '<', '\n']) {
        out.not_a_call(OPEN, markup, "it does not start with a tool name");
        return;
    }
    let schema = out.schema(name);
    let mut arguments = Map::new();
    let mut untyped = Vec::new();
    let mut rest = &body[name_end..];
    while let Some(at) = rest.find(KEY) {
        let after = &rest[at + KEY.len()..];
        let Some(key_end) = after.find(KEY_END) else {
            notes.push(recovered(
                "missing-close-tag",
                "an <arg_key> has no </arg_key>; it was left out",
            ));
            break;
        };
        let key = after[..key_end].trim().to_string();
        let after = after[key_end + KEY_END.len()..].trim_start();
        let Some(value_text) = after.strip_prefix(VALUE) else {
            notes.push(Note::new(
                NoteKind::Dropped { keyword: key.clone() },
                Pointer::root().key("arguments").key(&key),
                format!("the argument {key:?} has no <arg_value>; it was left out"),
            ));
            rest = after;
            continue;
        };
        let next_key = value_text.find(KEY).unwrap_or(value_text.len());
        let (raw, next) = match value_text[..next_key].find(VALUE_END) {
            Some(end) => (&value_text[..end], &value_text[end + VALUE_END.len()..]),
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    format!("the </arg_value> of {key:?} is missing; its value ends at the next tag"),
                ));
                (value_text[..next_key].trim_end(), &value_text[next_key..])
            }
        };
        let property = schema
            .and_then(|schema| schema.get("properties"))
            .and_then(|p| p.get(&key));
        if property.is_none() {
            untyped.push(key.clone());
        }
        // ollama's glm46.go reads values through qwen3coder.go's parseValue,
        // which drops one line break at each end; vLLM strips all whitespace.
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = typed::value(&key, raw, property, out.limits, &mut notes);
        arguments.insert(key, value);
        rest = next;
    }
    if !untyped.is_empty() {
        notes.push(Note::new(
            NoteKind::Kept {
                key: untyped.join(", "),
            },
            Pointer::root().key("arguments"),
            format!("no schema types {}; kept as strings", untyped.join(", ")),
        ));
    }
    out.push(
        name,
        None,
        Ok((Value::Object(arguments), Vec::new())),
        Some(body[name_end..].to_string()),
        notes,
    );
}

/// Streamed: a call runs from `<tool_call>` to `</tool_call>`, or to the
/// next `<tool_call>` when its closing tag is missing.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN],
    bare: None,
    region,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(Until::new(OPEN.len(), &[CLOSE], &[OPEN], &[]))
}
