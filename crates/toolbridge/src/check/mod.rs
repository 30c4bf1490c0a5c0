//! The Toolbox: a set of tools that checks the calls a model makes against
//! them, turning each [`ToolCall`] into an [`Accepted`] call the handler can
//! run or a [`Rejection`] written for the model to act on (see
//! [`Toolbox`] for the steps).

mod bounds;
mod checked;
mod cut;
mod defaults;
mod look;
mod native;
mod outcome;
mod plan;
mod pyformat;
mod render;
mod rejected;
mod reply;
mod signature;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::call::{fit_parsed, is_truncation, repair, ArgumentsError, ArgumentsErrorKind, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::validate::Compiled;
use crate::json::Field;
use crate::limits::Limits;
use crate::note::{Converted, Note, NoteKind, SharedNotes};
use crate::options::ReadOptions;
use crate::pipeline::Written;
use crate::pointer::Pointer;
use crate::tool::Tool;
use cut::CutOff;
use look::Look;
use rejected::{reject, undeclared};

use defaults::Defaults;
use outcome::{Outcomes, Planned};
use plan::{Fill, NameMap, Pending, Restore, Watched};

pub use checked::{Accepted, Checked, Rejection};
pub use native::{elisp_value, ElispDecoding};
pub use render::Violation;

/// How calls are checked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Fit arguments that do not match their schema where the intent is
    /// plain (`"5"` → `5`, `"true"` → `true`, `x` → `[x]`, enum case), each
    /// with a note (default on).
    pub coerce: bool,
    /// Bounds on the arguments: at most [`max_bytes`](Limits::max_bytes)
    /// (as compact JSON, roughly) and [`max_depth`](Limits::max_depth)
    /// deep; a transform's `format` expands to at most `max_bytes`.
    pub limits: Limits,
    /// Set an optional top-level parameter the call left out to its
    /// schema's `default`, with a note (default on). JSON Schema calls
    /// `default` an annotation, but it is also what the model was told
    /// happens when it leaves the parameter out.
    pub schema_defaults: bool,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            coerce: true,
            limits: Limits::default(),
            schema_defaults: true,
        }
    }
}

impl CheckOptions {
    /// Turns coercion on or off.
    pub fn with_coerce(mut self, coerce: bool) -> CheckOptions {
        self.coerce = coerce;
        self
    }

