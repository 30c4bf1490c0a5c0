//! Writing: a canonical tool as a SkyDeck document.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::format::shared::{merge_vendor, note_uncarried};
use crate::note::{NoteKind, Notes};
use crate::options::{Format, WriteOptions};
use crate::pointer::Pointer;
use crate::tool::Tool;

use super::avatar::write_avatar;
use super::name_from;
use super::output::write_expected_output;
use super::template::write_prompt;

/// Writes one tool as a SkyDeck document.
pub(super) fn write(tool: &Tool, _opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    let data = tool.metadata.clone().unwrap_or_default();
    let metadata_at = Pointer::root().key("metadata");
    let mut doc = Map::new();
    if let Some(version) = &data.version {
        doc.insert("version".into(), version.clone());
    }
    doc.insert("model_prompt".into(), Value::String(write_prompt(tool, notes)));

    let mut meta = Map::new();
    let prompt_name = tool.title.clone().unwrap_or_else(|| tool.name.clone());
    let reads_as = match name_from(&prompt_name) {
        name if name.is_empty() => "prompt".to_string(),
        name => name,
    };
    if reads_as != tool.name {
        notes.push(
            NoteKind::Dropped { keyword: "name".into() },
            Pointer::root().key("name"),
            format!(
                "SkyDeck has only prompt_name ({prompt_name:?}); the tool name {:?} reads back as {reads_as:?}",
                tool.name
            ),
        );
    }
    if tool.title.is_some() && reads_as == prompt_name {
        notes.push(
            NoteKind::Rewritten {
                keyword: "title".into(),
            },
            Pointer::root().key("title"),
            format!(
                "the title went into prompt_name; {prompt_name:?} is itself a valid tool name, so it reads back as the name, with no title"
            ),
        );
    }
    meta.insert("prompt_name".into(), Value::String(prompt_name));
    if let Some(description) = &tool.description {
        meta.insert("description".into(), Value::String(description.clone()));
    }
    if let Some(usage_notes) = &data.usage_notes {
        meta.insert("usage_notes".into(), Value::String(usage_notes.clone()));
    }
    if let Some(models) = &data.models {
        meta.insert(
            "model_version".into(),
            Value::Array(models.iter().cloned().map(Value::String).collect()),
        );
    }
    if let Some(creator) = &data.creator {
        meta.insert(
            "creator".into(),
            serde_json::to_value(creator).expect("a Creator always serializes"),
        );
    }
    if let Some(parameters) = &data.model_parameters {
        meta.insert("parameters".into(), Value::Object(parameters.clone()));
    }
    let variables = write_variables(&tool.input_schema, notes);
    if !variables.is_empty() {
        meta.insert("variables".into(), Value::Array(variables));
    }
    if let Some(output) = &tool.output_schema {
        meta.insert("expected_output".into(), write_expected_output(output, notes));
    }
    if let Some(icons) = &tool.icons {
        write_avatar(icons, &mut meta, notes);
    }
    if let Some(timestamp) = &data.timestamp {
        meta.insert("timestamp".into(), Value::String(timestamp.clone()));
    }
    for (key, value) in &data.extra {
        if meta.contains_key(key) || key == "version" {
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
                metadata_at.key(key),
                format!("{key:?} is a SkyDeck metadata field already written from the tool; this copy was left out"),
            );
        } else {
            meta.insert(key.clone(), value.clone());
        }
    }
    doc.insert("metadata".into(), Value::Object(meta));
    merge_vendor(tool, Format::Skydeck, &mut doc, notes);
    note_uncarried(
        tool,
        &[
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "icons",
            "run",
            "metadata",
            "vendor",
        ],
        Format::Skydeck,
        notes,
    );
    Ok(Value::Object(doc))
}

/// The keywords of the input schema's root a SkyDeck document expresses.
const ROOT_KEYWORDS: [&str; 3] = ["type", "properties", "required"];

