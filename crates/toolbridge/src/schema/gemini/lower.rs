//! Lowering JSON Schema to Gemini `parameters`, the OpenAPI 3.0 `Schema` subset.
//!
//! The steps of providers.md §4b, "Recommended lowering": every `$ref`
//! inlined; `$schema`, `$id`, `$comment` and `title` dropped, `examples`
//! kept as `example` (its first value); a string `const` written as a
//! one-value `enum`; `null` in a type list, an `anyOf` or an `enum` written
//! as `nullable: true`; other type lists written as `anyOf`; `oneOf` as
//! `anyOf`; `allOf` combined; keywords beside an `anyOf` pushed into each
//! branch; `type` in UPPERCASE; only the `Schema` fields kept; `format` only
//! where Gemini takes it; string enums without `""`; arrays given `items`;
//! `required` naming only existing properties; empty `properties` removed.
//!
//! What Gemini cannot carry is written into the description when it tells
//! the model something (`exclusiveMinimum`, `uniqueItems`, `not`, …) and
//! dropped with a note when it does not (`additionalProperties: false`,
//! keys that are not JSON Schema keywords).
//!
//! Enums whose values are not all strings are written into the description
//! rather than turned into strings, as pydantic-ai does: Gemini takes only
//! string enum values, and a model shown `enum: ["1", "2"]` answers with
//! the string `"1"` where the tool wants the number 1.
//!
//! These are [`Gemini`]'s rules for the shared walk ([`Rules`]).

use std::borrow::Cow;

use serde_json::Value;

use crate::error::Result;
use crate::note::NoteKind;

use crate::json::Field;
use crate::schema::encode::{argument_place, describe_encoded, Encoded};
use crate::schema::keywords::{
    applies_to, bool_schema, implied_type, json_type, merge_into, reorder_like, type_admits, type_names,
    value_types, Object, META, STANDARD,
};
use crate::schema::walk::{AllOf, Conflict, Ctx, Place, RefRule, Rule, Rules, Shape, Step};

mod encoded;

use encoded::has_properties;

/// `Schema` fields Gemini accepts besides those the walk builds itself.
const KEPT: &[&str] = &[
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "default",
    "example",
    "propertyOrdering",
];

const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// The formats Gemini accepts, by type.
fn format_accepted(ty: &str, format: &str) -> bool {
    matches!(
        (ty, format),
        ("string", "enum" | "date-time") | ("number", "float" | "double") | ("integer", "int32" | "int64")
    )
}

/// True for a schema that accepts only `null` (`{"type": "null"}`, with
/// annotations at most).
fn is_null_schema(value: &Value) -> bool {
    let Some(node) = value.as_object() else {
        return false;
    };
    let only_null = node
        .field("type")
        .and_then(type_names)
        .is_some_and(|names| names == ["null"])
        || node.field("const").is_some_and(Value::is_null)
        || node
            .field("enum")
            .and_then(Value::as_array)
            .is_some_and(|v| v == &[Value::Null]);
    only_null
        && node
            .keys()
            .all(|key| matches!(key.as_str(), "type" | "const" | "enum" | "description" | "title"))
}

/// The Gemini rules for the shared walk.
pub(in crate::schema) struct Gemini<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    /// Whether some lowercase type name was written in uppercase; said once,
    /// at the root, since it changes nothing but the spelling.
    respelled_types: bool,
    /// Where the node being walked sits in the arguments, as tokens (`*`
    /// for any array index); every `$ref` is inlined, so the place is exact.
    path: Vec<String>,
}

/// What the Gemini rules know about a node once it is shaped.
pub(in crate::schema) struct Facts {
    /// Its one JSON Schema type, lowercase.
    ty: String,
    /// Whether it is written `nullable: true`.
    nullable: bool,
    /// Whether it is written as a string holding its JSON, and what it holds.
    encoded: Option<Encoded>,
}

impl<'c, 'a> Gemini<'c, 'a> {
    /// Rules for one lowering, noting into `ctx`.
    pub(in crate::schema) fn new(ctx: &'c mut Ctx<'a>) -> Gemini<'c, 'a> {
        Gemini {
            ctx,
            respelled_types: false,
            path: Vec::new(),
        }
    }

    /// Lowers the whole schema.
    pub(in crate::schema) fn run(&mut self) -> Result<Value> {
        let mut lowered = self.walk_root(false)?;
        self.check_objects(&mut lowered);
        if self.respelled_types {
            self.ctx.note(
                NoteKind::Normalized { field: "type".into() },
                self.ctx.at.clone(),
                "type names were written in uppercase (\"OBJECT\", \"STRING\", …), Gemini's spelling",
            );
        }
        Ok(lowered)
    }