    /// Turns applying the input schema's `default`s on or off.
    pub fn with_schema_defaults(mut self, schema_defaults: bool) -> CheckOptions {
        self.schema_defaults = schema_defaults;
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> CheckOptions {
        self.limits = limits;
        self
    }
}

/// A set of tools with their compiled validators, checking calls against
/// them.
///
/// A call goes through these steps, in this order:
/// 1. **name**: the tool's canonical name, else the name it was written
///    under for the target (see [`Toolbox::with_written`]), else rejected
///    with the closest known names;
/// 2. **arguments**: arguments the provider sent as unreadable text are
///    [repaired](crate::call::repair) against the tool's schema (else
///    rejected, saying what is wrong with the text); then every
///    meaning-changing rewrite the writer recorded is undone
///    ([`Inverse::restore`](crate::rewrite::Inverse::restore): strict-mode `null` → absent, …), so the rest
///    sees the arguments the canonical schema describes;
/// 3. **defaults and transforms**, Syllable's semantics (seed 003): a plain
///    default when the parameter is absent; a `transform` whose `action` is
///    `default` (set when missing or empty: `null`, `""`, `[]`, `{}`),
///    `override` or `remove`, setting its `value`, else its `format` (Python
///    `str.format` over the arguments and the static parameters' values),
///    only `when` parameter `key` equals `value`; the entries in the order
///    the tool declares them, each seeing what the ones before it set; a
///    transform that cannot apply (a missing field, an operator besides
///    `eq`) is skipped with a note; then the input schema's own `default`
///    of each optional top-level parameter still absent (unless
///    [`CheckOptions::schema_defaults`] is off), validated like the rest: a
///    handler sees the value the schema promises the model it gets;
/// 4. **coercion** (on unless [`CheckOptions::coerce`] is off), only for
///    arguments that do not fit: `"5"` → `5` for an integer, `"true"` →
///    `true`, a scalar → `[scalar]` for an array, an enum value's case;
///    never towards a string;
/// 5. **validation** against the canonical schema, with `format` checked,
///    collecting every violation; an undeclared argument is an error when
///    the schema forbids it or when it looks like a misspelt missing
///    required parameter, and is kept with a note otherwise;
/// 6. **static parameters** set to their configured values (after
///    validation: the input schema does not describe them).
///
/// Every change is a [`Note`] on the result.
///
/// ```
/// use toolbridge::{call::ToolCall, Tool, Toolbox};
/// let tool = Tool::new("get_weather", serde_json::json!({"type": "object", "required": ["location"],
///     "properties": {"location": {"type": "string"},
///                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}));
/// let toolbox = Toolbox::new([tool])?;
/// let call = ToolCall::new("call_1", "get_weather", serde_json::json!({"locaton": "Paris", "unit": "kelvin"}));
/// let rejection = toolbox.check(&call).rejection().cloned().unwrap();
/// assert_eq!(rejection.message, "\
/// The call to `get_weather` was rejected: 3 problems with its arguments.
/// - missing required parameter `location` (string)
/// - /unit: expected one of \"celsius\", \"fahrenheit\"; got \"kelvin\"
/// - unknown parameter `locaton` — did you mean `location`?
/// Expected: get_weather(location: string, unit?: \"celsius\" | \"fahrenheit\")");
///
/// let call = ToolCall::new("call_2", "get_weather", serde_json::json!({"location": "Paris", "unit": "Celsius"}));
/// let accepted = toolbox.check(&call).accepted().cloned().unwrap();
/// assert_eq!(accepted.arguments, serde_json::json!({"location": "Paris", "unit": "celsius"}));
/// # Ok::<(), toolbridge::Error>(())
/// ```
#[derive(Debug)]
pub struct Toolbox {
    entries: Vec<Entry>,
    by_name: NameMap<usize>,
    /// The names the tools were written under, each with the note a call
    /// made under it gets.
    by_written: NameMap<(usize, SharedNotes)>,
    options: CheckOptions,
}

/// One tool, ready to check calls.
struct Entry {
    tool: Tool,
    validator: Compiled,
    /// The writer's inverse, when the tool was written (see
    /// [`Toolbox::with_written`]).
    restore: Option<Restore>,
    signature: String,
    /// The top-level parameters, when an undeclared one is neither forbidden
    /// by the schema (the validator reports those) nor allowed by it.
    declared: Option<Vec<String>>,
    /// The tool's own defaults and transforms.
    defaults: Defaults,
    /// The optional top-level parameters whose schema has a `default`.
    schema_defaults: Vec<Fill>,
    /// What `restore`, `defaults` and `schema_defaults` look at.
    watched: Watched,
    /// The declared and the watched parameters together, for the look.
    parameters: look::Parameters,
    /// The plan in one pass, when it can be done so.
    outcomes: Option<Outcomes>,
}

impl Entry {
    /// Sets how the tool was written (`None`: as it is), and what the plan
    /// then looks at.
    fn set_restore(&mut self, restore: Option<Restore>) {
        self.restore = restore;
        self.watched = Watched::new(self.restore.as_ref(), &self.defaults, &self.schema_defaults);
        self.parameters = look::Parameters::new(self.declared.as_deref(), &self.watched);
        let statics = self.tool.static_parameters.is_some();
        self.outcomes = Outcomes::new(&self.watched, &self.defaults, &self.schema_defaults, statics);
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("tool", &self.tool.name)
            .field("restore", &self.restore)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// A toolbox of `tools`, each tool's input schema compiled once.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSchema`] when a tool's input schema does not
    /// compile (naming the tool and the place); [`ErrorKind::InvalidTool`]
    /// when two tools share a name.
    pub fn new(tools: impl IntoIterator<Item = Tool>) -> Result<Toolbox> {
        let mut entries = Vec::new();
        let mut by_name = NameMap::default();
        for tool in tools {
            if by_name.insert(tool.name.clone(), entries.len()).is_some() {
                return Err(Error::new(
                    ErrorKind::InvalidTool,
                    format!("two tools are named {:?}", tool.name),
                )
                .with_tool(&tool.name));
            }
            let validator = Compiled::with_formats(&tool.input_schema).map_err(|violation| {
                Error::new(ErrorKind::InvalidSchema, violation.message)
                    .at(Pointer::root().key("inputSchema").join(&violation.at))
                    .with_tool(&tool.name)
            })?;
            let mut entry = Entry {
                signature: signature::signature(&tool.name, &tool.input_schema, &defaults::filled(&tool)),
                declared: declared(&tool.input_schema),
                defaults: Defaults::new(&tool),
                schema_defaults: plan::schema_defaults(&tool.input_schema),
                validator,
                restore: None,
                watched: Watched::default(),
                parameters: look::Parameters::default(),
                outcomes: None,
                tool,
            };
            entry.set_restore(None);
            entries.push(entry);
        }
        Ok(Toolbox {
            entries,
            by_name,
            by_written: NameMap::default(),
            options: CheckOptions::default(),
        })
    }

    /// A toolbox of the tools in `text`, in any format the registry reads
    /// (detected, or [`ReadOptions::from`]); the read's notes come with it.
    ///
    /// # Errors
    ///
    /// The read's error, the first tool that could not be read, or as for
    /// [`Toolbox::new`].
    pub fn read(text: &str, options: &ReadOptions) -> Result<Converted<Toolbox>> {
        let read = crate::pipeline::read(text, options)?.into_converted()?;
        Ok(Converted {
            value: Toolbox::new(read.value)?,
            notes: read.notes,
        })
    }

    /// Sets how calls are checked.
    pub fn with_options(mut self, options: CheckOptions) -> Toolbox {
        self.options = options;
        self
    }

    /// Checks calls made against these tools as `written` wrote them for
    /// one target: a call may use the name a tool got there, and its
    /// arguments are restored with the tool's [`Inverse`](crate::rewrite::Inverse). Replaces what an
    /// earlier `with_written` set; tools `written` does not hold are checked
    /// as they are.
    pub fn with_written(mut self, written: &Written) -> Toolbox {
        self.by_written.clear();
        for entry in &mut self.entries {
            entry.set_restore(None);
        }
        let renamed = |entries: &[Entry], sent: &str, index: usize| {
            let name = &entries[index].tool.name;
            let note = Note::new(
                NoteKind::Renamed {
                    from: sent.into(),
                    to: name.into(),
                },
                Pointer::root(),
                format!("the call named `{sent}`, the name the tool was written under; it is `{name}`"),
            );
            (index, SharedNotes::from(vec![note]))
        };
        for (original, target) in written.names.pairs() {
            if let Some(&index) = self.by_name.get(original) {
                if !self.by_written.contains_key(target) {
                    let value = renamed(&self.entries, target, index);
                    self.by_written.insert(target.to_string(), value);
                }
            }
        }
        for tool in &written.tools {
            if let Some(&index) = self.by_name.get(&tool.inverse.name) {
                let written_name = &tool.inverse.written_name;
                let value = renamed(&self.entries, written_name, index);
                self.by_written.insert(written_name.clone(), value);
                self.entries[index].set_restore(Some(Restore::new(&tool.inverse)));
            }
        }
        self
    }

    /// The tools, in the order given.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.entries.iter().map(|entry| &entry.tool)
    }