fn write_variables(schema: &Value, notes: &mut Notes) -> Vec<Value> {
    let at = Pointer::root().key("inputSchema");
    let Some(root) = schema.as_object() else {
        return Vec::new();
    };
    for key in root.keys().filter(|key| !ROOT_KEYWORDS.contains(&key.as_str())) {
        notes.push(
            NoteKind::Dropped { keyword: key.into() },
            at.key(key),
            format!("SkyDeck variables have no place for {key:?}; left out"),
        );
    }
    let required: Vec<&str> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let properties = root
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (key, is_empty) in [
        (
            "properties",
            root.get("properties").is_some() && properties.is_empty(),
        ),
        ("required", root.get("required").is_some() && required.is_empty()),
    ] {
        if is_empty {
            notes.push(
                NoteKind::Rewritten { keyword: key.into() },
                at.key(key),
                format!("an empty {key:?} says nothing; left out"),
            );
        }
    }
    let mut variables = Vec::new();
    let mut reads_required = Vec::new();
    for (name, property) in properties {
        let (variable, has_default) = write_variable(name, property, &at.key("properties").key(name), notes);
        let is_required = required.contains(&name.as_str());
        if is_required && has_default {
            notes.push(
                NoteKind::Rewritten {
                    keyword: "required".into(),
                },
                at.key("required"),
                format!("SkyDeck variables with a default are optional; {name:?} reads back as optional"),
            );
        } else if !is_required && !has_default {
            notes.push(
                NoteKind::MadeRequired {
                    property: name.into(),
                },
                at.key("required"),
                format!(
                    "SkyDeck reads a variable without a default as required; {name:?} reads back as required"
                ),
            );
        }
        if !has_default && is_required {
            reads_required.push(name.as_str());
        }
        variables.push(variable);
    }
    let still_required: Vec<&str> = required
        .iter()
        .copied()
        .filter(|name| reads_required.contains(name))
        .collect();
    if still_required != reads_required {
        notes.push(
            NoteKind::Rewritten {
                keyword: "required".into(),
            },
            at.key("required"),
            "\"required\" reads back in the order of the variables",
        );
    }
    for name in required.iter().filter(|name| !properties.contains_key(**name)) {
        notes.push(
            NoteKind::Dropped {
                keyword: "required".into(),
            },
            at.key("required"),
            format!("{name:?} is required but has no property; SkyDeck cannot declare it"),
        );
    }
    variables
}

/// One input property as a variable, and whether it got a default.
fn write_variable(name: &str, property: &Value, at: &Pointer, notes: &mut Notes) -> (Value, bool) {
    let empty = Map::new();
    let schema = property.as_object().unwrap_or(&empty);
    let string_enum = |schema: &Map<String, Value>| -> Option<Vec<Value>> {
        let values = schema.get("enum")?.as_array()?;
        values.iter().all(Value::is_string).then(|| values.clone())
    };
    let items = schema
        .get("items")
        .and_then(Value::as_object)
        .filter(|items| items.get("type").and_then(Value::as_str) == Some("string"));
    // The keys of `schema` the variable expresses (or that were noted already).
    let mut handled: Vec<&str> = vec!["type", "description", "default"];
    let (kind, allowed) = match (schema.get("type").and_then(Value::as_str), items) {
        (Some("string"), _) => {
            handled.push("enum");
            match string_enum(schema) {
                Some(values) => ("single-select", Some(values)),
                None if schema.contains_key("enum") => {
                    dropped(
                        notes,
                        "enum",
                        at.key("enum"),
                        "SkyDeck choices are strings; the enum was left out".into(),
                    );
                    ("text", None)
                }
                None => ("text", None),
            }
        }
        (Some("array"), Some(items)) => {
            handled.extend(["items", "uniqueItems"]);
            let allowed = string_enum(items);
            for key in items
                .keys()
                .filter(|key| !matches!(key.as_str(), "type" | "enum"))
            {
                dropped(
                    notes,
                    key,
                    at.key("items").key(key),
                    format!("SkyDeck multi-select choices have no place for {key:?}; left out"),
                );
            }
            if items.contains_key("enum") && allowed.is_none() {
                dropped(
                    notes,
                    "enum",
                    at.key("items").key("enum"),
                    "SkyDeck choices are strings; the enum was left out".into(),
                );
            }
            if schema.get("uniqueItems") != Some(&Value::Bool(true)) {
                notes.push(
                    NoteKind::Rewritten {
                        keyword: "uniqueItems".into(),
                    },
                    at.key("uniqueItems"),
                    format!(
                        "a SkyDeck multi-select picks each choice once; {name:?} reads back with uniqueItems"
                    ),
                );
            }
            ("multi-select", allowed)
        }
        (ty, _) => {
            let what = match (ty, property) {
                (Some(ty), _) => format!("the {ty} property {name:?} is"),
                (None, Value::Object(_)) => format!("the property {name:?} is"),
                (None, other) => format!("the property {name:?} (the schema {other}) is"),
            };
            dropped(
                notes,
                "type",
                at.clone(),
                format!("SkyDeck variables are text, single-select or multi-select; {what} written as text"),
            );
            handled.push("items");
            ("text", None)
        }
    };
    let mut variable = Map::new();
    variable.insert("name".into(), Value::String(name.to_string()));
    variable.insert("type".into(), Value::String(kind.into()));
    if let Some(description) = schema.get("description").and_then(Value::as_str) {
        variable.insert("description".into(), Value::String(description.into()));
    }
    let mut has_default = false;
    if let Some(default) = schema.get("default") {
        let (fits, wanted) = match kind {
            "multi-select" => (
                default
                    .as_array()
                    .is_some_and(|items| items.iter().all(Value::is_string)),
                "a list of strings",
            ),
            _ => (default.is_string(), "a string"),
        };
        if fits {
            variable.insert("default".into(), default.clone());
            has_default = true;
        } else {
            dropped(
                notes,
                "default",
                at.key("default"),
                format!("a SkyDeck {kind} default must be {wanted}; left out"),
            );
        }
    }
    if let Some(values) = allowed {
        variable.insert("allowed_values".into(), Value::Array(values));
    }
    for key in schema.keys().filter(|key| !handled.contains(&key.as_str())) {
        dropped(
            notes,
            key,
            at.key(key),
            format!("SkyDeck variables have no place for {key:?}; left out"),
        );
    }
    (Value::Object(variable), has_default)
}

