//! Raising Gemini's `Schema` (the OpenAPI 3.0 subset its `parameters` and
//! `response` use) to JSON Schema 2020-12, for the `gemini` reader:
//! lowercase types, `nullable` as a type list (or an `anyOf` branch),
//! `defs`/`ref` as `$defs`/`$ref`, `example` as `examples`, int64 and double
//! members given as proto3 JSON strings as numbers, proto field names
//! (`min_items`) as JSON names. Every rewrite is noted at its place in the
//! input; what is not a `Schema` is an error.

use serde_json::{Map, Number, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::json::Field;
use crate::json::{describe, Node};
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

/// Raises a Gemini `Schema` (the OpenAPI 3.0 subset) to JSON Schema 2020-12.
/// Every rewrite is noted at its place in the input.
pub(crate) fn raise(node: &Node<'_>, limits: &Limits, notes: &mut Notes) -> Result<Value> {
    raise_schema(node.value, &node.at, 0, limits, notes)
}

/// `Schema` members given as proto field names, with their JSON names.
const PROTO_SCHEMA_NAMES: [(&str, &str); 8] = [
    ("any_of", "anyOf"),
    ("min_items", "minItems"),
    ("max_items", "maxItems"),
    ("min_length", "minLength"),
    ("max_length", "maxLength"),
    ("min_properties", "minProperties"),
    ("max_properties", "maxProperties"),
    ("property_ordering", "propertyOrdering"),
];

/// int64 members, which proto3 JSON may render as strings.
const INT64_MEMBERS: [&str; 6] = [
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
];

fn raise_schema(
    value: &Value,
    at: &Pointer,
    depth: usize,
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Value> {
    if depth > limits.max_depth {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("the schema is nested more than {} levels deep", limits.max_depth),
        )
        .at(at.clone()));
    }
    let Some(object) = value.as_object() else {
        return Err(Error::new(
            ErrorKind::InvalidSchema,
            format!("a Gemini Schema must be an object, found {}", describe(value)),
        )
        .at(at.clone()));
    };
    let mut out = Map::new();
    let mut nullable = false;
    for (given_key, child) in object {
        let child_at = at.key(given_key);
        let key = match PROTO_SCHEMA_NAMES.iter().find(|(proto, _)| proto == given_key) {
            Some((_, camel)) => {
                note_proto_name(&child_at, camel, notes);
                *camel
            }
            None => given_key.as_str(),
        };
        match key {
            "type" => {
                if let Some(kind) = raise_type(child, &child_at, notes)? {
                    out.insert("type".into(), Value::String(kind));
                }
            }
            "nullable" => match child {
                Value::Bool(flag) => {
                    nullable = *flag;
                    if !flag {
                        notes.push(
                            NoteKind::Normalized {
                                field: "nullable".into(),
                            },
                            child_at,
                            "\"nullable\": false is the default; left out",
                        );
                    }
                }
                other => {
                    return Err(invalid(
                        &child_at,
                        format!("\"nullable\" must be true or false, found {}", describe(other)),
                    ))
                }
            },
            "format" if child == "enum" => notes.push(
                NoteKind::Normalized {
                    field: "format".into(),
                },
                child_at,
                "\"format\": \"enum\" only marks an enum in Gemini; left out",
            ),
            "properties" | "defs" => {
                let Some(members) = child.as_object() else {
                    return Err(invalid(
                        &child_at,
                        format!("{key:?} must be an object of schemas, found {}", describe(child)),
                    ));
                };
                let mut raised = Map::new();
                for (name, member) in members {
                    raised.insert(
                        name.clone(),
                        raise_schema(member, &child_at.key(name), depth + 1, limits, notes)?,
                    );
                }
                let key = if key == "defs" {
                    notes.push(
                        NoteKind::Normalized { field: "defs".into() },
                        child_at,
                        "Gemini \"defs\" read as JSON Schema \"$defs\"",
                    );
                    "$defs"
                } else {
                    key
                };
                out.insert(key.into(), Value::Object(raised));
            }
            "items" => {
                out.insert(
                    key.into(),
                    raise_schema(child, &child_at, depth + 1, limits, notes)?,
                );
            }
            "additionalProperties" if child.is_boolean() => {
                out.insert(key.into(), child.clone());
            }
            "additionalProperties" => {
                out.insert(
                    key.into(),
                    raise_schema(child, &child_at, depth + 1, limits, notes)?,
                );
            }
            "anyOf" => {
                let Some(branches) = child.as_array() else {
                    return Err(invalid(
                        &child_at,
                        format!("\"anyOf\" must be an array of schemas, found {}", describe(child)),
                    ));
                };
                let raised = branches
                    .iter()
                    .enumerate()
                    .map(|(index, branch)| {
                        raise_schema(branch, &child_at.index(index), depth + 1, limits, notes)
                    })
                    .collect::<Result<Vec<Value>>>()?;
                out.insert(key.into(), Value::Array(raised));
            }
            "ref" => {
                let Some(reference) = child.as_str() else {
                    return Err(invalid(
                        &child_at,
                        format!("\"ref\" must be a string, found {}", describe(child)),
                    ));
                };
                let raised = match reference.strip_prefix("#/defs/") {
                    Some(rest) => format!("#/$defs/{rest}"),
                    None => reference.to_string(),
                };
                notes.push(
                    NoteKind::Normalized { field: "ref".into() },
                    child_at,
                    format!("Gemini \"ref\": {reference:?} read as JSON Schema \"$ref\": {raised:?}"),
                );
                out.insert("$ref".into(), Value::String(raised));
            }
            "example" => {
                notes.push(
                    NoteKind::Rewritten {
                        keyword: "example".into(),
                    },
                    child_at,
                    "OpenAPI \"example\" read as JSON Schema \"examples\": [example]",
                );
                out.insert("examples".into(), Value::Array(vec![child.clone()]));
            }
            key if INT64_MEMBERS.contains(&key) => {
                out.insert(key.into(), raise_int64(key, child, &child_at, notes)?);
            }
            "minimum" | "maximum" => {
                out.insert(key.into(), raise_double(key, child, &child_at, notes)?);
            }
            key => {
                out.insert(key.into(), child.clone());
            }
        }
    }
    if nullable {
        make_nullable(&mut out, &at.key("nullable"), notes);
    }
    numeric_enum(&mut out, &at.key("enum"), notes);
    Ok(Value::Object(out))
}

