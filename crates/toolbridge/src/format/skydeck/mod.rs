//! `skydeck`: SkyDeck's "JSON format for LLM tools", a portable prompt
//! template with typed variables.
//!
//! ```json
//! {"version": 2,
//!  "model_prompt": "Review this {{language}} code: {{code}}",
//!  "metadata": {"prompt_name": "Code Reviewer", "description": "…", "usage_notes": "…",
//!    "model_version": ["gpt-4o"], "creator": {"name": "…", "email": "…", "organization": "…"},
//!    "parameters": {"temperature": 0.2, "max_tokens": 800},
//!    "variables": [{"name": "language", "type": "single-select", "default": "Rust",
//!                   "allowed_values": ["Rust", "Go"]}, …],
//!    "expected_output": {"type": "text", "format": "Markdown"},
//!    "avatar_type": "url", "avatar": "https://…", "timestamp": "2026-05-01T09:30:00Z"}}
//! ```
//!
//! Mapping:
//!
//! | SkyDeck | canonical |
//! | --- | --- |
//! | `model_prompt` | `run: {"kind": "prompt", "template": …}` (same `{{variable}}` syntax) |
//! | `metadata.prompt_name` | `title`; `name` is the prompt name itself when it is a valid tool name (`[A-Za-z0-9_.-]+`), else its lowercase ASCII words joined by `_` (`"Code Reviewer"` → `code_reviewer`), else `prompt` |
//! | `metadata.description` | `description` |
//! | `version`, `metadata.timestamp`, `.creator`, `.usage_notes`, `.model_version`, `.parameters` | `metadata.version`, `.timestamp`, `.creator`, `.usageNotes`, `.models`, `.modelParameters` |
//! | other `metadata` keys / other top-level keys | `metadata` (kept as given) / `vendor.skydeck` |
//! | variable `text` | property `{"type": "string"}` |
//! | variable `single-select` | property `{"type": "string", "enum": allowed_values}` |
//! | variable `multi-select` | property `{"type": "array", "items": {"type": "string", "enum": allowed_values}, "uniqueItems": true}` |
//! | variable `description`, `default` | the property's `description`, `default`; a variable **without a default is required** |
//! | `expected_output` | `outputSchema`: `{"type": "string"}`, `allowed_values` → `enum`; the output `type` is implied (`limited` with allowed values, else `text`) or kept as `x-skydeck-type`; `format`, `language` → `x-skydeck-format`, `x-skydeck-language` |
//! | `avatar_type: url` / `base64` + `avatar` | `icons[0].src`: the URL / a `data:` URI whose MIME type is recognised from the image bytes |
//!
//! Reading accepts the sloppiness of the published sample, each with a note:
//! `model_version` as one string, the translated variable types
//! `文本`/`单选`/`多选`, a `single-select` without choices (read as text), a
//! single string as a `multi-select` default, `avatar` as an object holding
//! `avatar_type` and `avatar`, a missing `avatar_type`. Placeholders with no
//! declared variable, and variables the prompt never uses, are noted.
//!
//! Writing a tool without a prompt run generates `model_prompt` from the
//! description and the input properties (a note says so): the tool keeps a
//! usable form instead of failing, and reads back as a prompt tool. Input
//! properties that fit no variable type are written as text variables, and
//! output schemas that are not strings as text in JSON format, with loss notes.
//! One tool is written as one SkyDeck document; several as a list of them.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::codec::JsonCodec;
use crate::error::Result;
use crate::format::shared::{merge_vendor, note_uncarried};
use crate::json::describe;
use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::tool::{Creator, Icon, Metadata, PromptRun, Run, Tool};

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read,
    write,
    wrap,
    check_set: None,
};

const ID: &str = "skydeck";

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

/// The output-schema keywords that carry `expected_output` fields JSON Schema
/// has no word for.
const OUTPUT_TYPE: &str = "x-skydeck-type";
const OUTPUT_FORMAT: &str = "x-skydeck-format";
const OUTPUT_LANGUAGE: &str = "x-skydeck-language";

fn detect(entry: &Value) -> bool {
    entry.get("model_prompt").is_some() && entry.get("metadata").is_none_or(Value::is_object)
}

fn wrap(mut entries: Vec<Value>) -> Value {
    if entries.len() == 1 {
        entries.remove(0)
    } else {
        Value::Array(entries)
    }
}

// ---------------------------------------------------------------- reading

