//! What the dialects share about keywords: which hold subschemas, which are
//! bookkeeping for schema authors, which apply to which instance type; how
//! two schemas are combined (`allOf`, a `$ref` with siblings); and the one
//! way every dialect writes keywords it cannot carry into a description.

use crate::json::Field;
use serde_json::{Map, Value};

/// A JSON object, as a schema.
pub(super) type Object = Map<String, Value>;

/// Keywords for the schema's authors and tools, not for the model. A dialect
/// that cannot carry them drops them (a description is no place for them).
pub(super) const META: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
];

/// Keywords whose value is one subschema (`items` may also be a list).
pub(super) const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
];

/// Keywords whose value is a list of subschemas.
pub(super) const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to subschemas (`dependencies` also holds
/// lists of names, which are not schemas).
pub(super) const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// The JSON Schema vocabulary (2020-12 and draft-07) besides [`META`]:
/// keywords that mean something to a reader of the schema. Gemini moves these
/// into the description when it cannot carry them, and drops any other key.
pub(super) const STANDARD: &[&str] = &[
    "type",
    "enum",
    "const",
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "minLength",
    "maxLength",
    "pattern",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "required",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "minProperties",
    "maxProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "definitions",
    "$dynamicRef",
    "$recursiveRef",
];

const STRING_ONLY: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];
const NUMBER_ONLY: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];
const ARRAY_ONLY: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
];
const OBJECT_ONLY: &[&str] = &[
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "required",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "minProperties",
    "maxProperties",
];

/// True if `keyword` constrains instances of JSON type `ty` (a JSON Schema
/// type name). Keywords that apply to every type (and unknown ones) are true.
pub(super) fn applies_to(keyword: &str, ty: &str) -> bool {
    if STRING_ONLY.contains(&keyword) {
        ty == "string"
    } else if NUMBER_ONLY.contains(&keyword) {
        ty == "number" || ty == "integer"
    } else if ARRAY_ONLY.contains(&keyword) {
        ty == "array"
    } else if OBJECT_ONLY.contains(&keyword) {
        ty == "object"
    } else {
        true
    }
}

/// The type a keyword implies when a schema has no `type` (`properties` →
/// object, `minLength` → string, …).
pub(super) fn implied_type(keyword: &str) -> Option<&'static str> {
    if STRING_ONLY.contains(&keyword) || keyword == "format" {
        Some("string")
    } else if NUMBER_ONLY.contains(&keyword) {
        Some("number")
    } else if ARRAY_ONLY.contains(&keyword) {
        Some("array")
    } else if OBJECT_ONLY.contains(&keyword) {
        Some("object")
    } else {
        None
    }
}

