//! Syllable's defaults, transforms and static parameters, applied to a
//! call's arguments (seed 003, the `ToolDefinition` docs; `reference/seeds.md` §4).
//!
//! The semantics, as Syllable documents them:
//! - a plain default (`"hospital": "Queens Hospital"`) is used when the
//!   model did not give the parameter;
//! - a `transform` has an `action`: `default` (the default action) sets the
//!   parameter only when it is missing or empty, `override` always sets it,
//!   `remove` deletes it;
//! - the value set is the transform's `value`, else its `format` evaluated
//!   as Python `str.format` over the other parameters (`"Hello, {name}!"`);
//! - `when {key, value, operator: "eq"}` applies the transform only when the
//!   parameter `key` equals `value`.
//!
//! The order, which the docs leave open and toolbridge fixes: the entries of
//! `defaults` in the order the tool declares them, each seeing the arguments
//! as the entries before it left them; a `format` may also name a static
//! parameter (its configured default). Static parameters are set last,
//! after validation (see [`apply_statics`]): the input schema does not
//! describe them. "Empty" is `null`, `""`, `[]` or `{}` (not `0` or `false`,
//! which are values). A condition compares JSON values exactly: `"5"` is not
//! `5`, as in Python.

use serde_json::{Map, Value};

use crate::limits::Limits;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;
use crate::tool::{ParameterDefault, Tool, Transform, TransformAction};

use super::plan::{Fill, Pending};
use super::pyformat;
use super::render::compact;

/// The parameters the tool's defaults always fill when the model leaves
/// them out ([`ParameterDefault::always_fills`]). The signature lists them
/// as optional even when the schema requires them (a reader takes them out
/// of `required`, but a tool built in code may not have).
pub(super) fn filled(tool: &Tool) -> Vec<&str> {
    let Some(defaults) = &tool.defaults else {
        return Vec::new();
    };
    defaults
        .iter()
        .filter(|(_, default)| default.always_fills())
        .map(|(name, _)| name.as_str())
        .collect()
}

/// The tool's `defaults`, ready to apply: a plain default's note is written
/// once, a transform is applied as declared.
#[derive(Debug, Default)]
pub(super) struct Defaults {
    steps: Vec<Step>,
}

#[derive(Debug)]
enum Step {
    Value(Fill),
    Transform { name: String, transform: Transform },
}

impl Defaults {
    /// The `defaults` of `tool`, in the order it declares them.
    pub(super) fn new(tool: &Tool) -> Defaults {
        let Some(defaults) = &tool.defaults else {
            return Defaults::default();
        };
        let steps = defaults
            .iter()
            .map(|(name, default)| match default {
                ParameterDefault::Value(value) => {
                    Step::Value(Fill::new(name, value.clone(), "the tool's default"))
                }
                ParameterDefault::Transform(transform) => Step::Transform {
                    name: name.clone(),
                    transform: transform.clone(),
                },
            })
            .collect();
        Defaults { steps }
    }

    /// The plain defaults, when there is no transform (which may change
    /// any argument).
    pub(super) fn fills(&self) -> Option<impl Iterator<Item = &Fill>> {
        if self.has_transforms() {
            return None;
        }
        Some(self.steps.iter().filter_map(|step| match step {
            Step::Value(fill) => Some(fill),
            Step::Transform { .. } => None,
        }))
    }

    /// Whether a transform reads the arguments (so they must be as the
    /// model meant them, nulls that stand for absent removed, before it runs).
    pub(super) fn has_transforms(&self) -> bool {
        self.steps
            .iter()
            .any(|step| matches!(step, Step::Transform { .. }))
    }

    /// Applies the defaults to `arguments`, noting each application and
    /// each transform that could not be applied. A plain default takes the
    /// place of a null left `pending` for its parameter.
    pub(super) fn apply(
        &self,
        tool: &Tool,
        arguments: &mut Map<String, Value>,
        limits: &Limits,
        pending: &mut Pending<'_>,
        notes: &mut Vec<Note>,
    ) {
        for step in &self.steps {
            match step {
                Step::Value(fill) => fill.apply(arguments, pending, notes),
                Step::Transform { name, transform } => {
                    let at = Pointer::root().key(name);
                    apply_transform(tool, name, transform, arguments, limits, notes, at);
                }
            }
        }
    }
}

