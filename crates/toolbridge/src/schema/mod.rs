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

mod encode;
pub(crate) mod gemini;
mod keywords;
pub mod names;
mod plain;
mod refs;
mod root;
mod tuple;
mod strict;
mod subset;
#[cfg(test)]
mod testing;
mod walk;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::json::describe;
use crate::json::Field;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;
use crate::rewrite::{remove_null_at, Rewrite};

pub use names::{NameMap, NameRule};
pub(crate) use strict::{
    check_anthropic_strict_budget, check_cohere_strict_fields, check_openai_strict_limits,
};

use encode::Encoded;
use gemini::Gemini;
use plain::Plain;
use subset::{Mark, Subset, Walker};
use walk::{Ctx, Place};

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
    /// The `:args` of Emacs gptel and llm.el tools: JSON Schema with every
    /// `$ref` inlined (an argument plist has no place for `$defs`).
    Elisp,
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
    /// Every meaning-changing rewrite the lowering made, in order (the
    /// null-means-absent places among them), as an
    /// [`Inverse`](crate::Inverse) holds them to undo on a call.
    pub rewrites: Vec<Rewrite>,
}

impl Lowered {
    /// Removes `null` members at [`Lowered::null_means_absent`] places from
    /// arguments the model sent, so that absent-means-default applies again.
    pub fn restore_absent(&self, arguments: &mut Value) {
        for place in &self.null_means_absent {
            remove_null_at(arguments, place);
        }
    }
}

/// A schema read without an older draft in `$schema` is read as 2020-12,
/// where `items` is one schema: real files still hold draft-4 tuples
/// (`"items": [a, b]`) without saying so. Respells them as `prefixItems`
/// (same meaning, noted) so the schema is valid 2020-12; `None` if it has
/// none or declares an older draft, where they mean what they say.
pub(crate) fn lower_tuples(
    schema: &Value,
    at: &Pointer,
    target: &'static str,
    max_depth: usize,
    notes: &mut Notes,
) -> Option<Value> {
    tuple::respell_tuples(schema, at, false, target, max_depth, notes)
}

pub(crate) fn respell_read_tuples(
    schema: &Value,
    at: &Pointer,
    max_depth: usize,
    notes: &mut Notes,
) -> Option<Value> {
    if tuple::declares_old_draft(schema) {
        return None;
    }
    tuple::respell_tuples(schema, at, true, "toolbridge", max_depth, notes)
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
///   [`Dialect::Elisp`]: `$schema`, `$id` dropped; `$ref`s inlined.
/// - OpenAI and Mistral `strict`: the Structured Outputs subset, every
///   optional property made required and nullable (recorded in
///   [`Lowered::null_means_absent`]), every object closed, other keywords
///   written into the description, Structured Outputs' size limits checked
///   (5,000 properties, 10 levels, 1,000 enum values; an error note each).
/// - Anthropic and Bedrock `strict`: Anthropic's strict subset, every object
///   closed, optional properties kept, other keywords written into the
///   description; recursion is an error note (Bedrock inlines `$ref`s).
/// - [`Dialect::GeminiOpenApi`]: Gemini's OpenAPI `Schema` subset.
/// - [`Dialect::Ollama`]: type, properties, required, items, enum,
///   description and anyOf kept, `$ref`s inlined, the rest written into the
///   description.
///
/// Across dialects:
///
/// - What Gemini or a strict mode cannot describe (an object that takes any
///   keys, a map, a recursive object cut short, a schema that accepts any
///   value, the items of an array without `items`) is written as a string
///   holding its JSON, recorded as [`Rewrite::JsonEncoded`]; a root that
///   takes any keys becomes the one property `arguments`
///   ([`Rewrite::Nested`]).
/// - `oneOf`, `anyOf`, `allOf`, `enum` and `not` at the root, which OpenAI,
///   Anthropic, Bedrock, Gemini, Ollama, Mistral and Cohere refuse, are
///   merged into one object, the rule written into the description.
/// - A draft-4 tuple (`"items": [...]`) becomes `prefixItems` where the
///   dialect has it, and elsewhere a union of the positions with the
///   positions in the description; where `$schema` is kept and names an
///   older draft, the tuple stays.
/// - A local `$ref` that points at nothing is an error, or an error note
///   where the schema is written as it is.
///
/// [`Lowered::rewrites`] lists what an [`Inverse`](crate::Inverse) undoes.
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
    let mark = notes.rewrite_count();
    let mut lowered = lower_recording(schema, dialect, at, limits, notes)?;
    lowered.rewrites = notes.rewrites_since(mark, at);
    Ok(lowered)
}

