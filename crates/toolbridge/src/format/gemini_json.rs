//! `gemini-json`: Gemini `functionDeclarations` entries with
//! `parametersJsonSchema` (and `responseJsonSchema`): plain JSON Schema,
//! which current Gemini models take instead of the OpenAPI subset.
//!
//! Reading and the container shapes are those of [`gemini`](super::gemini)
//! (a declaration with the OpenAPI `parameters` is read too); the writer
//! writes JSON Schema.

use serde_json::Value;

use crate::codec::JsonCodec;
use crate::error::Result;
use crate::format::gemini::{check_set, detect_json, expand, read_declaration, write_declaration, LAYOUT};
use crate::json::Entry;
use crate::note::Notes;
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect_json),
    expand: Some(expand),
    read,
    write,
    layout: LAYOUT,
    check_set: Some(check_set),
};

fn read(owned: Entry, opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    read_declaration(entry, Format::GeminiJson, opts, notes)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    write_declaration(tool, opts, Format::GeminiJson, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use crate::note::NoteKind;
    use serde_json::json;

    #[test]
    fn json_schema_is_read_as_is_and_written_back() {
        let doc = json!({"name": "search", "description": "Search the catalogue",
            "parametersJsonSchema": {"type": "object",
                "properties": {"q": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
                "required": ["q"], "additionalProperties": false},
            "responseJsonSchema": {"type": "array", "items": {"type": "string"}},
            "behavior": "NON_BLOCKING"});
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.input_schema, doc["parametersJsonSchema"]);
        assert_eq!(tool.output_schema.as_ref(), Some(&doc["responseJsonSchema"]));
        assert_eq!(
            tool.vendor_fields("gemini-json").map(|fields| fields.len()),
            Some(1)
        );
        assert_eq!(notes.len(), 1);
        let mut notes = Notes::new();
        let mut written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "name",
                "description",
                "parametersJsonSchema",
                "responseJsonSchema",
                "behavior"
            ]
        );
        let written = written.as_object_mut().unwrap();
        written.shift_remove("parametersJsonSchema");
        written.shift_remove("responseJsonSchema");
        assert_eq!(
            Value::Object(written.clone()),
            json!({"name": "search", "description": "Search the catalogue", "behavior": "NON_BLOCKING"})
        );
        assert!(own_notes(&notes).is_empty(), "{notes:?}");
    }

    #[test]
    fn openapi_parameters_are_raised_and_written_as_json_schema() {
        let doc =
            json!({"name": "a", "parameters": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}});
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(notes.len(), 2);
        let written = write(&tool, &WriteOptions::default(), &mut Notes::new()).unwrap();
        assert_eq!(written.get("parameters"), None);
        assert!(written["parametersJsonSchema"].is_object());
    }

    #[test]
    fn no_arguments_means_no_parameters_and_strict_is_noted() {
        let mut tool = Tool::new("now", json!({"type": "object", "additionalProperties": false}));
        tool.strict = Some(true);
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(written, json!({"name": "now"}));
        let kinds: Vec<&NoteKind> = own_notes(&notes).into_iter().map(|note| &note.kind).collect();
        assert_eq!(
            kinds,
            [
                &NoteKind::Normalized {
                    field: "parametersJsonSchema".into()
                },
                &NoteKind::Dropped {
                    keyword: "strict".into()
                }
            ]
        );
    }
}
