//! Dialects that accept a subset of JSON Schema and get everything else
//! written into the description: OpenAI Structured Outputs (and Mistral
//! strict), Anthropic strict tool use (and Bedrock strict, which follows
//! Claude's rules) and Ollama (whose server keeps only a few keywords).
//!
//! One set of rules for the shared walk ([`Rules`]) serves all three;
//! [`Subset`] says what each keeps. Strict
//! dialects also close every object (`additionalProperties: false`), and
//! OpenAI's lists every property in `required`, turning each optional one
//! into a union with `null` and recording where, so that a returned `null`
//! can be read as "absent" again.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::error::Result;
use crate::note::NoteKind;

use crate::json::Field;
use crate::schema::encode::Encoded;
use crate::schema::keywords::{
    bool_schema, implied_type, json_type, merge_into, pattern_is_unsupported, type_names, type_value,
    value_types, Object, META,
};
use crate::schema::refs::Target;
use crate::schema::walk::{AllOf, Conflict, Ctx, Place, RefRule, Rule, Rules, Shape, Step};

mod encoded;
mod objects;

/// String formats OpenAI Structured Outputs accepts.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// String formats Anthropic strict tool use accepts.
const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// What a recorded output location stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mark {
    /// A property made required and nullable: `null` means absent.
    Absent,
    /// A value written as a string holding its JSON.
    Encoded(Encoded),
}

/// Which subset a walk lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Subset {
    /// OpenAI Structured Outputs (`strict: true`); Mistral strict too.
    OpenAiStrict,
    /// Anthropic strict tool use: local `$ref`s kept, recursion rejected.
    AnthropicStrict,
    /// Bedrock `strict`: Claude's rules, with every `$ref` inlined since
    /// Bedrock serves models that do not follow them.
    BedrockStrict,
    /// Ollama: the server keeps type, properties, required, items, enum,
    /// description and anyOf.
    Ollama,
}

impl Subset {
    fn strict(self) -> bool {
        self != Subset::Ollama
    }

    fn anthropic(self) -> bool {
        matches!(self, Subset::AnthropicStrict | Subset::BedrockStrict)
    }

    fn inlines_every_ref(self) -> bool {
        matches!(self, Subset::BedrockStrict | Subset::Ollama)
    }

    /// The rule for a keyword the walk does not handle structurally.
    fn rule(self, key: &str, value: &Value) -> Rule {
        if META.contains(&key) {
            return Rule::Drop(
                "it is bookkeeping for schema authors, not part of what the model sees".into(),
            );
        }
        let pattern_ok = || {
            value
                .as_str()
                .is_some_and(|pattern| !pattern_is_unsupported(pattern))
        };
        let extra_keys =
            "strict mode accepts no keys beyond the listed properties (additionalProperties: false)";
        match self {
            Subset::Ollama => match key {
                "enum" => Rule::Keep,
                _ => Rule::Move,
            },
            Subset::OpenAiStrict => match key {
                "enum" | "const" | "title" | "multipleOf" | "maximum" | "exclusiveMaximum" | "minimum"
                | "exclusiveMinimum" | "minItems" | "maxItems" => Rule::Keep,
                "pattern" if pattern_ok() => Rule::Keep,
                "format" if value.as_str().is_some_and(|f| OPENAI_FORMATS.contains(&f)) => Rule::Keep,
                "patternProperties" | "unevaluatedProperties" => Rule::Drop(extra_keys.into()),
                _ => Rule::Move,
            },
            Subset::AnthropicStrict | Subset::BedrockStrict => match key {
                "const" | "default" | "title" => Rule::Keep,
                "enum"
                    if value
                        .as_array()
                        .is_some_and(|values| values.iter().all(is_primitive)) =>
                {
                    Rule::Keep
                }
                "pattern" if pattern_ok() => Rule::Keep,
                "format" if value.as_str().is_some_and(|f| ANTHROPIC_FORMATS.contains(&f)) => Rule::Keep,
                "minItems" if value.as_u64().is_some_and(|n| n <= 1) => Rule::Keep,
                "patternProperties" | "unevaluatedProperties" => Rule::Drop(extra_keys.into()),
                _ => Rule::Move,
            },
        }
    }
}

fn is_primitive(value: &Value) -> bool {
    !value.is_array() && !value.is_object()
}