fn read(entry: Node<'_>, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
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
            NoteKind::Kept { key: key.clone() },
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
            NoteKind::Kept { key: key.clone() },
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

/// The tool name a prompt name reads as: itself when it is a valid tool name,
/// else its lowercase ASCII words joined by `_` (empty when it has none).
fn name_from(prompt_name: &str) -> String {
    let valid = !prompt_name.is_empty()
        && prompt_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if valid {
        return prompt_name.to_string();
    }
    let mut name = String::new();
    let mut gap = false;
    for c in prompt_name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !name.is_empty() {
                name.push('_');
            }
            gap = false;
            name.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    name
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
fn strings(node: &Node<'_>, problem: &str) -> Result<Vec<String>> {
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
            NoteKind::Dropped { keyword: key.clone() },
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

/// Notes placeholders with no declared variable, and variables no placeholder uses.
fn note_placeholders(
    template: &str,
    declared: &[String],
    entry: &Node<'_>,
    metadata: &Node<'_>,
    notes: &mut Notes,
) {
    let used = placeholders(template);
    for name in &used {
        if !declared.contains(name) {
            notes.push(
                NoteKind::Kept { key: name.clone() },
                entry.at.key("model_prompt"),
                format!(
                    "the placeholder {{{{{name}}}}} names no declared variable; kept in the prompt as it is"
                ),
            );
        }
    }
    for (index, name) in declared.iter().enumerate() {
        if !used.contains(name) {
            notes.push(
                NoteKind::Kept { key: name.clone() },
                metadata.at.key("variables").index(index),
                format!("the variable {name:?} is never used in model_prompt; kept as an input"),
            );
        }
    }
}

/// The distinct `{{ name }}` placeholders of a template, in order of first use.
fn placeholders(template: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            break;
        };
        let name = after[..end].trim();
        if !name.is_empty() && !name.contains('{') && seen.insert(name.to_string()) {
            found.push(name.to_string());
        }
        rest = &after[end + 2..];
    }
    found
}

fn read_expected_output(node: &Node<'_>, notes: &mut Notes) -> Result<Value> {
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
            NoteKind::Dropped { keyword: key.clone() },
            node.at.key(key),
            format!("{key:?} is not an expected_output field; left out"),
        );
    }
    Ok(Value::Object(schema))
}

fn read_avatar(metadata: &Node<'_>, notes: &mut Notes) -> Result<Option<Icon>> {
    let (holder, type_key) = match metadata.get("avatar") {
        Some(avatar) if avatar.value.is_object() => {
            notes.push(
                NoteKind::Normalized {
                    field: "avatar".into(),
                },
                avatar.at.clone(),
                "\"avatar\" is an object holding avatar_type and avatar (as the spec's prose says); \
                 read as the two flat fields",
            );
            if let Some(outer) = metadata.get("avatar_type") {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "avatar_type".into(),
                    },
                    outer.at.clone(),
                    "the avatar object's own avatar_type is used; this one was left out",
                );
            }
            (avatar, "avatar_type")
        }
        _ => (metadata.clone(), "avatar_type"),
    };
    let avatar_type = holder.get(type_key);
    let Some(avatar) = holder.get("avatar") else {
        if let Some(avatar_type) = avatar_type {
            notes.push(
                NoteKind::Dropped {
                    keyword: "avatar_type".into(),
                },
                avatar_type.at.clone(),
                "\"avatar_type\" is given without an avatar; left out",
            );
        }
        return Ok(None);
    };
    let image = avatar.str()?.trim();
    if image.is_empty() {
        notes.push(
            NoteKind::Dropped {
                keyword: "avatar".into(),
            },
            avatar.at.clone(),
            "the avatar is empty; left out",
        );
        return Ok(None);
    }
    let kind = match &avatar_type {
        Some(node) => match node.str()? {
            kind @ ("url" | "base64") => kind,
            other => {
                return Err(node.error(format!(
                    "\"avatar_type\" must be \"url\" or \"base64\"; found {other:?}"
                )))
            }
        },
        None => {
            let inferred = if image.starts_with("data:") || !looks_like_url(image) {
                "base64"
            } else {
                "url"
            };
            notes.push(
                NoteKind::Defaulted {
                    field: "avatar_type".into(),
                },
                avatar.at.clone(),
                format!("no avatar_type; the avatar reads as {inferred}"),
            );
            inferred
        }
    };
    if kind == "url" || image.starts_with("data:") {
        if kind == "base64" && avatar_type.is_some() {
            notes.push(
                NoteKind::Normalized {
                    field: "avatar".into(),
                },
                avatar.at.clone(),
                "the base64 avatar is already a data: URI; used as it is",
            );
        }
        return Ok(Some(Icon::new(image)));
    }
    let mime = match image_type(image) {
        Some(mime) => mime,
        None => {
            notes.push(
                NoteKind::Defaulted {
                    field: "mimeType".into(),
                },
                avatar.at.clone(),
                "the avatar's image type was not recognised; its data: URI says application/octet-stream",
            );
            "application/octet-stream"
        }
    };
    Ok(Some(Icon::new(format!("data:{mime};base64,{image}"))))
}

