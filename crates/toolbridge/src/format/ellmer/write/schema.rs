//! The input schema as ellmer's `type_*()` calls: a plan per sub-schema
//! (`type_from_schema()` where `type_*()` cannot say it all), root definitions
//! embedded where they are used.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::json::describe;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

use super::super::r::{self, RExpr};
use super::super::{fragment, refs_of, rewrite_refs, root_def_of, DEF_KEYS};

/// One written tool argument.
pub(super) struct WrittenArgument {
    pub(super) name: String,
    pub(super) expr: RExpr,
    pub(super) optional: bool,
}

/// How a sub-schema is written.
enum Plan<'v> {
    Basic {
        ty: &'v str,
        description: Option<&'v str>,
    },
    Enum {
        values: Vec<&'v str>,
        description: Option<&'v str>,
    },
    Array {
        items: Box<Plan<'v>>,
        description: Option<&'v str>,
    },
    Object {
        schema: &'v Map<String, Value>,
        description: Option<&'v str>,
        properties: Vec<(&'v str, Plan<'v>, bool)>,
    },
    FromSchema {
        schema: &'v Value,
        /// The first keyword that type_*() cannot express.
        keyword: String,
        /// Everything that type_*() cannot express, for the note.
        reason: String,
    },
}

fn from_schema<'v>(schema: &'v Value, keyword: &str, reason: String) -> Plan<'v> {
    Plan::FromSchema {
        schema,
        keyword: keyword.to_string(),
        reason,
    }
}