/// [`lower`], recording its rewrites in `notes`.
fn lower_recording(
    schema: &Value,
    dialect: Dialect,
    at: &Pointer,
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Lowered> {
    let merged_root = match dialect {
        Dialect::OpenAi { .. }
        | Dialect::Anthropic { .. }
        | Dialect::Bedrock { .. }
        | Dialect::GeminiOpenApi
        | Dialect::Ollama
        | Dialect::Mistral { .. }
        | Dialect::Cohere { .. } => root::merge_root(schema, at, target_name(dialect), limits, notes)?,
        _ => None,
    };
    let schema = merged_root.as_ref().unwrap_or(schema);
    let nested_root = match dialect {
        Dialect::GeminiOpenApi
        | Dialect::OpenAi { strict: true }
        | Dialect::Mistral { strict: true }
        | Dialect::Anthropic { strict: true }
        | Dialect::Bedrock { strict: true } => root::nest_free_root(schema, at, target_name(dialect), notes),
        _ => None,
    };
    let schema = nested_root.as_ref().unwrap_or(schema);
    let unchanged = matches!(
        dialect,
        Dialect::JsonSchema | Dialect::OpenAi { strict: false } | Dialect::Anthropic { strict: false }
    );
    let tuples = if unchanged && tuple::declares_old_draft(schema) {
        None
    } else {
        tuple::respell_tuples(
            schema,
            at,
            has_prefix_items(dialect),
            target_name(dialect),
            limits.max_depth,
            notes,
        )
    };
    let schema = tuples.as_ref().unwrap_or(schema);
    if unchanged {
        if schema.is_object() || schema.is_boolean() {
            check_refs_resolve(schema, at, limits, target_name(dialect), notes);
        }
        return Ok(Lowered {
            schema: schema.clone(),
            ..Lowered::default()
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
            let recorded = std::mem::take(&mut walker.recorded);
            record_encoded(&lowered, &recorded, limits, &mut ctx)?;
            let made_nullable: Vec<Vec<String>> = recorded
                .into_iter()
                .filter(|(mark, _)| *mark == Mark::Absent)
                .map(|(_, location)| location)
                .collect();
            null_means_absent = strict::absent_paths(&lowered, &made_nullable, limits, at)?;
            for place in &null_means_absent {
                ctx.notes
                    .record(at, Rewrite::NullMeansAbsent { at: place.clone() });
            }
            // Mistral documents no such limits (its strict subset is taken to
            // be OpenAI's, providers.md §8): they are OpenAI's verdict only.
            if matches!(dialect, Dialect::OpenAi { .. }) {
                check_openai_strict_limits(&lowered, at, ctx.notes);
            }
            lowered
        }
        Dialect::Anthropic { strict: true } | Dialect::Bedrock { strict: true } => {
            let subset = if dialect == (Dialect::Anthropic { strict: true }) {
                Subset::AnthropicStrict
            } else {
                Subset::BedrockStrict
            };
            let mut walker = Walker::new(&mut ctx, subset);
            let lowered = walker.run()?;
            let recorded = std::mem::take(&mut walker.recorded);
            record_encoded(&lowered, &recorded, limits, &mut ctx)?;
            lowered
        }
        Dialect::Ollama => Walker::new(&mut ctx, Subset::Ollama).run()?,
        Dialect::GeminiOpenApi => Gemini::new(&mut ctx).run()?,
        Dialect::GeminiJson => Plain {
            drop: &["$schema", "$id", "$comment"],
            drop_reason: "Gemini rejects it (\"Unknown field for Schema\")",
            inline: None,
        }
        .lower(&mut ctx)?,
        Dialect::Bedrock { strict: false } => Plain {
            drop: &["$schema", "$id"],
            drop_reason: "Bedrock rejects it",
            inline: Some("does not follow $ref reliably"),
        }
        .lower(&mut ctx)?,
        Dialect::Mistral { strict: false } | Dialect::Cohere { .. } => {
            let lowered = Plain {
                drop: &["$schema"],
                drop_reason: "it is not meant for the model, and providers reject it",
                inline: Some("does not follow $ref reliably"),
            }
            .lower(&mut ctx)?;
            if dialect == (Dialect::Cohere { strict: true }) {
                check_cohere_required(&lowered, at, ctx.notes);
            }
            lowered
        }
        Dialect::Elisp => Plain {
            drop: &["$schema", "$id"],
            drop_reason: "gptel and llm.el build the argument object themselves, with no place for it",
            inline: Some("build each argument from :args, with no place for $defs"),
        }
        .lower(&mut ctx)?,
        Dialect::JsonSchema | Dialect::OpenAi { .. } | Dialect::Anthropic { .. } => schema.clone(),
    };
    Ok(Lowered {
        schema: lowered,
        null_means_absent,
        rewrites: Vec::new(),
    })
}

/// Records a [`Rewrite::JsonEncoded`] for each place in the arguments that
/// reaches an output location a strict walk wrote as a string of JSON.
fn record_encoded(
    lowered: &Value,
    recorded: &[(Mark, Vec<String>)],
    limits: &Limits,
    ctx: &mut Ctx<'_>,
) -> Result<()> {
    for encoded in [Encoded::Object, Encoded::Any] {
        let locations: Vec<Vec<String>> = recorded
            .iter()
            .filter(|(mark, _)| *mark == Mark::Encoded(encoded))
            .map(|(_, location)| location.clone())
            .collect();
        let at = ctx.at.clone();
        for place in strict::absent_paths(lowered, &locations, limits, &at)? {
            ctx.record_encoded(place, encoded);
        }
    }
    Ok(())
}

/// An error note for each local `$ref` in `schema` (found at `at` in the
/// tool) that points at nothing, for writers that copy schemas as they are
/// (the canonical file).
pub(crate) fn check_refs(schema: &Value, at: &Pointer, limits: &Limits, notes: &mut Notes) {
    if schema.is_object() || schema.is_boolean() {
        check_refs_resolve(schema, at, limits, target_name(Dialect::JsonSchema), notes);
    }
}

/// Whether any object in `value` has a `$ref` key: a cheap scan that spares
/// schemas without references the located walk.
fn mentions_ref(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                if object.has_field("$ref") {
                    return true;
                }
                stack.extend(object.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// Where the schema goes to the provider as it is, a local `$ref` that
/// points at nothing is an error note: the provider rejects the schema (or,
/// not resolving it, leaves the model guessing). Written anyway, so that the
/// rest of the tool set still comes out.
fn check_refs_resolve(
    schema: &Value,
    at: &Pointer,
    limits: &Limits,
    target: &'static str,
    notes: &mut Notes,
) {
    if !mentions_ref(schema) {
        return;
    }
    let mut broken = Vec::new();
    let mut scratch = Notes::new();
    let mut ctx = Ctx::new(schema, at, limits, &mut scratch, target);
    for (node_at, _, node) in strict::schema_nodes(schema) {
        if let Some(Value::String(reference)) = node.field("$ref") {
            if let Err(err) = ctx.resolve(reference, &Place::original(at, &node_at)) {
                broken.push((at.join(&node_at).key("$ref"), err.detail().to_string()));
            }
        }
    }
    for (place, detail) in broken {
        notes.push(
            NoteKind::Unsupported {
                keyword: "$ref".into(),
            },
            place,
            format!("{detail}; {target} rejects a schema with a reference it cannot resolve"),
        );
    }
}

/// The one type a schema without `type` evidently has: that of all its
/// `enum` values or its `const`, else the type its keywords imply
/// (`properties` → object, `minLength` → string, …). `None` when there is
/// no such evidence, or it points at more than one type.
pub(crate) fn inferred_type(node: &serde_json::Map<String, Value>) -> Option<&'static str> {
    let from_values = match (node.field("enum"), node.field("const")) {
        (Some(Value::Array(values)), _) => Some(keywords::value_types(values)),
        (_, Some(value)) => Some(vec![keywords::json_type(value)]),
        _ => None,
    };
    match from_values {
        Some(types) if types.len() == 1 => Some(types[0]),
        Some(_) => None,
        None => node.keys().find_map(|key| keywords::implied_type(key)),
    }
}

/// The target's name, as messages say it.
fn target_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::JsonSchema => "a JSON Schema validator (as MCP clients run)",
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
        Dialect::Elisp => "gptel and llm.el",
    }
}

/// Whether the dialect has 2020-12's `prefixItems` (tuples).
fn has_prefix_items(dialect: Dialect) -> bool {
    !matches!(
        dialect,
        Dialect::GeminiOpenApi
            | Dialect::Ollama
            | Dialect::OpenAi { strict: true }
            | Dialect::Mistral { strict: true }
            | Dialect::Anthropic { strict: true }
            | Dialect::Bedrock { strict: true }
    )
}

/// Cohere's `strict_tools` needs at least one required parameter per tool.
fn check_cohere_required(schema: &Value, at: &Pointer, notes: &mut Notes) {
    let has_required = schema
        .field("required")
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
    use std::time::{Duration, Instant};

    use proptest::prelude::*;
    use serde_json::json;

    use super::testing::{assert_covered, at, notes as note_list, run, run_with};
    use super::*;

    const ALL: [Dialect; 15] = [
        Dialect::JsonSchema,
        Dialect::OpenAi { strict: false },
        Dialect::OpenAi { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::GeminiOpenApi,
        Dialect::GeminiJson,
        Dialect::Bedrock { strict: false },
        Dialect::Bedrock { strict: true },
        Dialect::Ollama,
        Dialect::Mistral { strict: false },
        Dialect::Mistral { strict: true },
        Dialect::Cohere { strict: false },
        Dialect::Cohere { strict: true },
        Dialect::Elisp,
    ];

    #[test]
    fn restore_absent_removes_only_recorded_nulls() {
        let lowered = Lowered {
            rewrites: Vec::new(),
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

    #[test]
    fn pass_through_dialects_return_the_schema_unchanged_and_name_broken_refs() {
        let schema = json!({"$schema": "x", "type": "object", "properties": {"a": {"$ref": "#/$defs/nowhere"}},
            "additionalProperties": true});
        for dialect in [
            Dialect::JsonSchema,
            Dialect::OpenAi { strict: false },
            Dialect::Anthropic { strict: false },
        ] {
            let out = run(&schema, dialect);
            assert_eq!(out.schema, schema);
            let broken_ref = note_list(&[("unsupported", "/inputSchema/properties/a/$ref")]);
            assert_eq!(out.notes, broken_ref, "{dialect:?}");
        }
        let mut notes = Notes::new();
        lower(
            &schema,
            Dialect::Anthropic { strict: false },
            &at(),
            &Limits::default(),
            &mut notes,
        )
        .unwrap();
        assert_eq!(
            notes.as_slice()[0].message,
            "\"#/$defs/nowhere\" points at nothing in this schema; Anthropic rejects a schema with a reference it cannot resolve"
        );
    }

    #[test]
    fn unresolved_refs_name_the_ref() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/nope"}}}});
        for dialect in ALL
            .into_iter()
            .skip(2)
            .filter(|d| *d != Dialect::Anthropic { strict: false })
        {
            let err = run_with(&schema, dialect, &Limits::default()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnresolvedRef, "{dialect:?}");
            assert_eq!(
                err.pointer().as_str(),
                "/inputSchema/properties/a/items/$ref",
                "{dialect:?}"
            );
            assert_eq!(err.detail(), "\"#/$defs/nope\" points at nothing in this schema");
        }
    }

    #[test]
    fn remote_refs_are_kept_where_refs_are_kept_and_dropped_where_they_must_be_inlined() {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json", "description": "A."}},
            "required": ["a"]});
        let gemini = run(&schema, Dialect::GeminiOpenApi);
        assert_eq!(
            gemini.schema["properties"]["a"],
            json!({"type": "STRING", "description": "A.\n\nSend any JSON value here, encoded as a string of JSON."})
        );
        assert_eq!(
            gemini.notes[0],
            (
                "dropped".to_string(),
                "/inputSchema/properties/a/$ref".to_string()
            )
        );
        let ollama = run(&schema, Dialect::Ollama);
        assert_eq!(ollama.schema["properties"]["a"], json!({"description": "A."}));
        assert_eq!(
            ollama.notes,
            note_list(&[("dropped", "/inputSchema/properties/a/$ref")])
        );
        let gemini_json = run(&schema, Dialect::GeminiJson);
        assert_eq!(gemini_json.schema, schema);
        let openai = run(
            &json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}},
            "required": ["a"]}),
            Dialect::OpenAi { strict: true },
        );
        assert_eq!(
            openai.schema["properties"]["a"],
            json!({"$ref": "https://example.com/a.json"})
        );
    }

    /// Each definition refers to the previous one twice: inlining all of
    /// them would take 2^40 nodes.
    fn ref_bomb(optional: bool) -> Value {
        let mut defs = serde_json::Map::new();
        defs.insert("d0".into(), json!({"type": "string"}));
        for n in 1..=40 {
            let previous = format!("#/$defs/d{}", n - 1);
            let required = if optional { json!([]) } else { json!(["x", "y"]) };
            defs.insert(
                format!("d{n}"),
                json!({"type": "object", "properties": {"x": {"$ref": previous}, "y": {"$ref": previous}},
                    "required": required}),
            );
        }
        json!({"type": "object", "properties": {"bomb": {"$ref": "#/$defs/d40"}}, "required": ["bomb"], "$defs": defs})
    }

    #[test]
    fn ref_fan_out_fails_fast_where_refs_are_inlined() {
        for dialect in [
            Dialect::GeminiOpenApi,
            Dialect::Ollama,
            Dialect::Bedrock { strict: false },
            Dialect::Bedrock { strict: true },
            Dialect::Mistral { strict: false },
            Dialect::Cohere { strict: true },
        ] {
            let started = Instant::now();
            let err = run_with(&ref_bomb(false), dialect, &Limits::default()).unwrap_err();
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{dialect:?} took {:?}",
                started.elapsed()
            );
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{dialect:?}");
            assert_eq!(
                err.pointer().as_str(),
                "/inputSchema/properties/bomb",
                "{dialect:?}"
            );
            assert_eq!(
                err.detail(),
                "$ref fan-out: expanding the $refs takes more than 10000 schema nodes"
            );
        }
    }

    #[test]
    fn ref_fan_out_is_fine_where_refs_are_kept_unless_absent_places_explode() {
        for dialect in [
            Dialect::OpenAi { strict: true },
            Dialect::Anthropic { strict: true },
            Dialect::GeminiJson,
        ] {
            let out = run(&ref_bomb(false), dialect);
            assert_eq!(
                out.schema["properties"]["bomb"],
                json!({"$ref": "#/$defs/d40"}),
                "{dialect:?}"
            );
            assert!(out.absent.is_empty());
        }
        let started = Instant::now();
        let err = run_with(
            &ref_bomb(true),
            Dialect::OpenAi { strict: true },
            &Limits::default(),
        )
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert_eq!(err.pointer().as_str(), "/inputSchema");
    }

    #[test]
    fn deep_schemas_exceed_the_depth_limit_without_overflowing() {
        let mut schema = json!({"type": "string"});
        for _ in 0..1000 {
            schema = json!({"type": "object", "properties": {"a": schema}});
        }
        for dialect in ALL.into_iter().filter(|dialect| {
            !matches!(
                dialect,
                Dialect::JsonSchema
                    | Dialect::OpenAi { strict: false }
                    | Dialect::Anthropic { strict: false }
            )
        }) {
            let err = run_with(&schema, dialect, &Limits::default()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{dialect:?}");
            assert_eq!(err.detail(), "the schema is nested more than 128 levels deep");
        }
        let shallow = Limits::default().with_max_depth(3);
        let err = run_with(
            &json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object",
                "properties": {"c": {}}}}}}}),
            Dialect::GeminiOpenApi,
            &shallow,
        )
        .unwrap_err();
        assert_eq!(
            err.pointer().as_str(),
            "/inputSchema/properties/a/properties/b/properties/c"
        );
    }

    #[test]
    fn roots_that_are_not_objects_do_not_break_anything() {
        let mut notes = Notes::new();
        let err = lower(
            &json!(5),
            Dialect::GeminiOpenApi,
            &at(),
            &Limits::default(),
            &mut notes,
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidSchema);
        assert_eq!(
            err.to_string(),
            "invalid schema: a schema must be an object or a boolean, found a number (at /inputSchema)"
        );
        assert_eq!(
            run(&json!(true), Dialect::GeminiOpenApi).schema,
            json!({"type": "OBJECT"})
        );
        assert_eq!(run(&json!(true), Dialect::GeminiJson).schema, json!(true));
        let output = run(
            &json!({"type": "array", "items": {"type": "string"}}),
            Dialect::OpenAi { strict: true },
        );
        assert_eq!(
            output.schema,
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(output.notes, note_list(&[("unsupported", "/inputSchema/type")]));
        let gemini = run(&json!({"type": "string", "maxLength": 5}), Dialect::GeminiOpenApi);
        assert_eq!(gemini.schema, json!({"type": "STRING", "maxLength": 5}));
    }

    /// Schemas built from the keywords lowering cares about, including
    /// broken shapes, `$ref`s (some recursive) and boolean schemas.
    fn schema_strategy() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!({"type": "string", "minLength": 1, "format": "email"})),
            Just(json!({"type": "integer", "minimum": 1, "exclusiveMaximum": 9})),
            Just(json!({"type": ["string", "null"], "default": null})),
            Just(json!({"enum": ["a", "", 1, null]})),
            Just(json!({"const": "x", "title": "T"})),
            Just(json!({"$ref": "#/$defs/d"})),
            Just(json!({"$ref": "#"})),
            Just(json!({"$ref": "https://example.com/x"})),
            Just(json!({"type": "array"})),
            Just(json!({"type": 3, "properties": 4, "required": [1, "a"]})),
            Just(json!({"examples": [1, 2], "$comment": "c", "x-y": 1})),
            Just(json!({})),
            Just(json!(true)),
            Just(json!(false)),
            Just(json!("not a schema")),
        ];
        leaf.prop_recursive(4, 48, 4, |inner| {
            let names = prop::sample::select(vec!["a", "b", "c", "type", "$ref"]);
            prop_oneof![
                (
                    prop::collection::vec((names, inner.clone()), 0..4),
                    prop::option::of(prop::collection::vec(
                        prop::sample::select(vec!["a", "b", "z"]),
                        0..3
                    )),
                    any::<bool>()
                )
                    .prop_map(|(props, required, closed)| {
                        let mut node = json!({"type": "object", "properties": props.into_iter()
                            .map(|(k, v)| (k.to_string(), v)).collect::<serde_json::Map<_, _>>()});
                        if let Some(required) = required {
                            node["required"] = json!(required);
                        }
                        if closed {
                            node["additionalProperties"] = json!(false);
                        }
                        node
                    }),
                inner
                    .clone()
                    .prop_map(|items| json!({"type": "array", "items": items, "maxItems": 3})),
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|b| json!({"anyOf": b, "description": "U."})),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({"oneOf": b})),
                prop::collection::vec(inner.clone(), 1..3)
                    .prop_map(|b| json!({"allOf": b, "type": "object"})),
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| json!({"$ref": "#/$defs/d", "not": a, "items": b})),
                inner.prop_map(|a| json!({"type": ["object", "string", "null"], "additionalProperties": a})),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn random_schemas_never_panic_and_every_change_is_noted(
            body in schema_strategy(),
            def in schema_strategy(),
        ) {
            let schema = json!({"type": "object", "properties": {"p": body, "q": {"$ref": "#/$defs/d"}},
                "$defs": {"d": def}});
            for dialect in ALL {
                let mut notes = Notes::new();
                match lower(&schema, dialect, &at(), &Limits::default(), &mut notes) {
                    Ok(lowered) => assert_covered(&schema, &lowered.schema, &notes),
                    Err(err) => prop_assert!(
                        matches!(err.kind(), ErrorKind::UnresolvedRef | ErrorKind::LimitExceeded),
                        "{dialect:?}: {err}"
                    ),
                }
                for note in notes.iter() {
                    prop_assert!(note.at.starts_with(&at()), "{dialect:?}: {note}");
                }
            }
        }

        #[test]
        fn any_json_never_panics(value in any_json()) {
            for dialect in ALL {
                let mut notes = Notes::new();
                let _ = lower(&value, dialect, &at(), &Limits::default(), &mut notes);
            }
        }
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z$#/~%0-9]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            let keys = prop::sample::select(vec![
                "type",
                "properties",
                "items",
                "anyOf",
                "oneOf",
                "allOf",
                "$ref",
                "$defs",
                "enum",
                "const",
                "required",
                "additionalProperties",
                "description",
                "nullable",
                "examples",
                "x",
            ]);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((keys, inner), 0..5).prop_map(|entries| {
                    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                }),
            ]
        })
    }
}
