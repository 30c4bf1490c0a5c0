//! `ollama`: Ollama `/api/chat` `tools[]` entries, in the OpenAI Chat shape
//! `{"type": "function", "function": {"name", "description", "parameters"}}`.
//!
//! The native API has no strict mode, and the server keeps only a few schema
//! keywords (the `Ollama` dialect of schema lowering says which).

use serde_json::Value;

use crate::codec::JsonCodec;
use crate::error::Result;
use crate::format::openai::{chat_entry, read_chat};
use crate::format::shared::note_no_strict;
use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: None,
    expand: None,
    read,
    write,
    wrap: Value::Array,
    check_set: None,
};

fn read(entry: Node<'_>, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    read_chat(entry, Format::Ollama, notes)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let lowered = lower(
        &tool.input_schema,
        Dialect::Ollama,
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    )?;
    let mut parameters = lowered.schema;
    if let Some(description) = parameters
        .as_object_mut()
        .and_then(|root| root.shift_remove("description"))
    {
        notes.push(
            NoteKind::Dropped {
                keyword: "description".into(),
            },
            Pointer::root().key("inputSchema").key("description"),
            format!(
                "Ollama's parameters object has no description (its server drops it), so {description} \
                 was left out; say it in the tool's description instead"
            ),
        );
    }
    note_no_strict(tool, opts, Format::Ollama, "", notes);
    Ok(chat_entry(tool, Format::Ollama, parameters, None, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use serde_json::json;

    #[test]
    fn reads_and_writes_the_chat_shape_without_strict() {
        let doc = json!({"type": "function", "function": {"name": "get_temperature",
            "description": "Get the current temperature for a city",
            "parameters": {"type": "object", "required": ["city"],
                "properties": {"city": {"type": "string", "description": "The name of the city"}}},
            "strict": true}});
        let mut notes = Notes::new();
        let tool = read(Node::root(&doc), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.strict, Some(true));
        assert!(notes.is_empty(), "{notes:?}");
        let mut notes = Notes::new();
        let mut written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        let function = written["function"].as_object_mut().unwrap();
        assert_eq!(function.get("strict"), None);
        function.shift_remove("parameters");
        assert_eq!(
            written,
            json!({"type": "function", "function": {"name": "get_temperature",
                "description": "Get the current temperature for a city"}})
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Dropped {
                keyword: "strict".into()
            }
        );
        assert_eq!(
            notes[0].message,
            "ollama has no per-tool strict mode; the tool was written without it"
        );
    }

    #[test]
    fn vendor_fields_are_kept_under_ollama() {
        let doc =
            json!({"type": "function", "function": {"name": "a", "parameters": {"type": "object"}, "x": 1}});
        let mut notes = Notes::new();
        let tool = read(Node::root(&doc), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(
            tool.vendor_fields("ollama"),
            Some(json!({"function": {"x": 1}}).as_object().unwrap())
        );
        let written = write(&tool, &WriteOptions::default(), &mut Notes::new()).unwrap();
        assert_eq!(written["function"]["x"], json!(1));
    }
}
