//! Fitting a repaired value to the tool's input schema, where the intent is
//! plain: `"5"` → `5` where an integer is expected, `"a"` → `["a"]` where an
//! array is, `"Celsius"` → `"celsius"` where the enum says so, a string
//! holding the expected object decoded. The walk over the value uses an
//! explicit stack, and follows the schema through `properties`,
//! `additionalProperties`, `prefixItems` and `items`, local `$ref`s and an
//! `anyOf`/`oneOf` with one branch besides `null`.

use serde_json::{Number, Value};

use crate::json::Field;
use crate::limits::Limits;
use crate::pointer::Pointer;

use super::fixes::{excerpt, Fixes, Kind};

/// Most `$ref`s (or single-branch `anyOf`s) followed to reach one schema.
const MAX_HOPS: usize = 32;

/// 2^63: below it in magnitude every integral f64 is an exact i64.
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;

/// A step from a value to one inside it.
#[derive(Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// The JSON types a schema allows (none set: any).
#[derive(Clone, Copy, Default)]
struct Types {
    null: bool,
    boolean: bool,
    integer: bool,
    number: bool,
    string: bool,
    array: bool,
    object: bool,
}

impl Types {
    fn of(schema: &Value) -> Types {
        let mut types = Types::default();
        let mut allow = |name: &str| match name {
            "null" => types.null = true,
            "boolean" => types.boolean = true,
            "integer" => types.integer = true,
            "number" => types.number = true,
            "string" => types.string = true,
            "array" => types.array = true,
            "object" => types.object = true,
            _ => {}
        };
        match schema.field("type") {
            Some(Value::String(name)) => allow(name),
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).for_each(allow),
            _ => {
                if schema.field("properties").is_some() {
                    allow("object");
                } else if schema.field("items").is_some() || schema.field("prefixItems").is_some() {
                    allow("array");
                }
            }
        }
        types
    }

    fn any(self) -> bool {
        !(self.null
            || self.boolean
            || self.integer
            || self.number
            || self.string
            || self.array
            || self.object)
    }

    fn accepts(self, value: &Value) -> bool {
        self.any()
            || match value {
                Value::Null => self.null,
                Value::Bool(_) => self.boolean,
                Value::Number(number) => self.number || (self.integer && integral(number).is_some()),
                Value::String(_) => self.string,
                Value::Array(_) => self.array,
                Value::Object(_) => self.object,
            }
    }

    fn name(self) -> &'static str {
        if self.integer {
            "an integer"
        } else if self.number {
            "a number"
        } else if self.boolean {
            "a boolean"
        } else if self.array {
            "an array"
        } else {
            "an object"
        }
    }
}

/// The number as an integer, if it is one (`5.0` is).
fn integral(number: &Number) -> Option<Number> {
    if number.is_i64() || number.is_u64() {
        return Some(number.clone());
    }
    let float = number.as_f64()?;
    (float.fract() == 0.0 && float.abs() < I64_BOUND).then(|| Number::from(float as i64))
}

/// The schema that applies after following `$ref`s and single-branch
/// `anyOf`/`oneOf`; `None` for a boolean schema, a dangling or remote
/// reference, or too many hops.
fn resolve<'s>(root: &'s Value, mut schema: &'s Value) -> Option<&'s Value> {
    for _ in 0..MAX_HOPS {
        if !schema.is_object() {
            return None;
        }
        if let Some(reference) = schema.field("$ref").and_then(Value::as_str) {
            schema = root.pointer(reference.strip_prefix('#')?)?;
            continue;
        }
        let plain = ["type", "properties", "items", "enum"]
            .iter()
            .all(|key| schema.field(key).is_none());
        let branch = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| schema.field(key).and_then(Value::as_array))
            .find_map(|branches| {
                let mut others = branches
                    .iter()
                    .filter(|branch| branch.field("type").and_then(Value::as_str) != Some("null"));
                let only = others.next()?;
                others.next().is_none().then_some(only)
            });
        match branch {
            Some(branch) if plain => schema = branch,
            _ => return Some(schema),
        }
    }
    None
}

