//! What strict subsets cannot describe and write as a string of JSON: a
//! schema that accepts any value (OpenAI: "In context=('properties', 'x'),
//! schema must have a 'type' key"), an object that takes any keys (strict
//! objects are closed: it would accept only `{}`), and the items of an array
//! that says nothing about them. See [`crate::schema::encode`].

use serde_json::Value;

use crate::error::Result;

use crate::schema::encode::{describe_encoded, Encoded};
use crate::schema::keywords::{implied_type, type_names, Object, META};
use crate::schema::walk::Place;

use super::{Mark, Walker};
use crate::json::Field;

/// Keywords that say the node is more than "any value": its type comes
/// from them, or the walk handles them.
const TYPED_BY: &[&str] = &["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"];

impl Walker<'_, '_> {
    /// What the node below the root must be written as a string of JSON
    /// for, if anything.
    pub(super) fn encoding(&self, node: &Object) -> Option<Encoded> {
        let typed = TYPED_BY.iter().any(|key| node.contains_key(*key));
        if !typed {
            return match node.keys().find_map(|key| implied_type(key)) {
                None => Some(Encoded::Any),
                Some("object") => free_object(node).then_some(Encoded::Object),
                Some(_) => None,
            };
        }
        if ["enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .any(|key| node.contains_key(*key))
        {
            return None;
        }
        let types = node.field("type").and_then(type_names)?;
        let object_only =
            types.contains(&"object") && types.iter().all(|ty| matches!(*ty, "object" | "null"));
        (object_only && free_object(node)).then_some(Encoded::Object)
    }

    /// Writes the node as a string (nullable if it took `null`) whose
    /// description says it holds JSON; what described the value follows in
    /// the description. Records the output location.
    pub(super) fn write_encoded(&mut self, node: &Object, place: &Place, encoded: Encoded) -> Result<Value> {
        let nullable = node
            .field("type")
            .and_then(type_names)
            .is_some_and(|types| types.contains(&"null"));
        let why = match encoded {
            Encoded::Object => "closes every object (additionalProperties: false)",
            Encoded::Any => "needs a type on every schema",
        };
        self.ctx.note_encoded(place, encoded, why);
        let mut out = Object::new();
        out.insert(
            "type".into(),
            if nullable {
                serde_json::json!(["string", "null"])
            } else {
                Value::String("string".into())
            },
        );
        let mut moved = Object::new();
        for (key, value) in node {
            match key.as_str() {
                "type" => {}
                "title" | "description" if value.is_string() => {
                    out.insert(key.clone(), value.clone());
                }
                "properties" if value.as_object().is_none_or(|props| props.is_empty()) => {}
                "additionalProperties" if value == &Value::Bool(true) => {}
                _ if META.contains(&key.as_str()) => self.ctx.dropped(
                    key,
                    place,
                    "it is bookkeeping for schema authors, not part of what the model sees",
                ),
                _ => {
                    moved.insert(key.clone(), value.clone());
                }
            }
        }
        describe_encoded(&mut out, encoded);
        self.ctx.move_to_description(&mut out, moved, place)?;
        self.recorded.push((Mark::Encoded(encoded), self.out.clone()));
        Ok(Value::Object(out))
    }

    /// Gives an array without `items` items written as strings of JSON
    /// (OpenAI: "array schema missing items").
    pub(super) fn encode_missing_items(&mut self, out: &mut Object, place: &Place) {
        if !self.ctx.encode_missing_items(out, place, "string") {
            return;
        }
        let mut location = self.out.clone();
        location.push("items".into());
        self.recorded.push((Mark::Encoded(Encoded::Any), location));
    }
}

/// An object that takes keys it does not list: no properties, and no
/// `additionalProperties: false`.
fn free_object(node: &Object) -> bool {
    let has_properties = node
        .field("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| !props.is_empty());
    !has_properties && node.field("additionalProperties") != Some(&Value::Bool(false))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::testing::run;
    use crate::schema::Dialect;

    #[test]
    fn encoded_places_follow_kept_refs_through_recursion() {
        let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "required": ["root"],
            "$defs": {"node": {"type": "object", "properties": {
                "data": {"type": "object", "description": "Free-form."},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                "required": ["data", "children"]}}});
        let out = run(&tree, Dialect::OpenAi { strict: true });
        assert_eq!(
            out.schema["$defs"]["node"]["properties"]["data"],
            json!({"type": "string", "description": "Free-form.\n\nSend a JSON object here, encoded as a string of JSON."})
        );
        assert_eq!(
            out.rewrites,
            [json!({"kind": "json-encoded", "at": "/root/**/data", "object": true})]
        );
        let anthropic = run(&tree, Dialect::Anthropic { strict: true });
        assert_eq!(anthropic.rewrites, out.rewrites);
    }
}
