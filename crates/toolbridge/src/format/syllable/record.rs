//! The tool records around a `ToolDefinition` in Syllable's API (syllable-sdk
//! 0.49.87, `models/toolcreaterequest.py`, `toolupdaterequest.py`,
//! `toolresponse.py`): `{name, definition, service_id}` to create a tool,
//! plus `id` (and `last_updated_comments`) to update one; a `ToolResponse`
//! adds what the server sets.
//!
//! A record reads as its definition, the request fields kept under
//! `vendor.syllable.record`; writing a tool that has them writes the request
//! again, so a record read from the console's API goes back to it.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::json::Entry;
use crate::note::{NoteKind, Notes};
use crate::options::ReadOptions;
use crate::tool::Tool;

use super::{read, ID};

/// The vendor key holding a record's request fields.
pub(super) const RECORD_KEY: &str = "record";

/// The fields of `ToolCreateRequest` and `ToolUpdateRequest` besides the
/// definition, in the SDK's order.
const REQUEST_FIELDS: [&str; 4] = ["name", "service_id", "id", "last_updated_comments"];

/// The fields only a `ToolResponse` has: the server sets them.
const RESPONSE_FIELDS: [&str; 7] = [
    "last_updated",
    "last_updated_by",
    "version_number",
    "service_name",
    "prompts_info",
    "agents_info",
    "validation_issues",
];

/// Is this entry a tool record (a definition inside `definition`)?
pub(super) fn is_record(entry: &Value) -> bool {
    entry
        .get("definition")
        .and_then(|definition| definition.get("tool"))
        .and_then(|tool| tool.get("function"))
        .is_some_and(Value::is_object)
}

/// Reads a record: its definition as the tool, its request fields kept.
pub(super) fn read_record(entry: Entry, opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let Value::Object(mut record) = entry.value else {
        unreachable!("is_record checked that the entry is an object");
    };
    let definition = record.shift_remove("definition").unwrap_or_default();
    let mut tool = read::read(
        Entry {
            value: definition,
            at: entry.at.key("definition"),
        },
        opts,
        notes,
    )?;
    let mut kept = Map::new();
    for (key, value) in record {
        let at = entry.at.key(&key);
        if REQUEST_FIELDS.contains(&key.as_str()) {
            kept.insert(key, value);
        } else if RESPONSE_FIELDS.contains(&key.as_str()) {
            notes.push(
                NoteKind::Dropped {
                    keyword: key.as_str().into(),
                },
                at,
                format!("{key:?} is set by Syllable's server (a ToolResponse field); left out"),
            );
        } else {
            notes.push(
                NoteKind::Kept {
                    key: key.as_str().into(),
                },
                at,
                format!(
                    "syllable defines no {key:?} field in a tool record; kept on the tool \
                     (toolbridge and MCP files carry it), not written to provider formats"
                ),
            );
            tool.extra.insert(key, value);
        }
    }
    if !kept.is_empty() {
        let listed: Vec<&str> = kept.keys().map(String::as_str).collect();
        notes.push(
            NoteKind::Kept {
                key: RECORD_KEY.into(),
            },
            entry.at.clone(),
            format!(
                "a tool record: its {} kept for writing syllable again",
                listed.join(", ")
            ),
        );
        let mut vendor = tool.vendor_fields(ID).cloned().unwrap_or_default();
        vendor.insert(RECORD_KEY.into(), Value::Object(kept));
        tool.set_vendor_fields(ID, vendor);
    }
    Ok(tool)
}

/// Wraps a written definition in the request the tool's kept record fields
/// describe, or returns it as it is when the tool has none.
pub(super) fn wrap_in_record(tool: &Tool, definition: Value) -> Value {
    let Some(Value::Object(kept)) = tool.vendor_fields(ID).and_then(|vendor| vendor.get(RECORD_KEY)) else {
        return definition;
    };
    let mut record = Map::new();
    if let Some(name) = kept.get("name") {
        record.insert("name".into(), name.clone());
    }
    record.insert("definition".into(), definition);
    for key in &REQUEST_FIELDS[1..] {
        if let Some(value) = kept.get(*key) {
            record.insert(key.to_string(), value.clone());
        }
    }
    Value::Object(record)
}