    /// The one-line signature of the tool named `name`
    /// (`get_weather(city: string, unit?: "celsius" | "fahrenheit")`).
    pub fn signature(&self, name: &str) -> Option<&str> {
        let index = *self.by_name.get(name)?;
        Some(&self.entries[index].signature)
    }

    /// Checks one call. Never panics; untrusted arguments are bounded by
    /// the [limits](CheckOptions::limits). A call cut off before its
    /// arguments ended (a token limit) is rejected, asked for whole: it is
    /// not repaired into a call that runs on half an argument.
    pub fn check(&self, call: &ToolCall) -> Checked {
        let look = self.look(call);
        if look.accepts() {
            let (name, notes) = look.renamed(call.name.clone());
            return Checked::Accepted(Accepted {
                id: call.id.clone(),
                name,
                arguments: call.arguments.clone().unwrap_or_default(),
                notes,
                provider_id: call.provider_id.clone(),
                provider_name: call.provider_name.clone(),
            });
        }
        let caller = Caller {
            id: call.id.clone(),
            name: call.name.clone(),
            provider_id: call.provider_id.clone(),
            provider_name: call.provider_name.clone(),
        };
        let arguments = call.arguments.as_ref().map(Cow::Borrowed).map_err(Cow::Borrowed);
        self.check_arguments(caller, arguments, CutOff::of(call), look)
    }