/// Writes the input schema as the tool's arguments, noting what changes.
pub(super) struct SchemaWriter<'v, 'n> {
    root: &'v Value,
    limits: &'v Limits,
    notes: &'n mut Notes,
    /// Root definitions embedded so far: (key, name).
    used_defs: Vec<(&'static str, String)>,
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
                    NoteKind::Dropped { keyword: key.clone() },
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
                    NoteKind::Dropped {
                        keyword: name.clone(),
                    },
                    child_at,
                    format!("{name:?} cannot be an R argument name; the argument was left out"),
                );
                continue;
            }
            let is_required = required.contains(&name.as_str());
            let plan = self.plan(child, &child_at, 1)?;
            if matches!(plan, Plan::FromSchema { .. }) && !is_required {
                self.notes.push(
                    NoteKind::MadeRequired {
                        property: name.clone(),
                    },
                    at.key("required"),
                    format!(
                        "{name:?} is optional but needs type_from_schema(), which has no required = FALSE; \
                         ellmer lists it as required"
                    ),
                );
            }
            let optional = !is_required && !matches!(plan, Plan::FromSchema { .. });
            let expr = self.emit(plan, &child_at, optional)?;
            written.push(WrittenArgument {
                name: name.clone(),
                expr,
                optional: !is_required,
            });
        }
        Ok(written)
    }

    /// Notes for a `required` list that will come back different: names that
    /// are not properties, an empty list, another order.
    fn note_required(
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
                        keyword: name.to_string(),
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

    fn note_closed(&mut self, at: &Pointer) {
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
        let object = match schema {
            Value::Bool(_) => {
                return Ok(from_schema(
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
        let ty = object.get("type").and_then(Value::as_str);
        let allowed: &[&str] = match ty {
            Some("string") if object.contains_key("enum") => &["type", "description", "enum"],
            Some("string" | "integer" | "number" | "boolean") => &["type", "description"],
            Some("array") => &["type", "description", "items"],
            Some("object") => &[
                "type",
                "description",
                "properties",
                "required",
                "additionalProperties",
            ],
            _ => &[],
        };
        let mut keywords: Vec<String> = Vec::new();
        let mut phrases: Vec<String> = Vec::new();
        match object.get("type") {
            None => {
                keywords.push("type".into());
                phrases.push("a schema without \"type\"".into());
            }
            Some(other) if allowed.is_empty() => {
                keywords.push("type".into());
                phrases.push(format!("\"type\": {other}"));
            }
            _ => {}
        }
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) && key != "type" {
                keywords.push(key.clone());
                phrases.push(key.clone());
            }
        }
        let description = match object.get("description") {
            None => None,
            Some(Value::String(text)) if !r::has_nul(text) => Some(text.as_str()),
            Some(_) => {
                keywords.push("description".into());
                phrases.push("a description that is not a plain string".into());
                None
            }
        };
        if !keywords.is_empty() {
            return Ok(Plan::FromSchema {
                schema,
                keyword: keywords.swap_remove(0),
                reason: phrases.join(", "),
            });
        }
        match ty.unwrap_or_default() {
            "array" => {
                let Some(items) = object
                    .get("items")
                    .filter(|items| items.is_object() || items.is_boolean())
                else {
                    return Ok(from_schema(
                        schema,
                        "items",
                        "an array without a single items schema".into(),
                    ));
                };
                let items = self.plan(items, &at.key("items"), depth + 1)?;
                Ok(Plan::Array {
                    items: Box::new(items),
                    description,
                })
            }
            "object" => self.plan_object(schema, object, description, at, depth),
            "string" if object.contains_key("enum") => {
                let values: Option<Vec<&str>> = object
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|values| !values.is_empty())
                    .and_then(|values| {
                        values
                            .iter()
                            .map(|value| value.as_str().filter(|text| !r::has_nul(text)))
                            .collect()
                    });
                match values {
                    Some(values) => Ok(Plan::Enum { values, description }),
                    None => Ok(from_schema(
                        schema,
                        "enum",
                        "an enum that is not a list of strings".into(),
                    )),
                }
            }
            ty => Ok(Plan::Basic { ty, description }),
        }
    }

    fn plan_object(
        &mut self,
        schema: &'v Value,
        object: &'v Map<String, Value>,
        description: Option<&'v str>,
        at: &Pointer,
        depth: usize,
    ) -> Result<Plan<'v>> {
        let closed = match object.get("additionalProperties") {
            None => false,
            Some(Value::Bool(false)) => true,
            Some(_) => {
                return Ok(from_schema(
                    schema,
                    "additionalProperties",
                    "additionalProperties other than false".into(),
                ))
            }
        };
        let properties = match object.get("properties") {
            None => empty_map(),
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                return Ok(from_schema(
                    schema,
                    "properties",
                    "properties that are not an object".into(),
                ))
            }
        };
        if properties.is_empty() && !closed {
            return Ok(from_schema(
                schema,
                "properties",
                "an object without properties that allows any key (type_object() would forbid every key)"
                    .into(),
            ));
        }
        let required: Vec<&str> = match object.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => match names.iter().map(Value::as_str).collect::<Option<Vec<&str>>>()
            {
                Some(names) => names,
                None => {
                    return Ok(from_schema(
                        schema,
                        "required",
                        "a required list that is not a list of names".into(),
                    ))
                }
            },
            Some(_) => {
                return Ok(from_schema(
                    schema,
                    "required",
                    "a required list that is not a list of names".into(),
                ))
            }
        };
        if let Some(missing) = required.iter().find(|name| !properties.contains_key(**name)) {
            return Ok(from_schema(
                schema,
                "required",
                format!("{missing:?} required without being a property"),
            ));
        }
        let required: HashSet<&str> = required.into_iter().collect();
        if let Some(name) = properties.keys().find(|name| !object_property_name(name)) {
            return Ok(from_schema(
                schema,
                "properties",
                format!("the property name {name:?}, which type_object() cannot take"),
            ));
        }
        let mut planned = Vec::new();
        for (name, child) in properties {
            let child_plan = self.plan(child, &at.key("properties").key(name), depth + 1)?;
            let is_required = required.contains(&name.as_str());
            if matches!(child_plan, Plan::FromSchema { .. }) && !is_required {
                return Ok(from_schema(
                    schema,
                    "required",
                    format!("the optional property {name:?}, which needs type_from_schema() (it has no required = FALSE)"),
                ));
            }
            planned.push((name.as_str(), child_plan, is_required));
        }
        Ok(Plan::Object {
            schema: object,
            description,
            properties: planned,
        })
    }

    fn emit(&mut self, plan: Plan<'v>, at: &Pointer, optional: bool) -> Result<RExpr> {
        let described =
            |description: Option<&str>| description.map(|text| (None, RExpr::Atom(r::string(text))));
        let optional_flag =
            |flag: &str| optional.then(|| (Some(flag.to_string()), RExpr::Atom("FALSE".into())));
        Ok(match plan {
            Plan::Basic { ty, description } => {
                let args = described(description)
                    .into_iter()
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call(&format!("type_{ty}"), args)
            }
            Plan::Enum { values, description } => {
                let values = RExpr::call(
                    "c",
                    values
                        .iter()
                        .map(|value| (None, RExpr::Atom(r::string(value))))
                        .collect(),
                );
                let args = std::iter::once((None, values))
                    .chain(described(description))
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call("type_enum", args)
            }
            Plan::Array { items, description } => {
                let items = self.emit(*items, &at.key("items"), false)?;
                let args = std::iter::once((None, items))
                    .chain(described(description))
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call("type_array", args)
            }
            Plan::Object {
                schema,
                description,
                properties,
            } => {
                let all = match schema.get("properties") {
                    Some(Value::Object(all)) => all,
                    _ => empty_map(),
                };
                self.note_required(schema, all, at, false);
                if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                    self.notes.push(
                        NoteKind::Rewritten {
                            keyword: "additionalProperties".into(),
                        },
                        at.key("additionalProperties"),
                        "type_object() sends additionalProperties: false by itself (to every provider but Gemini); it \
                         is not written, and reading the R back does not restore it",
                    );
                } else {
                    self.note_closed(at);
                }
                if !schema.contains_key("properties") {
                    self.notes.push(
                        NoteKind::Normalized {
                            field: "properties".into(),
                        },
                        at.key("properties"),
                        "type_object() always declares its properties; reading back gives \"properties\": {}",
                    );
                }
                let mut args: Vec<(Option<String>, RExpr)> = described(description).into_iter().collect();
                let has_properties = !properties.is_empty();
                for (name, child, is_required) in properties {
                    let child_at = at.key("properties").key(name);
                    let expr = self.emit(child, &child_at, !is_required)?;
                    args.push((Some(name.to_string()), expr));
                }
                args.extend(optional_flag(".required"));
                if has_properties {
                    RExpr::block("type_object", args)
                } else {
                    RExpr::call("type_object", args)
                }
            }
            Plan::FromSchema {
                schema,
                keyword,
                reason,
            } => {
                let mut json = match schema {
                    Value::Bool(true) => json!({}),
                    Value::Bool(false) => json!({"not": {}}),
                    other => other.clone(),
                };
                let rel = Pointer::parse(at.as_str().strip_prefix("/inputSchema").unwrap_or(""))
                    .unwrap_or_default();
                self.embed_defs(&mut json, at, &rel)?;
                let kind = NoteKind::Rewritten { keyword };
                let message = if schema.is_boolean() {
                    format!(
                        "ellmer's type_from_schema() needs a JSON object; the boolean schema {schema} was written as {json}"
                    )
                } else {
                    format!(
                        "ellmer's type_*() functions cannot express {reason}; written as type_from_schema()"
                    )
                };
                self.notes.push(kind, at.clone(), message);
                let text = serde_json::to_string(&json).expect("JSON values always serialize");
                RExpr::call(
                    "type_from_schema",
                    vec![(Some("text".into()), RExpr::Atom(r::single_quoted(&text)))],
                )
            }
        })
    }

    /// Copies the root definitions `json` refers to into it, with its `$ref`s
    /// rewritten to point at the copies (`rel` is its place in the input schema).
    fn embed_defs(&mut self, json: &mut Value, at: &Pointer, rel: &Pointer) -> Result<()> {
        let mut wanted: Vec<(&'static str, String)> = Vec::new();
        let mut queue: Vec<String> = refs_of(json);
        while let Some(reference) = queue.pop() {
            let Some((key, name)) = root_def_of(&reference) else {
                continue;
            };
            if wanted.contains(&(key, name.clone())) {
                continue;
            }
            let Some(def) = self.root.get(key).and_then(|defs| defs.get(&name)) else {
                continue;
            };
            queue.extend(refs_of(def));
            wanted.push((key, name));
        }
        if wanted.is_empty() {
            return Ok(());
        }
        for key in DEF_KEYS {
            if json.get(key).is_some() {
                self.notes.push(
                    NoteKind::Normalized { field: key.into() },
                    at.key(key),
                    format!("reading the R back moves these {key} to the input schema's root"),
                );
            }
        }
        let Some(object) = json.as_object_mut() else {
            return Ok(());
        };
        for (key, name) in &wanted {
            let def = self
                .root
                .get(*key)
                .and_then(|defs| defs.get(name))
                .cloned()
                .unwrap_or(Value::Null);
            let defs = object.entry(*key).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(defs) = defs else {
                return Err(Error::new(
                    ErrorKind::Unrepresentable,
                    format!(
                        "{key} here is not an object, so the root definitions it uses cannot be embedded"
                    ),
                )
                .at(at.clone()));
            };
            match defs.get(name) {
                Some(existing) if *existing != def => {
                    return Err(Error::new(
                        ErrorKind::Unrepresentable,
                        format!(
                            "this schema has its own {key}/{name}, so the root definition of that name cannot be \
                             embedded next to it"
                        ),
                    )
                    .at(at.clone()))
                }
                Some(_) => {}
                None => {
                    defs.insert(name.clone(), def);
                }
            }
            if !self.used_defs.contains(&(*key, name.clone())) {
                self.used_defs.push((*key, name.clone()));
            }
        }
        for key in DEF_KEYS {
            rewrite_refs(json, &format!("#/{key}/"), &format!("#{}/{key}/", fragment(rel)));
        }
        Ok(())
    }

    /// Notes for the root definitions: embedded where used, dropped where not.
    pub(super) fn finish_defs(&mut self) {
        let at = Pointer::root().key("inputSchema");
        for key in DEF_KEYS {
            let Some(defs) = self.root.get(key) else { continue };
            let Some(defs) = defs.as_object() else { continue };
            let mut any_used = false;
            for name in defs.keys() {
                if self.used_defs.contains(&(key, name.clone())) {
                    any_used = true;
                } else {
                    self.notes.push(
                        NoteKind::Dropped {
                            keyword: name.clone(),
                        },
                        at.key(key).key(name),
                        format!("no argument uses the definition {name:?}; ellmer has no place for it"),
                    );
                }
            }
            if any_used {
                self.notes.push(
                    NoteKind::Rewritten { keyword: key.into() },
                    at.key(key),
                    format!(
                        "ellmer builds the arguments object itself, so the {key} an argument uses are embedded in its \
                         type_from_schema() JSON (reading the R back moves them here again)"
                    ),
                );
            }
        }
    }
}

