//! The input schema as ellmer's `type_*()` calls: a plan per sub-schema.
//!
//! ellmer sends `type_*()` calls to each provider in that provider's own
//! form (strict OpenAI gets every property required, optional ones
//! nullable; Gemini no `additionalProperties`) but a `type_from_schema()`
//! as it is written, so the planner prefers `type_*()` wherever it can say
//! the schema: objects are always `type_object()`, a nullable value is
//! `required = FALSE` (ellmer drops `NULL` arguments, so null and absent are
//! one to the R function), and `$ref`s are written in place. Keywords
//! `type_*()` cannot say go into `type_from_schema()` only when its JSON is
//! in both OpenAI strict mode's and Gemini's subsets (`portable.rs`) and the
//! value is required; otherwise they follow the description as
//! `JSON Schema: {…}`. What has no `type_*()` form at all (a free-form
//! object, a union, a value of any type, a recursive `$ref`) is a string
//! holding JSON text, its schema in the description. Reading the R back
//! restores both description forms. `emit.rs` turns plans into R.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::json::describe;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;
use crate::schema::inferred_type;

use super::super::r::{self, RExpr};
use super::super::root_def_of;

/// One written tool argument.
pub(super) struct WrittenArgument {
    pub(super) name: String,
    pub(super) expr: RExpr,
    pub(super) optional: bool,
}

/// A sub-schema `type_*()` can write, with what it cannot say.
pub(super) struct Typed<'v> {
    /// The sub-schema as given.
    pub(super) schema: &'v Value,
    pub(super) description: Option<&'v str>,
    /// Keywords `type_*()` cannot say: in `type_from_schema()` when portable
    /// and required, else after the description.
    pub(super) extra: Map<String, Value>,
    /// `null` is allowed (a type list, `anyOf` with null, `nullable`).
    pub(super) nullable: bool,
    pub(super) kind: Kind<'v>,
}

/// The `type_*()` call a [`Typed`] plan becomes.
pub(super) enum Kind<'v> {
    Basic(&'v str),
    Enum(Vec<&'v str>),
    Array(Box<Plan<'v>>),
    Object {
        schema: &'v Map<String, Value>,
        properties: Vec<(&'v str, Plan<'v>, bool)>,
    },
}

/// How a sub-schema is written.
pub(super) enum Plan<'v> {
    Typed(Typed<'v>),
    /// `type_string()` holding JSON text of `schema`, given in the description.
    Text {
        schema: &'v Value,
        description: Option<&'v str>,
        /// The keyword that has no `type_*()` form, for the note.
        keyword: String,
        reason: String,
    },
}

impl Plan<'_> {
    fn nullable(&self) -> bool {
        matches!(self, Plan::Typed(Typed { nullable: true, .. }))
    }
}

fn text<'v>(schema: &'v Value, keyword: &str, reason: impl Into<String>) -> Plan<'v> {
    let description = schema
        .get("description")
        .and_then(Value::as_str)
        .filter(|text| !r::has_nul(text));
    Plan::Text {
        schema,
        description,
        keyword: keyword.to_string(),
        reason: reason.into(),
    }
}

