//! Values written as raw text (Qwen3-Coder's parameters), typed by the
//! tool's input schema: a string stays a string even when it looks like a
//! number, an integer parameter gets an integer. The rule is vLLM's
//! `qwen3coder_tool_parser.py` (`_convert_param_value`): the types the
//! property allows decide — its `type`, else those of its `anyOf` /
//! `oneOf` branches, of an `allOf` branch, of its `enum` or `const`
//! values, `object` for `properties`, `array` for `items` (vLLM's
//! `infer_type_from_json_schema` looks at the same keywords); `null` (or
//! `None`) is null where null is allowed, before any other type; objects
//! and arrays are read as JSON. A local `$ref` is followed to the schema it
//! names, at the property and in its branches ([`Property`]); vLLM's Dots
//! parser alone does so, and here every family whose values the schema
//! types does.

use serde_json::{Number, Value};

use crate::call::{member_schema, repair};
use crate::limits::Limits;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

/// The value of property `key` written as `raw`, typed by `property` (its
/// schema); notes point at `/arguments/<key>`.
pub(super) fn value(
    key: &str,
    raw: &str,
    property: Option<Property<'_>>,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> Value {
    // The place is written out only for a note: most values need none.
    value_at(
        || Pointer::root().key("arguments").key(key),
        key,
        raw,
        property,
        limits,
        notes,
    )
}

/// [`value`] for a value at the place `at` gives in the call (a member
/// `field` of an object there).
pub(super) fn value_at(
    at: impl Fn() -> Pointer,
    field: &str,
    raw: &str,
    property: Option<Property<'_>>,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> Value {
    let types = types(property);
    let trimmed = raw.trim();
    if types.contains(&"null") && matches!(trimmed, "null" | "None") {
        return Value::Null;
    }
    if types.contains(&"string") || types.is_empty() {
        return Value::String(raw.to_string());
    }
    if types.contains(&"integer") {
        if let Ok(integer) = trimmed.parse::<i64>() {
            return Value::Number(integer.into());
        }
        if let Some(float) = trimmed
            .parse::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
        {
            notes.push(coerced(at(), raw, "integer"));
            return Value::Number((float as i64).into());
        }
    }
    if types.contains(&"number") {
        if let Ok(integer) = trimmed.parse::<i64>() {
            return Value::Number(integer.into());
        }
        if let Some(number) = trimmed.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(number);
        }
    }
    if types.contains(&"boolean") {
        match trimmed {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ if trimmed.eq_ignore_ascii_case("true") => {
                notes.push(coerced(at(), raw, "boolean"));
                return Value::Bool(true);
            }
            _ if trimmed.eq_ignore_ascii_case("false") => {
                notes.push(coerced(at(), raw, "boolean"));
                return Value::Bool(false);
            }
            _ => {}
        }
    }
    if types.contains(&"object") || types.contains(&"array") {
        if let Ok(repaired) = repair(trimmed, property.map(|property| property.schema), limits) {
            if repaired.value.is_object() || repaired.value.is_array() {
                notes.extend(
                    repaired
                        .notes
                        .into_iter()
                        .map(|note| Note::new(note.kind, at().join(&note.at), note.message)),
                );
                return repaired.value;
            }
        }
    }
    notes.push(Note::new(
        NoteKind::Normalized { field: field.into() },
        at(),
        format!(
            "{raw:?} is not of the type the schema gives ({}); it was kept as a string for validation to report",
            types.join(" or ")
        ),
    ));
    Value::String(raw.to_string())
}

/// A property's schema in a tool's input schema: its local `$ref`s
/// (`#/$defs/NAME`, any pointer into the input schema) are followed to the
/// schema they name, as Dots's parser does (`_resolve_param_type`), here
/// for every family whose values the schema types. A model given a
/// Pydantic model's schema sees `$ref`s for every nested model, and
/// `anyOf: [{"$ref": …}, {"type": "null"}]` for an optional one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Property<'s> {
    /// The property's schema, past its own references.
    pub schema: &'s Value,
    /// The tool's input schema, where references point.
    root: &'s Value,
}