fn invalid(at: &Pointer, detail: String) -> Error {
    Error::new(ErrorKind::InvalidSchema, detail).at(at.clone())
}

/// A Gemini `Type` as a JSON Schema type name; `None` for `TYPE_UNSPECIFIED`.
fn raise_type(value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Option<String>> {
    let Some(given) = value.as_str() else {
        return Err(invalid(
            at,
            format!(
                "a Gemini \"type\" is a single type name such as \"STRING\", found {}",
                describe(value)
            ),
        ));
    };
    let lower = given.to_ascii_lowercase();
    match lower.as_str() {
        "string" | "number" | "integer" | "boolean" | "array" | "object" | "null" => {
            if lower != given {
                notes.push(
                    NoteKind::Normalized { field: "type".into() },
                    at.clone(),
                    format!("type {given:?} read as {lower:?}"),
                );
            }
            Ok(Some(lower))
        }
        "type_unspecified" => {
            notes.push(
                NoteKind::Normalized { field: "type".into() },
                at.clone(),
                format!("type {given:?} means any type; left out"),
            );
            Ok(None)
        }
        _ => Err(invalid(
            at,
            format!(
                "unknown Gemini type {given:?}; expected STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL \
                 or TYPE_UNSPECIFIED"
            ),
        )),
    }
}

/// A non-negative int64 member, given as a number or (proto3 JSON) a string.
fn raise_int64(key: &str, value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Value> {
    match value {
        Value::Number(number) if number.is_u64() => Ok(value.clone()),
        Value::String(text) => match text.trim().parse::<u64>() {
            Ok(number) => {
                notes.push(
                    NoteKind::Coerced {
                        from: "string".into(),
                        to: "integer".into(),
                    },
                    at.clone(),
                    format!("{key:?} given as the string {text:?}; read as the number {number}"),
                );
                Ok(Value::Number(number.into()))
            }
            Err(_) => Err(invalid(
                at,
                format!("{key:?} must be a non-negative integer, found {text:?}"),
            )),
        },
        other => Err(invalid(
            at,
            format!("{key:?} must be a non-negative integer, found {other}"),
        )),
    }
}

/// A double member, given as a number or (proto3 JSON) a string.
fn raise_double(key: &str, value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Value> {
    match value {
        Value::Number(_) => Ok(value.clone()),
        Value::String(text) => {
            let number = text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|number| json_number(number, text));
            match number {
                Some(number) => {
                    notes.push(
                        NoteKind::Coerced {
                            from: "string".into(),
                            to: "number".into(),
                        },
                        at.clone(),
                        format!("{key:?} given as the string {text:?}; read as the number {number}"),
                    );
                    Ok(Value::Number(number))
                }
                None => Err(invalid(
                    at,
                    format!("{key:?} must be a finite number, found {text:?}"),
                )),
            }
        }
        other => Err(invalid(
            at,
            format!("{key:?} must be a number, found {}", describe(other)),
        )),
    }
}

/// A JSON number for `number`, an integer when the text was one.
fn json_number(number: f64, text: &str) -> Option<Number> {
    match text.trim().parse::<i64>() {
        Ok(integer) => Some(integer.into()),
        Err(_) => Number::from_f64(number),
    }
}

/// Expresses `nullable: true` in JSON Schema: `null` joins the type (and the
/// enum, which would otherwise still refuse it), or an `anyOf` when there is
/// no type.
fn make_nullable(schema: &mut Map<String, Value>, at: &Pointer, notes: &mut Notes) {
    let mut done = Vec::new();
    if let Some(Value::String(kind)) = schema.field("type").cloned() {
        if kind != "null" {
            schema.insert(
                "type".into(),
                Value::Array(vec![Value::String(kind.clone()), Value::String("null".into())]),
            );
            done.push(format!("type [{kind:?}, \"null\"]"));
        }
    } else if let Some(Value::Array(branches)) = schema.get_mut("anyOf") {
        if !branches
            .iter()
            .any(|branch| branch.field("type").and_then(Value::as_str) == Some("null"))
        {
            branches.push(serde_json::json!({"type": "null"}));
        }
        done.push("an anyOf branch {\"type\": \"null\"}".to_string());
    }
    if let Some(Value::Array(members)) = schema.get_mut("enum") {
        if !members.contains(&Value::Null) {
            members.push(Value::Null);
        }
        done.push("null in the enum".to_string());
    }
    let message = if done.is_empty() {
        "\"nullable\": true adds nothing here: the schema allows null already; left out".to_string()
    } else {
        format!("\"nullable\": true read as {}", done.join(" and "))
    };
    notes.push(
        NoteKind::Rewritten {
            keyword: "nullable".into(),
        },
        at.clone(),
        message,
    );
}

/// Gemini enums are strings, also on INTEGER and NUMBER schemas
/// (`{"type": "INTEGER", "format": "enum", "enum": ["101", "201"]}`); in JSON
/// Schema those members must be numbers to match.
fn numeric_enum(schema: &mut Map<String, Value>, at: &Pointer, notes: &mut Notes) {
    let numeric = match schema.field("type") {
        Some(Value::String(kind)) => matches!(kind.as_str(), "integer" | "number"),
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "integer" || kind == "number"),
        _ => false,
    };
    let Some(Value::Array(members)) = schema.get_mut("enum") else {
        return;
    };
    if !numeric {
        return;
    }
    let mut coerced = 0;
    for member in members.iter_mut() {
        if let Value::String(text) = member {
            if let Some(number) = text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|number| json_number(number, text))
            {
                *member = Value::Number(number);
                coerced += 1;
            }
        }
    }
    if coerced > 0 {
        notes.push(
            NoteKind::Coerced {
                from: "string".into(),
                to: "number".into(),
            },
            at.clone(),
            format!("{coerced} enum value(s) given as strings on a numeric schema; read as numbers"),
        );
    }
}