    /// [`check`](Toolbox::check) for a call the caller no longer needs: its
    /// arguments, id and names are moved, not copied (what a dispatcher
    /// holding the calls it parsed wants).
    #[inline]
    pub fn check_owned(&self, call: ToolCall) -> Checked {
        let look = self.look(&call);
        if look.accepts() {
            let (name, notes) = look.renamed(call.name);
            return Checked::Accepted(Accepted {
                id: call.id,
                name,
                arguments: call.arguments.unwrap_or_default(),
                notes,
                provider_id: call.provider_id,
                provider_name: call.provider_name,
            });
        }
        let cut = CutOff::of(&call);
        let ToolCall {
            id,
            name,
            arguments,
            provider_id,
            provider_name,
            ..
        } = call;
        let caller = Caller {
            id,
            name,
            provider_id,
            provider_name,
        };
        // `check_arguments` takes this branch too (for `check`); taken here,
        // the owned arguments skip the `Cow` (about 20 instructions a call,
        // 1 % of the strict-mode mix's cost).
        let arguments = match (look.planned(), arguments) {
            (Some(planned), Ok(Value::Object(arguments))) => {
                return self.check_planned(caller, arguments, planned);
            }
            (_, arguments) => arguments,
        };
        self.check_arguments(caller, arguments.map(Cow::Owned).map_err(Cow::Owned), cut, look)
    }

    /// Checks the call `caller` sent with `arguments`; `cut` when its
    /// reader found it cut off; `look` what [`Toolbox::look`] found.
    fn check_arguments(
        &self,
        mut caller: Caller,
        arguments: Arguments<'_>,
        cut: Option<CutOff>,
        look: Look<'_>,
    ) -> Checked {
        let arguments = match (look.planned(), arguments) {
            (Some(planned), Ok(value)) => match value.into_owned() {
                Value::Object(arguments) => return self.check_planned(caller, arguments, planned),
                other => Ok(Cow::Owned(other)),
            },
            (_, arguments) => arguments,
        };
        let Some((entry, renamed)) = look
            .tool
            .or_else(|| self.find(&caller.name, &caller.provider_name))
        else {
            return Checked::Rejected(self.unknown_tool(caller, Vec::new()));
        };
        if renamed.is_some() {
            caller.name.clone_from(&entry.tool.name);
        }
        let mut notes = Vec::with_capacity(look.notes);
        if let Some(renamed) = renamed {
            notes.extend(renamed.iter().cloned());
        }
        if let Some(cut) = cut {
            return reject(entry, caller, vec![cut.violation()], notes);
        }
        let mut arguments = match self.read_arguments(entry, arguments, look.bounded, &mut notes) {
            Ok(arguments) => arguments,
            Err(violation) => return reject(entry, caller, vec![violation], notes),
        };
        let idle = look
            .idle
            .unwrap_or_else(|| entry.watched.idle(&arguments, self.options.schema_defaults));
        if !idle {
            self.plan(entry, &mut arguments, &mut notes);
        }
        self.conclude(
            entry,
            caller,
            Value::Object(arguments),
            notes,
            look.valid,
            look.declares_all,
        )
    }

