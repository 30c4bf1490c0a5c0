//! The first look at a call, before anything is changed or copied: most
//! calls name a tool, send arguments that need nothing undone or filled in,
//! and fit the schema as sent, and are accepted as they are (with the same
//! outcome as the full check, which would change nothing). What the look
//! learnt about the others, the full check does not learn again.

use serde_json::{Map, Value};

use crate::call::ToolCall;
use crate::note::SharedNotes;

use super::bounds::{self, Shallow};
use super::cut::CutOff;
use super::outcome::Planned;
use super::plan::{same_name, Sent, Watched};
use super::{Entry, Toolbox};

/// What [`Toolbox::look`] found about a call; `None` where it did not get
/// that far.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Look<'t> {
    /// The tool the call names, with the note for a call made under the
    /// name the tool was written under (`None` for its own name).
    pub(super) tool: Option<(&'t Entry, Option<&'t SharedNotes>)>,
    /// The arguments are an object within the limits.
    pub(super) bounded: bool,
    /// Whether the plan would leave the arguments as they are.
    pub(super) idle: Option<bool>,
    /// The watched parameters the arguments send (when the look went
    /// through them in one pass).
    pub(super) sent: Option<Sent>,
    /// Whether every argument is a declared parameter (or the schema leaves
    /// no undeclared one to note).
    pub(super) declares_all: Option<bool>,
    /// How many notes the check will most likely make, so that their list
    /// is allocated once.
    pub(super) notes: usize,
    /// Whether the arguments fit the schema as sent (looked at only when the
    /// plan is idle and nothing else would change them).
    pub(super) valid: Option<bool>,
}

impl<'t> Look<'t> {
    /// Whether the call is accepted as sent (under the tool's own name
    /// when it used the one it was written under: see [`Look::renamed`]).
    pub(super) fn accepts(&self) -> bool {
        self.valid == Some(true)
    }

    /// What the plan in one pass needs, when the look saw that the plan has
    /// work, all of it in one pass, on arguments within the limits (an
    /// object, not cut off, as the look goes that far only then).
    pub(super) fn planned(&self) -> Option<Planned<'t>> {
        let (entry, renamed) = self.tool?;
        let outcomes = entry.outcomes.as_ref()?;
        match (self.sent, self.idle, self.bounded) {
            (Some(sent), Some(false), true) => Some(Planned {
                entry,
                outcomes,
                sent,
                renamed,
                declares_all: self.declares_all,
            }),
            _ => None,
        }
    }

    /// The name and notes of a call sent as `sent` and accepted as sent:
    /// the tool's own name, with the note saying so, when the call used the
    /// name the tool was written under; else `sent` and no note.
    #[inline]
    pub(super) fn renamed(&self, sent: String) -> (String, SharedNotes) {
        match self.tool {
            Some((entry, Some(notes))) => (entry.tool.name.clone(), notes.clone()),
            _ => (sent, SharedNotes::new()),
        }
    }
}