fn apply_transform(
    tool: &Tool,
    name: &str,
    transform: &Transform,
    arguments: &mut Map<String, Value>,
    limits: &Limits,
    notes: &mut Vec<Note>,
    at: Pointer,
) {
    let skipped = |reason: String| {
        Note::new(
            NoteKind::Dropped {
                keyword: "transform".into(),
            },
            at.clone(),
            format!("the transform of `{name}` was not applied: {reason}"),
        )
    };
    if let Some(condition) = &transform.when {
        if let Some(operator) = condition.operator.as_deref().filter(|operator| *operator != "eq") {
            notes.push(skipped(format!(
                "its condition's operator `{operator}` is not `eq`, the only one Syllable defines"
            )));
            return;
        }
        if arguments.get(&condition.key) != Some(&condition.value) {
            return;
        }
    }
    let action = transform.action.unwrap_or(TransformAction::Default);
    let current = arguments.get(name);
    match action {
        TransformAction::Remove => {
            if let Some(removed) = arguments.remove(name) {
                notes.push(Note::new(
                    NoteKind::Dropped { keyword: name.into() },
                    at,
                    format!(
                        "`{name}` ({}) was removed by the tool's transform",
                        compact(&removed)
                    ),
                ));
            }
            return;
        }
        TransformAction::Default if current.is_some_and(|value| !is_empty(value)) => return,
        TransformAction::Default | TransformAction::Override => {}
    }
    let value = match (&transform.value, &transform.format) {
        (Some(value), format) => {
            if format.is_some() {
                notes.push(Note::new(
                    NoteKind::Dropped {
                        keyword: "format".into(),
                    },
                    at.clone(),
                    format!("the transform of `{name}` has both `value` and `format`; `value` was used"),
                ));
            }
            value.clone()
        }
        (None, Some(template)) => {
            let lookup = |field: &str| arguments.get(field).or_else(|| static_default(tool, field));
            match pyformat::format(template, lookup, limits.max_bytes) {
                Ok(text) => Value::String(text),
                Err(reason) => {
                    notes.push(skipped(format!("its format {template:?} failed: {reason}")));
                    return;
                }
            }
        }
        (None, None) => {
            notes.push(skipped("it has neither `value` nor `format`".into()));
            return;
        }
    };
    let (kind, message) = match arguments.get(name) {
        Some(before) if *before == value => return,
        Some(before) => (
            NoteKind::Rewritten { keyword: name.into() },
            format!(
                "`{name}` was {} by the tool's transform: {} became {}",
                if action == TransformAction::Override {
                    "overridden"
                } else {
                    "filled in"
                },
                compact(before),
                compact(&value)
            ),
        ),
        None => (
            NoteKind::Defaulted { field: name.into() },
            format!(
                "`{name}` was not given; the tool's transform set {}",
                compact(&value)
            ),
        ),
    };
    arguments.insert(name.to_string(), value);
    notes.push(Note::new(kind, at, message));
}

/// Missing-or-empty, for the `default` action.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

fn static_default<'t>(tool: &'t Tool, name: &str) -> Option<&'t Value> {
    tool.static_parameters
        .as_ref()?
        .iter()
        .find(|parameter| parameter.name == name)?
        .default
        .as_ref()
}

/// Sets the tool's static parameters to their configured defaults: a value
/// the model sent under the same name is replaced (noted); a default of the
/// wrong type, or a required parameter with no value, is noted and left for
/// the host.
pub(super) fn apply_statics(tool: &Tool, arguments: &mut Map<String, Value>, notes: &mut Vec<Note>) {
    let Some(parameters) = &tool.static_parameters else {
        return;
    };
    for parameter in parameters {
        let name = &parameter.name;
        let at = Pointer::root().key(name);
        let unsupported = |message: String| {
            Note::new(
                NoteKind::Unsupported {
                    keyword: "static_parameters".into(),
                },
                at.clone(),
                message,
            )
        };
        match &parameter.default {
            Some(value) if !parameter.value_type.accepts(value) => notes.push(unsupported(format!(
                "the static parameter `{name}` has a default {} that is not of its type {:?}; \
                 it was not set",
                compact(value),
                parameter.value_type
            ))),
            Some(value) => match arguments.insert(name.clone(), value.clone()) {
                None => notes.push(Note::new(
                    NoteKind::Defaulted { field: name.into() },
                    at,
                    format!("the static parameter `{name}` was set to {}", compact(value)),
                )),
                Some(sent) if sent == *value => {}
                Some(sent) => notes.push(Note::new(
                    NoteKind::Rewritten { keyword: name.into() },
                    at,
                    format!(
                        "the model sent {} for the static parameter `{name}`; the configured {} was used",
                        compact(&sent),
                        compact(value)
                    ),
                )),
            },
            None if parameter.required && !arguments.contains_key(name) => notes.push(unsupported(format!(
                "the static parameter `{name}` is required but has no configured value; \
                 the host must set it before the call runs"
            ))),
            None => {}
        }
    }
}