/// The type names in a `type` value (a name or a list of names); `None` if
/// the value is neither.
pub(super) fn type_names(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => names.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

/// A `type` value for a list of names: the name alone, or the list.
pub(super) fn type_value(names: &[&str]) -> Value {
    match names {
        [one] => Value::String((*one).to_string()),
        many => Value::Array(
            many.iter()
                .map(|name| Value::String((*name).to_string()))
                .collect(),
        ),
    }
}

/// The JSON Schema type name of a JSON value.
pub(super) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(number) if number.as_f64().is_some_and(|n| n.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The type names of a list of values, in order of first appearance.
pub(super) fn value_types(values: &[Value]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for value in values {
        let name = json_type(value);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    // An integer is a number: a list with both needs only "number".
    if names.contains(&"number") {
        names.retain(|name| *name != "integer");
    }
    names
}

/// True if a value of JSON type `value_type` is an instance of type `ty`.
pub(super) fn type_admits(ty: &str, value_type: &str) -> bool {
    ty == value_type || (ty == "number" && value_type == "integer")
}

/// The object form of a boolean schema: `true` accepts anything (`{}`),
/// `false` nothing (`{"not": {}}`).
pub(super) fn bool_schema(accepts: bool) -> Object {
    let mut object = Object::new();
    if !accepts {
        object.insert("not".into(), Value::Object(Object::new()));
    }
    object
}

/// Writes `moved` keywords into a description. This is the one format every
/// dialect uses: the description, a blank line, then the keywords as a JSON
/// object in their original order with a space after `:` and `,`:
///
/// ```text
/// City name.
///
/// {"minLength": 3, "default": "Paris"}
/// ```
///
/// Without a description the text is the object alone. Returns `None` if a
/// moved value is nested deeper than `max_depth`.
pub(super) fn describe(description: Option<&str>, moved: &Object, max_depth: usize) -> Option<String> {
    let mut text = String::new();
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        text.push_str(description);
        text.push_str("\n\n");
    }
    write_object(&mut text, moved, max_depth)?;
    Some(text)
}

fn write_object(text: &mut String, object: &Object, depth_left: usize) -> Option<()> {
    let depth_left = depth_left.checked_sub(1)?;
    text.push('{');
    for (index, (key, value)) in object.iter().enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        text.push_str(&Value::String(key.clone()).to_string());
        text.push_str(": ");
        write_value(text, value, depth_left)?;
    }
    text.push('}');
    Some(())
}

fn write_value(text: &mut String, value: &Value, depth_left: usize) -> Option<()> {
    match value {
        Value::Object(object) => write_object(text, object, depth_left),
        Value::Array(items) => {
            let depth_left = depth_left.checked_sub(1)?;
            text.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    text.push_str(", ");
                }
                write_value(text, item, depth_left)?;
            }
            text.push(']');
            Some(())
        }
        scalar => {
            text.push_str(&scalar.to_string());
            Some(())
        }
    }
}

/// Combines `from` into `into` the way `allOf: [into, from]` constrains an
/// instance, as far as one schema can say the same.
///
/// `into` keeps its key order and wins for annotations (`title`, `default`,
/// …); descriptions are joined with a blank line; `required` lists are
/// united; `type`s and `enum`s intersected; lower bounds take the larger and
/// upper bounds the smaller value; a property or `items` both sides define
/// becomes `{"allOf": [a, b]}` (to be combined in turn); `allOf` lists are
/// concatenated. Anything else both sides set differently cannot be
/// combined: `into`'s value is kept, and `from`'s is returned, keyword by
/// keyword, for the caller to report (an empty list means the result is
/// exact). Merging closed objects (`additionalProperties`) with properties
/// from the other side is reported the same way, since the closed side would
/// have refused those properties.
pub(super) fn merge_into(into: &mut Object, from: &Object) -> Vec<(String, Value)> {
    let mut rejected = Vec::new();
    if closes_out(into, from) || closes_out(from, into) {
        if let Some(value) = from.field("additionalProperties") {
            rejected.push(("additionalProperties".to_string(), value.clone()));
        } else if let Some(value) = into.field("additionalProperties") {
            rejected.push(("additionalProperties".to_string(), value.clone()));
        }
    }
    for (key, value) in from {
        let Some(existing) = into.get_mut(key) else {
            into.insert(key.clone(), value.clone());
            continue;
        };
        if existing == value {
            continue;
        }
        if !merge_keyword(key, existing, value)
            && (key != "additionalProperties" || !rejected.iter().any(|(k, _)| k == key))
        {
            rejected.push((key.clone(), value.clone()));
        }
    }
    rejected
}

/// True if `closed` forbids extra keys and `other` defines properties
/// `closed` does not list.
fn closes_out(closed: &Object, other: &Object) -> bool {
    let forbids = matches!(closed.field("additionalProperties"), Some(value) if value != &Value::Bool(true))
        || closed.has_field("unevaluatedProperties");
    if !forbids {
        return false;
    }
    let listed = closed.field("properties").and_then(Value::as_object);
    other
        .field("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| {
            props
                .keys()
                .any(|name| !listed.is_some_and(|l| l.contains_key(name)))
        })
}