    /// A node with an `anyOf` of two or more branches: Gemini accepts no
    /// keywords beside it, so they are pushed into each branch (each only
    /// where it applies to the branch's type, which keeps the meaning).
    fn any_of(
        &mut self,
        node: &Object,
        place: &Place,
        depth: usize,
        nullable: bool,
        key: &str,
    ) -> Result<Value> {
        let siblings: Object = node
            .iter()
            .filter(|(k, _)| *k != "anyOf")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let branches = node
            .field("anyOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut lowered = Vec::new();
        let mut left_out = 0usize;
        for (index, branch) in branches.iter().enumerate() {
            let branch = match branch {
                Value::Object(object) => object.clone(),
                Value::Bool(accepts) => bool_schema(*accepts),
                _ => continue,
            };
            let branch_place = if siblings.is_empty() {
                place.key(key).index(index)
            } else {
                place.merged()
            };
            let Some(merged) = self.push_into(&siblings, branch, place) else {
                left_out += 1;
                continue;
            };
            lowered.push(self.node(&Value::Object(merged), &branch_place, depth, nullable)?);
        }
        if left_out > 0 {
            self.ctx.note(
                NoteKind::Rewritten {
                    keyword: key.into(),
                },
                place.note.clone(),
                format!("{left_out} anyOf branch(es) cannot match the type written beside anyOf and were left out"),
            );
        }
        if !siblings.is_empty() {
            self.ctx.note(
                NoteKind::Rewritten { keyword: key.into() },
                place.note.clone(),
                "Gemini accepts no keywords beside anyOf; they were copied into each branch",
            );
        }
        match lowered.len() {
            0 => {
                self.ctx.dropped(
                    key,
                    place,
                    "none of its branches can match the type written beside it",
                );
                let mut rest = siblings;
                rest.shift_remove("type");
                let place = place.merged();
                let (node, facts, out) = self.plain(Cow::Owned(rest), &place, nullable);
                self.write(&node, &place, facts, out, Object::new(), depth)
            }
            1 => Ok(lowered.remove(0)),
            _ => {
                let mut out = Object::new();
                out.insert("anyOf".into(), Value::Array(lowered));
                Ok(Value::Object(out))
            }
        }
    }

    /// A branch with the siblings of its `anyOf` that apply to it; `None` if
    /// the branch's type cannot meet theirs (no value could match it).
    fn push_into(&mut self, siblings: &Object, branch: Object, place: &Place) -> Option<Object> {
        let branch_types: Option<Vec<String>> = branch
            .field("type")
            .and_then(type_names)
            .map(|names| names.into_iter().map(String::from).collect());
        let mut pushed = Object::new();
        for (key, value) in siblings {
            if let Some(types) = &branch_types {
                if !types.iter().any(|ty| applies_to(key, ty)) {
                    continue;
                }
                if key == "enum" {
                    let values: Vec<Value> = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|v| types.iter().any(|ty| type_admits(ty, json_type(v))))
                        .cloned()
                        .collect();
                    if values.is_empty() {
                        return None;
                    }
                    pushed.insert(key.clone(), Value::Array(values));
                    continue;
                }
            }
            pushed.insert(key.clone(), value.clone());
        }
        let mut merged = pushed;
        for (keyword, _) in merge_into(&mut merged, &branch) {
            if keyword == "type" || keyword == "enum" {
                return None;
            }
            self.ctx.note(
                NoteKind::Dropped {
                    keyword: keyword.as_str().into(),
                },
                place.note.clone(),
                format!("an anyOf branch's {keyword:?} conflicts with the one beside anyOf; the one beside it was kept"),
            );
        }
        Some(reorder_like(merged, &branch))
    }
    /// A node with one type (or none) and no `anyOf`, before its keywords:
    /// a string `const` written as an `enum`, the type settled; the output
    /// starts with the type (and `nullable`).
    fn plain<'n>(
        &mut self,
        node: Cow<'n, Object>,
        place: &Place,
        nullable: bool,
    ) -> (Cow<'n, Object>, Facts, Object) {
        let mut node = node;
        if let Some(value) = node.field("const").cloned() {
            if let Value::String(_) = value {
                let node = node.to_mut();
                node.shift_remove("const");
                if node.insert("enum".into(), Value::Array(vec![value])).is_some() {
                    self.ctx.note(
                        NoteKind::Dropped {
                            keyword: "enum".into(),
                        },
                        place.at("enum"),
                        "the enum was replaced by the const beside it, which is stricter",
                    );
                }
                self.ctx.note(
                    NoteKind::Rewritten {
                        keyword: "const".into(),
                    },
                    place.note.clone(),
                    "const was written as a one-value enum (Gemini has no const)",
                );
            }
        }
        let root = self.path.is_empty();
        let (mut ty, mut encoded) = match self.type_of(&node, place, root) {
            Some(ty) => (ty, None),
            None => ("string".to_string(), Some(Encoded::Any)),
        };
        if ty == "object" && !root && !has_properties(&node) {
            ty = "string".into();
            encoded = Some(Encoded::Object);
        }
        if let Some(encoded) = encoded {
            let why = match encoded {
                Encoded::Object => {
                    "refuses an OBJECT without properties (\"should be non-empty for OBJECT type\")"
                }
                Encoded::Any => "needs a type on every schema",
            };
            self.ctx.note_encoded(place, encoded, why);
        }
        let mut out = Object::new();
        out.insert("type".into(), Value::String(ty.to_uppercase()));
        if nullable {
            out.insert("nullable".into(), Value::Bool(true));
        }
        (
            node,
            Facts {
                ty,
                nullable,
                encoded,
            },
            out,
        )
    }

    /// The node's single JSON Schema type (lowercase), inferred when absent;
    /// `None` for a schema that accepts any value (below the root, which is
    /// an object whatever it says).
    fn type_of(&mut self, node: &Object, place: &Place, root: bool) -> Option<String> {
        let given = match node.field("type") {
            Some(Value::String(name)) => Some(name.clone()),
            Some(Value::Array(names)) if names.len() == 1 => names[0].as_str().map(String::from),
            _ => None,
        };
        if let Some(name) = &given {
            let lower = name.to_lowercase();
            if TYPES.contains(&lower.as_str()) {
                if *name != lower.to_uppercase() {
                    self.respelled_types = true;
                }
                return Some(lower);
            }
        }
        let from_values = node
            .field("enum")
            .and_then(Value::as_array)
            .map(|values| value_types(values))
            .or_else(|| node.field("const").map(|value| vec![json_type(value)]))
            .filter(|types| types.len() == 1)
            .map(|types| types[0]);
        let known = node.keys().find_map(|key| implied_type(key)).or(from_values);
        if known.is_none() && !root {
            return None;
        }
        let inferred = known.unwrap_or("object");
        let why = match node.field("type") {
            Some(other) => format!("\"type\": {other} is not a type Gemini knows"),
            None => "the schema has no type".to_string(),
        };
        let narrowed = if known.is_none() {
            " (the arguments are an object)"
        } else {
            ""
        };
        self.ctx.note(
            NoteKind::Rewritten {
                keyword: "type".into(),
            },
            place.at("type"),
            format!(
                "{why}; Gemini needs one, so \"type\": {:?} was set{narrowed}",
                inferred.to_uppercase()
            ),
        );
        Some(inferred.to_string())
    }

    /// Gemini's enums are lists of strings without `""`; any other enum
    /// goes into the description.
    fn enum_values(&mut self, value: &Value, place: &Place) -> Rule {
        let Some(values) = value
            .as_array()
            .filter(|values| values.iter().all(Value::is_string))
        else {
            return Rule::Move;
        };
        let kept: Vec<Value> = values
            .iter()
            .filter(|v| v.as_str() != Some(""))
            .cloned()
            .collect();
        if kept.len() < values.len() {
            self.ctx.note(
                NoteKind::Dropped {
                    keyword: "enum".into(),
                },
                place.at("enum"),
                "the empty string was removed from the enum (Gemini rejects empty enum values)",
            );
        }
        if kept.is_empty() {
            Rule::Skip
        } else {
            Rule::Write("enum", Value::Array(kept))
        }
    }

    /// `examples` becomes `example`, its first value.
    fn examples(&mut self, value: &Value, has_example: bool, place: &Place) -> Rule {
        match value.as_array().and_then(|values| values.first()) {
            Some(first) if !has_example => {
                let count = value.as_array().map_or(0, Vec::len);
                if count == 1 {
                    self.ctx.note(
                        NoteKind::Rewritten {
                            keyword: "examples".into(),
                        },
                        place.note.clone(),
                        "examples was written as example (Gemini takes one example)",
                    );
                } else {
                    self.ctx.note(
                        NoteKind::Dropped {
                            keyword: "examples".into(),
                        },
                        place.note.clone(),
                        format!(
                            "Gemini takes one example; the first of {count} examples was kept as example"
                        ),
                    );
                }
                Rule::Write("example", first.clone())
            }
            _ => Rule::Drop("Gemini takes one example, and this schema has no usable one".into()),
        }
    }

    /// `required` names only existing properties; an object without
    /// properties carries neither.
    fn tidy_object(&mut self, out: &mut Object, place: &Place) {
        let names: Vec<String> = out
            .field("properties")
            .and_then(Value::as_object)
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default();
        if names.is_empty() {
            let had_properties = out.shift_remove("properties").is_some();
            let had_required = out.shift_remove("required").is_some();
            if had_properties || had_required {
                self.ctx.note(
                    NoteKind::Rewritten {
                        keyword: "properties".into(),
                    },
                    place.note.clone(),
                    "an object without properties carries neither properties nor required for Gemini (it rejects empty ones)",
                );
            }
            return;
        }
        let Some(required) = out.field("required").cloned() else {
            return;
        };
        let listed: Vec<Value> = required.as_array().cloned().unwrap_or_default();
        let mut kept: Vec<Value> = Vec::new();
        for entry in &listed {
            if entry.as_str().is_some_and(|name| names.iter().any(|n| n == name)) && !kept.contains(entry) {
                kept.push(entry.clone());
            }
        }
        if kept.len() == listed.len() && required.is_array() {
            return;
        }
        let unknown: Vec<String> = listed
            .iter()
            .filter(|entry| !kept.contains(entry))
            .map(Value::to_string)
            .collect();
        let what = if unknown.is_empty() {
            "a malformed list was".to_string()
        } else {
            format!("{} was", unknown.join(", "))
        };
        self.ctx.note(
            NoteKind::Dropped {
                keyword: "required".into(),
            },
            place.at("required"),
            format!("\"required\" may name only properties of the object; {what} removed"),
        );
        if kept.is_empty() {
            out.shift_remove("required");
        } else {
            out.insert("required".into(), Value::Array(kept));
        }
    }
}