fn dropped(notes: &mut Notes, keyword: &str, at: Pointer, message: String) {
    notes.push(
        NoteKind::Dropped {
            keyword: keyword.into(),
        },
        at,
        message,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_tool(tool: Value) -> (Value, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        (written, notes.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn writes_variables_and_notes_what_does_not_fit() {
        let (written, notes) = write_tool(json!({
            "name": "plan_trip", "title": "Plan trip", "description": "Plan a trip.",
            "inputSchema": {"type": "object", "properties": {
                "city": {"type": "string", "enum": ["Rome", "Oslo"], "default": "Rome"},
                "days": {"type": "integer", "minimum": 1},
                "sights": {"type": "array", "items": {"type": "string", "enum": ["museums", "parks"]}},
                "notes": {"type": "string", "description": "Anything else.", "maxLength": 200}
            }, "required": ["notes", "city"], "additionalProperties": false},
            "run": {"kind": "prompt", "template": "Plan {{days}} days in {{city}}."},
            "metadata": {"version": 2, "models": ["gpt-4o"], "modelParameters": {"temperature": 0.5}, "team": "travel"}
        }));
        assert_eq!(
            written,
            json!({"version": 2, "model_prompt": "Plan {{days}} days in {{city}}.", "metadata": {
                "prompt_name": "Plan trip", "description": "Plan a trip.", "model_version": ["gpt-4o"],
                "parameters": {"temperature": 0.5},
                "variables": [
                    {"name": "city", "type": "single-select", "default": "Rome", "allowed_values": ["Rome", "Oslo"]},
                    {"name": "days", "type": "text"},
                    {"name": "sights", "type": "multi-select", "allowed_values": ["museums", "parks"]},
                    {"name": "notes", "type": "text", "description": "Anything else."}
                ],
                "team": "travel"}})
        );
        assert_eq!(
            notes,
            [
                "loss: SkyDeck variables have no place for \"additionalProperties\"; left out (at /inputSchema/additionalProperties)",
                "change: SkyDeck variables with a default are optional; \"city\" reads back as optional (at /inputSchema/required)",
                "loss: SkyDeck variables are text, single-select or multi-select; the integer property \"days\" is written as text (at /inputSchema/properties/days)",
                "loss: SkyDeck variables have no place for \"minimum\"; left out (at /inputSchema/properties/days/minimum)",
                "change: SkyDeck reads a variable without a default as required; \"days\" reads back as required (at /inputSchema/required)",
                "change: a SkyDeck multi-select picks each choice once; \"sights\" reads back with uniqueItems (at /inputSchema/properties/sights/uniqueItems)",
                "change: SkyDeck reads a variable without a default as required; \"sights\" reads back as required (at /inputSchema/required)",
                "loss: SkyDeck variables have no place for \"maxLength\"; left out (at /inputSchema/properties/notes/maxLength)",
            ]
        );
    }
}