/// Writes the input schema as the tool's arguments, noting what changes.
pub(super) struct SchemaWriter<'v, 'n> {
    pub(super) root: &'v Value,
    pub(super) limits: &'v Limits,
    pub(super) notes: &'n mut Notes,
    /// Root definitions embedded or written in place so far: (key, name).
    pub(super) used_defs: Vec<(&'static str, String)>,
    /// The definitions being written in place, to stop at a cycle.
    inlining: Vec<(&'static str, String)>,
    /// Schema nodes that `$ref`s added so far (written in place or
    /// embedded), bounded by [`Limits::max_ref_expansion`].
    expanded: usize,
    /// The "ellmer forbids extra keys" note was made.
    closed_noted: bool,
}

impl<'v, 'n> SchemaWriter<'v, 'n> {
    /// A writer for the input schema `root`.
    pub(super) fn new(root: &'v Value, limits: &'v Limits, notes: &'n mut Notes) -> SchemaWriter<'v, 'n> {
        SchemaWriter {
            root,
            limits,
            notes,
            used_defs: Vec::new(),
            inlining: Vec::new(),
            expanded: 0,
            closed_noted: false,
        }
    }

    /// The written arguments, one per property of the input schema.
    pub(super) fn root(&mut self) -> Result<Vec<WrittenArgument>> {
        let at = Pointer::root().key("inputSchema");
        let Some(schema) = self.root.as_object() else {
            return Err(Error::new(ErrorKind::InvalidSchema, "the input schema must be an object").at(at));
        };
        if schema.get("type") != Some(&json!("object")) {
            self.notes.push(
                NoteKind::Normalized { field: "type".into() },
                at.key("type"),
                "ellmer's arguments are always an object; reading the R back gives \"type\": \"object\"",
            );
        }
        for (key, value) in schema {
            match key.as_str() {
                "type" | "properties" | "$defs" | "definitions" => {}
                "required" if value.is_array() => {}
                "additionalProperties" if *value == Value::Bool(false) => self.notes.push(
                    NoteKind::Rewritten {
                        keyword: "additionalProperties".into(),
                    },
                    at.key(key),
                    "ellmer sends additionalProperties: false for the arguments by itself (to every provider but \
                     Gemini); it is not written, and reading the R back does not restore it",
                ),
                _ => self.notes.push(
                    NoteKind::Dropped { keyword: key.into() },
                    at.key(key),
                    format!("ellmer builds the arguments object itself; {key:?} at its root has no place"),
                ),
            }
        }
        let properties = match schema.get("properties") {
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                return Err(
                    Error::new(ErrorKind::InvalidSchema, "\"properties\" must be an object")
                        .at(at.key("properties")),
                )
            }
            None => empty_map(),
        };
        if properties.is_empty() && schema.contains_key("properties") {
            self.notes.push(
                NoteKind::Normalized {
                    field: "properties".into(),
                },
                at.key("properties"),
                "an empty properties object is not written; the tool simply has no arguments",
            );
        }
        let required = required_names(schema);
        self.note_required(schema, properties, &at, true);
        if !properties.is_empty() && !schema.contains_key("additionalProperties") {
            self.note_closed(&at);
        }
        let mut written = Vec::new();
        for (name, child) in properties {
            let child_at = at.key("properties").key(name);
            if !r::is_writable_name(name) {
                self.notes.push(
                    NoteKind::Dropped { keyword: name.into() },
                    child_at,
                    format!("{name:?} cannot be an R argument name; the argument was left out"),
                );
                continue;
            }
            let is_required = required.contains(&name.as_str());
            let plan = self.plan(child, &child_at, 1)?;
            let optional = !is_required || plan.nullable();
            let expr = self.emit(plan, &child_at, Some(!is_required))?;
            written.push(WrittenArgument {
                name: name.clone(),
                expr,
                optional,
            });
        }
        Ok(written)
    }

    /// Notes for a `required` list that will come back different: names that
    /// are not properties, an empty list, another order.
    pub(super) fn note_required(
        &mut self,
        schema: &Map<String, Value>,
        properties: &Map<String, Value>,
        at: &Pointer,
        root: bool,
    ) {
        let Some(Value::Array(listed)) = schema.get("required") else {
            return;
        };
        let at = at.key("required");
        let names: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
        if root {
            for name in names.iter().filter(|name| !properties.contains_key(**name)) {
                self.notes.push(
                    NoteKind::Dropped {
                        keyword: (*name).into(),
                    },
                    at.clone(),
                    format!("{name:?} is required but is not a property; ellmer cannot say so"),
                );
            }
        }
        let listed_set: HashSet<&str> = names.iter().copied().collect();
        let in_order: Vec<&str> = properties
            .keys()
            .map(String::as_str)
            .filter(|name| listed_set.contains(name) && (!root || r::is_writable_name(name)))
            .collect();
        if names.is_empty() {
            self.notes.push(
                NoteKind::Normalized {
                    field: "required".into(),
                },
                at,
                "an empty required list is not written",
            );
        } else if in_order != names {
            self.notes.push(
                NoteKind::Normalized {
                    field: "required".into(),
                },
                at,
                "ellmer marks each property required on its own, so the required list comes back in property order",
            );
        }
    }

    pub(super) fn note_closed(&mut self, at: &Pointer) {
        if self.closed_noted {
            return;
        }
        self.closed_noted = true;
        self.notes.push(
            NoteKind::Rewritten {
                keyword: "additionalProperties".into(),
            },
            at.clone(),
            "ellmer sends additionalProperties: false for the arguments and every type_object() (to every provider \
             but Gemini), so the model can no longer add keys that are not declared",
        );
    }

    fn plan(&mut self, schema: &'v Value, at: &Pointer, depth: usize) -> Result<Plan<'v>> {
        if depth > self.limits.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the schema is nested more than {} levels deep",
                    self.limits.max_depth
                ),
            )
            .at(at.clone()));
        }
        if !self.inlining.is_empty() {
            self.count_expansion(1, at)?;
        }
        let object = match schema {
            Value::Bool(_) => {
                return Ok(text(
                    schema,
                    "boolean schema",
                    format!("the boolean schema {schema}"),
                ))
            }
            Value::Object(object) => object,
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidSchema,
                    format!(
                        "a schema must be an object or a boolean, found {}",
                        describe(other)
                    ),
                )
                .at(at.clone()))
            }
        };
        let description = match object.get("description") {
            Some(Value::String(text)) if !r::has_nul(text) => Some(text.as_str()),
            _ => None,
        };
        if let Some(reference) = object.get("$ref") {
            return self.plan_ref(schema, object, reference, description, at, depth);
        }
        let mut nullable = object.get("nullable") == Some(&Value::Bool(true));
        let ty: &'v str = match object.get("type") {
            Some(Value::String(ty)) => ty,
            Some(Value::Array(types)) => {
                let names: Option<Vec<&str>> = types.iter().map(Value::as_str).collect();
                let non_null: Vec<&str> = names
                    .iter()
                    .flatten()
                    .copied()
                    .filter(|ty| *ty != "null")
                    .collect();
                match (names, non_null.as_slice()) {
                    (Some(names), [_]) => {
                        nullable |= names.contains(&"null");
                        types
                            .iter()
                            .filter_map(Value::as_str)
                            .find(|ty| *ty != "null")
                            .unwrap_or("string")
                    }
                    _ => return Ok(text(schema, "type", format!("the types {}", object["type"]))),
                }
            }
            Some(other) => return Ok(text(schema, "type", format!("\"type\": {other}"))),
            None => {
                if let Some(plan) = self.plan_null_union(object, description, at, depth)? {
                    return Ok(plan);
                }
                match inferred_type(object) {
                    Some(ty) => {
                        self.notes.push(
                            NoteKind::Normalized { field: "type".into() },
                            at.clone(),
                            format!(
                                "the schema has no \"type\"; ellmer needs one (OpenAI strict mode too), and its \
                                 keywords say {ty}: written as {ty}"
                            ),
                        );
                        ty
                    }
                    None if object.contains_key("anyOf") || object.contains_key("oneOf") => {
                        return Ok(text(schema, "anyOf", "a union of types"))
                    }
                    None => return Ok(text(schema, "type", "a value of any type")),
                }
            }
        };
        let mut extra = Map::new();
        let enum_values: Option<Vec<&'v str>> = match object.get("enum") {
            Some(Value::Array(values)) if ty == "string" && !values.is_empty() => values
                .iter()
                .map(|value| value.as_str().filter(|text| !r::has_nul(text)))
                .collect(),
            _ => None,
        };
        // A string `const` is type_enum() with one value.
        let const_value =
            match (object.get("const"), &enum_values) {
                (Some(Value::String(value)), None)
                    if ty == "string" && !r::has_nul(value) && !object.contains_key("enum") =>
                {
                    self.notes.push(
                    NoteKind::Normalized { field: "const".into() },
                    at.clone(),
                    "a string const is written as type_enum() with that one value; it reads back as an enum",
                );
                    Some(value.as_str())
                }
                _ => None,
            };
        let enum_values = enum_values.or_else(|| const_value.map(|value| vec![value]));
        for (key, value) in object {
            let said = match key.as_str() {
                "type" | "nullable" => true,
                "description" => description.is_some(),
                "enum" => enum_values.is_some(),
                "const" => const_value.is_some(),
                "items" => ty == "array",
                "properties" | "required" => ty == "object",
                "additionalProperties" => ty == "object" && *value == Value::Bool(false),
                _ => false,
            };
            if !said {
                extra.insert(key.clone(), value.clone());
            }
        }
        let kind = match ty {
            "array" => match object.get("items") {
                Some(items) if items.is_object() || items.is_boolean() => {
                    Kind::Array(Box::new(self.plan(items, &at.key("items"), depth + 1)?))
                }
                Some(_) => {
                    return Ok(text(
                        schema,
                        "items",
                        "an array whose items are a list of schemas",
                    ))
                }
                None => return Ok(text(schema, "items", "an array of any items")),
            },
            "object" => match self.plan_object(object, at, depth)? {
                Ok(kind) => kind,
                Err((keyword, reason)) => return Ok(text(schema, &keyword, reason)),
            },
            "string" => match enum_values {
                Some(values) => Kind::Enum(values),
                None => Kind::Basic(ty),
            },
            "integer" | "number" | "boolean" => Kind::Basic(ty),
            other => return Ok(text(schema, "type", format!("\"type\": \"{other}\""))),
        };
        Ok(Plan::Typed(Typed {
            schema,
            description,
            extra,
            nullable,
            kind,
        }))
    }

    /// Adds `nodes` to the nodes `$ref`s created; an error past the limit
    /// (a "billion laughs" of definitions that use each other twice).
    pub(super) fn count_expansion(&mut self, nodes: usize, at: &Pointer) -> Result<()> {
        self.expanded = self.expanded.saturating_add(nodes);
        if self.expanded > self.limits.max_ref_expansion {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the schema's $refs expand past {} nodes",
                    self.limits.max_ref_expansion
                ),
            )
            .at(at.clone()));
        }
        Ok(())
    }

    /// `anyOf`/`oneOf` of one schema and `{"type": "null"}`: that schema,
    /// nullable.
    fn plan_null_union(
        &mut self,
        object: &'v Map<String, Value>,
        description: Option<&'v str>,
        at: &Pointer,
        depth: usize,
    ) -> Result<Option<Plan<'v>>> {
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = object.get(key) else {
                continue;
            };
            let only_union = object.keys().all(|other| other == key || other == "description");
            let null_at = branches
                .iter()
                .position(|branch| *branch == json!({"type": "null"}));
            if let (true, 2, Some(null_at)) = (only_union, branches.len(), null_at) {
                let index = 1 - null_at;
                let mut plan = self.plan(&branches[index], &at.key(key).index(index), depth + 1)?;
                if let Plan::Typed(typed) = &mut plan {
                    typed.nullable = true;
                    if description.is_some() {
                        typed.description = description;
                    }
                    return Ok(Some(plan));
                }
            }
        }
        Ok(None)
    }

    /// A `$ref` to a root definition, written in place (`type_*()` has no
    /// references) unless it recurs or has sibling keywords: then JSON text
    /// with the definitions it uses.
    fn plan_ref(
        &mut self,
        schema: &'v Value,
        object: &'v Map<String, Value>,
        reference: &'v Value,
        description: Option<&'v str>,
        at: &Pointer,
        depth: usize,
    ) -> Result<Plan<'v>> {
        let root = self.root;
        let target = reference.as_str().and_then(root_def_of).and_then(|(key, name)| {
            root.get(key)
                .and_then(|defs| defs.get(&name))
                .map(|def| (key, name, def))
        });
        let only_ref = object.keys().all(|key| key == "$ref" || key == "description");
        match target {
            Some((key, name, def)) if only_ref && !self.inlining.contains(&(key, name.clone())) => {
                self.inlining.push((key, name.clone()));
                let plan = self.plan(def, at, depth + 1);
                self.inlining.pop();
                let mut plan = plan?;
                if !self.used_defs.contains(&(key, name.clone())) {
                    self.used_defs.push((key, name.clone()));
                }
                self.notes.push(
                    NoteKind::Rewritten {
                        keyword: "$ref".into(),
                    },
                    at.key("$ref"),
                    format!(
                        "ellmer's type_*() have no references: the definition {name:?} is written in place (reading \
                         the R back gives it inline)"
                    ),
                );
                match &mut plan {
                    Plan::Typed(typed) if description.is_some() => typed.description = description,
                    Plan::Text {
                        description: text_description,
                        ..
                    } if description.is_some() => *text_description = description,
                    _ => {}
                }
                Ok(plan)
            }
            Some(_) if only_ref => Ok(text(schema, "$ref", "a recursive $ref")),
            _ => Ok(text(schema, "$ref", "a $ref with other keywords beside it")),
        }
    }

    /// `type_object()` for an object with properties; what it cannot take
    /// (no properties, property names R would bind elsewhere, odd `required`)
    /// as the keyword and reason for JSON text.
    fn plan_object(
        &mut self,
        object: &'v Map<String, Value>,
        at: &Pointer,
        depth: usize,
    ) -> Result<std::result::Result<Kind<'v>, (String, String)>> {
        let fail = |keyword: &str, reason: String| Ok(Err((keyword.to_string(), reason)));
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) if !properties.is_empty() => properties,
            Some(Value::Object(_)) | None => {
                return fail(
                    "properties",
                    "an object without properties (Gemini refuses an OBJECT without properties, and OpenAI strict \
                     mode one whose keys are not listed)"
                        .into(),
                )
            }
            Some(_) => return fail("properties", "properties that are not an object".into()),
        };
        let required: Vec<&str> = match object.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => match names.iter().map(Value::as_str).collect::<Option<Vec<&str>>>()
            {
                Some(names) => names,
                None => return fail("required", "a required list that is not a list of names".into()),
            },
            Some(_) => return fail("required", "a required list that is not a list of names".into()),
        };
        if let Some(missing) = required.iter().find(|name| !properties.contains_key(**name)) {
            return fail(
                "required",
                format!("{missing:?} required without being a property"),
            );
        }
        if let Some(name) = properties.keys().find(|name| !object_property_name(name)) {
            return fail(
                "properties",
                format!("the property name {name:?}, which type_object() cannot take"),
            );
        }
        let required: HashSet<&str> = required.into_iter().collect();
        let mut planned = Vec::new();
        for (name, child) in properties {
            let child_plan = self.plan(child, &at.key("properties").key(name), depth + 1)?;
            planned.push((name.as_str(), child_plan, required.contains(name.as_str())));
        }
        Ok(Ok(Kind::Object {
            schema: object,
            properties: planned,
        }))
    }
}

