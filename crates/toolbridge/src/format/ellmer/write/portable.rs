//! What a `type_from_schema()` may hold: ellmer sends its JSON to every
//! provider exactly as written (`as_json(Provider, TypeJsonSchema)` in
//! tidyverse/ellmer `R/as-json.R`), with `strict = TRUE` to OpenAI
//! (`as_json(ProviderOpenAI, ToolDef)`, `R/provider-openai.R`, and
//! `ProviderOpenAICompatible`, `R/provider-openai-compatible.R`) and as
//! `parameters` to Gemini (`as_json(ProviderGoogleGemini, ToolDef)`,
//! `R/provider-google.R`). So its JSON must be in both subsets at once:
//!
//! - OpenAI strict mode: a `type` on every node, every object closed with
//!   `additionalProperties: false` and every property required;
//! - Gemini's OpenAPI `Schema`: a single `type`, no `additionalProperties`
//!   (the Gemini API refuses it), only the fields of its 2025 proto (`type`,
//!   `format`, `description`, `enum` of strings, `items`, `minItems`,
//!   `maxItems`, `minimum`, `maximum`, …).
//!
//! No object can be in both (strict needs `additionalProperties`, Gemini
//! refuses it), so objects are written with `type_object()`, which ellmer
//! lowers per provider itself. What is left: scalars and arrays of them
//! with keywords both accept. `format` is kept only as `date-time` on a
//! string, the one value both document.

use serde_json::Value;

/// Why `schema` cannot go to `type_from_schema()` as it is, or `None` when
/// OpenAI strict mode and Gemini both accept it.
pub(super) fn not_portable(schema: &Value) -> Option<String> {
    let Value::Object(object) = schema else {
        return Some("a boolean schema".into());
    };
    let ty = match object.get("type") {
        Some(Value::String(ty))
            if ["string", "number", "integer", "boolean", "array"].contains(&ty.as_str()) =>
        {
            ty.as_str()
        }
        Some(Value::String(_)) => return Some(
            "an object (OpenAI strict mode needs additionalProperties: false on it, which Gemini refuses)"
                .into(),
        ),
        Some(_) => return Some("a list of types (Gemini takes one)".into()),
        None => return Some("a node without \"type\" (OpenAI strict mode needs one)".into()),
    };
    for (key, value) in object {
        let fits = match key.as_str() {
            "type" | "description" => true,
            "enum" => {
                ty == "string"
                    && value.as_array().is_some_and(|values| {
                        !values.is_empty()
                            && values
                                .iter()
                                .all(|value| value.as_str().is_some_and(|text| !text.is_empty()))
                    })
            }
            "format" => ty == "string" && value == "date-time",
            "minimum" | "maximum" => matches!(ty, "number" | "integer") && value.is_number(),
            "minItems" | "maxItems" => ty == "array" && value.is_u64(),
            "items" => ty == "array" && value.is_object() && not_portable(value).is_none(),
            _ => false,
        };
        if !fits {
            return Some(format!(
                "{key} here (not in both OpenAI strict mode's and Gemini's subsets)"
            ));
        }
    }
    if ty == "array" && !object.contains_key("items") {
        return Some("an array without items".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::not_portable;

    #[test]
    fn only_what_both_subsets_take_is_portable() {
        for portable in [
            json!({"type": "integer", "minimum": 1, "maximum": 9, "description": "d"}),
            json!({"type": "string", "format": "date-time"}),
            json!({"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1}),
        ] {
            assert_eq!(not_portable(&portable), None, "{portable}");
        }
        let cases = [
            (json!(true), "a boolean schema"),
            (json!({"type": "object", "properties": {"a": {"type": "string"}}}), "an object (OpenAI strict mode needs additionalProperties: false on it, which Gemini refuses)"),
            (json!({"type": ["string", "null"]}), "a list of types (Gemini takes one)"),
            (json!({"anyOf": [{"type": "string"}]}), "a node without \"type\" (OpenAI strict mode needs one)"),
            (json!({"type": "string", "format": "date"}), "format here (not in both OpenAI strict mode's and Gemini's subsets)"),
            (json!({"type": "integer", "multipleOf": 15}), "multipleOf here (not in both OpenAI strict mode's and Gemini's subsets)"),
            (json!({"type": "string", "enum": ["a", ""]}), "enum here (not in both OpenAI strict mode's and Gemini's subsets)"),
            (json!({"type": "array"}), "an array without items"),
        ];
        for (schema, why) in cases {
            assert_eq!(not_portable(&schema).as_deref(), Some(why), "{schema}");
        }
    }
}