/// The subset rules for the shared walk, and what they record for
/// [`Lowered::null_means_absent`](super::Lowered).
pub(super) struct Walker<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    subset: Subset,
    /// The output location of the node being walked, as tokens.
    out: Vec<String>,
    /// Output locations of the properties made nullable and of the values
    /// written as strings of JSON, each with what it records.
    pub(super) recorded: Vec<(Mark, Vec<String>)>,
    /// For each property walked and not yet finished with, its name and the
    /// range of [`Walker::recorded`] recorded inside it; each node takes
    /// its own off the end when it is finished.
    spans: Vec<(String, usize, usize)>,
    /// Whether the target of each `$ref` met by [`Walker::accepts_null`]
    /// accepts `null`; `None` while that target is being looked at, so a
    /// cycle answers "no" (the safe side: null is then added explicitly) and
    /// many branches naming one `$ref` cost one look, not one per path.
    null_refs: HashMap<String, Option<bool>>,
}

impl<'c, 'a> Walker<'c, 'a> {
    /// Rules for lowering to `subset`, noting into `ctx`.
    pub(super) fn new(ctx: &'c mut Ctx<'a>, subset: Subset) -> Walker<'c, 'a> {
        Walker {
            ctx,
            subset,
            out: Vec::new(),
            recorded: Vec::new(),
            spans: Vec::new(),
            null_refs: HashMap::new(),
        }
    }

    /// Lowers the whole schema.
    pub(super) fn run(&mut self) -> Result<Value> {
        if self.subset == Subset::AnthropicStrict {
            for at in self.ctx.recursive_refs()? {
                self.ctx.note(
                    NoteKind::Unsupported {
                        keyword: "$ref".into(),
                    },
                    at,
                    format!(
                        "this $ref makes the schema recursive, and {} does not support recursive schemas",
                        self.ctx.target
                    ),
                );
            }
        }
        self.walk_root(true)
    }

    /// Why the `$ref` in `node` must be inlined, or `None` to keep it.
    fn inline_reason(&mut self, node: &Object, reference: &str, place: &Place) -> Result<Option<String>> {
        let target = self.ctx.target;
        if self.subset.inlines_every_ref() {
            return Ok(Some(match self.subset {
                Subset::Ollama => "the Ollama server drops $ref and $defs".to_string(),
                _ => format!("{target} serves models that do not follow $ref"),
            }));
        }
        if node.len() > 1 {
            return Ok(Some(format!("{target} does not allow keywords beside a $ref")));
        }
        match self.ctx.resolve(reference, place)? {
            Target::Remote => {
                if self.subset.anthropic() {
                    self.ctx.note(
                        NoteKind::Unsupported {
                            keyword: "$ref".into(),
                        },
                        place.at("$ref"),
                        format!("{target} follows only local $refs, and {reference:?} is remote"),
                    );
                }
                Ok(None)
            }
            Target::Local { at, .. } => {
                let tokens: Vec<String> = at.tokens().collect();
                let standard = match tokens.as_slice() {
                    [] => true,
                    [defs, _] => defs == "$defs" || defs == "definitions",
                    _ => false,
                };
                Ok((!standard)
                    .then(|| format!("{target} follows $refs only to the root, $defs or definitions")))
            }
        }
    }

