//! Reading: a SkyDeck document to a canonical tool.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::json::describe;
use crate::json::{Entry, Node};
use crate::note::{NoteKind, Notes};
use crate::options::ReadOptions;
use crate::tool::{Creator, Metadata, PromptRun, Run, Tool};

use super::avatar::read_avatar;
use super::output::read_expected_output;
use super::template::note_placeholders;
use super::{name_from, ID};

/// The `metadata` fields the format defines, in the order of its spec.
const METADATA_FIELDS: [&str; 12] = [
    "prompt_name",
    "description",
    "usage_notes",
    "model_version",
    "creator",
    "parameters",
    "variables",
    "expected_output",
    "avatar_type",
    "avatar",
    "timestamp",
    "version",
];

/// Reads one SkyDeck document.
pub(super) fn read(owned: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
    entry.object()?;
    let template = entry.string_field("model_prompt")?;
    let metadata = entry.field("metadata")?;
    metadata.object()?;

    let (name, title) = read_name(&metadata, notes)?;
    let (input_schema, declared) = read_variables(&metadata, notes)?;
    let mut tool = Tool::new(name, input_schema);
    tool.title = title;
    tool.description = metadata.opt_string("description")?;
    note_placeholders(&template, &declared, &entry, &metadata, notes);
    tool.run = Some(Run::Prompt(PromptRun::new(template)));
    tool.output_schema = metadata
        .get("expected_output")
        .map(|output| read_expected_output(&output, notes))
        .transpose()?;
    tool.icons = read_avatar(&metadata, notes)?.map(|icon| vec![icon]);

    let mut data = Metadata::default();
    if let Some(version) = entry.get("version") {
        data.version = Some(read_version(&version, notes)?);
    }
    data.timestamp = metadata.opt_string("timestamp")?;
    data.usage_notes = metadata.opt_string("usage_notes")?;
    data.creator = metadata
        .get("creator")
        .map(|creator| read_creator(&creator))
        .transpose()?;
    data.models = metadata
        .get("model_version")
        .map(|models| read_models(&models, notes))
        .transpose()?;
    if let Some(parameters) = metadata.get("parameters") {
        data.model_parameters = Some(parameters.object()?.clone());
    }
    for (key, value) in metadata.other_members(&METADATA_FIELDS) {
        notes.push(
            NoteKind::Kept {
                key: key.as_str().into(),
            },
            metadata.at.key(&key),
            format!("{key:?} is not a SkyDeck metadata field; kept in the tool's metadata"),
        );
        data.extra.insert(key, value);
    }
    if let Some(version) = metadata.get("version") {
        if data.version.is_none() {
            notes.push(
                NoteKind::Normalized {
                    field: "version".into(),
                },
                version.at.clone(),
                "\"version\" belongs at the top level of the document; read from metadata",
            );
            data.version = Some(read_version(&version, notes)?);
        } else {
            notes.push(
                NoteKind::Dropped {
                    keyword: "version".into(),
                },
                version.at.clone(),
                "the top-level \"version\" is used; this second one was left out",
            );
        }
    }
    if !data.is_empty() {
        tool.metadata = Some(data);
    }

    let mut vendor = Map::new();
    for (key, value) in entry.other_members(&["version", "model_prompt", "metadata"]) {
        notes.push(
            NoteKind::Kept {
                key: key.as_str().into(),
            },
            entry.at.key(&key),
            format!("{key:?} is not a SkyDeck field; kept for SkyDeck"),
        );
        vendor.insert(key, value);
    }
    tool.set_vendor_fields(ID, vendor);
    Ok(tool)
}

