//! A tool's expected call in one line, for a model to read:
//! `get_weather(city: string, unit?: "celsius" | "fahrenheit")`.

use serde_json::Value;

/// At most this many parameters are listed; the rest are counted.
const MAX_PARAMETERS: usize = 24;
/// At most this many enum values or alternatives are listed in one type.
const MAX_CHOICES: usize = 12;
/// `$ref`s and nested types are followed this deep.
const MAX_DEPTH: usize = 4;

/// The one-line signature of a tool named `name` with input schema `schema`;
/// a required parameter in `defaulted` (one the tool's defaults always
/// fill) is listed as optional, since the model may leave it out.
pub(super) fn signature(name: &str, schema: &Value, defaulted: &[&str]) -> String {
    let mut parts = Vec::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let required: Vec<&str> = required
        .into_iter()
        .filter(|name| !defaulted.contains(name))
        .collect();
    let properties = schema.get("properties").and_then(Value::as_object);
    for (parameter, parameter_schema) in properties.into_iter().flatten().take(MAX_PARAMETERS) {
        let optional = if required.contains(&parameter.as_str()) {
            ""
        } else {
            "?"
        };
        parts.push(format!(
            "{parameter}{optional}: {}",
            type_of(parameter_schema, schema, 0)
        ));
    }
    let count = properties.map_or(0, |properties| properties.len());
    if count > MAX_PARAMETERS {
        parts.push(format!("… {} more", count - MAX_PARAMETERS));
    }
    format!("{name}({})", parts.join(", "))
}

/// A short type expression for `schema`: `string`, `integer[]`,
/// `"a" | "b"`, `string | null`, `object`, `any`.
pub(super) fn type_of(schema: &Value, root: &Value, depth: usize) -> String {
    let schema = match schema {
        Value::Bool(true) => return "any".into(),
        Value::Bool(false) => return "nothing".into(),
        Value::Object(schema) => schema,
        _ => return "any".into(),
    };
    if depth > MAX_DEPTH {
        return "…".into();
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return match reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
        {
            Some(target) => type_of(target, root, depth + 1),
            None => "object".into(),
        };
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return choices(options.iter().map(Value::to_string), options.len());
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    for combinator in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(combinator).and_then(Value::as_array) {
            let types = branches.iter().map(|branch| type_of(branch, root, depth + 1));
            return choices(types, branches.len());
        }
    }
    match schema.get("type") {
        Some(Value::String(name)) => named(name, schema, root, depth),
        Some(Value::Array(names)) => choices(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(|name| named(name, schema, root, depth)),
            names.len(),
        ),
        _ if schema.contains_key("properties") => "object".into(),
        _ => "any".into(),
    }
}

fn named(name: &str, schema: &serde_json::Map<String, Value>, root: &Value, depth: usize) -> String {
    if name != "array" {
        return name.to_string();
    }
    match schema.get("items") {
        Some(items) => {
            let item = type_of(items, root, depth + 1);
            if item.contains(' ') {
                format!("({item})[]")
            } else {
                format!("{item}[]")
            }
        }
        None => "array".into(),
    }
}

fn choices(items: impl Iterator<Item = String>, count: usize) -> String {
    let mut listed: Vec<String> = items.take(MAX_CHOICES).collect();
    if count > MAX_CHOICES {
        listed.push(format!("… {} more", count - MAX_CHOICES));
    }
    listed.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_line() {
        let schema = json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": ["integer", "null"]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
            "at": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "filter": {"type": "object", "properties": {}}},
            "$defs": {"tag": {"enum": ["a", "b"]}}});
        assert_eq!(
            signature("get_weather", &schema, &[]),
            "get_weather(city: string, unit?: \"celsius\" | \"fahrenheit\", days?: integer | null, \
             tags?: (\"a\" | \"b\")[], at?: string | string[], filter?: object)"
        );
        assert_eq!(signature("ping", &json!({"type": "object"}), &[]), "ping()");
        let schema = json!({"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "string"}, "b": {"type": "string"}}});
        assert_eq!(signature("t", &schema, &["b"]), "t(a: string, b?: string)");
    }
}