fn looks_like_url(text: &str) -> bool {
    text.contains("://") || text.starts_with('/')
}

/// The MIME type of base64-encoded image data, from its first bytes.
fn image_type(base64: &str) -> Option<&'static str> {
    const SIGNATURES: [(&str, &str); 7] = [
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("R0lGOD", "image/gif"),
        ("UklGR", "image/webp"),
        ("PHN2Zy", "image/svg+xml"),
        ("PD94bWwg", "image/svg+xml"),
        ("AAABAA", "image/x-icon"),
    ];
    SIGNATURES
        .iter()
        .find(|(prefix, _)| base64.starts_with(prefix))
        .map(|(_, mime)| *mime)
}

// ---------------------------------------------------------------- writing

fn write(tool: &Tool, _opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
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
                NoteKind::Dropped { keyword: key.clone() },
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

/// The prompt template; for a tool without a prompt run, one generated from
/// its description and input properties.
fn write_prompt(tool: &Tool, notes: &mut Notes) -> String {
    if let Some(Run::Prompt(prompt)) = &tool.run {
        return prompt.template.clone();
    }
    let mut lines = vec![tool
        .description
        .clone()
        .unwrap_or_else(|| tool.display_title().to_string())];
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    if let Some(properties) = properties.filter(|properties| !properties.is_empty()) {
        lines.push(String::new());
        lines.extend(properties.keys().map(|name| format!("{name}: {{{{{name}}}}}")));
    }
    let generated = "model_prompt was generated from the description and the input properties";
    match &tool.run {
        Some(run) => notes.push(
            NoteKind::Dropped {
                keyword: "run".into(),
            },
            Pointer::root().key("run"),
            format!(
                "SkyDeck tools are prompt templates; the {} run cannot be expressed, and {generated}",
                run.kind()
            ),
        ),
        None => notes.push(
            NoteKind::Placeholder {
                field: "model_prompt".into(),
            },
            Pointer::root().key("run"),
            format!("SkyDeck tools are prompt templates and this tool has none; {generated}"),
        ),
    }
    lines.join("\n")
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
            NoteKind::Dropped { keyword: key.clone() },
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
                    property: name.clone(),
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

fn write_expected_output(schema: &Value, notes: &mut Notes) -> Value {
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
                NoteKind::Dropped { keyword: key.clone() },
                at.key(key),
                format!("SkyDeck's expected_output has no place for {key:?}; left out"),
            );
        }
    }
    Value::Object(output)
}