    /// OpenAI allows only `title` and `description` beside `anyOf`: the
    /// other keywords are copied into each branch (which means the same).
    /// A branch whose type cannot meet the node's is left out, since no value
    /// could match it. `None` if there is nothing to do, or it cannot be
    /// done exactly (then an error note says so).
    fn distribute_any_of(&mut self, node: &Object, place: &Place) -> Option<Object> {
        let branches = node.field("anyOf")?.as_array()?;
        let siblings: Object = node
            .iter()
            .filter(|(key, _)| !matches!(key.as_str(), "anyOf" | "title" | "description"))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if siblings.is_empty() {
            return None;
        }
        let mut merged_branches = Vec::new();
        for branch in branches {
            let mut merged = match branch {
                Value::Object(object) => object.clone(),
                Value::Bool(accepts) => bool_schema(*accepts),
                _ => return None,
            };
            let rejected = merge_into(&mut merged, &siblings);
            if rejected.iter().any(|(keyword, _)| keyword == "type") {
                continue;
            }
            if !rejected.is_empty() {
                let keywords: Vec<String> = rejected.iter().map(|(k, _)| format!("{k:?}")).collect();
                self.ctx.note(
                    NoteKind::Unsupported {
                        keyword: "anyOf".into(),
                    },
                    place.at("anyOf"),
                    format!(
                        "{} allows only title and description beside anyOf, and {} cannot be copied into its branches exactly",
                        self.ctx.target,
                        keywords.join(", ")
                    ),
                );
                return None;
            }
            merged_branches.push(Value::Object(merged));
        }
        if merged_branches.is_empty() {
            self.ctx.note(
                NoteKind::Unsupported {
                    keyword: "anyOf".into(),
                },
                place.at("anyOf"),
                "no branch of this anyOf can match the type written beside it",
            );
            return None;
        }
        let mut out = Object::new();
        for (key, value) in node {
            match key.as_str() {
                "anyOf" => {
                    out.insert(key.clone(), Value::Array(std::mem::take(&mut merged_branches)));
                }
                "title" | "description" => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
        self.ctx.note(
            NoteKind::Rewritten {
                keyword: "anyOf".into(),
            },
            place.note.clone(),
            format!(
                "the keywords beside anyOf were copied into each of its branches ({} allows only title and description there)",
                self.ctx.target
            ),
        );
        Some(out)
    }

    /// Strict dialects need a `type` (or `anyOf`/`$ref`) on every schema.
    /// From `enum` or `const` it is exact; from a keyword (`properties` →
    /// object) it is assumed. Otherwise the schema accepts anything, which
    /// strict mode cannot say: an error note.
    fn infer_type(&mut self, node: &Object, place: &Place) -> Option<Value> {
        if ["anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .any(|key| node.contains_key(*key))
        {
            return None;
        }
        let target = self.ctx.target;
        let (types, exact) = if let Some(values) = node
            .field("enum")
            .and_then(Value::as_array)
            .filter(|v| !v.is_empty())
        {
            (value_types(values), true)
        } else if let Some(value) = node.field("const") {
            (vec![json_type(value)], true)
        } else if let Some(implied) = node.keys().find_map(|key| implied_type(key)) {
            (vec![implied], false)
        } else {
            self.ctx.note(
                NoteKind::Unsupported {
                    keyword: "type".into(),
                },
                place.note.clone(),
                format!("{target} needs a type here; this schema accepts any value, which strict mode cannot express"),
            );
            return None;
        };
        let value = type_value(&types);
        let message = if exact {
            format!(
                "\"type\": {value} was added, as its values allow ({target} needs a type on every schema)"
            )
        } else {
            format!("\"type\": {value} was assumed from its keywords ({target} needs a type on every schema)")
        };
        self.ctx.note(
            NoteKind::Rewritten {
                keyword: "type".into(),
            },
            place.at("type"),
            message,
        );
        Some(value)
    }
}

/// What the subset rules know about a node once it is shaped.
pub(super) struct Facts {
    /// Its type names.
    types: Vec<String>,
    /// Whether it is an object a strict dialect closes.
    is_object: bool,
    /// Whether it is the schema's root (or stands in for it).
    root: bool,
    /// Where its properties' entries start in [`Walker::spans`].
    spans_from: usize,
}

impl<'a> Rules<'a> for Walker<'_, 'a> {
    /// Whether the node is the schema's root (or stands in for it).
    type Inherited = bool;
    type Facts = Facts;

    fn ctx(&mut self) -> &mut Ctx<'a> {
        self.ctx
    }

    fn reference(&mut self, node: &Object, reference: &str, place: &Place) -> Result<RefRule> {
        Ok(match self.inline_reason(node, reference, place)? {
            Some(why) => RefRule::Inline(why),
            // A reference through `$id` or `$anchor` is written as a JSON
            // Pointer: those keywords are dropped, and the reference would
            // point at nothing.
            None => match self.ctx.keep_ref(reference, place)? {
                Some(spelling) => RefRule::Respell(spelling),
                None => RefRule::Keep,
            },
        })
    }

    /// Anthropic's strict subset keeps an `allOf` it does not need to
    /// combine; branches that disagree are an error note, or for Ollama
    /// written into the description.
    fn all_of(&self, node: &Object, branches: &[Value]) -> Option<AllOf> {
        let has_ref = node.has_field("$ref") || branches.iter().any(|branch| branch.field("$ref").is_some());
        let combine = !self.subset.anthropic() || has_ref || branches.len() == 1;
        combine.then(|| AllOf {
            conflict: if self.subset == Subset::Ollama {
                Conflict::Move
            } else {
                Conflict::Refuse
            },
            why: format!("{} does not support allOf here", self.ctx.target).into(),
        })
    }

    fn one_of(&self) -> Option<Conflict> {
        Some(if self.subset.strict() {
            Conflict::Refuse
        } else {
            Conflict::Move
        })
    }

    /// OpenAI's keywords beside `anyOf` go into its branches; strict
    /// dialects give every schema a type.
    fn shape<'n>(
        &mut self,
        node: Cow<'n, Object>,
        place: Place,
        _depth: usize,
        root: bool,
        _any_of_key: &'static str,
    ) -> Result<Shape<'n, Facts>> {
        let mut node = node;
        let mut place = place;
        if self.subset == Subset::OpenAiStrict && !root {
            if let Some(distributed) = self.distribute_any_of(&node, &place) {
                node = Cow::Owned(distributed);
                place = place.merged();
            }
        }
        if self.subset.strict() && !root {
            if let Some(encoded) = self.encoding(&node) {
                return Ok(Shape::Written(self.write_encoded(&node, &place, encoded)?));
            }
        }
        if self.subset.strict() && !node.has_field("type") {
            if let Some(ty) = self.infer_type(&node, &place) {
                node.to_mut().shift_insert(0, "type".into(), ty);
            }
        }
        let types: Vec<String> = node
            .field("type")
            .and_then(type_names)
            .map(|names| names.into_iter().map(String::from).collect())
            .unwrap_or_default();
        let is_object = self.subset.strict() && types.iter().any(|t| t == "object");
        let facts = Facts {
            types,
            is_object,
            root,
            spans_from: self.spans.len(),
        };
        Ok(Shape::Node {
            node,
            place,
            facts,
            out: Object::new(),
        })
    }