    /// Checks `arguments` the plan changes in one pass (see [`Outcomes`]).
    fn check_planned(
        &self,
        mut caller: Caller,
        mut arguments: Map<String, Value>,
        planned: Planned<'_>,
    ) -> Checked {
        let entry = planned.entry;
        if planned.renamed.is_some() {
            caller.name.clone_from(&entry.tool.name);
        }
        let notes = planned.outcomes.apply(
            &entry.watched,
            entry.restore.as_ref(),
            &mut arguments,
            planned.sent,
            self.options.schema_defaults,
            planned.renamed,
        );
        let value = Value::Object(arguments);
        let valid = entry.validator.is_valid(&value);
        if valid && planned.declares_all == Some(true) {
            return Checked::Accepted(Accepted {
                id: caller.id,
                name: caller.name,
                arguments: value,
                notes,
                provider_id: caller.provider_id,
                provider_name: caller.provider_name,
            });
        }
        self.conclude(
            entry,
            caller,
            value,
            notes.to_vec(),
            Some(valid),
            planned.declares_all,
        )
    }

    /// Validates the planned arguments `value` (`valid`: already known to
    /// be valid or not), coercing them when they are not; then notes or
    /// rejects undeclared ones (all declared when `declares_all`), and sets
    /// the static parameters.
    fn conclude(
        &self,
        entry: &Entry,
        caller: Caller,
        mut value: Value,
        mut notes: Vec<Note>,
        valid: Option<bool>,
        declares_all: Option<bool>,
    ) -> Checked {
        let limits = &self.options.limits;
        // The common case, a valid call, is validated once and builds no errors.
        let mut valid = valid.unwrap_or_else(|| entry.validator.is_valid(&value));
        if !valid && self.options.coerce {
            coerce(entry, &mut value, limits, &mut notes);
            valid = entry.validator.is_valid(&value);
        }
        let failures = if valid {
            Vec::new()
        } else {
            entry.validator.failures(&value)
        };
        let mut violations = render::violations(&failures, &entry.tool.input_schema, &value);
        // Defaults fill declared parameters (or the tool's own, which are
        // not undeclared), so arguments the look found all declared stay so.
        if declares_all != Some(true) || entry.defaults.has_transforms() {
            undeclared(entry, &value, &failures, &mut violations, &mut notes);
        }
        if !violations.is_empty() {
            return reject(entry, caller, violations, notes);
        }
        if let Value::Object(arguments) = &mut value {
            defaults::apply_statics(&entry.tool, arguments, &mut notes);
        }
        Checked::Accepted(Accepted {
            id: caller.id,
            name: caller.name,
            arguments: value,
            notes: notes.into(),
            provider_id: caller.provider_id,
            provider_name: caller.provider_name,
        })
    }

    /// Undoes how the tool was written, then fills its defaults.
    fn plan(&self, entry: &Entry, arguments: &mut Map<String, Value>, notes: &mut Vec<Note>) {
        let mut pending = match &entry.restore {
            Some(restore) => {
                let keep_nulls = !entry.defaults.has_transforms();
                restore.apply(arguments, notes, keep_nulls)
            }
            None => Pending::none(),
        };
        let limits = &self.options.limits;
        entry
            .defaults
            .apply(&entry.tool, arguments, limits, &mut pending, notes);
        if self.options.schema_defaults {
            for fill in &entry.schema_defaults {
                fill.apply(arguments, &mut pending, notes);
            }
        }
        pending.finish(arguments);
    }

    /// Checks every call, in order.
    pub fn check_all<'c>(&self, calls: impl IntoIterator<Item = &'c ToolCall>) -> Vec<Checked> {
        calls.into_iter().map(|call| self.check(call)).collect()
    }

    /// The tool a call names (`name`, else the `provider_name` it was sent
    /// under): exactly, then through the written names, with the note a
    /// call made under a written name gets.
    #[inline(always)]
    fn find(&self, name: &str, provider_name: &str) -> Option<(&Entry, Option<&SharedNotes>)> {
        if let Some(&index) = self.by_name.get(name) {
            return Some((&self.entries[index], None));
        }
        let (index, note) = [name, provider_name]
            .into_iter()
            .find_map(|sent| self.by_written.get(sent))?;
        Some((&self.entries[*index], Some(note)))
    }