const ANNOTATIONS: &[&str] = &[
    "title",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$anchor",
];
const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];

/// Merges one keyword both sides set (to different values); false if it
/// cannot be merged.
fn merge_keyword(key: &str, existing: &mut Value, value: &Value) -> bool {
    if ANNOTATIONS.contains(&key) {
        return true;
    }
    match key {
        "description" => match (existing.as_str(), value.as_str()) {
            (Some(a), Some(b)) => {
                *existing = Value::String(format!("{a}\n\n{b}"));
                true
            }
            _ => false,
        },
        "required" => match (existing.as_array_mut(), value.as_array()) {
            (Some(names), Some(more)) => {
                for name in more {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
                true
            }
            _ => false,
        },
        "allOf" => match (existing.as_array_mut(), value.as_array()) {
            (Some(branches), Some(more)) => {
                branches.extend(more.iter().cloned());
                true
            }
            _ => false,
        },
        "type" => match (type_names(existing), type_names(value)) {
            (Some(a), Some(b)) => {
                let mut both: Vec<&str> = Vec::new();
                for name in &a {
                    for other in &b {
                        let common = if name == other {
                            Some(*name)
                        } else if type_admits(name, other) {
                            Some(*other)
                        } else if type_admits(other, name) {
                            Some(*name)
                        } else {
                            None
                        };
                        if let Some(common) = common.filter(|c| !both.contains(c)) {
                            both.push(common);
                        }
                    }
                }
                if both.is_empty() {
                    return false;
                }
                let merged = type_value(&both);
                *existing = merged;
                true
            }
            _ => false,
        },
        "enum" => match (existing.as_array(), value.as_array()) {
            (Some(a), Some(b)) => {
                let common: Vec<Value> = a.iter().filter(|v| b.contains(v)).cloned().collect();
                if common.is_empty() {
                    return false;
                }
                *existing = Value::Array(common);
                true
            }
            _ => false,
        },
        "properties" => match (existing.as_object_mut(), value.as_object()) {
            (Some(props), Some(more)) => {
                for (name, schema) in more {
                    match props.get_mut(name) {
                        None => {
                            props.insert(name.clone(), schema.clone());
                        }
                        Some(same) if same == schema => {}
                        Some(other) => {
                            let both = Value::Array(vec![other.take(), schema.clone()]);
                            let mut all_of = Object::new();
                            all_of.insert("allOf".into(), both);
                            *other = Value::Object(all_of);
                        }
                    }
                }
                true
            }
            _ => false,
        },
        "items" if existing.is_object() && value.is_object() => {
            let both = Value::Array(vec![existing.take(), value.clone()]);
            let mut all_of = Object::new();
            all_of.insert("allOf".into(), both);
            *existing = Value::Object(all_of);
            true
        }
        _ if LOWER_BOUNDS.contains(&key) || UPPER_BOUNDS.contains(&key) => {
            match (existing.as_f64(), value.as_f64()) {
                (Some(a), Some(b)) => {
                    let take_new = if LOWER_BOUNDS.contains(&key) { b > a } else { b < a };
                    if take_new {
                        *existing = value.clone();
                    }
                    true
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Moves the keys `first` names to the front of `object`, in `first`'s order.
pub(super) fn reorder_like(object: Object, first: &Object) -> Object {
    let mut object = object;
    let mut ordered = Object::new();
    for key in first.keys() {
        if let Some(value) = object.shift_remove(key) {
            ordered.insert(key.clone(), value);
        }
    }
    ordered.extend(object);
    ordered
}

/// Replaces key `old` by `new` (with the same value) where it stands.
pub(super) fn rename_key(object: Object, old: &str, new: &str) -> Object {
    object
        .into_iter()
        .map(|(key, value)| {
            if key == old {
                (new.to_string(), value)
            } else {
                (key, value)
            }
        })
        .collect()
}

/// True if a regular expression uses what Anthropic's and OpenAI's grammar
/// compilers reject: look-around, backreferences, word boundaries.
pub(super) fn pattern_is_unsupported(pattern: &str) -> bool {
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('1'..='9' | 'k') if !in_class => return true,
                Some('b' | 'B') if !in_class => return true,
                _ => {}
            },
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class && chars.peek() == Some(&'?') => {
                chars.next();
                match chars.next() {
                    Some('=' | '!') => return true,
                    Some('<') if matches!(chars.peek(), Some('=' | '!')) => return true,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Object {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn moved_keywords_follow_the_description_as_json() {
        let moved = object(json!({"minLength": 3, "default": "Paris", "examples": [["a", {"b": null}]]}));
        assert_eq!(
            describe(Some("City name."), &moved, 10).unwrap(),
            "City name.\n\n{\"minLength\": 3, \"default\": \"Paris\", \"examples\": [[\"a\", {\"b\": null}]]}"
        );
        assert_eq!(describe(None, &moved, 10).unwrap().chars().next(), Some('{'));
        assert_eq!(
            describe(Some(""), &object(json!({"a": 1})), 10).unwrap(),
            "{\"a\": 1}"
        );
        assert_eq!(describe(None, &object(json!({"a": [[[1]]]})), 3), None);
    }

    #[test]
    fn merging_intersects_types_and_enums_and_unites_required() {
        let mut into = object(
            json!({"type": ["number", "string"], "required": ["a"], "minimum": 1,
            "description": "A.", "properties": {"a": {"type": "string"}}}),
        );
        let rejected = merge_into(
            &mut into,
            &object(
                json!({"type": "integer", "required": ["b", "a"], "minimum": 3, "maximum": 9,
                "description": "B.", "properties": {"a": {"minLength": 1}, "b": {}}}),
            ),
        );
        assert!(rejected.is_empty());
        assert_eq!(
            Value::Object(into),
            json!({"type": "integer", "required": ["a", "b"], "minimum": 3, "description": "A.\n\nB.",
                "properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 1}]}, "b": {}}, "maximum": 9})
        );
    }

    #[test]
    fn merging_reports_what_cannot_be_combined() {
        let mut into = object(json!({"type": "string", "pattern": "a", "title": "T"}));
        let rejected = merge_into(
            &mut into,
            &object(json!({"type": "number", "pattern": "b", "title": "U"})),
        );
        assert_eq!(
            rejected,
            vec![
                ("type".to_string(), json!("number")),
                ("pattern".to_string(), json!("b"))
            ]
        );
        assert_eq!(
            Value::Object(into),
            json!({"type": "string", "pattern": "a", "title": "T"})
        );

        let mut closed = object(json!({"properties": {"a": {}}, "additionalProperties": false}));
        let rejected = merge_into(&mut closed, &object(json!({"properties": {"b": {}}})));
        assert_eq!(rejected, vec![("additionalProperties".to_string(), json!(false))]);
    }

    #[test]
    fn unsupported_patterns_are_found() {
        assert!(pattern_is_unsupported("^(?=a)b$"));
        assert!(pattern_is_unsupported("(?<!x)y"));
        assert!(pattern_is_unsupported(r"(a)\1"));
        assert!(pattern_is_unsupported(r"\bword\b"));
        assert!(!pattern_is_unsupported(r"^[\b]\d+(?:x)\\b$"));
        assert!(!pattern_is_unsupported("^[a-z]+$"));
    }

    #[test]
    fn value_types_merge_integer_into_number() {
        assert_eq!(
            value_types(&[json!(1), json!("a"), json!(null)]),
            ["integer", "string", "null"]
        );
        assert_eq!(value_types(&[json!(1), json!(1.5)]), ["number"]);
        assert_eq!(value_types(&[json!(2.0)]), ["integer"]);
    }
}