impl<'s> Property<'s> {
    /// `schema`, a schema inside the input schema `root`, past its
    /// references.
    pub fn within(root: &'s Value, schema: &'s Value) -> Property<'s> {
        Property {
            schema: follow(root, schema),
            root,
        }
    }

    /// The schema of member `key` of the objects it describes: its entry
    /// in `properties`, else its `additionalProperties` when that is a
    /// schema.
    ///
    /// A schema whose branches describe the objects (`anyOf: [{"$ref":
    /// …}, {"type": "null"}]`) gives the first branch's that has one.
    pub fn member(self, key: &str) -> Option<Property<'s>> {
        let mut budget = MAX_SCHEMAS_LOOKED_AT;
        self.find(0, &mut budget, &|schema| member_schema(schema, key))
    }

    /// The schema of the items of the arrays it describes (`items`; as
    /// [`member`](Property::member), in a branch when it has none).
    pub fn items(self) -> Option<Property<'s>> {
        let mut budget = MAX_SCHEMAS_LOOKED_AT;
        self.find(0, &mut budget, &|schema| {
            schema.get("items").filter(|items| items.is_object())
        })
    }

    /// What `get` finds in its schema, else in the first of its branches
    /// (`anyOf`, `oneOf`, `allOf`) where it finds something; `budget`
    /// schemas looked at at most.
    fn find(
        self,
        depth: usize,
        budget: &mut usize,
        get: &dyn Fn(&'s Value) -> Option<&'s Value>,
    ) -> Option<Property<'s>> {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        if let Some(found) = get(self.schema) {
            return Some(Property::within(self.root, found));
        }
        if depth >= MAX_BRANCH_DEPTH {
            return None;
        }
        ["anyOf", "oneOf", "allOf"]
            .iter()
            .filter_map(|keyword| self.schema.get(keyword).and_then(Value::as_array))
            .flatten()
            .find_map(|branch| Property::within(self.root, branch).find(depth + 1, budget, get))
    }

    /// The JSON types it allows, as [`value`] reads them: none when it says
    /// nothing of them.
    pub fn types(self) -> Vec<&'s str> {
        let mut types = Vec::new();
        let mut budget = MAX_SCHEMAS_LOOKED_AT;
        types_of(self.schema, self.root, 0, &mut budget, &mut types);
        types
    }
}

/// The schema of property `key` in a tool's input `schema` (see
/// [`Property`]); `None` when the schema does not declare it.
pub(super) fn property<'s>(schema: Option<&'s Value>, key: &str) -> Option<Property<'s>> {
    let root = schema?;
    Some(Property::within(root, root.get("properties")?.get(key)?))
}

/// `schema` past its local references into `root`, at most
/// [`MAX_BRANCH_DEPTH`] of them (a reference to itself ends there); a
/// remote or dangling reference stays as it is.
fn follow<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..MAX_BRANCH_DEPTH {
        let target = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer));
        match target {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// The note on a call whose arguments `keys` no schema types: their
/// values were kept `how` the text gives them ("as strings").
pub(super) fn untyped(keys: &[String], how: &str) -> Note {
    Note::new(
        NoteKind::Kept {
            key: keys.join(", ").into(),
        },
        Pointer::root().key("arguments"),
        format!("no schema types {}; kept {how}", keys.join(", ")),
    )
}

/// The JSON types `property` allows ([`Property::types`]); none for no
/// schema.
pub(super) fn types(property: Option<Property<'_>>) -> Vec<&str> {
    property.map(Property::types).unwrap_or_default()
}

/// How deep [`types_of`] follows branches of branches, and [`follow`]
/// references to references.
const MAX_BRANCH_DEPTH: usize = 8;

/// How many schemas [`types_of`] looks at for one property: branches that
/// reference the same definitions would otherwise be looked at again for
/// each path to them.
const MAX_SCHEMAS_LOOKED_AT: usize = 256;

/// Adds the JSON types `schema` (in the input schema `root`) allows to
/// `types` (none when it says nothing of them: an empty schema, a remote
/// reference).
fn types_of<'s>(
    schema: &'s Value,
    root: &'s Value,
    depth: usize,
    budget: &mut usize,
    types: &mut Vec<&'s str>,
) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let schema = if schema.get("type").is_some() {
        schema
    } else {
        follow(root, schema)
    };
    match schema.get("type") {
        Some(Value::String(name)) => return add_type(types, json_type(name)),
        Some(Value::Array(names)) => {
            for name in names.iter().filter_map(Value::as_str) {
                add_type(types, json_type(name));
            }
            return;
        }
        _ => {}
    }
    if depth < MAX_BRANCH_DEPTH {
        let branches = |keyword| {
            schema
                .get(keyword)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        };
        let before = types.len();
        for branch in branches("anyOf").chain(branches("oneOf")) {
            types_of(branch, root, depth + 1, budget, types);
        }
        // Every branch of an allOf holds: the first that names types says them.
        for branch in branches("allOf") {
            if types.len() > before {
                break;
            }
            types_of(branch, root, depth + 1, budget, types);
        }
        if types.len() > before {
            return;
        }
    }
    let values = schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|values| values.iter().collect::<Vec<_>>())
        .or_else(|| schema.get("const").map(|value| vec![value]));
    if let Some(values) = values {
        for value in values {
            let name = match value {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(number) if number.is_f64() => "number",
                Value::Number(_) => "integer",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            add_type(types, name);
        }
    } else if schema.get("properties").is_some() {
        add_type(types, "object");
    } else if schema.get("items").is_some() || schema.get("prefixItems").is_some() {
        add_type(types, "array");
    }
}