    /// The call's arguments as an object: parsed, or repaired from the raw
    /// text; within the limits (already known to be when `bounded`).
    fn read_arguments(
        &self,
        entry: &Entry,
        arguments: Arguments<'_>,
        bounded: bool,
        notes: &mut Vec<Note>,
    ) -> std::result::Result<Map<String, Value>, Violation> {
        let limits = &self.options.limits;
        let unreadable = |got: String, message: String| {
            Violation::new(Pointer::root(), "arguments", "a JSON object", got, message)
        };
        let value = match arguments {
            Ok(value) => {
                let checked = if bounded {
                    Ok(())
                } else {
                    bounds::within(&value, limits)
                };
                if let Err(reason) = checked {
                    return Err(unreadable(reason.clone(), format!("the arguments are {reason}")));
                }
                value.into_owned()
            }
            // The reader left text cut off unrepaired on purpose (the call
            // was cut off too): it is not repaired here either.
            Err(error) if error.kind() == ArgumentsErrorKind::Unfinished => {
                return Err(CutOff::text(error.raw()).violation());
            }
            Err(error) => {
                let schema = self.options.coerce.then_some(&entry.tool.input_schema);
                match repair(error.raw(), schema, limits) {
                    Ok(repaired) if repaired.notes.iter().any(is_truncation) => {
                        return Err(CutOff::text(error.raw()).violation());
                    }
                    Ok(repaired) => {
                        notes.extend(repaired.notes);
                        repaired.value
                    }
                    Err(repair_error) => {
                        let got = error.to_string();
                        let message = format!(
                            "the arguments could not be read ({got}; {}); send them as one JSON object",
                            repair_error.detail()
                        );
                        return Err(unreadable(got, message));
                    }
                }
            }
        };
        match value {
            Value::Object(map) => Ok(map),
            other => {
                let got = format!("{} ({})", render::compact(&other), crate::json::describe(&other));
                let message = format!("the arguments must be one JSON object; got {got}");
                Err(unreadable(got, message))
            }
        }
    }
}

/// Fits arguments that do not match to the schema (through the repair's
/// schema-guided fixes), noting each fix.
///
/// The arguments are fitted as they are, not written out and read back
/// (the same fixes, at a fraction of the cost). Under a root schema of
/// another type than `object`, a copy is fitted, so that arguments a fix
/// would turn into something other than an object stay as sent.
fn coerce(entry: &Entry, value: &mut Value, limits: &Limits, notes: &mut Vec<Note>) {
    let schema = &entry.tool.input_schema;
    if schema.field("type").and_then(Value::as_str) == Some("object") {
        if let Some(fixes) = fit_parsed(value, schema, limits) {
            notes.extend(fixes);
        }
        return;
    }
    let mut fitted = value.clone();
    if let Some(fixes) = fit_parsed(&mut fitted, schema, limits) {
        if fitted.is_object() {
            *value = fitted;
            notes.extend(fixes);
        }
    }
}

/// A call's arguments as [`Toolbox::check`] (borrowed) or
/// [`Toolbox::check_owned`] (moved) has them.
type Arguments<'c> = std::result::Result<Cow<'c, Value>, Cow<'c, ArgumentsError>>;

/// The call's id and name, and the provider's, which a result echoes.
struct Caller {
    id: String,
    name: String,
    provider_id: Option<String>,
    provider_name: String,
}

/// The top-level parameters of a schema whose undeclared arguments are
/// neither forbidden (`additionalProperties: false`, reported by the
/// validator) nor described (`additionalProperties: {…}`,
/// `patternProperties`, a combinator or `$ref` at the top).
fn declared(schema: &Value) -> Option<Vec<String>> {
    let object = schema.as_object()?;
    let open = match object.get("additionalProperties") {
        None | Some(Value::Bool(true)) => true,
        Some(_) => false,
    };
    let described = [
        "patternProperties",
        "unevaluatedProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "if",
    ]
    .iter()
    .any(|keyword| object.contains_key(*keyword));
    if !open || described {
        return None;
    }
    let properties = object.get("properties")?.as_object()?;
    Some(properties.keys().cloned().collect())
}
