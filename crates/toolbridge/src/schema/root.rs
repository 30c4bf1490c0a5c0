//! Combinators at the root of a tool's parameters, which OpenAI (Chat and
//! Responses), Anthropic and Bedrock refuse, strict or not: OpenAI "schema
//! must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not'
//! at the top level" (langchain-ai/langchainjs#9804), Anthropic
//! "input_schema does not support oneOf, allOf, or anyOf at the top level"
//! (anthropics/claude-code#5878); Bedrock passes Anthropic's rule on.
//! Gemini's `parameters` root must be an OBJECT, and Ollama's server reads
//! the root as `ToolFunctionParameters` (type, properties, required), so
//! they get the same lowering, as do Mistral and Cohere, whose APIs follow
//! OpenAI's shape.
//!
//! The root is rewritten as one object: `allOf` branches are combined into
//! it (the same meaning, when they agree); the properties of `anyOf` and
//! `oneOf` branches are merged, a property required only where every branch
//! requires it and a property the branches describe differently written as
//! an `anyOf` of their schemas, and the branches themselves (like `enum` and
//! `not`) are written into the description, so the model still reads the
//! rule. An object that matches a branch matches the merged object, so the
//! arguments keep their shape and there is nothing to undo on the way back;
//! validating against the canonical schema still checks the whole rule.

use std::collections::HashSet;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;
use crate::rewrite::Rewrite;

use super::keywords::{describe, merge_into, type_names, Object};
use super::refs::lookup;
use super::strict::fragment_pointer;
use crate::json::Field;

/// The one property a root that takes any keys is written under.
const NESTED_KEY: &str = "arguments";

/// Keywords that stay on the root when the arguments are nested: where
/// `$ref`s point, and what describes the document.
const STAY_AT_ROOT: &[&str] = &["$defs", "definitions", "$schema", "$id"];

/// A root that takes any keys and lists no properties (a map of arguments)
/// for a target that needs properties at the root (Gemini: "should be
/// non-empty for OBJECT type"; strict modes close the root, which would then
/// accept only `{}`): the arguments become the one property `arguments`,
/// which the dialect then writes as a string of JSON, and the nesting is
/// recorded. `None` for any other root; a bare `{"type": "object"}` is a
/// tool without arguments and stays as it is.
pub(super) fn nest_free_root(
    schema: &Value,
    at: &Pointer,
    target: &'static str,
    notes: &mut Notes,
) -> Option<Value> {
    let root = schema.as_object()?;
    let is_object = root
        .field("type")
        .and_then(type_names)
        .is_none_or(|types| types == ["object"]);
    let has_properties = root
        .field("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| !props.is_empty());
    let takes_any_key = matches!(
        root.field("additionalProperties"),
        Some(Value::Object(_) | Value::Bool(true))
    ) || root.has_field("patternProperties");
    if !is_object || has_properties || !takes_any_key {
        return None;
    }
    let mut inner = Object::new();
    let mut wrapper = Object::new();
    for (key, value) in root {
        if STAY_AT_ROOT.contains(&key.as_str()) {
            wrapper.insert(key.clone(), value.clone());
        } else {
            inner.insert(key.clone(), value.clone());
        }
    }
    inner.insert("type".into(), Value::String("object".into()));
    let mut properties = Object::new();
    properties.insert(NESTED_KEY.into(), Value::Object(inner));
    wrapper.insert("type".into(), Value::String("object".into()));
    wrapper.insert("properties".into(), Value::Object(properties));
    wrapper.insert("required".into(), serde_json::json!([NESTED_KEY]));
    notes.push(
        NoteKind::Rewritten {
            keyword: "properties".into(),
        },
        at.clone(),
        format!(
            "{target} needs properties at the root, and these arguments take any keys; they were written as the one property {NESTED_KEY:?} (the call's arguments are taken out of it)"
        ),
    );
    notes.record(
        at,
        Rewrite::Nested {
            key: NESTED_KEY.into(),
        },
    );
    Some(Value::Object(wrapper))
}

/// The keywords these targets refuse at the root.
const REFUSED: &[&str] = &["allOf", "anyOf", "oneOf", "enum", "not"];

/// The schema with its root combinators lowered, or `None` if it has none.
pub(super) fn merge_root(
    schema: &Value,
    at: &Pointer,
    target: &'static str,
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Option<Value>> {
    let Some(root) = schema.as_object() else {
        return Ok(None);
    };
    if !REFUSED.iter().any(|key| root.contains_key(*key)) {
        return Ok(None);
    }
    let mut out: Object = root
        .iter()
        .filter(|(key, _)| !REFUSED.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut moved = Object::new();
    let mut merged_any = false;
    if let Some(Value::Array(branches)) = root.field("allOf") {
        for branch in branches {
            let branch = resolve(schema, branch, limits);
            for (keyword, value) in merge_into(&mut out, &branch) {
                moved.entry(keyword).or_insert(value);
            }
        }
        notes.push(
            NoteKind::Rewritten {
                keyword: "allOf".into(),
            },
            at.clone(),
            format!("{target} refuses allOf at the root of the parameters; its branches were combined into the root object"),
        );
    }
    let mut alternatives: Vec<Object> = Vec::new();
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = root.get(key) else {
            continue;
        };
        let mut objects = Vec::new();
        for branch in branches {
            let branch = resolve(schema, branch, limits);
            let takes_objects = branch
                .field("type")
                .and_then(type_names)
                .is_none_or(|types| types.contains(&"object"));
            if takes_objects && branch.field("not") != Some(&Value::Object(Object::new())) {
                objects.push(branch);
            }
        }
        alternatives.extend(objects);
        moved.insert(key.into(), Value::Array(branches.clone()));
        merged_any = true;
    }
    if merged_any {
        merge_alternatives(&mut out, &alternatives);
    }
    for key in ["enum", "not"] {
        if let Some(value) = root.get(key) {
            moved.insert(key.into(), value.clone());
        }
    }
    if !out.has_field("type") {
        out.shift_insert(0, "type".into(), Value::String("object".into()));
    }
    if !moved.is_empty() {
        let description = out.field("description").and_then(Value::as_str);
        let text = describe(description, &moved, limits.max_depth).ok_or_else(|| {
            Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "a keyword written into the description is nested more than {} levels deep",
                    limits.max_depth
                ),
            )
            .at(at.clone())
        })?;
        out.insert("description".into(), Value::String(text));
        for keyword in moved.keys() {
            let how = match keyword.as_str() {
                "anyOf" | "oneOf" => " after its branches' properties were merged into the root object (a property is required only where every branch requires it)",
                _ => "",
            };
            notes.push(
                NoteKind::MovedToDescription {
                    keyword: keyword.into(),
                },
                at.clone(),
                format!(
                    "{target} refuses {keyword} at the root of the parameters; it was written into the description{how}"
                ),
            );
        }
    }
    Ok(Some(Value::Object(out)))
}

