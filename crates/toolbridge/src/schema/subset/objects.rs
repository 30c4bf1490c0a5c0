//! What the strict subsets do to each object once its keywords are written:
//! close it (`additionalProperties: false`) and keep `required` to its
//! properties; for OpenAI, list every property in `required`, make each
//! optional one nullable (unless it accepts `null` already) and record its
//! output location, so that a returned `null` reads as "absent" again.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::note::NoteKind;
use crate::pointer::Pointer;

use crate::schema::keywords::{implied_type, type_names, type_value, Object};
use crate::schema::refs::Target;
use crate::schema::walk::Place;

use super::{Mark, Walker};
use crate::json::Field;

impl Walker<'_, '_> {
    /// `additionalProperties: false` on an object that lacked it.
    pub(super) fn close_object(&mut self, out: &mut Object, node: &Object, place: &Place, root: bool) {
        if node.has_field("additionalProperties") {
            return;
        }
        let target = self.ctx.target;
        let has_properties = out
            .field("properties")
            .and_then(Value::as_object)
            .is_some_and(|props| !props.is_empty());
        if has_properties || root {
            self.ctx.note(
                NoteKind::Rewritten {
                    keyword: "additionalProperties".into(),
                },
                place.at("additionalProperties"),
                format!("additionalProperties: false was added ({target} requires it on every object)"),
            );
        } else {
            self.ctx.note(
                NoteKind::Dropped {
                    keyword: "additionalProperties".into(),
                },
                place.at("additionalProperties"),
                format!(
                    "this object accepted any keys; {target} requires additionalProperties: false, so it now accepts only {{}}"
                ),
            );
        }
        out.insert("additionalProperties".into(), Value::Bool(false));
    }

    /// OpenAI wants `properties` and `required` on every object, even empty.
    pub(super) fn ensure_lists(&mut self, out: &mut Object, node: &Object, place: &Place) {
        if !out.has_field("properties") {
            out.insert("properties".into(), Value::Object(Object::new()));
            self.ctx.note(
                NoteKind::Rewritten {
                    keyword: "properties".into(),
                },
                place.at("properties"),
                format!(
                    "an empty \"properties\" was added ({} requires it on every object)",
                    self.ctx.target
                ),
            );
        }
        let none_required = out
            .field("properties")
            .and_then(Value::as_object)
            .is_some_and(|props| props.is_empty());
        if !node.has_field("required") && none_required {
            out.insert("required".into(), Value::Array(Vec::new()));
            self.ctx.note(
                NoteKind::Rewritten {
                    keyword: "required".into(),
                },
                place.at("required"),
                format!(
                    "an empty \"required\" was added ({} requires it on every object)",
                    self.ctx.target
                ),
            );
        }
    }