impl Toolbox {
    /// The first look at `call` (see the module's documentation).
    pub(super) fn look(&self, call: &ToolCall) -> Look<'_> {
        let mut look = Look::default();
        let Some(tool @ (entry, renamed)) = self.find(&call.name, &call.provider_name) else {
            return look;
        };
        look.tool = Some(tool);
        look.notes = usize::from(renamed.is_some());
        let Ok(value @ Value::Object(arguments)) = &call.arguments else {
            return look;
        };
        if CutOff::of(call).is_some() {
            return look;
        }
        let schema_defaults = self.options.schema_defaults;
        let (bounded, idle, declares_all) = match self.look_shallow(entry, arguments) {
            Some((bounded, sent, declares_all)) => {
                // The places of nulls are kept for the first 64 arguments.
                look.sent = (arguments.len() <= 64).then_some(sent);
                let idle = entry.watched.idle_after(sent, schema_defaults);
                // The plan in one pass shares its notes: no list to make room in.
                if !idle && entry.outcomes.is_none() {
                    look.notes += entry.watched.notes_after(sent, schema_defaults);
                }
                (bounded, idle, declares_all)
            }
            None => (
                bounds::within(value, &self.options.limits).is_ok(),
                entry.watched.idle(arguments, schema_defaults),
                entry.parameters.declares_all(arguments),
            ),
        };
        if !bounded {
            return look;
        }
        look.bounded = true;
        look.idle = Some(idle);
        look.declares_all = Some(declares_all);
        if !idle || !declares_all || entry.tool.static_parameters.is_some() {
            return look;
        }
        look.valid = Some(entry.validator.is_valid(value));
        look
    }

    /// Whether `arguments` are within the limits, which watched parameters
    /// they send, and whether they are all declared, in one pass over their
    /// members when those are scalars or objects and arrays of scalars
    /// (most calls'); `None` for anything deeper.
    fn look_shallow(&self, entry: &Entry, arguments: &Map<String, Value>) -> Option<(bool, Sent, bool)> {
        let mut size = Shallow::default();
        let mut sent = Sent::default();
        let mut declares_all = true;
        let parameters = &entry.parameters;
        let mut next = 0;
        for (position, (key, value)) in arguments.iter().enumerate() {
            size.add(key, value)?;
            let parameter = parameters.find(key, &mut next);
            if let Some(parameter) = parameter {
                let null = value.is_null();
                sent.add(parameter.bit, null);
                if null && parameter.bit != 0 {
                    sent.null_at(position);
                }
            }
            declares_all &= parameters.declares(parameter);
        }
        Some((size.fits(&self.options.limits), sent, declares_all))
    }
}

/// A tool's top-level parameters the look asks about, in one list: the
/// declared ones in the schema's order, then the watched ones the schema
/// does not declare (a tool default's), each with its watched bit. One
/// compare finds most arguments (they mostly come in the schema's order).
#[derive(Debug, Default)]
pub(super) struct Parameters {
    list: Vec<Parameter>,
    /// Whether an undeclared argument leaves nothing to note (the schema
    /// forbids or describes undeclared ones): every argument counts as
    /// declared.
    open: bool,
}

#[derive(Debug)]
struct Parameter {
    name: String,
    /// Declared by the schema.
    declared: bool,
    /// Its bit among the watched parameters (0: not watched).
    bit: u64,
}

impl Parameters {
    /// The parameters `declared` (`None`: nothing to note about undeclared
    /// ones) and those `watched` looks at.
    pub(super) fn new(declared: Option<&[String]>, watched: &Watched) -> Parameters {
        let mut list: Vec<Parameter> = declared
            .unwrap_or_default()
            .iter()
            .map(|name| Parameter {
                name: name.clone(),
                declared: true,
                bit: watched.bit_of(name),
            })
            .collect();
        for name in watched.names() {
            if !list.iter().any(|parameter| same_name(&parameter.name, name)) {
                list.push(Parameter {
                    name: name.to_string(),
                    declared: false,
                    bit: watched.bit_of(name),
                });
            }
        }
        Parameters {
            list,
            open: declared.is_none(),
        }
    }

    /// Whether every argument is a declared parameter, or the schema leaves
    /// no undeclared one to note ([`undeclared`](super::undeclared) has
    /// nothing to say).
    fn declares_all(&self, arguments: &Map<String, Value>) -> bool {
        let mut next = 0;
        arguments
            .keys()
            .all(|key| self.declares(self.find(key, &mut next)))
    }

    /// Whether an argument that is `found` among the parameters (or not)
    /// counts as declared.
    #[inline]
    fn declares(&self, found: Option<&Parameter>) -> bool {
        self.open || found.is_some_and(|parameter| parameter.declared)
    }

    /// The parameter named `key`, trying first the one after the parameter
    /// `next` last found.
    #[inline]
    fn find(&self, key: &str, next: &mut usize) -> Option<&Parameter> {
        if let Some(parameter) = self
            .list
            .get(*next)
            .filter(|parameter| same_name(&parameter.name, key))
        {
            *next += 1;
            return Some(parameter);
        }
        let index = self
            .list
            .iter()
            .position(|parameter| same_name(&parameter.name, key))?;
        *next = index + 1;
        self.list.get(index)
    }
}
