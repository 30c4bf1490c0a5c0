//! What strict modes need beyond the walk in [`subset`](super::subset):
//! turning the properties OpenAI strict made nullable into places in the
//! *arguments* (following kept `$ref`s, recursion included), and the limits
//! each provider enforces on one schema or on a request's whole tool set.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::error::Result;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

use super::keywords::Object;
use super::refs::{lookup, percent_decode, subschemas};
use super::walk::fan_out;
use crate::json::Field;

/// OpenAI Structured Outputs limits ("Supported schemas").
const OPENAI_MAX_PROPERTIES: usize = 5000;
const OPENAI_MAX_NESTING: usize = 10;
const OPENAI_MAX_ENUM_VALUES: usize = 1000;
const OPENAI_LARGE_ENUM: usize = 250;
const OPENAI_LARGE_ENUM_CHARS: usize = 15_000;
const OPENAI_MAX_STRING_CHARS: usize = 120_000;

/// Anthropic strict tool use limits per request.
const ANTHROPIC_MAX_STRICT_TOOLS: usize = 20;
const ANTHROPIC_MAX_OPTIONAL: usize = 24;
const ANTHROPIC_MAX_UNIONS: usize = 16;

/// Cohere `strict_tools` limit per request.
const COHERE_MAX_FIELDS: usize = 200;

/// Every schema node of `schema` (including `$defs`), with its location and
/// its nesting level: the number of subschema steps (`properties` entry,
/// `items`, `anyOf` branch, definition, …) from the root. Iterative, so any
/// depth is safe.
pub(super) fn schema_nodes(schema: &Value) -> Vec<(Pointer, usize, &Object)> {
    let mut nodes = Vec::new();
    let mut stack = vec![(Pointer::root(), 0usize, schema)];
    while let Some((at, level, value)) = stack.pop() {
        let Value::Object(node) = value else {
            continue;
        };
        nodes.push((at.clone(), level, node));
        let mut children = Vec::new();
        for (key, child) in node {
            children.extend(subschemas(key, child, &at));
        }
        stack.extend(
            children
                .into_iter()
                .rev()
                .map(|(child_at, child)| (child_at, level + 1, child)),
        );
    }
    nodes
}

