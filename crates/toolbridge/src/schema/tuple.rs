//! Draft-4 tuples (`"items": [a, b]`, `additionalItems` for the rest), which
//! are not 2020-12: there `items` is one schema, and a tuple is
//! `prefixItems` (with `items` for the rest). Where the target has
//! `prefixItems` the tuple is respelled (the same meaning); where it does
//! not, `items` becomes the union of the positions' schemas and the
//! positions go into the description (`prefixItems` is written there by the
//! dialect's own walk), with a note. An array stays an array, so the
//! arguments keep their shape and there is nothing to undo.
//!
//! A schema that declares an older draft in `$schema` keeps its tuples
//! where `$schema` is kept (JSON Schema, MCP): it means what it says there.

use serde_json::Value;

use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

use super::keywords::{Object, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use crate::json::Field;

/// Drafts whose `items` may be a list.
const OLD_DRAFTS: &[&str] = &["draft-03", "draft-04", "draft-06", "draft-07", "2019-09"];

/// True if `schema` declares, in `$schema`, a draft with array-form `items`.
pub(super) fn declares_old_draft(schema: &Value) -> bool {
    schema
        .field("$schema")
        .and_then(Value::as_str)
        .is_some_and(|uri| OLD_DRAFTS.iter().any(|draft| uri.contains(draft)))
}

/// The schema with every array-form `items` respelled (`prefix_items`: the
/// target has `prefixItems`) or lowered, or `None` if it has none.
pub(super) fn respell_tuples(
    schema: &Value,
    at: &Pointer,
    prefix_items: bool,
    target: &'static str,
    max_depth: usize,
    notes: &mut Notes,
) -> Option<Value> {
    if !has_tuple(schema, max_depth, prefix_items) {
        return None;
    }
    let mut out = schema.clone();
    visit(&mut out, at, prefix_items, target, max_depth, notes);
    Some(out)
}

/// Whether some schema node (within `max_depth`) has an array `items`, or a
/// `prefixItems` the target lacks.
fn has_tuple(schema: &Value, max_depth: usize, prefix_items: bool) -> bool {
    let mut stack = vec![(schema, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        let Value::Object(node) = value else {
            continue;
        };
        if node.field("items").is_some_and(Value::is_array)
            || (!prefix_items && node.field("prefixItems").is_some_and(Value::is_array))
        {
            return true;
        }
        if depth < max_depth {
            // Read for every schema of every tool: no allocation per child.
            for (key, value) in node {
                let key = key.as_str();
                match value {
                    Value::Array(items) if SCHEMA_LISTS.contains(&key) => {
                        stack.extend(items.iter().map(|item| (item, depth + 1)));
                    }
                    Value::Object(map) if SCHEMA_MAPS.contains(&key) => {
                        stack.extend(map.values().map(|schema| (schema, depth + 1)));
                    }
                    Value::Object(_) if ONE_SCHEMA.contains(&key) => stack.push((value, depth + 1)),
                    _ => {}
                }
            }
        }
    }
    false
}

/// The subschemas of `node`, each with its path below the node.
fn children(node: &Object) -> Vec<(Vec<String>, &Value)> {
    let mut found = Vec::new();
    for (key, value) in node {
        let key = key.as_str();
        match value {
            Value::Array(items) if SCHEMA_LISTS.contains(&key) => {
                for (index, item) in items.iter().enumerate() {
                    found.push((vec![key.to_string(), index.to_string()], item));
                }
            }
            Value::Object(map) if SCHEMA_MAPS.contains(&key) => {
                for (name, schema) in map {
                    found.push((vec![key.to_string(), name.clone()], schema));
                }
            }
            Value::Object(_) if ONE_SCHEMA.contains(&key) => found.push((vec![key.to_string()], value)),
            _ => {}
        }
    }
    found
}

fn visit(
    value: &mut Value,
    at: &Pointer,
    prefix_items: bool,
    target: &'static str,
    depth_left: usize,
    notes: &mut Notes,
) {
    let Value::Object(node) = value else {
        return;
    };
    if !prefix_items
        && node.field("prefixItems").is_some_and(Value::is_array)
        && !node.field("items").is_some_and(Value::is_array)
    {
        // A 2020-12 tuple where the target has none: lowered as its draft-4
        // spelling is.
        if let Some(positions) = node.shift_remove("prefixItems") {
            if let Some(rest) = node.shift_remove("items") {
                node.insert("additionalItems".into(), rest);
            }
            node.insert("items".into(), positions);
        }
    }
    if node.field("items").is_some_and(Value::is_array) {
        rewrite(node, at, prefix_items, target, notes);
    }
    if depth_left == 0 {
        return;
    }
    let paths: Vec<Vec<String>> = children(node).into_iter().map(|(path, _)| path).collect();
    for path in paths {
        let child_at = path.iter().fold(at.clone(), |pointer, token| pointer.key(token));
        let mut child = Some(&mut *value);
        for token in &path {
            child = match child {
                Some(Value::Object(map)) => map.get_mut(token.as_str()),
                Some(Value::Array(items)) => {
                    token.parse::<usize>().ok().and_then(|index| items.get_mut(index))
                }
                _ => None,
            };
        }
        if let Some(child) = child {
            visit(child, &child_at, prefix_items, target, depth_left - 1, notes);
        }
    }
}

/// Rewrites one node's array-form `items` (and its `additionalItems`).
fn rewrite(node: &mut Object, at: &Pointer, prefix_items: bool, target: &'static str, notes: &mut Notes) {
    let Some(Value::Array(positions)) = node.shift_remove("items") else {
        return;
    };
    let rest = node.shift_remove("additionalItems");
    let count = positions.len();
    if prefix_items && !node.has_field("prefixItems") {
        node.insert("prefixItems".into(), Value::Array(positions));
        if let Some(rest) = rest {
            node.insert("items".into(), rest);
        }
        notes.push(
            NoteKind::Rewritten {
                keyword: "items".into(),
            },
            at.clone(),
            "the draft-4 tuple \"items\": [...] was written as prefixItems (with additionalItems as items), its 2020-12 spelling",
        );
        return;
    }
    let mut union: Vec<Value> = Vec::new();
    for schema in positions
        .iter()
        .chain(rest.iter().filter(|rest| rest.is_object()))
    {
        if !union.contains(schema) {
            union.push(schema.clone());
        }
    }
    if rest == Some(Value::Bool(false)) {
        let max = node
            .field("maxItems")
            .and_then(Value::as_u64)
            .map_or(count as u64, |max| max.min(count as u64));
        node.insert("maxItems".into(), Value::from(max));
    }
    let items = match union.len() {
        0 => Value::Bool(true),
        1 => union.remove(0),
        _ => {
            let mut any_of = Object::new();
            any_of.insert("anyOf".into(), Value::Array(union));
            Value::Object(any_of)
        }
    };
    node.insert("items".into(), items);
    node.entry("prefixItems").or_insert(Value::Array(positions));
    let beyond = match rest {
        None | Some(Value::Bool(true)) => {
            "; items past the tuple, which took any value, are held to the same union"
        }
        _ => "",
    };
    notes.push(
        NoteKind::MovedToDescription {
            keyword: "items".into(),
        },
        at.clone(),
        format!(
            "{target} has no tuples: the tuple's {count} positions were written into the description, and each item may match any position's schema{beyond}"
        ),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::testing::{notes, run};
    use crate::schema::Dialect;

    /// A draft-7 tuple: a point as `[x, y]`, no more items.
    fn point() -> serde_json::Value {
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
            "at": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false},
            "tags": {"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "integer"}}},
            "required": ["at", "tags"]})
    }

    #[test]
    fn tuples_become_prefix_items_where_the_dialect_has_them() {
        for dialect in [
            Dialect::GeminiJson,
            Dialect::Bedrock { strict: false },
            Dialect::Cohere { strict: false },
        ] {
            let out = run(&point(), dialect);
            assert_eq!(
                out.schema["properties"],
                json!({
                    "at": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false},
                    "tags": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}}),
                "{dialect:?}"
            );
            assert_eq!(
                out.notes
                    .iter()
                    .filter(|(kind, _)| kind == "rewritten")
                    .cloned()
                    .collect::<Vec<_>>(),
                notes(&[
                    ("rewritten", "/inputSchema/properties/at"),
                    ("rewritten", "/inputSchema/properties/tags")
                ]),
                "{dialect:?}"
            );
        }
        for dialect in [Dialect::JsonSchema, Dialect::OpenAi { strict: false }] {
            assert_eq!(
                run(&point(), dialect).schema,
                point(),
                "{dialect:?}: $schema says draft 7"
            );
        }
    }

    #[test]
    fn without_prefix_items_the_positions_go_into_the_description() {
        let out = run(&point(), Dialect::OpenAi { strict: true });
        assert_eq!(
            out.schema["properties"],
            json!({
                "at": {"type": "array", "maxItems": 2, "items": {"type": "number"},
                    "description": "{\"prefixItems\": [{\"type\": \"number\"}, {\"type\": \"number\"}]}"},
                "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "description": "{\"prefixItems\": [{\"type\": \"string\"}]}"}})
        );
        assert_eq!(
            out.notes[..4],
            notes(&[
                ("moved-to-description", "/inputSchema/properties/at"),
                ("moved-to-description", "/inputSchema/properties/tags"),
                ("dropped", "/inputSchema/$schema"),
                ("moved-to-description", "/inputSchema/properties/at"),
            ])[..]
        );
        let gemini = run(&point(), Dialect::GeminiOpenApi);
        assert_eq!(
            gemini.schema["properties"]["at"]["items"],
            json!({"type": "NUMBER"})
        );
    }

    #[test]
    fn a_2020_12_tuple_is_lowered_like_a_draft_4_one_where_the_target_has_none() {
        let schema = json!({"type": "object", "properties": {
            "at": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}}});
        let out = run(&schema, Dialect::GeminiOpenApi);
        assert_eq!(out.schema["properties"]["at"]["items"], json!({"type": "NUMBER"}));
        assert_eq!(out.schema["properties"]["at"]["maxItems"], json!(2));
        let strict = run(&schema, Dialect::OpenAi { strict: true });
        assert_eq!(
            strict.schema["properties"]["at"],
            json!({"type": ["array", "null"], "maxItems": 2, "items": {"type": "number"},
                "description": "{\"prefixItems\": [{\"type\": \"number\"}, {\"type\": \"number\"}]}"})
        );
        // Kept where the dialect has tuples.
        let plain = run(&schema, Dialect::GeminiJson);
        assert_eq!(plain.schema["properties"]["at"], schema["properties"]["at"]);
    }
}
