//! The XML invoke markup MiniMax-M2 and DeepSeek V3.2 / V4 (DSML) share:
//! one `<invoke name="NAME">` element per call holding one
//! `<parameter name="KEY">VALUE</parameter>` element per argument, inside a
//! block element the family names (`<minimax:tool_call>`,
//! `<｜DSML｜function_calls>`). The calls are found by their invoke
//! elements, so a block whose tokens were lost still gives its calls; the
//! block tokens are taken out of the prose.

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::scan::{delimited_calls, push_prose_without, recovered, Out};
use super::stream::markup::{Region, Token, Until};
use super::tags::{find_tag, scan_tags};
use super::typed;

/// One family's spelling of the markup.
pub(super) struct Markup {
    /// The tokens that open and close a block of calls.
    pub blocks: &'static [&'static str],
    /// `<invoke name=` as the family writes it.
    pub invoke: &'static str,
    /// `</invoke>`.
    pub invoke_end: &'static str,
    /// `<parameter name=`.
    pub parameter: &'static str,
    /// `</parameter>`.
    pub parameter_end: &'static str,
    /// How a parameter's value is read.
    pub values: Values,
}

/// How a family writes a parameter's value.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Values {
    /// Raw text, trimmed, typed by the tool's schema (MiniMax-M2).
    Raw,
    /// `string="true"`: the text as written; `string="false"`: JSON (DSML).
    StringAttribute,
}

pub(super) fn parse(text: &str, out: &mut Out<'_>, markup: &Markup) {
    delimited_calls(
        text,
        markup.invoke,
        markup.invoke_end,
        out,
        |body| scan_tags(body, 0, markup.blocks).ok().map(|(at, _)| at),
        |prose, out| push_prose_without(prose, markup.blocks, out),
        |body, whole, out, notes| invoke(body, whole, out, notes, markup),
    );
}

/// An attribute's value at the start of `text` (`"v"`, `'v'` or a bare
/// word) and the rest after it.
fn attribute(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote) {
            return match inner.find(quote) {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => (inner, ""),
            };
        }
    }
    let end = text
        .find(|c: char| c.is_whitespace() || c == '>')
        .unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// One invoke's body: `"NAME">` and its parameters.
fn invoke(body: &str, whole: &str, out: &mut Out<'_>, mut notes: Vec<Note>, markup: &Markup) {
    let (name, rest) = attribute(body);
    let name = name.trim();
    let Some(head_end) = rest.find('>') else {
        out.not_a_call(markup.invoke, whole, "the invoke element has no closing >");
        return;
    };
    if name.is_empty() {
        out.not_a_call(markup.invoke, whole, "it names no tool");
        return;
    }
    let schema = out.schema(name);
    let mut arguments = Map::new();
    let mut untyped = Vec::new();
    let mut rest = &rest[head_end + 1..];
    while let Some(at) = find_tag(rest, markup.parameter) {
        let after = &rest[at + markup.parameter.len()..];
        let (key, attributes) = attribute(after);
        let key = key.to_string();
        let Some(head_end) = attributes.find('>') else {
            notes.push(recovered(
                "missing-bracket",
                format!("the parameter {key:?} has no closing >; it was left out"),
            ));
            break;
        };
        let string = string_attribute(&attributes[..head_end]);
        let value_text = &attributes[head_end + 1..];
        let next = find_tag(value_text, markup.parameter).unwrap_or(value_text.len());
        let (raw, next_rest) = match find_tag(&value_text[..next], markup.parameter_end) {
            Some(end) => (
                &value_text[..end],
                &value_text[end + markup.parameter_end.len()..],
            ),
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    format!(
                        "the {} of {key:?} is missing; its value ends at the next tag",
                        markup.parameter_end
                    ),
                ));
                (value_text[..next].trim_end(), &value_text[next..])
            }
        };
        let property = schema
            .and_then(|schema| schema.get("properties"))
            .and_then(|properties| properties.get(&key));
        let value = match (markup.values, string) {
            (Values::StringAttribute, Some(true)) => Value::String(raw.to_string()),
            (Values::StringAttribute, Some(false)) => json_value(&key, raw, property, out, &mut notes),
            _ => {
                if property.is_none() {
                    untyped.push(key.clone());
                }
                typed::value(&key, trim_value(raw), property, out.limits, &mut notes)
            }
        };
        if arguments.insert(key.clone(), value).is_some() {
            notes.push(Note::new(
                NoteKind::Dropped { keyword: key.clone() },
                Pointer::root().key("arguments").key(&key),
                format!("the parameter {key:?} was given twice; the last value was kept"),
            ));
        }
        rest = next_rest;
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
        Some(body[body.len() - body.trim_start().len()..].to_string()),
        notes,
    );
}

/// DSML's `string="true|false"` among a parameter's attributes.
fn string_attribute(attributes: &str) -> Option<bool> {
    let (_, after) = attributes.split_once("string=")?;
    match attribute(after).0 {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A `string="false"` value: JSON, fitted to the property's schema; text
/// that is not JSON is typed by the schema instead, with a note.
fn json_value(key: &str, raw: &str, property: Option<&Value>, out: &Out<'_>, notes: &mut Vec<Note>) -> Value {
    let at = Pointer::root().key("arguments").key(key);
    match crate::json::parse(raw.trim(), out.limits.max_depth) {
        Ok(value) => value,
        Err(_) => {
            notes.push(Note::new(
                NoteKind::Normalized { field: key.into() },
                at,
                format!(
                    "{raw:?} is marked string=\"false\" but is not JSON; it was read as the schema types it"
                ),
            ));
            typed::value(key, raw.trim(), property, out.limits, notes)
        }
    }
}

/// MiniMax-M2's value: trimmed, as vLLM's `minimax_m2_tool_parser.py` does.
fn trim_value(raw: &str) -> &str {
    raw.trim()
}

/// Streamed: a call runs from its invoke element to `invoke_end` (without
/// it, to a block token or the next invoke); a block token is a region of
/// its own, which the parser removes. `opens` is the invoke prefix, then
/// the block tokens.
pub(super) fn region(markup: &'static Markup, opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(Until::new(
            markup.invoke.len(),
            std::slice::from_ref(&markup.invoke_end),
            std::slice::from_ref(&markup.invoke),
            markup.blocks,
        )),
        Some(token) => Box::new(Token(markup.blocks[token - 1].len())),
        None => unreachable!("the invoke markup has no bare form"),
    }
}