/// The schema of member `key`.
fn property<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    schema
        .field("properties")
        .and_then(|properties| properties.field(key))
        .or_else(|| {
            schema
                .field("additionalProperties")
                .filter(|extra| extra.is_object())
        })
}

/// The schema of item `index`.
fn item(schema: &Value, index: usize) -> Option<&Value> {
    if let Some(prefix) = schema.field("prefixItems").and_then(|prefix| prefix.get(index)) {
        return Some(prefix);
    }
    match schema.field("items")? {
        items @ Value::Object(_) => Some(items),
        Value::Array(tuple) => tuple.get(index),
        _ => None,
    }
}

fn pointer(path: &[Step<'_>]) -> Pointer {
    path.iter().fold(Pointer::root(), |at, step| match step {
        Step::Key(key) => at.key(key),
        Step::Index(index) => at.index(*index),
    })
}

/// Fits `value` to `schema`, noting each change.
pub(super) fn fit(value: &mut Value, schema: &Value, limits: &Limits, fixes: &mut Fixes) {
    let mut stack: Vec<(&mut Value, &Value, usize, Option<Step<'_>>)> = vec![(value, schema, 0, None)];
    let mut path: Vec<Step<'_>> = Vec::new();
    while let Some((node, node_schema, depth, step)) = stack.pop() {
        path.truncate(depth.saturating_sub(1));
        if let Some(step) = step {
            path.push(step);
        }
        let Some(node_schema) = resolve(schema, node_schema) else {
            continue;
        };
        fit_node(node, node_schema, &path, limits, fixes);
        match node {
            Value::Object(map) => {
                for (key, child) in map.iter_mut().rev() {
                    if let Some(child_schema) = property(node_schema, key) {
                        stack.push((child, child_schema, depth + 1, Some(Step::Key(key))));
                    }
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter_mut().enumerate().rev() {
                    if let Some(child_schema) = item(node_schema, index) {
                        stack.push((child, child_schema, depth + 1, Some(Step::Index(index))));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The fixes at one place.
fn fit_node(node: &mut Value, schema: &Value, path: &[Step<'_>], limits: &Limits, fixes: &mut Fixes) {
    let types = Types::of(schema);
    // 5.0 is an integer to JSON Schema, but not to the handler that reads an i64.
    let float_for_integer = types.integer && !types.number && node.as_number().is_some_and(Number::is_f64);
    if !types.accepts(node) || float_for_integer {
        if let Some((fitted, kind, message)) = convert(node, types, limits) {
            *node = fitted;
            fixes.add(kind, || pointer(path), None, Some(message));
        }
    }
    if let Some(options) = schema.field("enum").and_then(Value::as_array) {
        if !options.contains(node) {
            if let Some(option) = enum_match(node, options) {
                let message = format!("{node} was read as {option}, the one allowed value it matches");
                *node = option.clone();
                fixes.add(Kind::EnumCase, || pointer(path), None, Some(message));
            }
        }
    }
    if types.array && !node.is_array() && !node.is_null() && !types.accepts(node) {
        let inner = node.take();
        *node = Value::Array(vec![inner]);
        fixes.add(
            Kind::WrappedInArray,
            || pointer(path),
            None,
            Some("the value was wrapped in an array, as the schema expects an array".into()),
        );
    }
}

/// A value of an expected type that `node` plainly stands for.
fn convert(node: &Value, types: Types, limits: &Limits) -> Option<(Value, Kind, String)> {
    match node {
        Value::String(text) => {
            let trimmed = text.trim();
            if (types.object || types.array)
                && trimmed.starts_with(['{', '['])
                && text.len() <= limits.max_bytes
            {
                if let Ok(decoded) = serde_json::from_str::<Value>(trimmed) {
                    if types.accepts(&decoded) && depth_within(&decoded, limits.max_depth) {
                        let message = format!(
                            "the string holds the JSON {} the schema expects; it was decoded",
                            if decoded.is_array() { "array" } else { "object" }
                        );
                        return Some((decoded, Kind::DoubleEncoded, message));
                    }
                }
            }
            if types.integer || types.number {
                if let Some(number) = number_in(trimmed, types) {
                    let message = format!(
                        "the string \"{}\" was read as the number {number}, as the schema expects {}",
                        excerpt(text),
                        types.name()
                    );
                    return Some((Value::Number(number), Kind::StringToNumber, message));
                }
            }
            if types.boolean {
                let boolean = if trimmed.eq_ignore_ascii_case("true") {
                    Some(true)
                } else if trimmed.eq_ignore_ascii_case("false") {
                    Some(false)
                } else {
                    None
                };
                if let Some(boolean) = boolean {
                    let message = format!(
                        "the string \"{}\" was read as {boolean}, as the schema expects a boolean",
                        excerpt(text)
                    );
                    return Some((Value::Bool(boolean), Kind::StringToBoolean, message));
                }
            }
            None
        }
        Value::Number(number) if types.integer && !types.number => {
            let whole = integral(number)?;
            let message =
                format!("{number} was written as the integer {whole}, as the schema expects an integer");
            Some((Value::Number(whole), Kind::FloatToInteger, message))
        }
        _ => None,
    }
}

/// The number a string spells, as the schema's types want it.
fn number_in(text: &str, types: Types) -> Option<Number> {
    if let Ok(int) = text.parse::<i64>() {
        return Some(Number::from(int));
    }
    if let Ok(int) = text.parse::<u64>() {
        return Some(Number::from(int));
    }
    let float = text.parse::<f64>().ok().filter(|float| float.is_finite())?;
    // Only spellings of a number, not "inf" or "NaN" (filtered) or "1_000".
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    let number = Number::from_f64(float)?;
    match integral(&number) {
        Some(whole) if types.integer => Some(whole),
        _ if types.number => Some(number),
        _ => None,
    }
}

/// The one enum option that `node` matches ignoring case and surrounding
/// spaces, or spelled as a string (`"2"` for `2`).
fn enum_match<'o>(node: &Value, options: &'o [Value]) -> Option<&'o Value> {
    let text = node.as_str()?.trim();
    let lower = text.to_lowercase();
    let mut matches = options.iter().filter(|option| match option {
        Value::String(option) => option.to_lowercase() == lower,
        Value::Number(number) => number.to_string() == text,
        Value::Bool(boolean) => boolean.to_string() == lower,
        _ => false,
    });
    let only = matches.next()?;
    matches.next().is_none().then_some(only)
}

/// True when `value` nests no deeper than `max_depth` (checked without
/// recursion).
fn depth_within(value: &Value, max_depth: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth + 1 > max_depth {
            return false;
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::limits::Limits;

    fn fitted(text: &str, schema: Value) -> Value {
        crate::call::repair(text, Some(&schema), &Limits::default())
            .unwrap()
            .value
    }

    #[test]
    fn references_are_followed_and_cycles_end() {
        let schema = json!({"properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/properties/b"}},
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "integer"}}});
        assert_eq!(
            fitted(r#"{"a": "1", "b": "2"}"#, schema),
            json!({"a": 1, "b": "2"})
        );
        let remote = json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}});
        assert_eq!(fitted(r#"{"a": "1"}"#, remote), json!({"a": "1"}));
    }

    #[test]
    fn only_plain_intent_is_acted_on() {
        let schema = json!({"properties": {
            "n": {"type": "integer"}, "e": {"enum": ["Low", "low"]}, "t": {"type": "array"},
            "o": {"type": "object"}, "s": {"type": ["string", "integer"]}}});
        let text = r#"{"n": "1.5", "e": "LOW", "t": null, "o": "{\"a\": 1}", "s": "5"}"#;
        assert_eq!(
            fitted(text, schema),
            json!({"n": "1.5", "e": "LOW", "t": null, "o": {"a": 1}, "s": "5"})
        );
    }

    #[test]
    fn items_and_tuples() {
        let schema = json!({"properties": {
            "pair": {"prefixItems": [{"type": "integer"}, {"type": "boolean"}]},
            "list": {"items": {"type": "number"}}}});
        assert_eq!(
            fitted(r#"{"pair": ["1", "true"], "list": ["1.5", 2]}"#, schema),
            json!({"pair": [1, true], "list": [1.5, 2]})
        );
    }
}
