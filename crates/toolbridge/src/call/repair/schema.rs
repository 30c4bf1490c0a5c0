//! Fitting a repaired value to the tool's input schema, where the intent is
//! plain: `"5"` → `5` where an integer is expected, `"a"` → `["a"]` where an
//! array is, `"Celsius"` → `"celsius"` where the enum says so, a string
//! holding the expected object decoded, arguments wrapped in one member
//! the schema does not declare (`{"arguments": {…}}`) unwrapped. The walk over the value uses an
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

/// The schema of member `key` of the objects `schema` describes: its entry
/// in `properties`, else its `additionalProperties` when that is a schema.
pub(crate) fn member_schema<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
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

/// Members a model wraps a call's arguments in (vLLM's DeepSeek V3.2
/// parser unwraps `arguments` and `input`, its MiniCPM5 parser
/// `properties` and `arguments`).
const WRAPPERS: [&str; 6] = ["arguments", "input", "parameters", "args", "params", "properties"];

/// Fits `value` to `schema`, noting each change.
pub(super) fn fit(value: &mut Value, schema: &Value, limits: &Limits, fixes: &mut Fixes) {
    unwrap_arguments(value, schema, limits, fixes);
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
                    if let Some(child_schema) = member_schema(node_schema, key) {
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

/// Arguments the model wrapped in one member the schema does not declare
/// (`{"arguments": {…}}`, `{"input": "{…}"}`, one of [`WRAPPERS`]): the
/// member's object (or the object its string holds) is the arguments, when
/// it has members and the schema declares every one.
fn unwrap_arguments(value: &mut Value, schema: &Value, limits: &Limits, fixes: &mut Fixes) {
    let Some(properties) = resolve(schema, schema)
        .and_then(|root| root.field("properties"))
        .and_then(Value::as_object)
    else {
        return;
    };
    let Some(map) = value.as_object().filter(|map| map.len() == 1) else {
        return;
    };
    let Some((key, inner)) = map.iter().next() else {
        return;
    };
    if properties.contains_key(key) || !WRAPPERS.contains(&key.as_str()) {
        return;
    }
    let inner = match inner {
        Value::Object(_) => inner.clone(),
        Value::String(text) if text.trim_start().starts_with('{') && text.len() <= limits.max_bytes => {
            // JSON, or what repair reads as JSON (a Python dict's quotes).
            match crate::json::value_of(text.trim(), limits.max_depth) {
                Some(decoded) => decoded,
                None => match super::repair(text.trim(), None, limits) {
                    Ok(repaired) => repaired.value,
                    Err(_) => return,
                },
            }
        }
        _ => return,
    };
    let declared = inner.as_object().is_some_and(|members| {
        !members.is_empty() && members.keys().all(|member| properties.contains_key(member))
    });
    if !declared {
        return;
    }
    let message = format!(
        "the arguments were wrapped in {key:?}, which the schema does not declare; what it holds was read as the arguments"
    );
    *value = inner;
    fixes.add(Kind::UnwrappedArguments, Pointer::root, None, Some(message));
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

    /// vLLM `test_deepseekv32_tool_parser.py`: arguments wrapped in one
    /// member the schema does not declare are the member's object, noted;
    /// only when the schema declares every key inside.
    #[test]
    fn arguments_wrapped_in_one_undeclared_member_are_unwrapped() {
        let schema = json!({"properties": {"location": {"type": "string"}, "days": {"type": "integer"}}});
        let repaired = crate::call::repair(
            r#"{"arguments": {"location": "Beijing", "days": "2"}}"#,
            Some(&schema),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(repaired.value, json!({"location": "Beijing", "days": 2}));
        let notes: Vec<String> = repaired.notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            notes,
            [
                "change: the arguments were wrapped in \"arguments\", which the schema does not declare; what it holds was read as the arguments (at /)",
                "change: the string \"2\" was read as the number 2, as the schema expects an integer (at /days)",
            ]
        );
        assert_eq!(
            fitted(r#"{"input": "{\"location\": \"Oslo\"}"}"#, schema.clone()),
            json!({"location": "Oslo"})
        );
        // vLLM `test_minicpm5xml_tool_parser.py`: `properties` holding a
        // Python dict as text.
        assert_eq!(
            fitted(r#"{"properties": "{'location': 'Oslo'}"}"#, schema.clone()),
            json!({"location": "Oslo"})
        );
        // Not a wrapper: a declared member, a key the schema does not
        // declare inside, more than one member, an empty object.
        for text in [
            r#"{"input": {"location": "Oslo", "wind": 3}}"#,
            r#"{"args": {"location": "Oslo"}, "days": 1}"#,
            r#"{"params": {}}"#,
            r#"{"wrapper": {"location": "Oslo"}}"#,
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(fitted(text, schema.clone()), value, "{text}");
        }
        let declared = json!({"properties": {"input": {"type": "object"}, "location": {}}});
        assert_eq!(
            fitted(r#"{"input": {"location": "Oslo"}}"#, declared),
            json!({"input": {"location": "Oslo"}})
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
