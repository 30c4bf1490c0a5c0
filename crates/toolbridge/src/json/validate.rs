//! JSON Schema validation through the `jsonschema` crate, with messages
//! rendered from its structured error kinds.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use serde_json::Value;

use crate::json::describe;
use crate::pointer::Pointer;

/// A compiled schema.
pub(crate) struct Compiled {
    validator: jsonschema::Validator,
}

/// One way an instance fails a schema.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Violation {
    /// Where in the instance.
    pub at: Pointer,
    /// A sentence saying what is wrong, for people.
    pub message: String,
}

impl Compiled {
    /// Compiles `schema`; the error is a sentence with the place in the schema.
    pub(crate) fn new(schema: &Value) -> Result<Compiled, Violation> {
        jsonschema::options()
            .should_validate_formats(false)
            .build(schema)
            .map(|validator| Compiled { validator })
            .map_err(|err| violation(&err))
    }

    /// Every violation, in the validator's order.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<Violation> {
        // A valid instance (the common case) is answered without building errors.
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        self.validator
            .iter_errors(instance)
            .map(|err| violation(&err))
            .collect()
    }
}

/// Checks that `schema` is a valid JSON Schema of the dialect its `$schema`
/// names (2020-12 when absent).
pub(crate) fn check_schema(schema: &Value) -> Result<(), Violation> {
    if let Some(dialect) = schema.get("$schema").and_then(Value::as_str) {
        if !KNOWN_DIALECTS
            .iter()
            .any(|known| known.trim_end_matches('#') == dialect.trim_end_matches('#'))
        {
            return Err(Violation {
                at: Pointer::root().key("$schema"),
                message: format!(
                    "unknown dialect {dialect:?}; supported are drafts 4, 6, 7, 2019-09 and 2020-12"
                ),
            });
        }
    }
    match jsonschema::meta::validate(schema) {
        Ok(()) => Ok(()),
        Err(err) => Err(violation(&err)),
    }
}

const KNOWN_DIALECTS: [&str; 10] = [
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft-04/schema#",
    "https://json-schema.org/draft-06/schema#",
    "https://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft/2020-12/schema",
];

fn violation(err: &ValidationError<'_>) -> Violation {
    let at = Pointer::parse(err.instance_path().as_str()).unwrap_or_default();
    Violation {
        message: render(err, &at),
        at,
    }
}

fn render(err: &ValidationError<'_>, at: &Pointer) -> String {
    let instance = err.instance();
    match err.kind() {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(ty) => article(&ty.to_string()),
                TypeKind::Multiple(types) => types
                    .iter()
                    .map(|ty| article(&ty.to_string()))
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("must be {expected}, found {}", describe(instance))
        }
        ValidationErrorKind::Required { property } => format!("missing required field {property}"),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected.iter().map(|name| format!("{name:?}")).collect();
            format!("unknown field {}", names.join(", "))
        }
        ValidationErrorKind::Enum { options } => {
            let options = match &**options {
                Value::Array(items) => items.iter().map(Value::to_string).collect::<Vec<_>>().join(", "),
                other => other.to_string(),
            };
            format!("must be one of {options}; found {}", compact(instance))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {}; found {}", expected_value, compact(instance))
        }
        ValidationErrorKind::MinLength { limit: 1 } => "must not be empty".to_string(),
        ValidationErrorKind::MinLength { limit } => format!("must be at least {limit} characters long"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be greater than {limit}"),
        ValidationErrorKind::FalseSchema => "is not allowed here".to_string(),
        ValidationErrorKind::AnyOf { .. } if at.tokens().last().as_deref() == Some("type") => format!(
            "must be a JSON type name (string, number, integer, boolean, object, array, null) \
             or a list of them; found {}",
            compact(instance)
        ),
        _ => err.to_string(),
    }
}

fn article(word: &str) -> String {
    match word {
        "array" | "integer" | "object" => format!("an {word}"),
        "null" => "null".to_string(),
        _ => format!("a {word}"),
    }
}

/// The value as JSON, shortened for a message.
fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_structured_messages() {
        let compiled = Compiled::new(&json!({
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "kind": {"enum": ["a", "b"]}},
            "additionalProperties": false
        }))
        .unwrap();
        let violations = compiled.violations(&json!({"kind": "c", "zzz": 1}));
        let messages: Vec<String> = violations
            .iter()
            .map(|v| format!("{} {}", v.at, v.message))
            .collect();
        assert!(
            messages.contains(&"/ missing required field \"name\"".to_string()),
            "{messages:?}"
        );
        assert!(
            messages.contains(&"/kind must be one of \"a\", \"b\"; found \"c\"".to_string()),
            "{messages:?}"
        );
        assert!(
            messages.contains(&"/ unknown field \"zzz\"".to_string()),
            "{messages:?}"
        );
        let violations = compiled.violations(&json!({"name": 5}));
        assert_eq!(violations[0].message, "must be a string, found a number");
    }

    #[test]
    fn meta_validation_names_the_place() {
        let err =
            check_schema(&json!({"type": "object", "properties": {"a": {"type": "strin"}}})).unwrap_err();
        assert_eq!(err.at.as_str(), "/properties/a/type");
        assert!(
            err.message.starts_with("must be a JSON type name"),
            "{}",
            err.message
        );
        let err = check_schema(&json!({"$schema": "https://example.com/mine"})).unwrap_err();
        assert_eq!(err.at.as_str(), "/$schema");
        assert!(check_schema(
            &json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})
        )
        .is_ok());
    }
}
