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

mod gemini;
mod keywords;
pub mod names;
mod plain;
mod refs;
mod strict;
mod subset;
#[cfg(test)]
mod testing;
mod walk;

use serde_json::Value;

use crate::check::validate::describe;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

pub use names::{NameMap, NameRule};
pub use strict::{check_anthropic_strict_budget, check_cohere_strict_fields, check_openai_strict_limits};

use gemini::Gemini;
use plain::Plain;
use subset::{Subset, Walker};
use walk::Ctx;

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
    /// index, `**` for any number of steps, where a recursive schema repeats)
    /// of properties that were optional and were made required and nullable
    /// by strict mode: a `null` there means "absent".
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
    if first == "**" {
        remove_null_at(value, rest);
        match value {
            Value::Object(object) => object
                .values_mut()
                .for_each(|child| remove_null_at(child, tokens)),
            Value::Array(items) => items.iter_mut().for_each(|item| remove_null_at(item, tokens)),
            _ => {}
        }
        return;
    }
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
///
/// Every change is a note in `notes` whose pointer is `at` plus the place in
/// `schema` that changed (or an ancestor of it; content copied in from a
/// `$ref` is noted at the `$ref`). What each dialect does:
///
/// - [`Dialect::JsonSchema`], and OpenAI and Anthropic without `strict`: the
///   schema as given.
/// - [`Dialect::GeminiJson`]: `$schema`, `$id`, `$comment` dropped; `$ref`s kept.
/// - [`Dialect::Bedrock`] without `strict`: `$schema`, `$id` dropped; `$ref`s
///   inlined. [`Dialect::Mistral`] without `strict` and [`Dialect::Cohere`]:
///   `$schema` dropped; `$ref`s inlined. Cohere's `strict_tools` also needs a
///   required parameter in every tool (an error note otherwise).
/// - OpenAI and Mistral `strict`: the Structured Outputs subset, every
///   optional property made required and nullable (recorded in
///   [`Lowered::null_means_absent`]), every object closed, other keywords
///   written into the description, limits checked
///   ([`check_openai_strict_limits`]).
/// - Anthropic and Bedrock `strict`: Anthropic's strict subset, every object
///   closed, optional properties kept, other keywords written into the
///   description; recursion is an error note (Bedrock inlines `$ref`s).
/// - [`Dialect::GeminiOpenApi`]: Gemini's OpenAPI `Schema` subset.
/// - [`Dialect::Ollama`]: type, properties, required, items, enum,
///   description and anyOf kept, `$ref`s inlined, the rest written into the
///   description.
///
/// Keywords written into a description follow it after a blank line as one
/// JSON object, in their original order: `"City name.\n\n{\"minLength\": 3}"`.
///
/// # Errors
///
/// [`ErrorKind::UnresolvedRef`] for a local `$ref` that points at nothing;
/// [`ErrorKind::LimitExceeded`] for a schema deeper than
/// [`Limits::max_depth`] or whose `$ref`s expand past
/// [`Limits::max_ref_expansion`] nodes; [`ErrorKind::InvalidSchema`] if
/// `schema` is neither an object nor a boolean.
///
/// ```
/// use serde_json::json;
/// use toolbridge::schema::{lower, Dialect};
/// use toolbridge::{Limits, Notes, Pointer};
///
/// let schema = json!({"type": "object",
///     "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
///     "required": ["city"]});
/// let mut notes = Notes::new();
/// let at = Pointer::root().key("inputSchema");
/// let lowered = lower(&schema, Dialect::OpenAi { strict: true }, &at, &Limits::default(), &mut notes)?;
/// assert_eq!(lowered.schema, json!({"type": "object",
///     "properties": {"city": {"type": "string"},
///                    "unit": {"type": ["string", "null"], "enum": ["c", "f", null]}},
///     "required": ["city", "unit"], "additionalProperties": false}));
/// assert_eq!(lowered.null_means_absent, [Pointer::root().key("unit")]);
/// # Ok::<(), toolbridge::Error>(())
/// ```
pub fn lower(
    schema: &Value,
    dialect: Dialect,
    at: &Pointer,
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Lowered> {
    let unchanged = matches!(
        dialect,
        Dialect::JsonSchema | Dialect::OpenAi { strict: false } | Dialect::Anthropic { strict: false }
    );
    if unchanged {
        return Ok(Lowered {
            schema: schema.clone(),
            null_means_absent: Vec::new(),
        });
    }
    if !schema.is_object() && !schema.is_boolean() {
        return Err(Error::new(
            ErrorKind::InvalidSchema,
            format!(
                "a schema must be an object or a boolean, found {}",
                describe(schema)
            ),
        )
        .at(at.clone()));
    }
    let mut ctx = Ctx::new(schema, at, limits, notes, target_name(dialect));
    let mut null_means_absent = Vec::new();
    let lowered = match dialect {
        Dialect::OpenAi { strict: true } | Dialect::Mistral { strict: true } => {
            let mut walker = Walker::new(&mut ctx, Subset::OpenAiStrict);
            let lowered = walker.run()?;
            let made_nullable = std::mem::take(&mut walker.made_nullable);
            null_means_absent = strict::absent_paths(&lowered, &made_nullable, limits, at)?;
            check_openai_strict_limits(&lowered, at, ctx.notes);
            lowered
        }
        Dialect::Anthropic { strict: true } => Walker::new(&mut ctx, Subset::AnthropicStrict).run()?,
        Dialect::Bedrock { strict: true } => Walker::new(&mut ctx, Subset::BedrockStrict).run()?,
        Dialect::Ollama => Walker::new(&mut ctx, Subset::Ollama).run()?,
        Dialect::GeminiOpenApi => Gemini::new(&mut ctx).run()?,
        Dialect::GeminiJson => Plain {
            drop: &["$schema", "$id", "$comment"],
            drop_reason: "Gemini rejects it (\"Unknown field for Schema\")",
            inline: false,
        }
        .lower(&mut ctx)?,
        Dialect::Bedrock { strict: false } => Plain {
            drop: &["$schema", "$id"],
            drop_reason: "Bedrock rejects it",
            inline: true,
        }
        .lower(&mut ctx)?,
        Dialect::Mistral { strict: false } | Dialect::Cohere { .. } => {
            let lowered = Plain {
                drop: &["$schema"],
                drop_reason: "it is not meant for the model, and providers reject it",
                inline: true,
            }
            .lower(&mut ctx)?;
            if dialect == (Dialect::Cohere { strict: true }) {
                check_cohere_required(&lowered, at, ctx.notes);
            }
            lowered
        }
        Dialect::JsonSchema | Dialect::OpenAi { .. } | Dialect::Anthropic { .. } => schema.clone(),
    };
    Ok(Lowered {
        schema: lowered,
        null_means_absent,
    })
}

/// The target's name, as messages say it.
fn target_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::JsonSchema => "JSON Schema",
        Dialect::OpenAi { strict: true } => "OpenAI strict mode",
        Dialect::OpenAi { strict: false } => "OpenAI",
        Dialect::Anthropic { strict: true } => "Anthropic strict mode",
        Dialect::Anthropic { strict: false } => "Anthropic",
        Dialect::GeminiOpenApi => "Gemini",
        Dialect::GeminiJson => "Gemini",
        Dialect::Bedrock { strict: true } => "Bedrock strict mode",
        Dialect::Bedrock { strict: false } => "Bedrock",
        Dialect::Ollama => "Ollama",
        Dialect::Mistral { strict: true } => "Mistral strict mode",
        Dialect::Mistral { strict: false } => "Mistral",
        Dialect::Cohere { strict: true } => "Cohere strict_tools",
        Dialect::Cohere { strict: false } => "Cohere",
    }
}

/// Cohere's `strict_tools` needs at least one required parameter per tool.
fn check_cohere_required(schema: &Value, at: &Pointer, notes: &mut Notes) {
    let has_required = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| !required.is_empty());
    if !has_required {
        notes.push(
            NoteKind::Unsupported {
                keyword: "required".into(),
            },
            at.key("required"),
            "Cohere strict_tools needs at least one required parameter in every tool, and this tool has none",
        );
    }
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
