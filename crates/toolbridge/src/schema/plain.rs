//! Dialects that take JSON Schema nearly as given: Gemini's
//! `parametersJsonSchema`, Bedrock, Mistral and Cohere. The walk visits every
//! subschema, drops the bookkeeping keywords the target rejects, and either
//! keeps `$ref`s (checking they resolve) or inlines them all.

use serde_json::Value;

use crate::error::Result;
use crate::note::NoteKind;

use super::keywords::{Object, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use super::refs::Inlined;
use super::walk::{Ctx, Place};

/// How a plain dialect treats a schema.
pub(super) struct Plain {
    /// Keywords the target rejects, dropped wherever they appear.
    pub(super) drop: &'static [&'static str],
    /// Why they are dropped, for the note.
    pub(super) drop_reason: &'static str,
    /// Inline every `$ref` and drop `$defs`/`definitions`, for the reason
    /// given (a clause after the target's name); `None` keeps them.
    pub(super) inline: Option<&'static str>,
}

impl Plain {
    /// Lowers the schema at `ctx.root`.
    pub(super) fn lower(&self, ctx: &mut Ctx<'_>) -> Result<Value> {
        let root = ctx.root;
        let place = Place::root(&ctx.at);
        self.node(ctx, root, &place, 0)
    }

    fn node(&self, ctx: &mut Ctx<'_>, value: &Value, place: &Place, depth: usize) -> Result<Value> {
        let Value::Object(node) = value else {
            return Ok(value.clone());
        };
        let depth = ctx.enter(depth, place)?;
        if let Some(Value::String(reference)) = node.get("$ref") {
            if let Some(reason) = self.inline {
                let mark = ctx.mark();
                let why = format!("{} {reason}", ctx.target);
                let result = match ctx.inline(node, reference, place, &why)? {
                    Inlined::Schema { schema, place } => {
                        self.node(ctx, &Value::Object(schema), &place, depth)
                    }
                    Inlined::Replaced(schema) => self.node_map(ctx, &schema, place, depth),
                };
                ctx.release(mark);
                return result;
            }
            if let Some(spelling) = ctx.keep_ref(reference, place)? {
                let mut node = node.clone();
                node.insert("$ref".into(), Value::String(spelling.clone()));
                ctx.note(
                    NoteKind::Rewritten {
                        keyword: "$ref".into(),
                    },
                    place.at("$ref"),
                    format!(
                        "{reference:?} was written as {spelling:?}, which does not rely on $id or $anchor"
                    ),
                );
                return self.node_map(ctx, &node, place, depth);
            }
        }
        self.node_map(ctx, node, place, depth)
    }

    fn node_map(&self, ctx: &mut Ctx<'_>, node: &Object, place: &Place, depth: usize) -> Result<Value> {
        let mut out = Object::new();
        for (key, value) in node {
            if self.drop.contains(&key.as_str()) {
                ctx.dropped(key, place, self.drop_reason);
                continue;
            }
            if self.inline.is_some() && (key == "$defs" || key == "definitions") {
                ctx.note(
                    NoteKind::Rewritten { keyword: key.clone() },
                    place.at(key),
                    format!("every $ref was inlined, so {key:?} is no longer needed and was removed"),
                );
                continue;
            }
            let lowered = self.keyword(ctx, key, value, place, depth)?;
            out.insert(key.clone(), lowered);
        }
        Ok(Value::Object(out))
    }

