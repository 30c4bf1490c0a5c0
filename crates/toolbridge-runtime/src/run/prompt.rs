//! The `prompt` run kind: a SkyDeck template rendered with the arguments.

use serde_json::{Map, Value};
use toolbridge::tool::template::{segments, Segment};
use toolbridge::tool::PromptRun;
use toolbridge::Tool;
use toolbridge::{Note, NoteKind, Pointer};

use super::{with_notes, RunContext};
use crate::output::Output;

/// Renders a `prompt` tool's template; the rendered prompt is the result.
///
/// Each `{{ name }}` placeholder (the grammar of
/// [`toolbridge::tool::template`]; `\{{` is a literal `{{`) becomes the
/// argument `name`: a string as it is, a list (a multi-select) as its items
/// joined by `, `, a number or boolean as JSON writes it, an object as
/// compact JSON. An omitted argument renders empty, and a note in
/// `_meta["dev.toolbridge/notes"]` says so: schema `default`s are the
/// Toolbox's to fill (the [`Dispatcher`](crate::Dispatcher), `call` and
/// `serve` run only arguments it accepted), so they have one owner. A placeholder naming no declared variable is kept as written, with a
/// note. Values of a select (`enum`, or `items.enum` for a multi-select) are
/// checked against the allowed values, even though the Toolbox did: `run`
/// may be given arguments no Toolbox checked.
pub(super) fn run(
    tool: &Tool,
    run: &PromptRun,
    arguments: &Map<String, Value>,
    context: &RunContext,
) -> Output {
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    let property = |name: &str| properties.and_then(|properties| properties.get(name));
    let mut problems = Vec::new();
    for (name, value) in arguments {
        if let Some(property) = property(name) {
            check_allowed(name, value, property, &mut problems);
        }
    }
    if !problems.is_empty() {
        return Output::error(format!("tool {:?}: {}", tool.name, problems.join("; ")));
    }
    let max = context.limits.max_response_bytes;
    let mut notes: Vec<Note> = Vec::new();
    let mut out = String::new();
    for segment in segments(&run.template) {
        let piece = match segment {
            Segment::Literal(text) => text.to_string(),
            Segment::Placeholder(name) => match arguments.get(name) {
                Some(value) => render_value(value),
                None if property(name).is_some() => {
                    if !notes.iter().any(|note| note.at == Pointer::root().key(name)) {
                        notes.push(Note::new(
                            NoteKind::Defaulted { field: name.into() },
                            Pointer::root().key(name),
                            if property(name).is_some_and(|p| p.get("default").is_some()) {
                                format!(
                                    "the variable {name:?} was not given (its default is filled by the \
                                     Toolbox, which did not check these arguments); rendered empty"
                                )
                            } else {
                                format!(
                                    "the variable {name:?} was not given and has no default; rendered empty"
                                )
                            },
                        ));
                    }
                    String::new()
                }
                None => {
                    if !notes.iter().any(|note| note.at == Pointer::root().key(name)) {
                        notes.push(Note::new(
                            NoteKind::Kept { key: name.into() },
                            Pointer::root().key(name),
                            format!("the placeholder {{{{{name}}}}} names no declared variable; kept in the prompt as written"),
                        ));
                    }
                    format!("{{{{{name}}}}}")
                }
            },
        };
        if out.len() + piece.len() > max {
            return Output::error(format!(
                "tool {:?}: the rendered prompt is larger than {max} bytes",
                tool.name
            ));
        }
        out.push_str(&piece);
    }
    with_notes(Output::text(out), notes)
}

/// A value as it appears in the prompt.
fn render_value(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        Value::Array(items) => items.iter().map(render_value).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Checks a select's value (or a multi-select's items) against the allowed values.
fn check_allowed(name: &str, value: &Value, property: &Value, problems: &mut Vec<String>) {
    let allowed = |schema: &Value| schema.get("enum").and_then(Value::as_array).cloned();
    if let Some(allowed) = allowed(property) {
        if !allowed.contains(value) {
            problems.push(format!("{name}: {value} is not one of {}", list(&allowed)));
        }
    } else if let (Some(allowed), Value::Array(items)) = (property.get("items").and_then(allowed), value) {
        for item in items.iter().filter(|item| !allowed.contains(item)) {
            problems.push(format!("{name}: {item} is not one of {}", list(&allowed)));
        }
    }
}

fn list(values: &[Value]) -> String {
    values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
}