/// The tool name and title from `prompt_name`.
fn read_name(metadata: &Node<'_>, notes: &mut Notes) -> Result<(String, Option<String>)> {
    let Some(prompt_name) = metadata.opt_string("prompt_name")? else {
        notes.push(
            NoteKind::Defaulted { field: "name".into() },
            metadata.at.clone(),
            "no prompt_name; the tool is named \"prompt\"",
        );
        return Ok(("prompt".into(), None));
    };
    let at = metadata.at.key("prompt_name");
    match name_from(&prompt_name) {
        name if name == prompt_name => Ok((name, None)),
        name if name.is_empty() => {
            notes.push(
                NoteKind::Defaulted { field: "name".into() },
                at,
                "prompt_name has no ASCII letters or digits to make a tool name of; the tool is named \"prompt\"",
            );
            Ok(("prompt".into(), Some(prompt_name)))
        }
        name => {
            notes.push(
                NoteKind::Normalized { field: "name".into() },
                at,
                format!("the tool name {name:?} was made from prompt_name, which the title keeps"),
            );
            Ok((name, Some(prompt_name)))
        }
    }
}

fn read_version(node: &Node<'_>, notes: &mut Notes) -> Result<Value> {
    match node.value {
        Value::String(_) => Ok(node.value.clone()),
        Value::Number(number) if number.is_i64() || number.is_u64() => Ok(node.value.clone()),
        Value::Number(number) => {
            notes.push(
                NoteKind::Coerced {
                    from: "a number".into(),
                    to: "a string".into(),
                },
                node.at.clone(),
                format!("the version {number} is not an integer; read as the string \"{number}\""),
            );
            Ok(Value::String(number.to_string()))
        }
        other => Err(node.error(format!(
            "\"version\" must be a string or an integer, found {}",
            describe(other)
        ))),
    }
}

fn read_creator(node: &Node<'_>) -> Result<Creator> {
    node.object()?;
    Ok(Creator {
        name: node.opt_string("name")?,
        email: node.opt_string("email")?,
        organization: node.opt_string("organization")?,
        extra: node.other_members(&["name", "email", "organization"]),
    })
}

fn read_models(node: &Node<'_>, notes: &mut Notes) -> Result<Vec<String>> {
    if let Value::String(model) = node.value {
        notes.push(
            NoteKind::Normalized {
                field: "model_version".into(),
            },
            node.at.clone(),
            "\"model_version\" is one string (as the spec's prose says); read as a list of one model",
        );
        return Ok(vec![model.clone()]);
    }
    strings(
        node,
        "\"model_version\" must be a list of model names or one model name",
    )
}

/// The values of a list of strings, or an error with `problem`.
pub(super) fn strings(node: &Node<'_>, problem: &str) -> Result<Vec<String>> {
    let items = node
        .value
        .as_array()
        .ok_or_else(|| node.error(format!("{problem}, found {}", describe(node.value))))?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.as_str().map(str::to_string).ok_or_else(|| {
                Node::new(item, node.at.index(index))
                    .error(format!("{problem}, found {} in it", describe(item)))
            })
        })
        .collect()
}

/// The variable types, with the spellings the zh-CN spec block uses.
const VARIABLE_TYPES: [(&str, &str); 3] = [
    ("text", "文本"),
    ("single-select", "单选"),
    ("multi-select", "多选"),
];

/// The input schema built from `metadata.variables`, and the declared names.
fn read_variables(metadata: &Node<'_>, notes: &mut Notes) -> Result<(Value, Vec<String>)> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut declared: Vec<String> = Vec::new();
    let items = match metadata.get("variables") {
        Some(variables) => variables.array()?,
        None => Vec::new(),
    };
    for item in items {
        item.object()?;
        let name_node = item.field("name")?;
        let name = name_node.str()?.to_string();
        if name.is_empty() {
            return Err(name_node.error("\"name\" must not be empty"));
        }
        if declared.contains(&name) {
            return Err(name_node.error(format!("the variable {name:?} is declared twice")));
        }
        let (property, has_default) = read_variable(&item, notes)?;
        if !has_default {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name.clone(), property);
        declared.push(name);
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("object".into()));
    if !properties.is_empty() {
        schema.insert("properties".into(), Value::Object(properties));
    }
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Ok((Value::Object(schema), declared))
}

