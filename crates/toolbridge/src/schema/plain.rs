//! Dialects that take JSON Schema nearly as given: Gemini's
//! `parametersJsonSchema`, Bedrock, Mistral, Cohere and the Emacs packages.
//! The shared walk visits every subschema; these rules drop the bookkeeping
//! keywords the target rejects, and either keep `$ref`s (checking they
//! resolve, respelling those that rely on `$id` or `$anchor`) or inline
//! them all. Boolean schemas, `allOf` and `oneOf` stay as they are.

use std::borrow::Cow;

use serde_json::Value;

use crate::error::Result;
use crate::note::NoteKind;

use super::keywords::{Object, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use super::walk::{AllOf, Conflict, Ctx, Place, RefRule, Rule, Rules, Shape};

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
        PlainRules { ctx, plain: self }.walk_root(())
    }
}

/// A [`Plain`] dialect's rules for the shared walk, noting into `ctx`.
struct PlainRules<'p, 'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    plain: &'p Plain,
}

impl<'a> Rules<'a> for PlainRules<'_, '_, 'a> {
    type Inherited = ();
    type Facts = ();

    fn ctx(&mut self) -> &mut Ctx<'a> {
        self.ctx
    }

    fn reference(&mut self, _node: &Object, reference: &str, place: &Place) -> Result<RefRule> {
        if let Some(reason) = self.plain.inline {
            return Ok(RefRule::Inline(format!("{} {reason}", self.ctx.target)));
        }
        Ok(match self.ctx.keep_ref(reference, place)? {
            Some(spelling) => RefRule::Respell(spelling),
            None => RefRule::Keep,
        })
    }

    fn all_of(&self, _node: &Object, _branches: &[Value]) -> Option<AllOf> {
        None
    }

    fn one_of(&self) -> Option<Conflict> {
        None
    }

    fn shape<'n>(
        &mut self,
        node: Cow<'n, Object>,
        place: Place,
        _depth: usize,
        _inherited: (),
        _any_of_key: &'static str,
    ) -> Result<Shape<'n, ()>> {
        Ok(Shape::Node {
            node,
            place,
            facts: (),
            out: Object::new(),
        })
    }

    fn keyword(&mut self, key: &str, value: &Value, _node: &Object, _facts: &(), place: &Place) -> Rule {
        if self.plain.drop.contains(&key) {
            return Rule::Drop(self.plain.drop_reason.into());
        }
        if self.plain.inline.is_some() && (key == "$defs" || key == "definitions") {
            self.ctx.note(
                NoteKind::Rewritten { keyword: key.into() },
                place.at(key),
                format!("every $ref was inlined, so {key:?} is no longer needed and was removed"),
            );
            return Rule::Skip;
        }
        match value {
            Value::Object(_) | Value::Bool(_) if ONE_SCHEMA.contains(&key) => Rule::Schema,
            Value::Array(_) if SCHEMA_LISTS.contains(&key) => Rule::Schemas,
            Value::Object(_) if SCHEMA_MAPS.contains(&key) => Rule::SchemaMap,
            _ => Rule::Keep,
        }
    }

    fn finish(
        &mut self,
        _out: &mut Object,
        _node: &Object,
        _facts: (),
        _place: &Place,
        _depth: usize,
    ) -> Result<()> {
        Ok(())
    }

    /// Only objects are walked; a boolean schema stays as it is.
    fn object_schema<'v>(&mut self, value: &'v Value, _place: &Place) -> Option<Cow<'v, Object>> {
        value.as_object().map(Cow::Borrowed)
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