    fn keyword(&mut self, key: &str, value: &Value, _node: &Object, facts: &Facts, place: &Place) -> Rule {
        let target = self.ctx.target;
        match key {
            "type" | "$ref" => Rule::Keep,
            "properties" if value.is_object() => Rule::SchemaMap,
            "items" if value.is_object() || value.is_boolean() => Rule::Schema,
            "items" if value.is_array() && self.subset == Subset::Ollama => Rule::Schemas,
            "anyOf" | "oneOf" | "allOf" if value.is_array() => Rule::Schemas,
            "$defs" | "definitions" => {
                if facts.root && !self.subset.inlines_every_ref() && value.is_object() {
                    return Rule::SchemaMap;
                }
                self.ctx.note(
                    NoteKind::Rewritten { keyword: key.into() },
                    place.at(key),
                    format!("every $ref into {key:?} was inlined, so it is no longer needed and was removed"),
                );
                Rule::Skip
            }
            "description" if value.is_string() => Rule::Keep,
            "required" if facts.is_object || self.subset == Subset::Ollama => Rule::Keep,
            "additionalProperties" if facts.is_object => {
                if value != &Value::Bool(false) {
                    self.ctx.note(
                        NoteKind::Dropped { keyword: key.into() },
                        place.at(key),
                        format!(
                            "this object accepted keys beyond its properties; {target} requires additionalProperties: false, so only the listed properties are accepted"
                        ),
                    );
                }
                Rule::Write("additionalProperties", Value::Bool(false))
            }
            "properties" | "items" | "anyOf" | "oneOf" | "allOf" if self.subset.strict() => Rule::Move,
            "properties" | "items" | "anyOf" | "oneOf" | "allOf" => Rule::Keep,
            "default" if self.subset == Subset::OpenAiStrict && value.is_null() => {
                self.ctx.note(
                    NoteKind::Rewritten { keyword: key.into() },
                    place.at(key),
                    "\"default\": null was removed: in strict mode an optional property is sent as null when absent, which means the same",
                );
                Rule::Skip
            }
            _ => self.subset.rule(key, value),
        }
    }

    /// Strict dialects close objects and settle `required` (OpenAI lists
    /// every property, making the optional ones nullable); a strict root
    /// must be a plain object.
    fn finish(
        &mut self,
        out: &mut Object,
        node: &Object,
        facts: Facts,
        place: &Place,
        depth: usize,
    ) -> Result<()> {
        let spans: Vec<(String, usize, usize)> = self.spans.drain(facts.spans_from..).collect();
        if self.subset == Subset::OpenAiStrict && facts.types.iter().any(|ty| ty == "array") {
            self.encode_missing_items(out, place);
        }
        if facts.is_object {
            if self.subset == Subset::OpenAiStrict {
                self.ensure_lists(out, node, place);
                self.require_all(out, node, place, &spans, depth);
            } else {
                self.drop_unknown_required(out, place);
            }
            self.close_object(out, node, place, facts.root);
        }
        if facts.root && self.subset.strict() {
            let target = self.ctx.target;
            if facts.types != ["object"] {
                self.ctx.note(
                    NoteKind::Unsupported {
                        keyword: "type".into(),
                    },
                    place.at("type"),
                    format!("the root of a {target} schema must be {{\"type\": \"object\"}}"),
                );
            }
            if self.subset == Subset::OpenAiStrict && out.has_field("anyOf") {
                self.ctx.note(
                    NoteKind::Unsupported {
                        keyword: "anyOf".into(),
                    },
                    place.at("anyOf"),
                    format!("the root of a {target} schema must not be an anyOf"),
                );
            }
        }
        Ok(())
    }