/// One variable as a property schema, and whether it has a default.
fn read_variable(item: &Node<'_>, notes: &mut Notes) -> Result<(Value, bool)> {
    let type_node = item.field("type")?;
    let given = type_node.str()?;
    let mut kind = match VARIABLE_TYPES
        .iter()
        .find(|(english, chinese)| given == *english || given == *chinese)
    {
        Some((english, chinese)) => {
            if given == *chinese {
                notes.push(
                    NoteKind::Normalized { field: "type".into() },
                    type_node.at.clone(),
                    format!("read the translated type {chinese:?} as {english:?}"),
                );
            }
            *english
        }
        None => {
            return Err(type_node.error(format!(
                "\"type\" must be one of \"text\", \"single-select\", \"multi-select\"; found {}",
                match type_node.value {
                    Value::String(text) => format!("{text:?}"),
                    other => describe(other).to_string(),
                }
            )))
        }
    };
    let allowed = item
        .get("allowed_values")
        .map(|allowed| {
            strings(&allowed, "\"allowed_values\" must be an array of strings")
                .map(|values| (allowed, values))
        })
        .transpose()?;
    match (kind, &allowed) {
        ("text", Some((allowed, _))) => notes.push(
            NoteKind::Dropped {
                keyword: "allowed_values".into(),
            },
            allowed.at.clone(),
            "a text variable has no choices; \"allowed_values\" was left out",
        ),
        ("single-select", None) => {
            notes.push(
                NoteKind::Normalized { field: "type".into() },
                type_node.at.clone(),
                "a single-select variable without \"allowed_values\" offers no choices; read as text",
            );
            kind = "text";
        }
        _ => {}
    }
    let choices = || -> Value {
        let values = allowed
            .as_ref()
            .map(|(_, values)| values.clone())
            .unwrap_or_default();
        Value::Array(values.into_iter().map(Value::String).collect())
    };

    let mut property = Map::new();
    if kind == "multi-select" {
        let mut items = Map::new();
        items.insert("type".into(), Value::String("string".into()));
        if allowed.is_some() {
            items.insert("enum".into(), choices());
        }
        property.insert("type".into(), Value::String("array".into()));
        property.insert("items".into(), Value::Object(items));
        property.insert("uniqueItems".into(), Value::Bool(true));
    } else {
        property.insert("type".into(), Value::String("string".into()));
        if kind == "single-select" {
            property.insert("enum".into(), choices());
        }
    }
    if let Some(description) = item.opt_string("description")? {
        property.insert("description".into(), Value::String(description));
    }
    let default = item.get("default");
    if let Some(default) = &default {
        property.insert("default".into(), read_default(default, kind, notes)?);
    }
    for key in item
        .other_members(&["name", "type", "description", "default", "allowed_values"])
        .keys()
    {
        notes.push(
            NoteKind::Dropped { keyword: key.into() },
            item.at.key(key),
            format!("{key:?} is not a SkyDeck variable field; left out"),
        );
    }
    Ok((Value::Object(property), default.is_some()))
}

