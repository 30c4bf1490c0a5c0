//! `llm`: Emacs Lisp `(llm-make-tool …)` forms (llm.el 0.31).
//!
//! llm.el takes gptel's tool plist (its README says so), so reading and
//! writing are gptel's ([`super`]) with three differences: the
//! constructor is `llm-make-tool`; gptel's `:category`, `:confirm` and
//! `:include` are read (llm.el accepts and ignores them, noted) but not
//! written (a loss, noted); JSON `false` is written `:false`, which llm.el's
//! `json-serialize` sends, instead of gptel's `:json-false`.
//!
//! llm.el also sends less than the plist says
//! (`llm-provider-utils-openai-arguments`, `reference/seeds.md` §2.2), and the
//! writer notes where that applies: of each argument only `type`,
//! `description`, `enum`, `items` and `properties` go out (so an object
//! argument's `required` and keywords such as `minimum` are dropped); every
//! argument needs a `:type` symbol; `required` is left out when it is empty;
//! inside `:items` and `:properties`, `nil` (an empty plist, our `{}`) goes
//! out as `null` and `:null` (our `null`) as the string `":null"`.

use serde_json::{Map, Value};

use crate::codec::TextCodec;
use crate::error::Result;
use crate::note::{Converted, NoteKind, Notes};
use crate::options::{ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::Tool;

use super::find::read_as;
use super::write::{is_escapable_symbol, write_as, written_argument};
use super::{first_head, join, Flavor};

pub(crate) use super::NAME_RULE;

pub(crate) const CODEC: TextCodec = TextCodec {
    detect,
    read,
    write,
    join,
};

/// The keywords of an argument llm.el copies into the JSON it sends.
const SENT: [&str; 5] = ["type", "description", "enum", "items", "properties"];

fn detect(text: &str) -> bool {
    first_head(text) == Some(Flavor::Llm)
}

fn read(text: &str, opts: &ReadOptions) -> Result<Vec<Result<Converted<Tool>>>> {
    read_as(text, opts, Flavor::Llm)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<String> {
    let text = write_as(tool, opts, notes, Flavor::Llm)?;
    // The arguments as written: `$ref`s inlined (the gptel writer noted that).
    let written = lower(
        &tool.input_schema,
        Dialect::Elisp,
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        &mut Notes::new(),
    )?;
    note_serialisation(&written.schema, notes);
    Ok(text)
}

/// Notes for what llm.el leaves out or changes when it serialises the
/// arguments `input_schema` (with its `$ref`s inlined).
fn note_serialisation(input_schema: &Value, notes: &mut Notes) {
    let at = Pointer::root().key("inputSchema");
    if input_schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        notes.push(
            NoteKind::Rewritten {
                keyword: "required".into(),
            },
            at.key("required"),
            "llm.el leaves out an empty \"required\" (same meaning)",
        );
    }
    let Some(properties) = input_schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (name, property) in properties {
        let prop_at = at.key("properties").key(name);
        let empty = Map::new();
        let schema = match property {
            Value::Object(object) => object,
            Value::Bool(true) => &empty,
            _ => continue,
        };
        // The argument as the writer wrote it (its own notes already made).
        let schema = &written_argument(
            schema,
            required.contains(&name.as_str()),
            "llm.el",
            &prop_at,
            &mut Notes::new(),
        );
        let written_type = schema.get("type").cloned();
        match written_type.as_ref() {
            Some(Value::String(name)) if is_escapable_symbol(name) => {}
            Some(Value::String(name)) => notes.push(
                NoteKind::Unsupported {
                    keyword: "type".into(),
                },
                prop_at.key("type"),
                format!("llm.el needs a :type symbol on every argument; {name:?} can only be written as a string, which it fails on"),
            ),
            other => notes.push(
                NoteKind::Unsupported {
                    keyword: "type".into(),
                },
                prop_at.key("type"),
                match other {
                    None => "llm.el needs a :type symbol on every argument; without one it sends \"type\": \"nil\"",
                    Some(_) => "llm.el needs a :type symbol on every argument; it fails on a list of types",
                },
            ),
        }
        let is_object = written_type.as_ref().and_then(Value::as_str) == Some("object");
        for key in schema.keys() {
            if SENT.contains(&key.as_str()) || key == "name" || key == "optional" {
                continue;
            }
            let message = if key == "required" && is_object {
                "llm.el drops the \"required\" list of an object argument when it serialises the tool"
                    .to_string()
            } else {
                format!("written, but llm.el sends only type, description, enum, items and properties of an argument, so {key:?} does not reach the model")
            };
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
                prop_at.key(key),
                message,
            );
        }
        for key in ["items", "properties"] {
            if let Some(value) = schema.get(key) {
                note_empty_objects(value, &prop_at.key(key), notes);
            }
        }
    }
}