/// Merges the properties of alternative branches into `out`: a property
/// the branches describe differently becomes an `anyOf` of their schemas
/// (the root's own description of it wins); `required` gains the names
/// every branch requires.
fn merge_alternatives(out: &mut Object, alternatives: &[Object]) {
    let mut properties = out
        .field("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let own: HashSet<String> = properties.keys().cloned().collect();
    for branch in alternatives {
        for (name, schema) in branch
            .field("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if own.contains(name) {
                continue;
            }
            match properties.get_mut(name) {
                None => {
                    properties.insert(name.clone(), schema.clone());
                }
                Some(existing) if existing == schema => {}
                Some(existing) => {
                    let variants = match existing.field("anyOf") {
                        Some(Value::Array(variants))
                            if existing.as_object().is_some_and(|e| e.len() == 1) =>
                        {
                            variants.clone()
                        }
                        _ => vec![existing.clone()],
                    };
                    let mut variants = variants;
                    if !variants.contains(schema) {
                        variants.push(schema.clone());
                    }
                    let mut union = Object::new();
                    union.insert("anyOf".into(), Value::Array(variants));
                    *existing = Value::Object(union);
                }
            }
        }
    }
    if !properties.is_empty() {
        out.insert("properties".into(), Value::Object(properties));
    }
    let mut common: Option<Vec<String>> = None;
    for branch in alternatives {
        let names: Vec<String> = branch
            .field("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|name| name.as_str().map(String::from))
            .collect();
        common = Some(match common {
            None => names,
            Some(previous) => previous.into_iter().filter(|name| names.contains(name)).collect(),
        });
    }
    let common = common.unwrap_or_default();
    if common.is_empty() {
        return;
    }
    let mut required: Vec<Value> = out
        .field("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for name in common {
        let name = Value::String(name);
        if !required.contains(&name) {
            required.push(name);
        }
    }
    out.insert("required".into(), Value::Array(required));
}

/// A branch as an object: a local `$ref` followed (a few steps, never in a
/// circle), a boolean schema as its object form.
fn resolve(root: &Value, branch: &Value, limits: &Limits) -> Object {
    let mut current = branch;
    let mut seen = HashSet::new();
    for _ in 0..limits.max_depth {
        let Some(reference) = current.field("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(target) = fragment_pointer(reference).and_then(|pointer| {
            seen.insert(pointer.clone())
                .then(|| lookup(root, &pointer))
                .flatten()
        }) else {
            break;
        };
        if current.as_object().is_some_and(|node| node.len() > 1) {
            break;
        }
        current = target;
    }
    match current {
        Value::Object(object) => object.clone(),
        Value::Bool(true) => Object::new(),
        _ => {
            let mut never = Object::new();
            never.insert("not".into(), Value::Object(Object::new()));
            never
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::testing::{notes, run};
    use crate::schema::Dialect;

    /// A lookup by one key or another, as zod's `z.union` of two objects
    /// writes it: the shape of langchain-ai/langchainjs#9804, which OpenAI
    /// refused at the top level.
    fn lookup_by_id_or_email() -> serde_json::Value {
        json!({"type": "object", "description": "Find a user.",
            "properties": {"verbose": {"type": "boolean"}},
            "oneOf": [
                {"type": "object", "properties": {"id": {"type": "integer"}, "fields": {"type": "string"}},
                 "required": ["id", "fields"]},
                {"type": "object", "properties": {"email": {"type": "string"}, "fields": {"type": "array"}},
                 "required": ["email", "fields"]}]})
    }

    #[test]
    fn alternative_branches_merge_into_one_object_for_every_refusing_target() {
        let merged_properties = json!({"verbose": {"type": "boolean"},
            "id": {"type": "integer"},
            "fields": {"anyOf": [{"type": "string"}, {"type": "array"}]},
            "email": {"type": "string"}});
        for dialect in [
            Dialect::OpenAi { strict: false },
            Dialect::Anthropic { strict: false },
            Dialect::Bedrock { strict: false },
        ] {
            let out = run(&lookup_by_id_or_email(), dialect);
            assert_eq!(out.schema["properties"], merged_properties, "{dialect:?}");
            assert_eq!(out.schema["required"], json!(["fields"]), "{dialect:?}");
            assert_eq!(out.schema.get("oneOf"), None, "{dialect:?}");
            assert!(
                out.schema["description"]
                    .as_str()
                    .unwrap()
                    .starts_with("Find a user.\n\n{\"oneOf\": [{\"type\": \"object\""),
                "{dialect:?}"
            );
            assert_eq!(
                out.notes,
                notes(&[("moved-to-description", "/inputSchema")]),
                "{dialect:?}"
            );
            assert!(out.rewrites.is_empty());
        }
        for dialect in [Dialect::GeminiJson, Dialect::JsonSchema, Dialect::Elisp] {
            assert!(
                run(&lookup_by_id_or_email(), dialect)
                    .schema
                    .get("oneOf")
                    .is_some(),
                "{dialect:?}"
            );
        }
    }

    #[test]
    fn strict_mode_gets_a_plain_root_and_records_what_became_optional() {
        let out = run(&lookup_by_id_or_email(), Dialect::OpenAi { strict: true });
        assert_eq!(
            out.schema["properties"]["fields"],
            json!({"anyOf": [{"type": "string"},
                {"type": "array", "items": {"type": "string",
                    "description": "Send any JSON value here, encoded as a string of JSON."}}]})
        );
        assert_eq!(
            out.schema["required"],
            json!(["fields", "verbose", "id", "email"])
        );
        assert_eq!(out.absent, ["/verbose", "/id", "/email"]);
        assert!(
            !out.notes.iter().any(|(kind, _)| kind == "unsupported"),
            "{:?}",
            out.notes
        );
        let anthropic = run(&lookup_by_id_or_email(), Dialect::Anthropic { strict: true });
        assert!(!anthropic.notes.iter().any(|(kind, _)| kind == "unsupported"));
        assert_eq!(anthropic.schema["required"], json!(["fields"]));
    }

    #[test]
    fn a_root_that_takes_any_keys_is_nested_where_the_root_needs_properties() {
        let map = json!({"type": "object", "description": "Labels to set.",
            "additionalProperties": {"type": "string"}});
        let gemini = run(&map, Dialect::GeminiOpenApi);
        assert_eq!(
            gemini.schema,
            json!({"type": "OBJECT", "properties": {"arguments": {"type": "STRING", "description":
                "Labels to set.\n\nSend a JSON object here, encoded as a string of JSON.\n\n{\"additionalProperties\": {\"type\": \"string\"}}"}},
                "required": ["arguments"]})
        );
        assert_eq!(
            gemini.rewrites,
            [
                json!({"kind": "nested", "key": "arguments"}),
                json!({"kind": "json-encoded", "at": "/arguments", "object": true}),
            ]
        );
        let strict = run(&map, Dialect::OpenAi { strict: true });
        assert_eq!(strict.schema["properties"]["arguments"]["type"], json!("string"));
        assert_eq!(strict.schema["required"], json!(["arguments"]));
        for dialect in [Dialect::OpenAi { strict: false }, Dialect::GeminiJson] {
            assert_eq!(run(&map, dialect).schema, map, "{dialect:?}");
        }
        let no_arguments = run(&json!({"type": "object"}), Dialect::GeminiOpenApi);
        assert_eq!(no_arguments.schema, json!({"type": "OBJECT"}));
    }

    #[test]
    fn all_of_enum_and_not_at_the_root() {
        let out = run(
            &json!({"allOf": [{"$ref": "#/$defs/base"}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}],
                "not": {"required": ["c"]}, "enum": [{"a": 1, "b": "x"}],
                "$defs": {"base": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}),
            Dialect::OpenAi { strict: false },
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "$defs": {"base": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}},
                "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a", "b"],
                "description": "{\"enum\": [{\"a\": 1, \"b\": \"x\"}], \"not\": {\"required\": [\"c\"]}}"})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema"),
                ("moved-to-description", "/inputSchema"),
                ("moved-to-description", "/inputSchema"),
            ])
        );
    }
}