/// Notes that the member at `at`, given by its proto field name (the last
/// token of `at`), was read as its JSON name `camel`.
pub(crate) fn note_proto_name(at: &Pointer, camel: &str, notes: &mut Notes) {
    let proto = at.tokens().last().unwrap_or_default();
    notes.push(
        NoteKind::Normalized { field: camel.into() },
        at.clone(),
        format!("read the proto field name {proto:?} as {camel:?}"),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn raised(schema: Value) -> (Result<Value>, Vec<(String, String)>) {
        let mut notes = Notes::new();
        let at = Pointer::root().key("parameters");
        let result = raise(&Node::new(&schema, at), &Limits::default(), &mut notes);
        let notes = notes
            .iter()
            .map(|note| (note.at.as_str().to_string(), note.message.to_string()))
            .collect();
        (result, notes)
    }

    #[test]
    fn raises_types_nullable_and_enums() {
        let (schema, notes) = raised(json!({
            "type": "OBJECT",
            "properties": {
                "city": {"type": "STRING", "description": "City"},
                "unit": {"type": "STRING", "format": "enum", "enum": ["C", "F"], "nullable": true},
                "code": {"type": "INTEGER", "format": "enum", "enum": ["101", "201"]},
                "any": {"type": "TYPE_UNSPECIFIED"}
            },
            "required": ["city"],
            "propertyOrdering": ["city", "unit", "code", "any"]
        }));
        assert_eq!(
            schema.unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City"},
                    "unit": {"type": ["string", "null"], "enum": ["C", "F", null]},
                    "code": {"type": "integer", "enum": [101, 201]},
                    "any": {}
                },
                "required": ["city"],
                "propertyOrdering": ["city", "unit", "code", "any"]
            })
        );
        let at: Vec<&str> = notes.iter().map(|(at, _)| at.as_str()).collect();
        assert_eq!(
            at,
            [
                "/parameters/type",
                "/parameters/properties/city/type",
                "/parameters/properties/unit/type",
                "/parameters/properties/unit/format",
                "/parameters/properties/unit/nullable",
                "/parameters/properties/code/type",
                "/parameters/properties/code/format",
                "/parameters/properties/code/enum",
                "/parameters/properties/any/type",
            ]
        );
        assert_eq!(
            notes[4].1,
            "\"nullable\": true read as type [\"string\", \"null\"] and null in the enum"
        );
    }

    #[test]
    fn raises_defs_refs_int64_strings_and_proto_names() {
        let (schema, notes) = raised(json!({
            "type": "object",
            "properties": {
                "pets": {"type": "array", "min_items": "1", "maxItems": "5", "items": {"ref": "#/defs/Pet"}},
                "owner": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true},
                "weight": {"type": "number", "minimum": "0.5", "example": 3}
            },
            "defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}
        }));
        assert_eq!(
            schema.unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "pets": {"type": "array", "minItems": 1, "maxItems": 5, "items": {"$ref": "#/$defs/Pet"}},
                    "owner": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                    "weight": {"type": "number", "minimum": 0.5, "examples": [3]}
                },
                "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}
            })
        );
        let messages: Vec<&str> = notes.iter().map(|(_, message)| message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "read the proto field name \"min_items\" as \"minItems\"",
                "\"minItems\" given as the string \"1\"; read as the number 1",
                "\"maxItems\" given as the string \"5\"; read as the number 5",
                "Gemini \"ref\": \"#/defs/Pet\" read as JSON Schema \"$ref\": \"#/$defs/Pet\"",
                "\"nullable\": true read as an anyOf branch {\"type\": \"null\"}",
                "\"minimum\" given as the string \"0.5\"; read as the number 0.5",
                "OpenAPI \"example\" read as JSON Schema \"examples\": [example]",
                "Gemini \"defs\" read as JSON Schema \"$defs\"",
            ]
        );
    }

    #[test]
    fn raising_refuses_what_is_not_a_schema() {
        let cases = [
            (json!({"type": ["STRING", "NULL"]}), "/parameters/type"),
            (json!({"type": "TEXT"}), "/parameters/type"),
            (json!({"properties": {"a": "STRING"}}), "/parameters/properties/a"),
            (json!({"minItems": "-1"}), "/parameters/minItems"),
            (json!({"maximum": "Infinity"}), "/parameters/maximum"),
            (json!({"nullable": "yes"}), "/parameters/nullable"),
            (json!({"anyOf": {"type": "STRING"}}), "/parameters/anyOf"),
        ];
        for (schema, at) in cases {
            let err = raised(schema.clone()).0.unwrap_err();
            assert_eq!(
                (err.kind(), err.pointer().as_str()),
                (ErrorKind::InvalidSchema, at),
                "{schema}"
            );
        }
        let mut deep = json!({"type": "STRING"});
        for _ in 0..200 {
            deep = json!({"type": "ARRAY", "items": deep});
        }
        assert_eq!(raised(deep).0.unwrap_err().kind(), ErrorKind::LimitExceeded);
    }
}