fn write_avatar(icons: &[Icon], meta: &mut Map<String, Value>, notes: &mut Notes) {
    let at = Pointer::root().key("icons");
    for index in 1..icons.len() {
        notes.push(
            NoteKind::Dropped {
                keyword: "icons".into(),
            },
            at.index(index),
            "SkyDeck has one avatar; this icon was left out",
        );
    }
    let Some(icon) = icons.first() else {
        return;
    };
    let icon_at = at.index(0);
    let (kind, avatar) = match icon.src.strip_prefix("data:") {
        Some(data) => match data.split_once(";base64,") {
            Some((mime, payload)) => {
                let reads_as = image_type(payload).unwrap_or("application/octet-stream");
                if !mime.eq_ignore_ascii_case(reads_as) {
                    notes.push(
                        NoteKind::Rewritten {
                            keyword: "src".into(),
                        },
                        icon_at.key("src"),
                        format!("SkyDeck keeps only the base64 image; its type {mime:?} reads back as {reads_as:?}"),
                    );
                }
                ("base64", payload.to_string())
            }
            None => {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "icons".into(),
                    },
                    icon_at,
                    "SkyDeck avatars are URLs or base64 images; this data: URI is not base64, left out",
                );
                return;
            }
        },
        None => ("url", icon.src.clone()),
    };
    meta.insert("avatar_type".into(), Value::String(kind.into()));
    meta.insert("avatar".into(), Value::String(avatar));
    let Value::Object(fields) = serde_json::to_value(icon).expect("an Icon always serializes") else {
        return;
    };
    for key in fields.keys().filter(|key| *key != "src") {
        notes.push(
            NoteKind::Dropped { keyword: key.clone() },
            icon_at.key(key),
            format!("SkyDeck avatars have no {key:?}; left out"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_doc(doc: &Value) -> (Result<Tool>, Vec<String>) {
        let mut notes = Notes::new();
        let tool = read(Node::root(doc), &ReadOptions::default(), &mut notes);
        (tool, notes.iter().map(ToString::to_string).collect())
    }

    fn write_tool(tool: Value) -> (Value, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        (written, notes.iter().map(ToString::to_string).collect())
    }

    fn doc_with_variables(variables: Value) -> Value {
        json!({"model_prompt": "Go to {{city}}.", "metadata": {"prompt_name": "trip", "variables": variables}})
    }

    #[test]
    fn names_come_from_prompt_names() {
        assert_eq!(name_from("get_weather"), "get_weather");
        assert_eq!(name_from("getWeather.v2"), "getWeather.v2");
        assert_eq!(name_from("Code Reviewer"), "code_reviewer");
        assert_eq!(name_from("  SQL -> Python (beta) "), "sql_python_beta");
        assert_eq!(name_from("翻译助手"), "");
        assert_eq!(name_from("翻译 GPT 助手"), "gpt");
    }

    #[test]
    fn placeholders_are_found_once_in_order() {
        assert_eq!(
            placeholders("{{ a }} and {{b}}, {{a}}, {{}} {{{c}}} {{ d e }} {{unclosed"),
            ["a", "b", "d e"]
        );
        assert_eq!(placeholders("no placeholders {single}"), Vec::<String>::new());
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

    #[test]
    fn avatars_become_icons_and_back() {
        let png = "iVBORw0KGgoAAAANSUhEUg";
        let doc = json!({"model_prompt": "x", "metadata": {"prompt_name": "p", "avatar_type": "base64", "avatar": png}});
        let (tool, notes) = read_doc(&doc);
        let tool = tool.unwrap();
        assert_eq!(
            tool.icons,
            Some(vec![Icon::new(format!("data:image/png;base64,{png}"))])
        );
        assert_eq!(notes, Vec::<String>::new());
        let mut notes = Notes::new();
        assert_eq!(write(&tool, &WriteOptions::default(), &mut notes).unwrap(), doc);
        assert!(notes.is_empty());

        let mut meta = Map::new();
        let icons = vec![
            Icon::new(format!("data:image/jpeg;base64,{png}")),
            Icon::new("https://example.com/b.png"),
        ];
        write_avatar(&icons, &mut meta, &mut notes);
        assert_eq!(
            Value::Object(meta),
            json!({"avatar_type": "base64", "avatar": png})
        );
        let lines: Vec<String> = notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "loss: SkyDeck has one avatar; this icon was left out (at /icons/1)",
                "change: SkyDeck keeps only the base64 image; its type \"image/jpeg\" reads back as \"image/png\" (at /icons/0/src)",
            ]
        );

        let (tool, notes) =
            read_doc(&json!({"model_prompt": "x", "metadata": {"avatar": "https://example.com/a.png"}}));
        assert_eq!(
            tool.unwrap().icons,
            Some(vec![Icon::new("https://example.com/a.png")])
        );
        assert_eq!(
            notes[1],
            "info: no avatar_type; the avatar reads as url (at /metadata/avatar)"
        );
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

    #[test]
    fn a_tool_without_a_prompt_gets_a_generated_one() {
        let (written, notes) = write_tool(json!({"name": "get_weather", "description": "Current weather.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}));
        assert_eq!(written["model_prompt"], "Current weather.\n\ncity: {{city}}");
        assert_eq!(
            notes,
            ["change: SkyDeck tools are prompt templates and this tool has none; model_prompt was generated from the description and the input properties (at /run)"]
        );
        let (written, notes) = write_tool(
            json!({"name": "ping", "title": "Ping!", "inputSchema": {"type": "object"},
            "run": {"kind": "command", "program": "ping"}}),
        );
        assert_eq!(written["model_prompt"], "Ping!");
        assert_eq!(written["metadata"]["prompt_name"], "Ping!");
        assert_eq!(
            notes,
            [
                "loss: SkyDeck tools are prompt templates; the command run cannot be expressed, and model_prompt was generated from the description and the input properties (at /run)",
            ]
        );
    }

    #[test]
    fn one_document_is_not_wrapped() {
        assert_eq!(wrap(vec![json!({"a": 1})]), json!({"a": 1}));
        assert_eq!(wrap(vec![json!(1), json!(2)]), json!([1, 2]));
    }
}
