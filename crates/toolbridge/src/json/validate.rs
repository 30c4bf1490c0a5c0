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

    /// Compiles `schema` with `format` checked (`date-time`, `email`, `uuid`,
    /// …), as a call's arguments are; the error is as for [`Compiled::new`].
    pub(crate) fn with_formats(schema: &Value) -> Result<Compiled, Violation> {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map(|validator| Compiled { validator })
            .map_err(|err| violation(&err))
    }

    /// True when `instance` fits the schema (no error is built).
    pub(crate) fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Every failure as data, in the validator's order: what the toolbox
    /// renders its model-facing messages from. Callers ask
    /// [`is_valid`](Compiled::is_valid) first; this always walks the errors.
    pub(crate) fn failures(&self, instance: &Value) -> Vec<Failure> {
        self.validator
            .iter_errors(instance)
            .map(|err| failure(&err))
            .collect()
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

/// One failure of an instance against a schema, as data taken from the
/// validator's structured error kind (never from its display text).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Failure {
    /// Where in the instance.
    pub at: Pointer,
    /// Where in the schema: the failing keyword's location (through `$ref`s
    /// it names the keyword's place in the referenced schema).
    pub schema_at: Pointer,
    /// The keyword that failed (`type`, `enum`, `required`, …).
    pub keyword: String,
    /// The value that failed.
    pub instance: Value,
    /// What the keyword wanted.
    pub kind: FailureKind,
}

/// What a failing keyword wanted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FailureKind {
    /// One of these JSON types (`type`).
    Type(Vec<String>),
    /// A member with this name (`required`).
    Required(String),
    /// No members with these names (`additionalProperties`, `unevaluatedProperties`).
    Unexpected(Vec<String>),
    /// No items past this many (`additionalItems`), or no unevaluated items.
    UnexpectedItems,
    /// One of these values (`enum`).
    Enum(Vec<Value>),
    /// Exactly this value (`const`).
    Const(Value),
    /// A match of at least one (`anyOf`) or exactly one (`oneOf`) branch;
    /// each branch's own failures.
    Branches(Vec<Vec<Failure>>),
    /// More than one `oneOf` branch matched.
    SeveralBranches,
    /// A bound: the keyword names which (`minimum`, `maxLength`, `minItems`, …).
    Bound(Value),
    /// A multiple of this number.
    MultipleOf(f64),
    /// A string matching this regular expression.
    Pattern(String),
    /// A string of this format.
    Format(String),
    /// Items that are all different.
    UniqueItems,
    /// An item matching `contains`.
    Contains,
    /// Not a match of the `not` schema.
    Not,
    /// Nothing is allowed (a `false` schema).
    Nothing,
    /// A property name that fits `propertyNames`; the name's own failure.
    PropertyName(Box<Failure>),
    /// Anything else (content encoding, media type, an unresolvable `$ref`):
    /// the keyword says which.
    Other,
}

fn failure(err: &ValidationError<'_>) -> Failure {
    let kind = match err.kind() {
        ValidationErrorKind::Type { kind } => FailureKind::Type(match kind {
            TypeKind::Single(ty) => vec![ty.to_string()],
            TypeKind::Multiple(types) => types.iter().map(|ty| ty.to_string()).collect(),
        }),
        ValidationErrorKind::Required { property } => FailureKind::Required(match property {
            Value::String(name) => name.clone(),
            other => other.to_string(),
        }),
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            FailureKind::Unexpected(unexpected.clone())
        }
        ValidationErrorKind::AdditionalItems { .. } | ValidationErrorKind::UnevaluatedItems { .. } => {
            FailureKind::UnexpectedItems
        }
        ValidationErrorKind::Enum { options } => FailureKind::Enum(match &**options {
            Value::Array(items) => items.clone(),
            other => vec![other.clone()],
        }),
        ValidationErrorKind::Constant { expected_value } => FailureKind::Const((**expected_value).clone()),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            FailureKind::Branches(
                context
                    .iter()
                    .map(|branch| branch.iter().map(failure).collect())
                    .collect(),
            )
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => FailureKind::SeveralBranches,
        ValidationErrorKind::Minimum { limit }
        | ValidationErrorKind::Maximum { limit }
        | ValidationErrorKind::ExclusiveMinimum { limit }
        | ValidationErrorKind::ExclusiveMaximum { limit } => FailureKind::Bound(limit.clone()),
        ValidationErrorKind::MinLength { limit }
        | ValidationErrorKind::MaxLength { limit }
        | ValidationErrorKind::MinItems { limit }
        | ValidationErrorKind::MaxItems { limit }
        | ValidationErrorKind::MinProperties { limit }
        | ValidationErrorKind::MaxProperties { limit } => FailureKind::Bound(Value::from(*limit)),
        ValidationErrorKind::MultipleOf { multiple_of } => FailureKind::MultipleOf(*multiple_of),
        ValidationErrorKind::Pattern { pattern } => FailureKind::Pattern(pattern.clone()),
        ValidationErrorKind::Format { format } => FailureKind::Format(format.clone()),
        ValidationErrorKind::UniqueItems => FailureKind::UniqueItems,
        ValidationErrorKind::Contains => FailureKind::Contains,
        ValidationErrorKind::Not { .. } => FailureKind::Not,
        ValidationErrorKind::FalseSchema => FailureKind::Nothing,
        ValidationErrorKind::PropertyNames { error } => FailureKind::PropertyName(Box::new(failure(error))),
        _ => FailureKind::Other,
    };
    Failure {
        at: Pointer::parse(err.instance_path().as_str()).unwrap_or_default(),
        schema_at: Pointer::parse(err.schema_path().as_str()).unwrap_or_default(),
        keyword: err.kind().keyword().to_string(),
        instance: err.instance().clone().into_owned(),
        kind,
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
    // The boolean check builds no error and is the common case; the error is
    // built only for a schema already known to be invalid.
    if jsonschema::meta::is_valid(schema) {
        return Ok(());
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
    fn failures_are_data() {
        let compiled = Compiled::with_formats(&json!({"type": "object", "properties": {
            "day": {"format": "date"},
            "n": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 1}]}}}))
        .unwrap();
        let failures = compiled.failures(&json!({"day": "2024-02-30", "n": "ab"}));
        assert_eq!(failures.len(), 2);
        assert_eq!(
            (
                failures[0].at.as_str(),
                failures[0].keyword.as_str(),
                &failures[0].kind
            ),
            ("/day", "format", &FailureKind::Format("date".into()))
        );
        let FailureKind::Branches(branches) = &failures[1].kind else {
            panic!("{:?}", failures[1])
        };
        assert_eq!(failures[1].schema_at.as_str(), "/properties/n/anyOf");
        assert_eq!(branches[0][0].kind, FailureKind::Type(vec!["integer".into()]));
        assert_eq!(
            (branches[1][0].keyword.as_str(), &branches[1][0].kind),
            ("maxLength", &FailureKind::Bound(json!(1)))
        );
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