/// Values inside `:items` / `:properties` (followed through plists, not
/// vectors, which llm.el passes through) that its converter
/// (`llm-provider-utils-convert-to-serializable`) changes: an empty object is
/// the empty plist `nil`, sent as `null`; `null` is written `:null`, a
/// symbol, which the converter sends as its name, the string `":null"`.
fn note_empty_objects(value: &Value, at: &Pointer, notes: &mut Notes) {
    let Some(object) = value.as_object() else { return };
    for (key, child) in object {
        match child {
            Value::Object(inner) if inner.is_empty() => notes.push(
                NoteKind::Unsupported { keyword: key.into() },
                at.key(key),
                "an empty object is the empty plist nil, which llm.el sends as null inside :items and :properties",
            ),
            Value::Object(_) => note_empty_objects(child, &at.key(key), notes),
            Value::Null => notes.push(
                NoteKind::Unsupported { keyword: key.into() },
                at.key(key),
                "null is written :null, which llm.el sends as the string \":null\" inside :items and :properties (its converter turns symbols into their names)",
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_llm(tool: Value) -> (String, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool).unwrap();
        let mut notes = Notes::new();
        let text = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        (
            text,
            notes
                .iter()
                .map(|note| format!("{} {}: {}", note.level(), note.at, note.message))
                .collect(),
        )
    }

    #[test]
    fn notes_what_llm_el_does_not_send() {
        let (text, notes) = write_llm(json!({
            "name": "t", "description": "d",
            "inputSchema": {"type": "object", "properties": {
                "opts": {"type": "object", "properties": {"a": {"type": "number"}, "e": {}}, "required": ["a"]},
                "n": {"type": "integer", "minimum": 1},
                "u": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "k": {"type": ":key"},
                "l": {"type": "array", "items": {"type": "object", "properties": {}}},
                "d": {"type": "array", "items": {"type": "string", "default": null, "enum": ["a", null]}}
            }, "required": []},
            "run": {"kind": "action", "handler": {"elisp": "#'ignore"}}
        }));
        assert!(text.starts_with("(llm-make-tool\n :name \"t\""), "{text}");
        let description = |name: &str| {
            format!("change /inputSchema/properties/{name}/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)")
        };
        assert_eq!(
            notes,
            [
                description("opts"),
                description("n"),
                "change /inputSchema/properties/u: llm.el needs one :type from the seven on every argument: wrote the non-null branch, {\"type\":\"string\"}; the argument is optional (:optional t), so the model leaves it out instead of sending null".to_string(),
                description("u"),
                description("k"),
                description("l"),
                description("d"),
                "change /inputSchema/required: llm.el leaves out an empty \"required\" (same meaning)".into(),
                "loss /inputSchema/properties/opts/required: llm.el drops the \"required\" list of an object argument when it serialises the tool".into(),
                "error /inputSchema/properties/opts/properties/e: an empty object is the empty plist nil, which llm.el sends as null inside :items and :properties".into(),
                "loss /inputSchema/properties/n/minimum: written, but llm.el sends only type, description, enum, items and properties of an argument, so \"minimum\" does not reach the model".into(),
                "error /inputSchema/properties/k/type: llm.el needs a :type symbol on every argument; \":key\" can only be written as a string, which it fails on".into(),
                "error /inputSchema/properties/l/items/properties: an empty object is the empty plist nil, which llm.el sends as null inside :items and :properties".into(),
                "error /inputSchema/properties/d/items/default: null is written :null, which llm.el sends as the string \":null\" inside :items and :properties (its converter turns symbols into their names)".to_string(),
            ]
        );
    }

    #[test]
    fn reads_gptel_slots_with_a_note() {
        let tools = read(
            "(llm-make-tool :name \"a\" :function #'ignore :category \"c\" :args nil)",
            &ReadOptions::default(),
        )
        .unwrap();
        let converted = tools.into_iter().next().unwrap().unwrap();
        assert_eq!(converted.value.category.as_deref(), Some("c"));
        assert_eq!(
            converted.notes[0].message,
            "llm.el ignores :category, a gptel slot; kept (line 1, column 55)"
        );
    }
}