impl<'a> Rules<'a> for Gemini<'_, 'a> {
    /// Whether the node (or one it stands in for) is nullable.
    type Inherited = bool;
    type Facts = Facts;

    fn ctx(&mut self) -> &mut Ctx<'a> {
        self.ctx
    }

    fn reference(&mut self, _node: &Object, _reference: &str, _place: &Place) -> Result<RefRule> {
        Ok(RefRule::Inline("Gemini's Schema has no $ref".into()))
    }

    fn all_of(&self, _node: &Object, _branches: &[Value]) -> Option<AllOf> {
        Some(AllOf {
            conflict: Conflict::Drop,
            why: "Gemini has no allOf".into(),
        })
    }

    fn one_of(&self) -> Option<Conflict> {
        Some(Conflict::Drop)
    }

    /// Keeps [`Gemini::path`] at the subschema's place in the arguments.
    fn subschema(&mut self, value: &Value, place: &Place, depth: usize, step: Step<'_>) -> Result<Value> {
        let len = self.path.len();
        match step {
            Step::Member("properties", name) => self.path.push(name.to_string()),
            Step::Key("items") => self.path.push("*".into()),
            _ => {}
        }
        let result = self.node(value, place, depth, false);
        self.path.truncate(len);
        result
    }

    /// A node's own `nullable: true` holds for what stands in for it.
    fn inherit(&self, node: &Object, nullable: bool) -> bool {
        nullable || node.field("nullable") == Some(&Value::Bool(true))
    }

    /// `null` in a type list, an `anyOf` or an `enum` becomes `nullable`;
    /// an `anyOf` of one branch becomes that branch; a type list becomes an
    /// `anyOf`; an `anyOf` of several branches takes the keywords beside it
    /// into each branch.
    fn shape<'n>(
        &mut self,
        node: Cow<'n, Object>,
        place: Place,
        depth: usize,
        nullable: bool,
        any_of_key: &'static str,
    ) -> Result<Shape<'n, Facts>> {
        let mut node = node;
        let mut nullable = nullable;

        if let Some(names) = node.field("type").and_then(type_names) {
            if names.len() > 1 && names.contains(&"null") {
                let rest: Vec<Value> = names
                    .iter()
                    .filter(|name| **name != "null")
                    .map(|name| Value::String((*name).to_string()))
                    .collect();
                let rest = if rest.len() == 1 {
                    rest[0].clone()
                } else {
                    Value::Array(rest)
                };
                node.to_mut().insert("type".into(), rest);
                nullable = true;
                self.ctx.note(
                    NoteKind::Rewritten {
                        keyword: "type".into(),
                    },
                    place.note.clone(),
                    "\"null\" in the type list was written as nullable: true (Gemini's type is a single value)",
                );
            }
        }

        if let Some(Value::Array(branches)) = node.field("anyOf") {
            if branches.iter().any(is_null_schema) {
                let rest: Vec<Value> = branches.iter().filter(|b| !is_null_schema(b)).cloned().collect();
                nullable = true;
                let node = node.to_mut();
                if rest.is_empty() {
                    node.shift_remove("anyOf");
                    node.insert("type".into(), Value::String("null".into()));
                } else {
                    node.insert("anyOf".into(), Value::Array(rest));
                }
                self.ctx.note(
                    NoteKind::Rewritten {
                        keyword: "anyOf".into(),
                    },
                    place.note.clone(),
                    "the null branch of anyOf was written as nullable: true",
                );
            }
        }

        if let Some(Value::Array(branches)) = node.field("anyOf") {
            if branches.len() == 1 {
                let branch = match &branches[0] {
                    Value::Object(object) => object.clone(),
                    Value::Bool(accepts) => bool_schema(*accepts),
                    _ => Object::new(),
                };
                let mut merged: Object = node
                    .iter()
                    .filter(|(key, _)| *key != "anyOf")
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                for (keyword, _) in merge_into(&mut merged, &branch) {
                    self.ctx.note(
                        NoteKind::Dropped {
                            keyword: keyword.as_str().into(),
                        },
                        place.note.clone(),
                        format!("the only anyOf branch's {keyword:?} conflicts with the one beside anyOf; the one beside it was kept"),
                    );
                }
                self.ctx.note(
                    NoteKind::Rewritten {
                        keyword: any_of_key.into(),
                    },
                    place.note.clone(),
                    "an anyOf with a single branch was replaced by that branch",
                );
                let merged = reorder_like(merged, &branch);
                let written = self.node(&Value::Object(merged), &place.merged(), depth, nullable)?;
                return Ok(Shape::Written(written));
            }
        }

        if let Some(Value::Array(values)) = node.field("enum") {
            if values.len() > 1 && values.contains(&Value::Null) {
                let rest: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
                node.to_mut().insert("enum".into(), Value::Array(rest));
                nullable = true;
                self.ctx.note(
                    NoteKind::Rewritten {
                        keyword: "enum".into(),
                    },
                    place.note.clone(),
                    "null in the enum was written as nullable: true",
                );
            }
        }

        if let Some(names) = node
            .field("type")
            .and_then(type_names)
            .filter(|names| names.len() > 1)
        {
            let branches: Vec<Value> = names
                .iter()
                .map(|name| {
                    let mut branch = Object::new();
                    branch.insert("type".into(), Value::String((*name).to_string()));
                    Value::Object(branch)
                })
                .collect();
            if !node.has_field("anyOf") {
                let node = node.to_mut();
                node.shift_remove("type");
                node.insert("anyOf".into(), Value::Array(branches));
            }
            self.ctx.note(
                NoteKind::Rewritten {
                    keyword: "type".into(),
                },
                place.note.clone(),
                "the type list was written as anyOf (Gemini's type is a single value)",
            );
        }

        if node
            .field("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|b| b.len() > 1)
        {
            return Ok(Shape::Written(
                self.any_of(&node, &place, depth, nullable, any_of_key)?,
            ));
        }
        let (node, facts, out) = self.plain(node, &place, nullable);
        Ok(Shape::Node {
            node,
            place,
            facts,
            out,
        })
    }

    fn keyword(&mut self, key: &str, value: &Value, node: &Object, facts: &Facts, place: &Place) -> Rule {
        if facts.encoded.is_some() {
            return self.encoded_keyword(key, value, node, facts.nullable, place);
        }
        let ty = facts.ty.as_str();
        match key {
            "type" => Rule::Skip,
            "nullable" if !value.is_boolean() => Rule::Drop("Gemini's nullable is true or false".into()),
            "nullable" if facts.nullable => Rule::Skip,
            "nullable" => Rule::Keep,
            "format" => match value.as_str() {
                Some(format) if format_accepted(ty, format) => Rule::Keep,
                _ => Rule::Move,
            },
            "description" if value.is_string() => Rule::Keep,
            "enum" => self.enum_values(value, place),
            "items" if value.is_object() || value.is_boolean() => Rule::Schema,
            "properties" if value.is_object() && ty == "object" => Rule::SchemaMap,
            "properties" | "required" if ty != "object" => {
                Rule::Drop(format!("Gemini rejects it on a {}", ty.to_uppercase()).into())
            }
            "required" => Rule::Keep,
            "examples" => self.examples(value, node.has_field("example"), place),
            "title" => Rule::Drop("Gemini rejects title in function parameters".into()),
            "$defs" | "definitions" => {
                self.ctx.note(
                    NoteKind::Rewritten { keyword: key.into() },
                    place.at(key),
                    format!("every $ref was inlined, so {key:?} is no longer needed and was removed"),
                );
                Rule::Skip
            }
            "additionalProperties" if value == &Value::Bool(false) => Rule::Drop(
                "Gemini has no additionalProperties; the model may add keys the tool does not list".into(),
            ),
            _ if KEPT.contains(&key) => Rule::Keep,
            _ if META.contains(&key) => {
                Rule::Drop("Gemini rejects it, and it is not meant for the model".into())
            }
            _ if STANDARD.contains(&key) => Rule::Move,
            _ => Rule::Drop("it is not a JSON Schema keyword, and Gemini rejects unknown keys".into()),
        }
    }

    /// Arrays get `items`; objects name only their properties in `required`.
    fn finish(
        &mut self,
        out: &mut Object,
        _node: &Object,
        facts: Facts,
        place: &Place,
        _depth: usize,
    ) -> Result<()> {
        if let Some(encoded) = facts.encoded {
            describe_encoded(out, encoded);
            let at = argument_place(&self.path);
            self.ctx.record_encoded(at, encoded);
            return Ok(());
        }
        if facts.ty == "array" && self.ctx.encode_missing_items(out, place, "STRING") {
            let mut path = self.path.clone();
            path.push("*".into());
            self.ctx.record_encoded(argument_place(&path), Encoded::Any);
        }
        if facts.ty == "object" {
            self.tidy_object(out, place);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::testing::{notes, run};
    use crate::schema::Dialect;

    /// An MCP-style schema exercising every step of providers.md §4b's
    /// "Recommended lowering".
    #[test]
    fn full_example_follows_the_recommended_lowering() {
        let out = run(
            &json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "$id": "https://example.com/search",
                "title": "Search",
                "type": "object",
                "properties": {
                    "query": {"type": "string", "title": "Query", "description": "Search text.", "examples": ["rust"]},
                    "mode": {"const": "fast"},
                    "limit": {"type": ["integer", "null"], "minimum": 1, "exclusiveMaximum": 100, "format": "int32"},
                    "since": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}], "description": "Start."},
                    "id": {"type": ["string", "integer"], "description": "Id.", "pattern": "^[a-z]+$"},
                    "sort": {"oneOf": [{"$ref": "#/$defs/Order"}, {"type": "null"}]},
                    "filter": {"allOf": [{"$ref": "#/$defs/Range"}, {"required": ["from"]}]},
                    "level": {"type": "integer", "enum": [1, 2, 3]},
                    "color": {"type": "string", "enum": ["red", "", "blue"], "format": "color"},
                    "tags": {"type": "array", "uniqueItems": true},
                    "meta": {"type": "object", "properties": {}, "additionalProperties": false, "x-order": 3}
                },
                "required": ["query", "missing"],
                "additionalProperties": false,
                "$defs": {
                    "Order": {"type": "string", "enum": ["asc", "desc"], "$comment": "sort order"},
                    "Range": {"type": "object", "properties": {"from": {"type": "number"}, "to": {"type": "number"}}}
                }
            }),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(
            out.schema,
            json!({"type": "OBJECT", "properties": {
                "query": {"type": "STRING", "description": "Search text.", "example": "rust"},
                "mode": {"type": "STRING", "enum": ["fast"]},
                "limit": {"type": "INTEGER", "nullable": true, "minimum": 1, "format": "int32",
                          "description": "{\"exclusiveMaximum\": 100}"},
                "since": {"type": "STRING", "nullable": true, "format": "date-time", "description": "Start."},
                "id": {"anyOf": [
                    {"type": "STRING", "description": "Id.", "pattern": "^[a-z]+$"},
                    {"type": "INTEGER", "description": "Id."}]},
                "sort": {"type": "STRING", "nullable": true, "enum": ["asc", "desc"]},
                "filter": {"type": "OBJECT", "properties": {"from": {"type": "NUMBER"}, "to": {"type": "NUMBER"}},
                           "required": ["from"]},
                "level": {"type": "INTEGER", "description": "{\"enum\": [1, 2, 3]}"},
                "color": {"type": "STRING", "enum": ["red", "blue"], "description": "{\"format\": \"color\"}"},
                "tags": {"type": "ARRAY", "items": {"type": "STRING",
                    "description": "Send any JSON value here, encoded as a string of JSON."},
                    "description": "{\"uniqueItems\": true}"},
                "meta": {"type": "STRING",
                    "description": "Send a JSON object here, encoded as a string of JSON.\n\n{\"additionalProperties\": false}"}},
                "required": ["query"]})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("dropped", "/inputSchema/$schema"),
                ("dropped", "/inputSchema/$id"),
                ("dropped", "/inputSchema/title"),
                ("dropped", "/inputSchema/properties/query/title"),
                ("rewritten", "/inputSchema/properties/query"),
                ("rewritten", "/inputSchema/properties/mode"),
                ("rewritten", "/inputSchema/properties/mode/type"),
                ("rewritten", "/inputSchema/properties/limit"),
                ("moved-to-description", "/inputSchema/properties/limit"),
                ("rewritten", "/inputSchema/properties/since"),
                ("rewritten", "/inputSchema/properties/since"),
                ("rewritten", "/inputSchema/properties/id"),
                ("rewritten", "/inputSchema/properties/id"),
                ("rewritten", "/inputSchema/properties/sort"),
                ("rewritten", "/inputSchema/properties/sort"),
                ("rewritten", "/inputSchema/properties/sort"),
                ("inlined", "/inputSchema/properties/sort"),
                ("dropped", "/inputSchema/properties/sort"),
                ("inlined", "/inputSchema/properties/filter/allOf/0"),
                ("rewritten", "/inputSchema/properties/filter"),
                ("moved-to-description", "/inputSchema/properties/level"),
                ("dropped", "/inputSchema/properties/color/enum"),
                ("moved-to-description", "/inputSchema/properties/color"),
                ("rewritten", "/inputSchema/properties/tags/items"),
                ("moved-to-description", "/inputSchema/properties/tags"),
                ("rewritten", "/inputSchema/properties/meta"),
                ("dropped", "/inputSchema/properties/meta/x-order"),
                ("moved-to-description", "/inputSchema/properties/meta"),
                ("dropped", "/inputSchema/additionalProperties"),
                ("rewritten", "/inputSchema/$defs"),
                ("dropped", "/inputSchema/required"),
                ("normalized", "/inputSchema"),
            ])
        );
    }

    #[test]
    fn recursive_defs_are_cut_where_they_repeat() {
        let out = run(
            &json!({"type": "OBJECT", "properties": {"root": {"$ref": "#/$defs/node"}},
                "$defs": {"node": {"type": "OBJECT", "properties": {
                    "label": {"type": "STRING"},
                    "children": {"type": "ARRAY", "items": {"$ref": "#/$defs/node"}}}}}}),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(
            out.schema,
            json!({"type": "OBJECT", "properties": {"root": {"type": "OBJECT", "properties": {
                "label": {"type": "STRING"},
                "children": {"type": "ARRAY", "items": {"type": "STRING",
                    "description": "Recursive reference to #/$defs/node; not expanded further.\n\nSend a JSON object here, encoded as a string of JSON."}}}}}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("inlined", "/inputSchema/properties/root"),
                ("dropped", "/inputSchema/properties/root"),
                ("rewritten", "/inputSchema/properties/root"),
                ("rewritten", "/inputSchema/$defs"),
            ])
        );
    }

    #[test]
    fn nullable_unions_push_nullable_and_siblings_into_branches() {
        let out = run(
            &json!({"type": "object", "properties": {
                "v": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}],
                      "description": "V.", "minimum": 0, "enum": ["a", 1]},
                "w": {"type": ["string", "boolean", "null"], "default": "x"},
                "t": true,
                "n": {"enum": [null, "a", "b"]}}}),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "v": {"anyOf": [
                    {"type": "STRING", "nullable": true, "description": "V.", "enum": ["a"]},
                    {"type": "INTEGER", "nullable": true, "description": "V.\n\n{\"enum\": [1]}", "minimum": 0}]},
                "w": {"anyOf": [
                    {"type": "STRING", "nullable": true, "default": "x"},
                    {"type": "BOOLEAN", "nullable": true, "default": "x"}]},
                "t": {"type": "STRING", "description": "Send any JSON value here, encoded as a string of JSON."},
                "n": {"type": "STRING", "nullable": true, "enum": ["a", "b"]}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema/properties/v"),
                ("moved-to-description", "/inputSchema/properties/v"),
                ("rewritten", "/inputSchema/properties/v"),
                ("rewritten", "/inputSchema/properties/w"),
                ("rewritten", "/inputSchema/properties/w"),
                ("rewritten", "/inputSchema/properties/w"),
                ("rewritten", "/inputSchema/properties/t"),
                ("rewritten", "/inputSchema/properties/t"),
                ("rewritten", "/inputSchema/properties/n"),
                ("rewritten", "/inputSchema/properties/n/type"),
                ("normalized", "/inputSchema"),
            ])
        );
    }

    #[test]
    fn formats_are_kept_only_where_gemini_takes_them() {
        let out = run(
            &json!({"type": "object", "properties": {
                "a": {"type": "string", "format": "date-time"},
                "b": {"type": "string", "format": "email"},
                "c": {"type": "number", "format": "double"},
                "d": {"type": "integer", "format": "float"}},
                "required": ["a", "a"]}),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "a": {"type": "STRING", "format": "date-time"},
                "b": {"type": "STRING", "description": "{\"format\": \"email\"}"},
                "c": {"type": "NUMBER", "format": "double"},
                "d": {"type": "INTEGER", "description": "{\"format\": \"float\"}"}})
        );
        assert_eq!(out.schema["required"], json!(["a"]));
    }

    /// The `shell_execute` tool of swissarmyhammer/swissarmyhammer, as its
    /// parameters are documented in
    /// `swissarmyhammer-tools/src/mcp/tools/shell/execute/description.md`:
    /// `environment` is a map of strings, which Gemini cannot describe.
    #[test]
    fn maps_and_free_form_objects_are_json_strings_with_their_inverse() {
        let out = run(
            &json!({"type": "object", "properties": {
                "command": {"type": "string", "minLength": 1, "description": "Shell command string to run"},
                "working_directory": {"type": "string"},
                "environment": {"type": "object", "description": "Additional environment variables",
                    "additionalProperties": {"type": "string"}},
                "options": {"type": ["object", "null"], "default": {"quiet": true}},
                "rows": {"type": "array", "items": {"type": "object", "minProperties": 1}}},
                "required": ["command"]}),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "command": {"type": "STRING", "minLength": 1, "description": "Shell command string to run"},
                "working_directory": {"type": "STRING"},
                "environment": {"type": "STRING", "description":
                    "Additional environment variables\n\nSend a JSON object here, encoded as a string of JSON.\n\n{\"additionalProperties\": {\"type\": \"string\"}}"},
                "options": {"type": "STRING", "nullable": true, "default": "{\"quiet\":true}",
                    "description": "Send a JSON object here, encoded as a string of JSON."},
                "rows": {"type": "ARRAY", "items": {"type": "STRING",
                    "description": "Send a JSON object here, encoded as a string of JSON.\n\n{\"minProperties\": 1}"}}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema/properties/environment"),
                ("moved-to-description", "/inputSchema/properties/environment"),
                ("rewritten", "/inputSchema/properties/options"),
                ("rewritten", "/inputSchema/properties/options"),
                ("rewritten", "/inputSchema/properties/rows/items"),
                ("moved-to-description", "/inputSchema/properties/rows/items"),
                ("normalized", "/inputSchema"),
            ])
        );
        assert_eq!(
            out.rewrites,
            [
                json!({"kind": "json-encoded", "at": "/environment", "object": true}),
                json!({"kind": "json-encoded", "at": "/options", "object": true}),
                json!({"kind": "json-encoded", "at": "/rows/*", "object": true}),
            ]
        );
    }

    #[test]
    fn union_branches_and_any_values_are_encoded_where_they_sit() {
        let out = run(
            &json!({"type": "object", "properties": {
                "target": {"anyOf": [{"type": "string"}, {"type": "object"}]},
                "value": {"description": "Anything."}}}),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "target": {"anyOf": [{"type": "STRING"},
                    {"type": "STRING", "description": "Send a JSON object here, encoded as a string of JSON."}]},
                "value": {"type": "STRING",
                    "description": "Anything.\n\nSend any JSON value here, encoded as a string of JSON."}})
        );
        assert_eq!(
            out.rewrites,
            [
                json!({"kind": "json-encoded", "at": "/target", "object": true}),
                json!({"kind": "json-encoded", "at": "/value", "object": false}),
            ]
        );
    }

    #[test]
    fn a_root_without_properties_is_left_bare_for_the_writer_to_leave_out() {
        let out = run(
            &json!({"type": "object", "description": "Takes nothing.", "properties": {}}),
            Dialect::GeminiOpenApi,
        );
        assert_eq!(out.schema, json!({"type": "OBJECT"}));
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema"),
                ("dropped", "/inputSchema/description"),
                ("normalized", "/inputSchema"),
            ])
        );
    }
}
