//! `syllable`: Syllable's `ToolDefinition` (syllable-sdk 0.49.87), and the
//! seed-era shape of October 2024.
//!
//! ```json
//! {"type": "endpoint",
//!  "tool": {"type": "function", "function": {"name": "…", "description": "…", "parameters": {…}}},
//!  "endpoint": {"url": "…", "method": "get", "argument_location": "query", "timeout": 10},
//!  "defaults": {"hospital": "Queens Hospital", "city": {"transform": {…}}},
//!  "static_parameters": [{"name": "…", "type": "string", "required": false}],
//!  "result": …, "options": {"propagate_tool_result": true}}
//! ```
//!
//! Mapping (every field has a canonical place, so Syllable → toolbridge →
//! Syllable is lossless):
//!
//! | Syllable | canonical |
//! | --- | --- |
//! | `tool.function.name`, `.description` | `name`, `description` |
//! | `tool.function.parameters` | `inputSchema` (written lowered for OpenAI-style models, not strict) |
//! | `type` absent / `action` | `run` absent / `{"kind": "action"}` |
//! | `type: endpoint` + `endpoint` | `run: {"kind": "endpoint", url, method, argumentLocation, timeout}` (`headers` and `parameterLocations` have no Syllable form: dropped with a note) |
//! | `type: context` + `context.task` | `run: {"kind": "context", task}` |
//! | `type: log` | `run` absent, `vendor.syllable.type = "log"`: the SDK gives `log` no meaning beyond its name, so toolbridge invents none |
//! | `defaults` | `defaults` (the same semantics) |
//! | `static_parameters` | `staticParameters` (`int` ↔ `integer`, `data_source_list` ↔ `dataSourceList`) |
//! | `result` | `fixedResult` |
//! | `options.propagate_tool_result` | `propagateResult` |
//! | `response_display`, unknown top-level keys, an `endpoint`/`context` the `type` does not use | `vendor.syllable` |
//!
//! Reading accepts the seed-era shape (no `description`; `parameters` as a
//! bare map of properties, normalised to an object schema) and the
//! TypeScript SDK's camelCase spellings (`argumentLocation`,
//! `staticParameters`, …), each with a note. It rejects what the SDK's model
//! rejects (method `patch`, argument location `header`, operator `ne`, …)
//! with an error naming the place. Keys the SDK's model ignores inside nested
//! objects are left out with a note.
//!
//! Writing produces the current shape. A tool without a description gets
//! `""` (the current model requires one). Runs Syllable cannot execute
//! (command, prompt, a PATCH endpoint) are written as `action` tools — the
//! definition stays useful to the model and the host implements the call —
//! with a loss note; endpoint headers are left out with a note (Syllable
//! keeps authentication on the tool's Service).
//!
//! The API's tool records (`ToolCreateRequest` `{name, definition,
//! service_id}`, `ToolUpdateRequest`, `ToolResponse`) read as their
//! definition and are written back as a request (`record.rs`).
//!
//! Here: the `CODEC` and detection; `read.rs` reads a `ToolDefinition`,
//! `write.rs` writes one, `record.rs` the records around it.

mod read;
mod record;
mod write;

use serde_json::Value;

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::json::Entry;
use crate::note::Notes;
use crate::options::{ReadOptions, WriteOptions};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read: read_entry,
    write: write_entry,
    layout: Layout::List,
    check_set: None,
};

const ID: &str = "syllable";

fn detect(entry: &Value) -> bool {
    record::is_record(entry)
        || entry
            .get("tool")
            .and_then(|tool| tool.get("function"))
            .is_some_and(Value::is_object)
}

fn read_entry(entry: Entry, opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    if record::is_record(&entry.value) {
        record::read_record(entry, opts, notes)
    } else {
        read::read(entry, opts, notes)
    }
}

fn write_entry(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let definition = write::write(tool, opts, notes)?;
    Ok(record::wrap_in_record(tool, definition))
}

#[cfg(test)]
mod tests {
    use super::read::read;
    use super::write::write;
    use super::*;
    use crate::error::Result;
    use crate::json::Entry;
    use crate::note::Notes;
    use crate::options::{ReadOptions, WriteOptions};
    use crate::tool::{ActionRun, Run, Tool};
    use serde_json::json;

    fn read_doc(doc: &Value) -> (Result<Tool>, Vec<String>) {
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes);
        let lines = notes
            .iter()
            .map(|note| format!("{} {}", note.level(), note.at))
            .collect();
        (tool, lines)
    }

    #[test]
    fn log_tools_keep_their_type_through_the_vendor_fields() {
        let doc = json!({"type": "log", "tool": {"type": "function", "function": {"name": "note_it",
            "description": "Record it.", "parameters": {"type": "object"}}}});
        let (tool, notes) = read_doc(&doc);
        let tool = tool.unwrap();
        assert_eq!(tool.run, None);
        assert_eq!(notes, ["info /type"]);
        let mut notes = Notes::new();
        assert_eq!(write(&tool, &WriteOptions::default(), &mut notes).unwrap(), doc);
        assert!(notes.is_empty());
        let mut action = tool.clone();
        action.run = Some(Run::Action(ActionRun::default()));
        let written = write(&action, &WriteOptions::default(), &mut notes).unwrap();
        assert_eq!(written["type"], "action");
        assert_eq!(
            notes.iter().map(|note| note.at.as_str()).collect::<Vec<_>>(),
            ["/vendor/syllable/type"]
        );
    }

    #[test]
    fn a_create_request_reads_as_its_definition_and_writes_back_as_the_request() {
        let definition = json!({"type": "action", "tool": {"type": "function", "function": {
            "name": "transfer_call", "description": "Transfer.", "parameters": {"type": "object"}}}});
        let record = json!({"name": "transfer", "definition": definition, "service_id": 3});
        let mut notes = Notes::new();
        let tool = read_entry(Entry::root(record.clone()), &ReadOptions::default(), &mut notes).unwrap();
        assert_eq!(tool.name, "transfer_call");
        assert_eq!(
            notes.iter().map(|note| note.message.as_str()).collect::<Vec<_>>(),
            ["a tool record: its name, service_id kept for writing syllable again"]
        );
        let mut notes = Notes::new();
        assert_eq!(
            write_entry(&tool, &WriteOptions::default(), &mut notes).unwrap(),
            record
        );
        assert!(notes.is_empty(), "{notes:?}");
        // Without a record, the definition alone.
        let mut bare = tool.clone();
        bare.vendor = None;
        assert_eq!(
            write_entry(&bare, &WriteOptions::default(), &mut Notes::new()).unwrap(),
            definition
        );
    }
}