fn read_default(default: &Node<'_>, kind: &str, notes: &mut Notes) -> Result<Value> {
    match (kind, default.value) {
        ("multi-select", Value::String(one)) => {
            notes.push(
                NoteKind::Normalized {
                    field: "default".into(),
                },
                default.at.clone(),
                "a multi-select default is a list; read the single string as a list of one",
            );
            Ok(Value::Array(vec![Value::String(one.clone())]))
        }
        ("multi-select", _) => {
            strings(default, "a multi-select \"default\" must be an array of strings")?;
            Ok(default.value.clone())
        }
        (_, Value::String(_)) => Ok(default.value.clone()),
        (kind, other) => Err(default.error(format!(
            "a {kind} \"default\" must be a string, found {}",
            describe(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_doc(doc: &Value) -> (Result<Tool>, Vec<String>) {
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes);
        (tool, notes.iter().map(ToString::to_string).collect())
    }

    fn doc_with_variables(variables: Value) -> Value {
        json!({"model_prompt": "Go to {{city}}.", "metadata": {"prompt_name": "trip", "variables": variables}})
    }

    #[test]
    fn reads_variables_into_the_input_schema() {
        let doc = doc_with_variables(json!([
            {"name": "city", "type": "single-select", "description": "Where.", "default": "Rome", "allowed_values": ["Rome", "Oslo"]},
            {"name": "sights", "type": "多选", "default": "museums", "allowed_values": ["museums", "parks"]},
            {"name": "notes", "type": "text"},
            {"name": "mood", "type": "single-select", "default": "calm"}
        ]));
        let (tool, notes) = read_doc(&doc);
        let tool = tool.unwrap();
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {
                "city": {"type": "string", "enum": ["Rome", "Oslo"], "description": "Where.", "default": "Rome"},
                "sights": {"type": "array", "items": {"type": "string", "enum": ["museums", "parks"]}, "uniqueItems": true,
                    "default": ["museums"]},
                "notes": {"type": "string"},
                "mood": {"type": "string", "default": "calm"}
            }, "required": ["notes"]})
        );
        assert_eq!(tool.run, Some(Run::Prompt(PromptRun::new("Go to {{city}}."))));
        assert_eq!(
            notes,
            [
                "info: read the translated type \"多选\" as \"multi-select\" (at /metadata/variables/1/type)",
                "info: a multi-select default is a list; read the single string as a list of one (at /metadata/variables/1/default)",
                "info: a single-select variable without \"allowed_values\" offers no choices; read as text (at /metadata/variables/3/type)",
                "info: the variable \"sights\" is never used in model_prompt; kept as an input (at /metadata/variables/1)",
                "info: the variable \"notes\" is never used in model_prompt; kept as an input (at /metadata/variables/2)",
                "info: the variable \"mood\" is never used in model_prompt; kept as an input (at /metadata/variables/3)",
            ]
        );
    }

    #[test]
    fn errors_name_the_place() {
        let cases = [
            (
                doc_with_variables(json!([{"name": "city", "type": "dropdown"}])),
                "invalid tool: \"type\" must be one of \"text\", \"single-select\", \"multi-select\"; found \"dropdown\" (at /metadata/variables/0/type)",
            ),
            (
                doc_with_variables(json!([{"name": "city", "type": "single-select", "allowed_values": "Rome, Oslo"}])),
                "invalid tool: \"allowed_values\" must be an array of strings, found a string (at /metadata/variables/0/allowed_values)",
            ),
            (
                doc_with_variables(json!([{"name": "city", "type": "multi-select", "allowed_values": ["Rome", 7]}])),
                "invalid tool: \"allowed_values\" must be an array of strings, found a number in it (at /metadata/variables/0/allowed_values/1)",
            ),
            (
                doc_with_variables(json!([{"name": "city", "type": "text", "default": 3}])),
                "invalid tool: a text \"default\" must be a string, found a number (at /metadata/variables/0/default)",
            ),
            (
                doc_with_variables(json!([{"name": "city", "type": "text"}, {"name": "city", "type": "text"}])),
                "invalid tool: the variable \"city\" is declared twice (at /metadata/variables/1/name)",
            ),
            (
                doc_with_variables(json!({"city": {"type": "text"}})),
                "invalid tool: \"variables\" must be an array, found an object (at /metadata/variables)",
            ),
            (
                json!({"version": true, "model_prompt": "x", "metadata": {}}),
                "invalid tool: \"version\" must be a string or an integer, found a boolean (at /version)",
            ),
            (
                json!({"model_prompt": "x", "metadata": {"avatar_type": "file", "avatar": "a.png"}}),
                "invalid tool: \"avatar_type\" must be \"url\" or \"base64\"; found \"file\" (at /metadata/avatar_type)",
            ),
            (
                json!({"model_prompt": "x", "metadata": {"model_version": 4}}),
                "invalid tool: \"model_version\" must be a list of model names or one model name, found a number (at /metadata/model_version)",
            ),
            (
                json!({"model_prompt": "x"}),
                "invalid tool: missing required field \"metadata\"",
            ),
            (
                json!({"model_prompt": ["x"], "metadata": {}}),
                "invalid tool: \"model_prompt\" must be a string, found an array (at /model_prompt)",
            ),
        ];
        for (doc, expected) in cases {
            let (tool, _) = read_doc(&doc);
            assert_eq!(tool.unwrap_err().to_string(), expected, "{doc}");
        }
    }
}
