//! `expected_output` and the output schema, both ways.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

use super::read::strings;

/// The output-schema keywords that carry `expected_output` fields JSON Schema
/// has no word for.
const OUTPUT_TYPE: &str = "x-skydeck-type";
const OUTPUT_FORMAT: &str = "x-skydeck-format";
const OUTPUT_LANGUAGE: &str = "x-skydeck-language";

/// `expected_output` as the output schema.
pub(super) fn read_expected_output(node: &Node<'_>, notes: &mut Notes) -> Result<Value> {
    node.object()?;
    let kind = match node.opt_string("type")? {
        Some(kind) => kind,
        None => {
            notes.push(
                NoteKind::Defaulted { field: "type".into() },
                node.at.clone(),
                "the expected output has no \"type\"; read as text",
            );
            "text".into()
        }
    };
    let allowed = node
        .get("allowed_values")
        .map(|allowed| strings(&allowed, "\"allowed_values\" must be an array of strings"))
        .transpose()?;
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("string".into()));
    let implied = if allowed.is_some() { "limited" } else { "text" };
    if let Some(values) = allowed {
        schema.insert(
            "enum".into(),
            Value::Array(values.into_iter().map(Value::String).collect()),
        );
    }
    if kind != implied {
        schema.insert(OUTPUT_TYPE.into(), Value::String(kind));
    }
    if let Some(format) = node.opt_string("format")? {
        schema.insert(OUTPUT_FORMAT.into(), Value::String(format));
    }
    if let Some(language) = node.opt_string("language")? {
        schema.insert(OUTPUT_LANGUAGE.into(), Value::String(language));
    }
    for key in node
        .other_members(&["type", "format", "language", "allowed_values"])
        .keys()
    {
        notes.push(
            NoteKind::Dropped { keyword: key.into() },
            node.at.key(key),
            format!("{key:?} is not an expected_output field; left out"),
        );
    }
    Ok(Value::Object(schema))
}

/// The output schema as `expected_output`; a schema that is not a string is
/// written as text in JSON format, with a note.
pub(super) fn write_expected_output(schema: &Value, notes: &mut Notes) -> Value {
    let at = Pointer::root().key("outputSchema");
    let mut output = Map::new();
    let object = schema
        .as_object()
        .filter(|object| object.get("type") == Some(&Value::String("string".into())));
    let Some(object) = object else {
        notes.push(
            NoteKind::Dropped {
                keyword: "outputSchema".into(),
            },
            at,
            "SkyDeck describes the expected output by kind only; the result's JSON Schema is lost, \
             written as text in JSON format",
        );
        output.insert("type".into(), Value::String("text".into()));
        output.insert("format".into(), Value::String("JSON".into()));
        return Value::Object(output);
    };
    let allowed = object
        .get("enum")
        .and_then(Value::as_array)
        .filter(|values| values.iter().all(Value::is_string));
    if object.contains_key("enum") && allowed.is_none() {
        notes.push(
            NoteKind::Dropped {
                keyword: "enum".into(),
            },
            at.key("enum"),
            "SkyDeck allowed values are strings; the enum was left out",
        );
    }
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
    let kind = text(OUTPUT_TYPE).unwrap_or_else(|| if allowed.is_some() { "limited" } else { "text" }.into());
    output.insert("type".into(), Value::String(kind));
    if let Some(format) = text(OUTPUT_FORMAT) {
        output.insert("format".into(), Value::String(format));
    }
    if let Some(language) = text(OUTPUT_LANGUAGE) {
        output.insert("language".into(), Value::String(language));
    }
    if let Some(values) = allowed {
        output.insert("allowed_values".into(), Value::Array(values.clone()));
    }
    for (key, value) in object {
        let carried = match key.as_str() {
            "type" | "enum" => true,
            OUTPUT_TYPE | OUTPUT_FORMAT | OUTPUT_LANGUAGE => value.is_string(),
            _ => false,
        };
        if !carried {
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
                at.key(key),
                format!("SkyDeck's expected_output has no place for {key:?}; left out"),
            );
        }
    }
    Value::Object(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn expected_output_maps_both_ways() {
        let cases = [
            (json!({"type": "text"}), json!({"type": "string"})),
            (
                json!({"type": "limited", "allowed_values": ["yes", "no"]}),
                json!({"type": "string", "enum": ["yes", "no"]}),
            ),
            (
                json!({"type": "code", "format": "JSON", "language": "Python"}),
                json!({"type": "string", "x-skydeck-type": "code", "x-skydeck-format": "JSON", "x-skydeck-language": "Python"}),
            ),
            (
                json!({"type": "text", "allowed_values": ["a"]}),
                json!({"type": "string", "enum": ["a"], "x-skydeck-type": "text"}),
            ),
            (
                json!({"type": "limited"}),
                json!({"type": "string", "x-skydeck-type": "limited"}),
            ),
        ];
        for (output, schema) in cases {
            let node_value = output.clone();
            let mut notes = Notes::new();
            let read_schema = read_expected_output(&Node::root(&node_value), &mut notes).unwrap();
            assert_eq!(read_schema, schema);
            assert_eq!(write_expected_output(&schema, &mut notes), output);
            assert!(notes.is_empty(), "{notes:?}");
        }
        let mut notes = Notes::new();
        let object = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        assert_eq!(
            write_expected_output(&object, &mut notes),
            json!({"type": "text", "format": "JSON"})
        );
        assert_eq!(notes.as_slice()[0].at.as_str(), "/outputSchema");
    }
}