    /// OpenAI strict: every property in `required`; each one that was
    /// optional becomes nullable, and its output location is recorded.
    pub(super) fn require_all(
        &mut self,
        out: &mut Object,
        node: &Object,
        place: &Place,
        spans: &[(String, usize, usize)],
        depth: usize,
    ) {
        let Some(names) = out
            .field("properties")
            .and_then(Value::as_object)
            .map(|props| props.keys().cloned().collect::<Vec<String>>())
        else {
            return;
        };
        let original = node
            .field("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let known: HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut listed: HashSet<String> = HashSet::new();
        let mut required: Vec<String> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        let mut repeated: Vec<String> = Vec::new();
        for entry in &original {
            match entry.as_str() {
                Some(name) if known.contains(name) => {
                    if listed.insert(name.to_string()) {
                        required.push(name.to_string());
                    } else {
                        repeated.push(entry.to_string());
                    }
                }
                _ => unknown.push(entry.to_string()),
            }
        }
        if !repeated.is_empty() {
            self.ctx.note(
                NoteKind::Rewritten {
                    keyword: "required".into(),
                },
                place.at("required"),
                format!(
                    "\"required\" listed {} more than once; each name is listed once",
                    repeated.join(", ")
                ),
            );
        }
        if !unknown.is_empty() {
            self.ctx.note(
                NoteKind::Dropped {
                    keyword: "required".into(),
                },
                place.at("required"),
                format!(
                    "\"required\" listed {}, which are not properties of this object; {} rejects that",
                    unknown.join(", "),
                    self.ctx.target
                ),
            );
        }
        let optional: Vec<String> = names
            .iter()
            .filter(|name| !listed.contains(*name))
            .cloned()
            .collect();
        let span_of: HashMap<&str, (usize, usize)> = spans
            .iter()
            .map(|(name, start, end)| (name.as_str(), (*start, *end)))
            .collect();
        for name in &optional {
            required.push(name.clone());
            self.ctx.note(
                NoteKind::MadeRequired {
                    property: name.into(),
                },
                place.at("required"),
                format!(
                    "{name:?} was added to \"required\": {} needs every property listed",
                    self.ctx.target
                ),
            );
            let Some(schema) = out
                .get_mut("properties")
                .and_then(Value::as_object_mut)
                .and_then(|props| props.get_mut(name))
            else {
                continue;
            };
            if self.accepts_null(schema, depth) {
                continue;
            }
            let (start, end) = span_of
                .get(name.as_str())
                .copied()
                .unwrap_or((self.recorded.len(), self.recorded.len()));
            if make_nullable(schema) {
                let at = self.out.len() + 2;
                for (_, recorded) in &mut self.recorded[start..end] {
                    recorded.splice(at..at, ["anyOf".to_string(), "0".to_string()]);
                }
            }
            let mut location = self.out.clone();
            location.push("properties".into());
            location.push(name.clone());
            self.recorded.push((Mark::Absent, location));
            self.ctx.note(
                NoteKind::MadeNullable {
                    property: name.into(),
                },
                place.key("properties").key(name).note,
                format!("{name:?} was optional, so it now also accepts null, which stands for \"absent\""),
            );
        }
        out.insert(
            "required".into(),
            Value::Array(required.into_iter().map(Value::String).collect()),
        );
    }

    /// Strict dialects close every object, so a `required` name that is not
    /// a property could never be met: it is dropped.
    pub(super) fn drop_unknown_required(&mut self, out: &mut Object, place: &Place) {
        let names: Vec<String> = out
            .field("properties")
            .and_then(Value::as_object)
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default();
        let Some(Value::Array(required)) = out.get_mut("required") else {
            return;
        };
        let known: HashSet<&str> = names.iter().map(String::as_str).collect();
        let is_known = |entry: &Value| entry.as_str().is_some_and(|name| known.contains(name));
        let unknown: Vec<String> = required
            .iter()
            .filter(|entry| !is_known(entry))
            .map(Value::to_string)
            .collect();
        if unknown.is_empty() {
            return;
        }
        required.retain(is_known);
        self.ctx.note(
            NoteKind::Dropped {
                keyword: "required".into(),
            },
            place.at("required"),
            format!(
                "\"required\" listed {}, which are not properties of this closed object",
                unknown.join(", ")
            ),
        );
    }

    /// True if a lowered schema already accepts `null` (so "absent" can be
    /// sent as `null` without changing it). `$ref`s are followed into the
    /// original schema.
    fn accepts_null(&mut self, schema: &Value, depth: usize) -> bool {
        if depth > self.ctx.limits.max_depth {
            return false;
        }
        let node = match schema {
            Value::Bool(accepts) => return *accepts,
            Value::Object(node) => node,
            _ => return false,
        };
        let enum_ok = node
            .field("enum")
            .and_then(Value::as_array)
            .is_none_or(|values| values.contains(&Value::Null));
        let const_ok = node.field("const").is_none_or(Value::is_null);
        if let Some(ty) = node.field("type") {
            return type_names(ty).is_some_and(|names| names.contains(&"null")) && enum_ok && const_ok;
        }
        if node.has_field("enum") || node.has_field("const") {
            return enum_ok && const_ok;
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                let branches = branches.clone();
                return branches.iter().any(|branch| self.accepts_null(branch, depth + 1));
            }
        }
        if let Some(branches) = node.field("allOf").and_then(Value::as_array) {
            let branches = branches.clone();
            return branches.iter().all(|branch| self.accepts_null(branch, depth + 1));
        }
        if let Some(Value::String(reference)) = node.field("$ref") {
            if let Some(known) = self.null_refs.get(reference) {
                return known.unwrap_or(false);
            }
            self.null_refs.insert(reference.clone(), None);
            let place = Place::root(&Pointer::root());
            let accepts = match self.ctx.resolve(reference, &place) {
                Ok(Target::Local { schema, .. }) => self.accepts_null(schema, depth + 1),
                _ => false,
            };
            self.null_refs.insert(reference.clone(), Some(accepts));
            return accepts;
        }
        !node.keys().any(|key| implied_type(key).is_some())
    }
}

/// Adds `null` to what a lowered schema accepts: to its `type` (and `enum`),
/// to its `anyOf`, or by wrapping it as `anyOf: [schema, {"type": "null"}]`.
/// Returns true if it was wrapped (its content moved under `/anyOf/0`).
fn make_nullable(schema: &mut Value) -> bool {
    let null_branch = || {
        let mut branch = Object::new();
        branch.insert("type".into(), Value::String("null".into()));
        Value::Object(branch)
    };
    if let Value::Object(node) = schema {
        let has_const = node.field("const").is_some_and(|value| !value.is_null());
        let typed = node.field("type").and_then(type_names).map(|names| {
            let mut names: Vec<String> = names.into_iter().map(String::from).collect();
            names.push("null".into());
            names
        });
        if let (Some(names), false) = (typed, has_const) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            node.insert("type".into(), type_value(&names));
            if let Some(Value::Array(values)) = node.get_mut("enum") {
                if !values.contains(&Value::Null) {
                    values.push(Value::Null);
                }
            }
            return false;
        }
        let only_any_of = node
            .keys()
            .all(|key| matches!(key.as_str(), "anyOf" | "title" | "description"));
        if only_any_of {
            if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
                branches.push(null_branch());
                return false;
            }
        }
    }
    let inner = schema.take();
    let mut wrapper = Object::new();
    wrapper.insert("anyOf".into(), Value::Array(vec![inner, null_branch()]));
    *schema = Value::Object(wrapper);
    true
}