    /// Keeps [`Walker::out`] at the subschema's output location, and records
    /// each property's range of [`Walker::recorded`].
    fn subschema(&mut self, value: &Value, place: &Place, depth: usize, step: Step<'_>) -> Result<Value> {
        let len = self.out.len();
        let start = self.recorded.len();
        match step {
            Step::Key(key) => self.out.push(key.to_string()),
            Step::Member(key, name) => self.out.extend([key.to_string(), name.to_string()]),
            Step::Index(key, index) => self.out.extend([key.to_string(), index.to_string()]),
        }
        let result = self.node(value, place, depth, false);
        self.out.truncate(len);
        if let Step::Member("properties", name) = step {
            self.spans.push((name.to_string(), start, self.recorded.len()));
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::testing::{notes, run};
    use crate::schema::Dialect;

    const OPENAI: Dialect = Dialect::OpenAi { strict: true };
    const ANTHROPIC: Dialect = Dialect::Anthropic { strict: true };

    #[test]
    fn optional_enum_becomes_required_and_nullable() {
        let out = run(
            &json!({"type": "object", "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}),
            OPENAI,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "city": {"type": "string"},
                "unit": {"type": ["string", "null"], "enum": ["c", "f", null]}},
                "required": ["city", "unit"], "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("made-required", "/inputSchema/required"),
                ("made-nullable", "/inputSchema/properties/unit"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert_eq!(out.absent, ["/unit"]);
    }

    #[test]
    fn objects_in_arrays_record_star_paths_and_nullable_ones_are_not_recorded() {
        let out = run(
            &json!({"type": "object", "properties": {
                "stops": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "note": {"type": "string"},
                    "eta": {"type": ["string", "null"]},
                    "tag": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["name"]}}},
                "required": ["stops"]}),
            OPENAI,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "stops": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "note": {"type": ["string", "null"]},
                    "eta": {"type": ["string", "null"]},
                    "tag": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                    "required": ["name", "note", "eta", "tag"], "additionalProperties": false}}},
                "required": ["stops"], "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("made-required", "/inputSchema/properties/stops/items/required"),
                (
                    "made-nullable",
                    "/inputSchema/properties/stops/items/properties/note"
                ),
                ("made-required", "/inputSchema/properties/stops/items/required"),
                ("made-required", "/inputSchema/properties/stops/items/required"),
                (
                    "rewritten",
                    "/inputSchema/properties/stops/items/additionalProperties"
                ),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert_eq!(out.absent, ["/stops/*/note"]);
    }

    #[test]
    fn ref_with_siblings_is_inlined_and_a_bare_optional_ref_is_wrapped() {
        let out = run(
            &json!({"type": "object", "properties": {
                "home": {"$ref": "#/$defs/place", "description": "Home."},
                "work": {"$ref": "#/$defs/place"}},
                "required": ["home"],
                "$defs": {"place": {"type": "object", "properties": {
                    "city": {"type": "string"}, "zip": {"type": "string"}}, "required": ["city"]}}}),
            OPENAI,
        );
        let place = json!({"type": "object", "properties": {
            "city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
            "required": ["city", "zip"], "additionalProperties": false});
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "home": {"description": "Home.", "type": "object", "properties": {
                    "city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
                    "required": ["city", "zip"], "additionalProperties": false},
                "work": {"anyOf": [{"$ref": "#/$defs/place"}, {"type": "null"}]}},
                "required": ["home", "work"],
                "$defs": {"place": place},
                "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("inlined", "/inputSchema/properties/home"),
                ("made-required", "/inputSchema/properties/home"),
                ("made-nullable", "/inputSchema/properties/home"),
                ("rewritten", "/inputSchema/properties/home"),
                ("made-required", "/inputSchema/$defs/place/required"),
                ("made-nullable", "/inputSchema/$defs/place/properties/zip"),
                ("rewritten", "/inputSchema/$defs/place/additionalProperties"),
                ("made-required", "/inputSchema/required"),
                ("made-nullable", "/inputSchema/properties/work"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert_eq!(out.absent, ["/home/zip", "/work", "/work/zip"]);
    }

    #[test]
    fn recursive_defs_are_kept_and_absent_places_repeat() {
        let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "required": ["root"],
            "$defs": {"node": {"type": "object", "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["label"]}}});
        let out = run(&tree, OPENAI);
        assert_eq!(
            out.schema["$defs"]["node"],
            json!({"type": "object", "properties": {
                "label": {"type": "string"},
                "children": {"type": ["array", "null"], "items": {"$ref": "#/$defs/node"}}},
                "required": ["label", "children"], "additionalProperties": false})
        );
        assert_eq!(out.schema["properties"]["root"], json!({"$ref": "#/$defs/node"}));
        assert_eq!(out.absent, ["/root/**/children"]);

        let lowered = super::super::Lowered {
            rewrites: Vec::new(),
            schema: out.schema,
            null_means_absent: vec![crate::Pointer::parse("/root/**/children").unwrap()],
        };
        let mut args = json!({"root": {"label": "a", "children": [
            {"label": "b", "children": null}, {"label": "c", "children": [{"label": "d", "children": null}]}]}});
        lowered.restore_absent(&mut args);
        assert_eq!(
            args,
            json!({"root": {"label": "a", "children": [{"label": "b"}, {"label": "c", "children": [{"label": "d"}]}]}})
        );
    }

    #[test]
    fn root_recursion_is_kept_too() {
        let out = run(
            &json!({"type": "object", "properties": {"name": {"type": "string"}, "next": {"$ref": "#"}}}),
            OPENAI,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "name": {"type": ["string", "null"]},
                "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
                "required": ["name", "next"], "additionalProperties": false})
        );
        assert_eq!(out.absent, ["/**/name", "/**/next"]);
    }

    #[test]
    fn empty_parameters_get_the_empty_strict_object() {
        let out = run(&json!({"type": "object"}), OPENAI);
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema/properties"),
                ("rewritten", "/inputSchema/required"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
    }

    #[test]
    fn unsupported_keywords_move_into_the_description_and_default_null_goes() {
        let out = run(
            &json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name.", "minLength": 3, "default": "Paris",
                    "format": "uri", "pattern": "^(?!x)"},
                "when": {"type": "string", "format": "date-time", "pattern": "^2", "default": null},
                "n": {"type": "integer", "minimum": 1, "multipleOf": 2, "$comment": "c"}},
                "required": ["city", "when", "n"], "patternProperties": {"^x": {}}}),
            OPENAI,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "city": {"type": "string",
                    "description": "City name.\n\n{\"minLength\": 3, \"default\": \"Paris\", \"format\": \"uri\", \"pattern\": \"^(?!x)\"}"},
                "when": {"type": "string", "format": "date-time", "pattern": "^2"},
                "n": {"type": "integer", "minimum": 1, "multipleOf": 2}},
                "required": ["city", "when", "n"], "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("moved-to-description", "/inputSchema/properties/city"),
                ("moved-to-description", "/inputSchema/properties/city"),
                ("moved-to-description", "/inputSchema/properties/city"),
                ("moved-to-description", "/inputSchema/properties/city"),
                ("rewritten", "/inputSchema/properties/when/default"),
                ("dropped", "/inputSchema/properties/n/$comment"),
                ("dropped", "/inputSchema/patternProperties"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
    }

    #[test]
    fn composition_is_rewritten_or_flagged() {
        let out = run(
            &json!({"type": "object", "properties": {
                "one": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "all": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                  {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]},
                "clash": {"allOf": [{"type": "string"}, {"type": "integer"}]},
                "both": {"type": "string", "anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}},
                "required": ["one", "all", "clash", "both"]}),
            OPENAI,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "one": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "all": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                        "required": ["a", "b"], "additionalProperties": false},
                "clash": {"allOf": [{"type": "string"}, {"type": "integer"}]},
                "both": {"anyOf": [{"type": "string", "description": "{\"minLength\": 1}"}]}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema/properties/one"),
                ("rewritten", "/inputSchema/properties/all"),
                ("rewritten", "/inputSchema/properties/all"),
                ("unsupported", "/inputSchema/properties/clash/allOf"),
                ("rewritten", "/inputSchema/properties/both"),
                ("moved-to-description", "/inputSchema/properties/both"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
    }

    #[test]
    fn schemas_without_a_type_get_one_or_are_json_strings() {
        let out = run(
            &json!({"type": "object", "properties": {
                "e": {"enum": ["a", 1]},
                "o": {"properties": {"x": {"type": "string"}}, "required": ["x"]},
                "any": {"description": "Anything."}},
                "required": ["e", "o", "any"]}),
            OPENAI,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "e": {"type": ["string", "integer"], "enum": ["a", 1]},
                "o": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"],
                      "additionalProperties": false},
                "any": {"type": "string",
                    "description": "Anything.\n\nSend any JSON value here, encoded as a string of JSON."}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema/properties/e/type"),
                ("rewritten", "/inputSchema/properties/o/type"),
                ("rewritten", "/inputSchema/properties/o/additionalProperties"),
                ("rewritten", "/inputSchema/properties/any"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert_eq!(
            out.rewrites,
            [json!({"kind": "json-encoded", "at": "/any", "object": false})]
        );
    }

    #[test]
    fn open_objects_are_json_strings_and_empty_closed_ones_stay() {
        let out = run(
            &json!({"type": "object", "properties": {
                "map": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": ["object", "null"]},
                "list": {"type": "array", "items": {"type": "object"}},
                "bag": {"type": "array"},
                "none": {"type": "object", "additionalProperties": false}},
                "required": ["map", "free", "list", "bag", "none"]}),
            OPENAI,
        );
        assert_eq!(
            out.schema["properties"],
            json!({
                "map": {"type": "string", "description":
                    "Send a JSON object here, encoded as a string of JSON.\n\n{\"additionalProperties\": {\"type\": \"string\"}}"},
                "free": {"type": ["string", "null"],
                    "description": "Send a JSON object here, encoded as a string of JSON."},
                "list": {"type": "array", "items": {"type": "string",
                    "description": "Send a JSON object here, encoded as a string of JSON."}},
                "bag": {"type": "array", "items": {"type": "string",
                    "description": "Send any JSON value here, encoded as a string of JSON."}},
                "none": {"type": "object", "additionalProperties": false, "properties": {}, "required": []}})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("rewritten", "/inputSchema/properties/map"),
                ("moved-to-description", "/inputSchema/properties/map"),
                ("rewritten", "/inputSchema/properties/free"),
                ("rewritten", "/inputSchema/properties/list/items"),
                ("rewritten", "/inputSchema/properties/bag/items"),
                ("rewritten", "/inputSchema/properties/none/properties"),
                ("rewritten", "/inputSchema/properties/none/required"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert_eq!(
            out.rewrites,
            [
                json!({"kind": "json-encoded", "at": "/map", "object": true}),
                json!({"kind": "json-encoded", "at": "/free", "object": true}),
                json!({"kind": "json-encoded", "at": "/list/*", "object": true}),
                json!({"kind": "json-encoded", "at": "/bag/*", "object": false}),
            ]
        );
    }

    #[test]
    fn anthropic_strict_keeps_optional_properties_and_its_own_subset() {
        let out = run(
            &json!({"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string", "format": "uri", "maxLength": 9},
                         "minItems": 1, "maxItems": 3},
                "more": {"type": "array", "minItems": 2},
                "pick": {"enum": ["a", {"b": 1}]},
                "n": {"type": "number", "minimum": 0, "default": 1},
                "re": {"type": "string", "pattern": "(a)\\1"},
                "far": {"$ref": "https://example.com/x.json"}},
                "required": ["tags", "ghost"]}),
            ANTHROPIC,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string", "format": "uri", "description": "{\"maxLength\": 9}"},
                         "minItems": 1, "description": "{\"maxItems\": 3}"},
                "more": {"type": "array", "description": "{\"minItems\": 2}"},
                "pick": {"type": ["string", "object"], "additionalProperties": false,
                         "description": "{\"enum\": [\"a\", {\"b\": 1}]}"},
                "n": {"type": "number", "default": 1, "description": "{\"minimum\": 0}"},
                "re": {"type": "string", "description": "{\"pattern\": \"(a)\\\\1\"}"},
                "far": {"$ref": "https://example.com/x.json"}},
                "required": ["tags"], "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("moved-to-description", "/inputSchema/properties/tags/items"),
                ("moved-to-description", "/inputSchema/properties/tags"),
                ("moved-to-description", "/inputSchema/properties/more"),
                ("rewritten", "/inputSchema/properties/pick/type"),
                ("dropped", "/inputSchema/properties/pick/additionalProperties"),
                ("moved-to-description", "/inputSchema/properties/pick"),
                ("moved-to-description", "/inputSchema/properties/n"),
                ("moved-to-description", "/inputSchema/properties/re"),
                ("unsupported", "/inputSchema/properties/far/$ref"),
                ("dropped", "/inputSchema/required"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert!(out.absent.is_empty());
    }

    #[test]
    fn anthropic_strict_reports_recursion_and_bedrock_strict_cuts_it() {
        let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
            "$defs": {"node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}});
        let out = run(&tree, ANTHROPIC);
        assert_eq!(out.schema["properties"]["root"], json!({"$ref": "#/$defs/node"}));
        assert_eq!(
            out.notes[0],
            (
                "unsupported".to_string(),
                "/inputSchema/$defs/node/properties/children/items/$ref".to_string()
            )
        );
        assert_eq!(
            out.notes.iter().filter(|(kind, _)| kind == "unsupported").count(),
            1
        );

        let out = run(&tree, Dialect::Bedrock { strict: true });
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {"root": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"type": "string",
                    "description": "Recursive reference to #/$defs/node; not expanded further.\n\nSend a JSON object here, encoded as a string of JSON."}}},
                "additionalProperties": false}},
                "additionalProperties": false})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("inlined", "/inputSchema/properties/root"),
                ("dropped", "/inputSchema/properties/root"),
                ("rewritten", "/inputSchema/properties/root"),
                ("rewritten", "/inputSchema/properties/root"),
                ("rewritten", "/inputSchema/$defs"),
                ("rewritten", "/inputSchema/additionalProperties"),
            ])
        );
        assert_eq!(
            out.rewrites,
            [json!({"kind": "json-encoded", "at": "/root/children/*", "object": true})]
        );
    }

    #[test]
    fn ollama_keeps_its_keywords_and_describes_the_rest() {
        let out = run(
            &json!({"type": "object", "title": "T", "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 5, "description": "How many."},
                "u": {"$ref": "#/$defs/unit"},
                "x": {"oneOf": [{"type": "string"}, {"type": "null"}], "format": "email"}},
                "required": ["n"], "additionalProperties": false,
                "$defs": {"unit": {"type": "string", "enum": ["c", "f"], "default": "c"}}}),
            Dialect::Ollama,
        );
        assert_eq!(
            out.schema,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "description": "How many.\n\n{\"minimum\": 1, \"maximum\": 5}"},
                "u": {"type": "string", "enum": ["c", "f"], "description": "{\"default\": \"c\"}"},
                "x": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "{\"format\": \"email\"}"}},
                "required": ["n"],
                "description": "{\"title\": \"T\", \"additionalProperties\": false}"})
        );
        assert_eq!(
            out.notes,
            notes(&[
                ("moved-to-description", "/inputSchema/properties/n"),
                ("moved-to-description", "/inputSchema/properties/n"),
                ("inlined", "/inputSchema/properties/u"),
                ("moved-to-description", "/inputSchema/properties/u"),
                ("rewritten", "/inputSchema/properties/x"),
                ("moved-to-description", "/inputSchema/properties/x"),
                ("rewritten", "/inputSchema/$defs"),
                ("moved-to-description", "/inputSchema"),
                ("moved-to-description", "/inputSchema"),
            ])
        );
    }

    #[test]
    fn mistral_strict_is_openai_strict() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(
            run(&schema, Dialect::Mistral { strict: true }).schema,
            run(&schema, OPENAI).schema
        );
    }

    #[test]
    fn references_through_anchors_are_written_as_pointers() {
        let schema = json!({"type": "object", "properties": {"when": {"$ref": "#range"}},
            "required": ["when"],
            "$defs": {"range": {"$anchor": "range", "type": "object",
                "properties": {"from": {"type": "string"}}, "required": ["from"]}}});
        for dialect in [OPENAI, Dialect::Anthropic { strict: true }] {
            let lowered = run(&schema, dialect);
            assert_eq!(
                lowered.schema["properties"]["when"],
                json!({"$ref": "#/$defs/range"}),
                "{dialect:?}"
            );
            assert!(
                lowered
                    .notes
                    .contains(&("rewritten".into(), "/inputSchema/properties/when/$ref".into())),
                "{dialect:?}: {:?}",
                lowered.notes
            );
        }
    }
}