fn add_type<'s>(types: &mut Vec<&'s str>, name: &'s str) {
    if !types.contains(&name) {
        types.push(name);
    }
}

/// The JSON Schema type a `type` names: its own name, or the type of a
/// programming language's name for it that tool schemas written by hand
/// use (`int`, `float`, `bool`, `str`, `dict`, `list`, …), as vLLM's
/// `_convert_param_value` reads them (by prefix, any case).
fn json_type(name: &str) -> &str {
    let lower = name.to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|prefix| lower.starts_with(prefix));
    match lower.as_str() {
        "string" | "integer" | "number" | "boolean" | "object" | "array" | "null" => name,
        "str" | "text" | "varchar" | "char" | "enum" => "string",
        "bool" | "binary" => "boolean",
        _ if starts(&["int", "uint", "long", "short", "unsigned"]) => "integer",
        _ if starts(&["num", "float", "double"]) => "number",
        _ if starts(&["dict", "map"]) => "object",
        _ if starts(&["list", "arr", "sequence"]) => "array",
        _ => name,
    }
}

fn coerced(at: Pointer, raw: &str, to: &str) -> Note {
    Note::new(
        NoteKind::Coerced {
            from: "text".into(),
            to: to.into(),
        },
        at,
        format!("{raw:?} was read as the {to} the schema asks for"),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn typed(raw: &str, property: Value) -> Value {
        let property = Property::within(&property, &property);
        value("k", raw, Some(property), &Limits::default(), &mut Vec::new())
    }

    /// The schema [`property`] finds for `key`.
    fn schema_of<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
        property(Some(schema), key).map(|property| property.schema)
    }

    #[test]
    fn the_types_a_property_allows_type_its_value() {
        let optional_integer = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
        assert_eq!(typed("5", optional_integer.clone()), json!(5));
        assert_eq!(typed("null", optional_integer), Value::Null);
        assert_eq!(typed("null", json!({"type": ["string", "null"]})), Value::Null);
        assert_eq!(typed("null", json!({"type": "string"})), json!("null"));
        assert_eq!(
            typed(
                "{\"a\": 1}",
                json!({"oneOf": [{"type": "object"}, {"type": "null"}]})
            ),
            json!({"a": 1})
        );
        assert_eq!(typed("[1]", json!({"allOf": [{"items": {}}]})), json!([1]));
        assert_eq!(
            typed("{\"a\": 1}", json!({"properties": {"a": {}}})),
            json!({"a": 1})
        );
        assert_eq!(typed("3", json!({"enum": [1, 2, 3]})), json!(3));
        assert_eq!(typed("3", json!({"enum": ["1", "3"]})), json!("3"));
        assert_eq!(typed("true", json!({"const": true})), json!(true));
        assert_eq!(typed("7", json!({"$ref": "#/$defs/n"})), json!("7"));
        // A language's names for the types (vLLM reads them by prefix).
        assert_eq!(typed("2.5", json!({"type": "float"})), json!(2.5));
        assert_eq!(typed("42", json!({"type": "int64"})), json!(42));
        assert_eq!(typed("True", json!({"type": "bool"})), json!(true));
        assert_eq!(typed("42", json!({"type": "str"})), json!("42"));
        assert_eq!(typed("{\"a\": 1}", json!({"type": "dict"})), json!({"a": 1}));
        assert_eq!(typed("[1]", json!({"type": "List"})), json!([1]));
    }

    #[test]
    fn a_property_s_local_reference_is_followed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "at": {"$ref": "#/$defs/Place"},
                "via": {"$ref": "#/$defs/Alias"},
                "loop": {"$ref": "#/properties/loop"},
                "far": {"$ref": "https://example.com/place.json"},
            },
            "$defs": {
                "Place": {"type": "object", "properties": {"city": {"type": "string"}}},
                "Alias": {"$ref": "#/$defs/Place"},
            },
        });
        let place = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        assert_eq!(schema_of(&schema, "at"), Some(&place));
        assert_eq!(schema_of(&schema, "via"), Some(&place));
        // A reference to itself stops after a few steps; one elsewhere is not followed.
        assert_eq!(
            schema_of(&schema, "loop"),
            Some(&json!({"$ref": "#/properties/loop"}))
        );
        assert_eq!(
            schema_of(&schema, "far"),
            Some(&json!({"$ref": "https://example.com/place.json"}))
        );
        assert_eq!(schema_of(&schema, "none"), None);
        assert_eq!(
            typed("{\"city\": \"Lyon\"}", place.clone()),
            json!({"city": "Lyon"})
        );
    }

    /// Pydantic's schema of a model with nested models: every nested model
    /// is a `$ref`, an optional one a reference beside `null`.
    fn pydantic_route() -> Value {
        json!({
            "type": "object",
            "properties": {
                "to": {"$ref": "#/$defs/Point"},
                "via": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}], "default": null},
                "stops": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Point"}}, {"type": "null"}]},
                "count": {"$ref": "#/$defs/Count"},
            },
            "$defs": {
                "Point": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
                "Count": {"type": "integer"},
            },
        })
    }

    #[test]
    fn references_in_branches_give_their_types_members_and_items() {
        let schema = pydantic_route();
        let typed_by = |key: &str, raw: &str| {
            value(
                key,
                raw,
                property(Some(&schema), key),
                &Limits::default(),
                &mut Vec::new(),
            )
        };
        assert_eq!(
            property(Some(&schema), "via").unwrap().types(),
            ["object", "null"]
        );
        assert_eq!(typed_by("via", "{\"x\": 1, \"y\": 2}"), json!({"x": 1, "y": 2}));
        assert_eq!(typed_by("via", "null"), Value::Null);
        assert_eq!(typed_by("count", "5"), json!(5));
        let point =
            json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}});
        let x = json!({"type": "integer"});
        let via = property(Some(&schema), "via").unwrap();
        assert_eq!(via.member("x").map(|member| member.schema), Some(&x));
        assert_eq!(via.member("z"), None);
        let stops = property(Some(&schema), "stops").unwrap();
        assert_eq!(stops.types(), ["array", "null"]);
        assert_eq!(stops.items().map(|items| items.schema), Some(&point));
        assert_eq!(
            stops
                .items()
                .and_then(|items| items.member("y"))
                .map(|y| y.schema),
            Some(&x)
        );
    }

    #[test]
    fn references_that_branch_out_again_are_looked_at_a_bounded_number_of_times() {
        // Each definition branches into the next one 16 times: 16^8 paths
        // within the depth followed.
        let mut defs = serde_json::Map::new();
        for level in 0..40 {
            let next = json!({"$ref": format!("#/$defs/d{}", level + 1)});
            defs.insert(format!("d{level}"), json!({"anyOf": vec![next; 16]}));
        }
        defs.insert("d40".into(), json!({"type": "integer"}));
        let schema = json!({"properties": {"k": {"$ref": "#/$defs/d0"}}, "$defs": defs});
        let k = property(Some(&schema), "k").unwrap();
        assert_eq!(k.types(), Vec::<&str>::new());
        assert_eq!(k.member("x"), None);
        assert_eq!(k.items(), None);
    }
}