/// Checks one lowered OpenAI strict schema (found at `at` in the tool)
/// against Structured Outputs' limits: at most 5,000 properties, 10 levels of
/// nesting, 1,000 enum values, 15,000 characters for a string enum of more
/// than 250 values, and 120,000 characters of property names, definition
/// names, enum and const strings. Each exceeded limit is an error-level
/// [`NoteKind::OverLimit`] note: the output is still produced, but OpenAI
/// will reject it. [`lower`](super::lower) runs this for
/// [`Dialect::OpenAi`](super::Dialect::OpenAi) `{ strict: true }`.
pub(crate) fn check_openai_strict_limits(schema: &Value, at: &Pointer, notes: &mut Notes) {
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    let mut chars = 0usize;
    let mut deepest: Option<(usize, Pointer)> = None;
    for (place, level, node) in schema_nodes(schema) {
        if level > OPENAI_MAX_NESTING && deepest.as_ref().is_none_or(|(deepest, _)| level > *deepest) {
            deepest = Some((level, place.clone()));
        }
        if let Some(props) = node.field("properties").and_then(Value::as_object) {
            properties += props.len();
            chars += props.keys().map(|name| name.chars().count()).sum::<usize>();
        }
        for defs in ["$defs", "definitions"] {
            if let Some(defs) = node.get(defs).and_then(Value::as_object) {
                chars += defs.keys().map(|name| name.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::String(value)) = node.field("const") {
            chars += value.chars().count();
        }
        if let Some(values) = node.field("enum").and_then(Value::as_array) {
            enum_values += values.len();
            let enum_chars: usize = values
                .iter()
                .filter_map(Value::as_str)
                .map(|v| v.chars().count())
                .sum();
            chars += enum_chars;
            let strings = values.iter().filter(|value| value.is_string()).count();
            if strings > OPENAI_LARGE_ENUM && enum_chars > OPENAI_LARGE_ENUM_CHARS {
                notes.push(
                    NoteKind::OverLimit {
                        limit: format!("{OPENAI_LARGE_ENUM_CHARS} characters in an enum of more than {OPENAI_LARGE_ENUM} values").into(),
                    },
                    at.clone(),
                    format!(
                        "the enum at {place} has {strings} string values of {enum_chars} characters in all; OpenAI strict mode allows {OPENAI_LARGE_ENUM_CHARS} characters for an enum of more than {OPENAI_LARGE_ENUM} values"
                    ),
                );
            }
        }
    }
    if let Some((level, place)) = deepest {
        notes.push(
            NoteKind::OverLimit {
                limit: format!("{OPENAI_MAX_NESTING} levels of nesting").into(),
            },
            at.clone(),
            format!(
                "the schema is nested {level} levels deep (at {place}); OpenAI strict mode allows {OPENAI_MAX_NESTING}"
            ),
        );
    }
    for (count, limit, what) in [
        (properties, OPENAI_MAX_PROPERTIES, "object properties"),
        (enum_values, OPENAI_MAX_ENUM_VALUES, "enum values"),
        (
            chars,
            OPENAI_MAX_STRING_CHARS,
            "characters of property names, definition names, enum and const values",
        ),
    ] {
        if count > limit {
            notes.push(
                NoteKind::OverLimit {
                    limit: format!("{limit} {what}").into(),
                },
                at.clone(),
                format!("the schema has {count} {what}; OpenAI strict mode allows {limit}"),
            );
        }
    }
}

/// Checks the lowered input schemas of all *strict* tools of one Anthropic
/// (or Bedrock) request against Anthropic's strict tool use budget: at most
/// 20 strict tools, 24 optional parameters and 16 parameters using `anyOf` or
/// a type list, counted across all of them. Each exceeded limit is an
/// error-level [`NoteKind::OverLimit`] note at the root pointer (the set as
/// a whole is over). Call it from the writer's set check with the schemas of
/// the entries that are strict.
pub(crate) fn check_anthropic_strict_budget(schemas: &[&Value], notes: &mut Notes) {
    let mut optional = 0usize;
    let mut unions = 0usize;
    for schema in schemas {
        for (_, _, node) in schema_nodes(schema) {
            if let Some(props) = node.field("properties").and_then(Value::as_object) {
                let required: HashSet<&str> = node
                    .field("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                optional += props
                    .keys()
                    .filter(|name| !required.contains(name.as_str()))
                    .count();
            }
            let type_list = node
                .field("type")
                .and_then(Value::as_array)
                .is_some_and(|t| t.len() > 1);
            if type_list || node.field("anyOf").is_some_and(Value::is_array) {
                unions += 1;
            }
        }
    }
    for (count, limit, what) in [
        (schemas.len(), ANTHROPIC_MAX_STRICT_TOOLS, "strict tools"),
        (optional, ANTHROPIC_MAX_OPTIONAL, "optional parameters"),
        (
            unions,
            ANTHROPIC_MAX_UNIONS,
            "parameters using anyOf or a type list",
        ),
    ] {
        if count > limit {
            notes.push(
                NoteKind::OverLimit {
                    limit: format!("{limit} {what}").into(),
                },
                Pointer::root(),
                format!(
                    "the strict tools have {count} {what} in all; Anthropic strict tool use allows {limit} per request"
                ),
            );
        }
    }
}

/// Checks the lowered input schemas of all tools of one Cohere request with
/// `strict_tools`: at most 200 fields (properties at any depth) across all
/// of them. Exceeding it is an error-level [`NoteKind::OverLimit`] note at
/// the root pointer.
pub(crate) fn check_cohere_strict_fields(schemas: &[&Value], notes: &mut Notes) {
    let fields: usize = schemas
        .iter()
        .flat_map(|schema| schema_nodes(schema))
        .filter_map(|(_, _, node)| node.field("properties").and_then(Value::as_object))
        .map(|props| props.len())
        .sum();
    if fields > COHERE_MAX_FIELDS {
        notes.push(
            NoteKind::OverLimit {
                limit: format!("{COHERE_MAX_FIELDS} fields").into(),
            },
            Pointer::root(),
            format!("the tools have {fields} fields in all; Cohere strict_tools allows {COHERE_MAX_FIELDS} per request"),
        );
    }
}

/// The places in the arguments (`*` for any array index, `**` for any
/// number of steps through a recursion) of the schemas at the output
/// locations `made_nullable` (properties made nullable, or values written as
/// strings of JSON), found by walking the lowered `schema` as an instance
/// would: `properties` entries, `items`, `anyOf`/`allOf` branches and kept
/// local `$ref`s.
pub(super) fn absent_paths(
    schema: &Value,
    made_nullable: &[Vec<String>],
    limits: &Limits,
    at: &Pointer,
) -> Result<Vec<Pointer>> {
    if made_nullable.is_empty() {
        return Ok(Vec::new());
    }
    let marks: HashSet<Pointer> = made_nullable
        .iter()
        .map(|tokens| {
            tokens
                .iter()
                .fold(Pointer::root(), |pointer, token| pointer.key(token))
        })
        .collect();
    let mut walk = AbsentWalk {
        root: schema,
        marks: &marks,
        memo: HashMap::new(),
        limits,
    };
    let found = walk.run(at)?;
    let mut seen = HashSet::new();
    Ok(found
        .into_iter()
        .map(|tokens| {
            tokens
                .iter()
                .fold(Pointer::root(), |pointer, token| pointer.key(token))
        })
        .filter(|pointer| seen.insert(pointer.clone()))
        .collect())
}

struct AbsentWalk<'v> {
    root: &'v Value,
    marks: &'v HashSet<Pointer>,
    memo: HashMap<Pointer, bool>,
    limits: &'v Limits,
}

enum Step<'v> {
    Visit {
        node: &'v Value,
        out: Pointer,
        instance: Vec<String>,
        marked: bool,
    },
    Leave,
}

struct Frame {
    target: Pointer,
    instance_len: usize,
    first_found: usize,
    recursive: bool,
}

impl<'v> AbsentWalk<'v> {
    fn run(&mut self, at: &Pointer) -> Result<Vec<Vec<String>>> {
        let mut found: Vec<Vec<String>> = Vec::new();
        let mut frames = vec![Frame {
            target: Pointer::root(),
            instance_len: 0,
            first_found: 0,
            recursive: false,
        }];
        let mut visits = 0usize;
        let mut steps = vec![Step::Visit {
            node: self.root,
            out: Pointer::root(),
            instance: Vec::new(),
            marked: false,
        }];
        while let Some(step) = steps.pop() {
            let (node, out, instance, marked) = match step {
                Step::Leave => {
                    if let Some(frame) = frames.pop() {
                        if frame.recursive {
                            for path in &mut found[frame.first_found..] {
                                path.insert(frame.instance_len, "**".into());
                            }
                        }
                    }
                    continue;
                }
                Step::Visit {
                    node,
                    out,
                    instance,
                    marked,
                } => (node, out, instance, marked),
            };
            if marked {
                found.push(instance.clone());
            }
            let Value::Object(node) = node else {
                continue;
            };
            if instance.len() > self.limits.max_depth {
                continue;
            }
            if frames.len() > 1 {
                visits += 1;
                if visits > self.limits.max_ref_expansion {
                    return Err(fan_out(self.limits.max_ref_expansion, at.clone()));
                }
            }
            let mut children: Vec<Step<'v>> = Vec::new();
            if let Some(target) = node
                .field("$ref")
                .and_then(Value::as_str)
                .and_then(fragment_pointer)
            {
                if let Some(frame) = frames.iter_mut().find(|frame| frame.target == target) {
                    frame.recursive = true;
                } else if self.has_marks(&target, &mut HashSet::new()).0 {
                    if let Some(resolved) = lookup(self.root, &target) {
                        frames.push(Frame {
                            target: target.clone(),
                            instance_len: instance.len(),
                            first_found: found.len(),
                            recursive: false,
                        });
                        steps.push(Step::Leave);
                        steps.push(Step::Visit {
                            node: resolved,
                            out: target,
                            instance: instance.clone(),
                            marked: false,
                        });
                        continue;
                    }
                }
            }
            if let Some(props) = node.field("properties").and_then(Value::as_object) {
                let props_at = out.key("properties");
                for (name, schema) in props {
                    let child_out = props_at.key(name);
                    let mut child_instance = instance.clone();
                    child_instance.push(name.clone());
                    children.push(Step::Visit {
                        node: schema,
                        marked: self.marks.contains(&child_out),
                        out: child_out,
                        instance: child_instance,
                    });
                }
            }
            if let Some(items) = node.field("items").filter(|items| items.is_object()) {
                let mut child_instance = instance.clone();
                child_instance.push("*".into());
                let child_out = out.key("items");
                children.push(Step::Visit {
                    node: items,
                    marked: self.marks.contains(&child_out),
                    out: child_out,
                    instance: child_instance,
                });
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(branches) = node.get(key).and_then(Value::as_array) {
                    let key_at = out.key(key);
                    for (index, branch) in branches.iter().enumerate() {
                        let child_out = key_at.index(index);
                        children.push(Step::Visit {
                            node: branch,
                            marked: self.marks.contains(&child_out),
                            out: child_out,
                            instance: instance.clone(),
                        });
                    }
                }
            }
            steps.extend(children.into_iter().rev());
        }
        if frames.first().is_some_and(|root| root.recursive) {
            for path in &mut found {
                path.insert(0, "**".into());
            }
        }
        Ok(found)
    }

    /// True if anything under `target` (following its `$ref`s) was made
    /// nullable; the second value says the answer depended on a target still
    /// being examined (such answers are not remembered).
    fn has_marks(&mut self, target: &Pointer, open: &mut HashSet<Pointer>) -> (bool, bool) {
        if let Some(known) = self.memo.get(target) {
            return (*known, false);
        }
        if open.contains(target) {
            return (false, true);
        }
        if open.len() > self.limits.max_depth {
            return (true, true);
        }
        if self.marks.iter().any(|mark| mark.starts_with(target)) {
            self.memo.insert(target.clone(), true);
            return (true, false);
        }
        let Some(schema) = lookup(self.root, target) else {
            return (false, false);
        };
        open.insert(target.clone());
        let (mut answer, mut depends) = (false, false);
        for (_, _, node) in schema_nodes(schema) {
            let Some(next) = node
                .field("$ref")
                .and_then(Value::as_str)
                .and_then(fragment_pointer)
            else {
                continue;
            };
            let (marked, open_dependency) = self.has_marks(&next, open);
            depends |= open_dependency;
            if marked {
                answer = true;
                break;
            }
        }
        open.remove(target);
        if answer || !depends {
            self.memo.insert(target.clone(), answer);
        }
        (answer, depends)
    }
}

/// The pointer a `#…` fragment `$ref` names (lowered schemas keep only
/// those as local references).
pub(super) fn fragment_pointer(reference: &str) -> Option<Pointer> {
    let fragment = percent_decode(reference.strip_prefix('#')?)?;
    if fragment.is_empty() {
        return Some(Pointer::root());
    }
    if !fragment.starts_with('/') {
        return None;
    }
    let mut pointer = Pointer::root();
    for token in fragment.split('/').skip(1) {
        pointer = pointer.key(&token.replace("~1", "/").replace("~0", "~"));
    }
    Some(pointer)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::testing::run;
    use super::super::Dialect;
    use super::*;

    /// Objects nested so that the innermost string sits `levels` steps down.
    fn nested(levels: usize) -> Value {
        let mut schema = json!({"type": "string"});
        for _ in 0..levels {
            schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
        }
        schema
    }

    fn over_limits(schema: &Value) -> Vec<String> {
        run(schema, Dialect::OpenAi { strict: true })
            .notes
            .into_iter()
            .filter(|(kind, _)| kind == "over-limit")
            .map(|(_, at)| at)
            .collect()
    }

    #[test]
    fn nesting_beyond_ten_levels_is_over_the_limit() {
        assert!(over_limits(&nested(10)).is_empty());
        let mut notes = Notes::new();
        check_openai_strict_limits(&nested(11), &Pointer::root().key("inputSchema"), &mut notes);
        let note = &notes.as_slice()[0];
        assert_eq!(
            note.kind,
            NoteKind::OverLimit {
                limit: "10 levels of nesting".into()
            }
        );
        assert_eq!(note.at.as_str(), "/inputSchema");
        assert_eq!(
            note.message,
            "the schema is nested 11 levels deep (at /properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a); OpenAI strict mode allows 10"
        );
        assert_eq!(over_limits(&nested(11)), ["/inputSchema"]);
    }

    #[test]
    fn enum_values_and_string_lengths_are_counted() {
        let values: Vec<Value> = (0..1001).map(|n| json!(n)).collect();
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "enum": values}},
            "required": ["n"]});
        let mut notes = Notes::new();
        check_openai_strict_limits(&schema, &Pointer::root(), &mut notes);
        let kinds: Vec<&NoteKind> = notes.iter().map(|note| &note.kind).collect();
        assert_eq!(
            kinds,
            [&NoteKind::OverLimit {
                limit: "1000 enum values".into()
            }]
        );
        assert_eq!(over_limits(&schema), ["/inputSchema"]);

        let long: Vec<Value> = (0..251).map(|n| json!(format!("{n:0>60}"))).collect();
        let schema = json!({"type": "object", "properties": {"s": {"type": "string", "enum": long}},
            "required": ["s"]});
        let mut notes = Notes::new();
        check_openai_strict_limits(&schema, &Pointer::root(), &mut notes);
        assert_eq!(
            notes.as_slice()[0].message,
            "the enum at /properties/s has 251 string values of 15060 characters in all; OpenAI strict mode allows 15000 characters for an enum of more than 250 values"
        );
        assert_eq!(notes.len(), 1);

        let props: serde_json::Map<String, Value> = (0..5001)
            .map(|n| (format!("p{n:0>30}"), json!({"type": "string"})))
            .collect();
        let mut notes = Notes::new();
        check_openai_strict_limits(
            &json!({"type": "object", "properties": props}),
            &Pointer::root(),
            &mut notes,
        );
        let limits: Vec<String> = notes
            .iter()
            .map(|note| match &note.kind {
                NoteKind::OverLimit { limit } => limit.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            limits,
            [
                "5000 object properties",
                "120000 characters of property names, definition names, enum and const values"
            ]
        );
    }

    #[test]
    fn anthropic_budget_counts_across_strict_tools() {
        let optional: serde_json::Map<String, Value> = (0..13)
            .map(|n| (format!("o{n}"), json!({"type": ["string", "null"]})))
            .collect();
        let schema = json!({"type": "object", "properties": optional, "required": ["o0"]});
        let mut notes = Notes::new();
        check_anthropic_strict_budget(&[&schema], &mut notes);
        assert!(notes.is_empty());
        check_anthropic_strict_budget(&[&schema, &schema], &mut notes);
        let messages: Vec<&str> = notes.iter().map(|note| note.message.as_str()).collect();
        assert_eq!(
            messages,
            ["the strict tools have 26 parameters using anyOf or a type list in all; Anthropic strict tool use allows 16 per request"]
        );
        let one_more = json!({"type": "object", "properties": {"p": {"type": "string"}}});
        let mut notes = Notes::new();
        check_anthropic_strict_budget(&[&schema, &schema, &one_more], &mut notes);
        assert_eq!(
            notes.as_slice()[0].message,
            "the strict tools have 25 optional parameters in all; Anthropic strict tool use allows 24 per request"
        );
        let tools: Vec<Value> = (0..21).map(|_| json!({"type": "object"})).collect();
        let refs: Vec<&Value> = tools.iter().collect();
        let mut notes = Notes::new();
        check_anthropic_strict_budget(&refs, &mut notes);
        assert_eq!(
            notes.as_slice()[0].kind,
            NoteKind::OverLimit {
                limit: "20 strict tools".into()
            }
        );
        assert_eq!(notes.as_slice()[0].at, Pointer::root());
    }

    #[test]
    fn cohere_fields_are_counted_across_tools() {
        let props: serde_json::Map<String, Value> = (0..100).map(|n| (format!("f{n}"), json!({}))).collect();
        let schema = json!({"type": "object", "properties": props, "required": ["f0"]});
        let mut notes = Notes::new();
        check_cohere_strict_fields(&[&schema, &schema], &mut notes);
        assert!(notes.is_empty());
        let nested =
            json!({"type": "object", "properties": {"x": {"type": "object", "properties": {"y": {}}}}});
        check_cohere_strict_fields(&[&schema, &schema, &nested], &mut notes);
        assert_eq!(
            notes.as_slice()[0].message,
            "the tools have 202 fields in all; Cohere strict_tools allows 200 per request"
        );
    }

    #[test]
    fn absent_places_follow_refs_and_skip_defs_without_changes() {
        let schema = json!({"type": "object", "properties": {
            "a": {"$ref": "#/$defs/plain"},
            "b": {"type": "array", "items": {"$ref": "#/$defs/marked"}}},
            "$defs": {
                "plain": {"type": "object", "properties": {"x": {"type": "string"}}},
                "marked": {"type": "object", "properties": {"y": {"$ref": "#/$defs/leaf"}}},
                "leaf": {"type": "object", "properties": {"z": {"type": ["string", "null"]}}}}});
        let marks = vec![vec![
            "$defs".to_string(),
            "leaf".to_string(),
            "properties".to_string(),
            "z".to_string(),
        ]];
        let found = absent_paths(&schema, &marks, &Limits::default(), &Pointer::root()).unwrap();
        let found: Vec<&str> = found.iter().map(Pointer::as_str).collect();
        assert_eq!(found, ["/b/*/y/z"]);
    }
}