pub(super) fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

fn required_names(schema: &Map<String, Value>) -> HashSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// True if `name` can be a `type_object()` argument: an R name that R would
/// not bind to `.description`, `.required` or `.additional_properties`.
fn object_property_name(name: &str) -> bool {
    r::is_writable_name(name)
        && !".description".starts_with(name)
        && name != ".required"
        && name != ".additional_properties"
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::super::testing::*;

    #[test]
    fn optional_children_keep_type_object_and_their_keywords_come_back() {
        let tool = tool_from(
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {
                "opts": {"type": "object", "properties": {"a": {"type": "string", "format": "date"}}},
                "when": {"type": "string", "format": "date-time", "description": "When."},
                "at": {"type": "string", "format": "date-time"}
            }, "required": ["at"]}}),
        );
        let (text, notes) = written(&tool);
        assert!(
            text.contains(
                "    opts = type_object(\n      a = type_string(\"JSON Schema: {\\\"format\\\":\\\"date\\\"}\", required = FALSE),\n      .required = FALSE\n    ),\n    when = type_string(\"When.\\n\\nJSON Schema: {\\\"format\\\":\\\"date-time\\\"}\", required = FALSE),\n    at = type_from_schema(text = '{\"type\":\"string\",\"format\":\"date-time\"}')\n"
            ),
            "{text}"
        );
        assert!(notes.contains(&"/inputSchema/properties/when ellmer's type_*() cannot express format and type_from_schema() cannot hold it here (it has no required = FALSE): written after the description as \"JSON Schema: {…}\" for the model (ellmer does not enforce it; reading the R back restores it)".to_string()), "{notes:#?}");
        assert_eq!(read_value(&text)["inputSchema"], tool.input_schema);
    }

    #[test]
    fn a_string_const_is_a_one_value_enum() {
        let tool = tool_from(
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object",
            "properties": {"kind": {"const": "circle", "description": "Always circle."}}, "required": ["kind"]}}),
        );
        let (text, notes) = written(&tool);
        assert!(
            text.contains("    kind = type_enum(c(\"circle\"), \"Always circle.\")\n"),
            "{text}"
        );
        assert!(notes.contains(&"/inputSchema/properties/kind a string const is written as type_enum() with that one value; it reads back as an enum".to_string()), "{notes:#?}");
        assert_eq!(
            read_value(&text)["inputSchema"]["properties"]["kind"],
            json!({"type": "string", "description": "Always circle.", "enum": ["circle"]})
        );
    }

    #[test]
    fn reference_fan_out_is_bounded() {
        // Each definition uses the next twice: 2^30 nodes written in place.
        let mut defs = serde_json::Map::new();
        for i in 0..30 {
            let next = json!({"$ref": format!("#/$defs/a{}", i + 1)});
            defs.insert(
                format!("a{i}"),
                json!({"type": "object", "properties": {"x": next, "y": next}}),
            );
        }
        defs.insert("a30".into(), json!({"type": "string"}));
        let tool = tool_from(json!({"name": "t", "description": "d", "inputSchema": {
            "type": "object", "properties": {"v": {"$ref": "#/$defs/a0"}}, "$defs": defs}}));
        let mut notes = crate::note::Notes::new();
        let err =
            super::super::write(&tool, &crate::options::WriteOptions::default(), &mut notes).unwrap_err();
        let path = "/properties/x".repeat(18)
            + "/properties/y/properties/x/properties/x/properties/y/properties/y/properties/x/properties/y\
               /properties/y/properties/y/properties/x/properties/x/properties/x";
        assert_eq!(
            err.to_string(),
            format!("limit exceeded: the schema's $refs expand past 10000 nodes (at /inputSchema/properties/v{path})")
        );
    }

    #[test]
    fn references_are_written_in_place_and_recursion_as_json_text() {
        let tool = tool_from(json!({"name": "render_tree", "description": "d", "inputSchema": {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}, "label": {"type": "string"}},
            "required": ["root"],
            "$defs": {
                "node": {"type": "object", "properties": {
                    "label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                }, "required": ["label"]},
                "unused": {"type": "string"}
            }
        }}));
        let (text, notes) = written(&tool);
        assert!(
            text.contains(r##"    root = type_object(
      label = type_string(),
      children = type_array(type_string("A string holding JSON that matches this JSON Schema: {\"$ref\":\"#/$defs/node\",\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"label\":{\"type\":\"string\"},\"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}},\"required\":[\"label\"]}}}"), required = FALSE)
    ),
"##),
            "{text}"
        );
        assert!(
            notes
                .iter()
                .any(|note| note.starts_with("/inputSchema/$defs/unused no argument uses")),
            "{notes:#?}"
        );
        assert!(
            notes.contains(&"/inputSchema/properties/root/$ref ellmer's type_*() have no references: the definition \"node\" is written in place (reading the R back gives it inline)".to_string()),
            "{notes:#?}"
        );
        let back = read_value(&text);
        let mut expected = tool.input_schema.clone();
        expected["$defs"].as_object_mut().unwrap().shift_remove("unused");
        expected["properties"]["root"] = expected["$defs"]["node"].clone();
        assert_eq!(back["inputSchema"], expected);
    }
}