    fn keyword(
        &self,
        ctx: &mut Ctx<'_>,
        key: &str,
        value: &Value,
        place: &Place,
        depth: usize,
    ) -> Result<Value> {
        let at = place.key(key);
        Ok(match value {
            Value::Object(_) | Value::Bool(_) if ONE_SCHEMA.contains(&key) => {
                self.schema(ctx, value, &at, depth)?
            }
            Value::Array(items) if SCHEMA_LISTS.contains(&key) => {
                let mut lowered = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    lowered.push(self.schema(ctx, item, &at.index(index), depth)?);
                }
                Value::Array(lowered)
            }
            Value::Object(map) if SCHEMA_MAPS.contains(&key) => {
                let mut lowered = Object::new();
                for (name, schema) in map {
                    let schema = if schema.is_object() || schema.is_boolean() {
                        self.schema(ctx, schema, &at.key(name), depth)?
                    } else {
                        schema.clone()
                    };
                    lowered.insert(name.clone(), schema);
                }
                Value::Object(lowered)
            }
            other => other.clone(),
        })
    }

    /// A subschema; a boolean one is kept unless it must be inlined into.
    fn schema(&self, ctx: &mut Ctx<'_>, value: &Value, place: &Place, depth: usize) -> Result<Value> {
        match value {
            Value::Bool(_) => Ok(value.clone()),
            Value::Object(_) => self.node(ctx, value, place, depth),
            other => Ok(other.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::{notes, run};
    use super::super::Dialect;

    #[test]
    fn gemini_json_keeps_refs_and_drops_bookkeeping() {
        let out = run(
            &json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/t",
                "type": "object", "properties": {
                    "a": {"$ref": "https://example.com/t#/$defs/x", "$comment": "c"},
                    "b": {"$ref": "#here"},
                    "c": {"$ref": "#/$defs/x", "description": "kept beside it"}},
                "$defs": {"x": {"type": "string", "$anchor": "here"}}}),
            Dialect::GeminiJson,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                    "a": {"$ref": "#/$defs/x"},
                    "b": {"$ref": "#/$defs/x"},
                    "c": {"$ref": "#/$defs/x", "description": "kept beside it"}},
                "$defs": {"x": {"type": "string", "$anchor": "here"}}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("dropped", "/inputSchema/$schema"),
                ("dropped", "/inputSchema/$id"),
                ("rewritten", "/inputSchema/properties/a/$ref"),
                ("dropped", "/inputSchema/properties/a/$comment"),
                ("rewritten", "/inputSchema/properties/b/$ref"),
            ])
        );
    }

    #[test]
    fn bedrock_mistral_and_cohere_inline_refs_and_drop_schema_keywords() {
        let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:t", "type": "object",
            "properties": {"p": {"$ref": "#/definitions/p"}, "q": {"type": "string", "$comment": "kept"}},
            "definitions": {"p": {"type": "integer", "minimum": 1}}});
        let bedrock = run(&schema, Dialect::Bedrock { strict: false });
        assert_eq!(
            bedrock.schema,
            json!({"type": "object", "properties": {"p": {"type": "integer", "minimum": 1},
                "q": {"type": "string", "$comment": "kept"}}})
        );
        assert_eq!(
            bedrock.notes,
            notes(&[
                ("dropped", "/inputSchema/$schema"),
                ("dropped", "/inputSchema/$id"),
                ("inlined", "/inputSchema/properties/p"),
                ("rewritten", "/inputSchema/definitions"),
            ])
        );
        for dialect in [
            Dialect::Mistral { strict: false },
            Dialect::Cohere { strict: false },
        ] {
            let out = run(&schema, dialect);
            assert_eq!(out.schema["$id"], json!("urn:t"));
            assert_eq!(
                out.schema["properties"]["p"],
                json!({"type": "integer", "minimum": 1})
            );
            assert_eq!(
                out.notes[0],
                ("dropped".to_string(), "/inputSchema/$schema".to_string())
            );
        }
    }

    #[test]
    fn cohere_strict_wants_a_required_parameter() {
        let optional = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(
            run(&optional, Dialect::Cohere { strict: true }).notes,
            notes(&[("unsupported", "/inputSchema/required")])
        );
        let required = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert!(run(&required, Dialect::Cohere { strict: true }).notes.is_empty());
        assert!(run(&optional, Dialect::Cohere { strict: false }).notes.is_empty());
    }
}