fn empty_map() -> &'static Map<String, Value> {
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
    fn optional_children_that_need_from_schema_take_their_parent_along() {
        let tool = tool_from(
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {
                "opts": {"type": "object", "properties": {"a": {"type": "string", "format": "date"}}},
                "when": {"type": "string", "format": "date"}
            }}}),
        );
        let (text, notes) = written(&tool);
        assert!(text.contains(r#"opts = type_from_schema(text = '{"type":"object","properties":{"a":{"type":"string","format":"date"}}}')"#), "{text}");
        assert!(notes.contains(&"/inputSchema/required \"when\" is optional but needs type_from_schema(), which has no required = FALSE; ellmer lists it as required".to_string()), "{notes:#?}");
        let back = read_value(&text);
        assert_eq!(back["inputSchema"]["required"], json!(["opts", "when"]));
        assert_eq!(back["inputSchema"]["properties"], tool.input_schema["properties"]);
    }

    #[test]
    fn root_definitions_are_embedded_and_come_back() {
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
            text.contains(r##"root = type_from_schema(text = '{"$ref":"#/properties/root/$defs/node","$defs":{"node":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/properties/root/$defs/node"}}},"required":["label"]}}}')"##),
            "{text}"
        );
        assert!(
            notes
                .iter()
                .any(|note| note.starts_with("/inputSchema/$defs/unused no argument uses")),
            "{notes:#?}"
        );
        let back = read_value(&text);
        let mut expected = tool.input_schema.clone();
        expected["$defs"].as_object_mut().unwrap().shift_remove("unused");
        assert_eq!(back["inputSchema"], expected);
    }
}
