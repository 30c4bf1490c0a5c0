//! How a rejection is written for the model: one message listing every
//! problem, then the tool's signature; an unknown tool's, with the closest
//! names; undeclared arguments, an error when they are a near miss.

use serde_json::Value;

use crate::json::validate::{Failure, FailureKind};
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;
use crate::suggest::closest;

use super::{plan, render, Caller, Checked, Entry, Rejection, Toolbox, Violation};

/// At most this many problems are listed in a rejection's message (all are
/// in its [`violations`](Rejection::violations)).
const MAX_MESSAGE_LINES: usize = 20;
/// At most this many tool names are listed for an unknown tool.
const MAX_LISTED_TOOLS: usize = 20;

impl Toolbox {
    /// The rejection of a call naming no tool.
    pub(super) fn unknown_tool(&self, caller: Caller, notes: Vec<Note>) -> Rejection {
        let name = &caller.name;
        let names = || self.entries.iter().map(|entry| entry.tool.name.as_str());
        let suggestion = if name.len() <= 128 {
            closest(name, names()).or_else(|| closest(name, self.by_written.keys().map(String::as_str)))
        } else {
            None
        };
        let mut listed: Vec<String> = names()
            .take(MAX_LISTED_TOOLS)
            .map(|name| format!("`{name}`"))
            .collect();
        if self.entries.len() > MAX_LISTED_TOOLS {
            listed.push(format!("and {} more", self.entries.len() - MAX_LISTED_TOOLS));
        }
        let listed = listed.join(", ");
        let shown = render::compact(&Value::String(name.to_string()));
        let mut message = format!("There is no tool named {shown}");
        if let Some(suggestion) = suggestion {
            let canonical = self
                .by_written
                .get(suggestion)
                .map_or(suggestion, |(index, _)| self.entries[*index].tool.name.as_str());
            message.push_str(&format!(" — did you mean `{canonical}`?"));
        } else {
            message.push('.');
        }
        if listed.is_empty() {
            message.push_str(" No tools are available.");
        } else {
            message.push_str(&format!(" The tools are: {listed}."));
        }
        let expected = if listed.is_empty() {
            "no call".to_string()
        } else {
            format!("one of {listed}")
        };
        Rejection {
            id: caller.id,
            name: caller.name,
            provider_id: caller.provider_id,
            provider_name: caller.provider_name,
            violations: vec![Violation::new(
                Pointer::root(),
                "name",
                expected,
                shown,
                message.clone(),
            )],
            message,
            notes,
        }
    }
}

/// The rejection of the call `caller` made to `entry`'s tool.
pub(super) fn reject(entry: &Entry, caller: Caller, violations: Vec<Violation>, notes: Vec<Note>) -> Checked {
    Checked::Rejected(Rejection {
        message: message(&entry.tool.name, &violations, &entry.signature),
        violations,
        notes,
        id: caller.id,
        name: caller.name,
        provider_id: caller.provider_id,
        provider_name: caller.provider_name,
    })
}

/// Undeclared top-level arguments of an open schema: an error when one is
/// a near miss of a missing required parameter, else kept with a note.
pub(super) fn undeclared(
    entry: &Entry,
    value: &Value,
    failures: &[Failure],
    violations: &mut Vec<Violation>,
    notes: &mut Vec<Note>,
) {
    let (Some(declared), Some(arguments)) = (&entry.declared, value.as_object()) else {
        return;
    };
    let missing: Vec<&str> = failures
        .iter()
        .filter(|failure| failure.at.is_root())
        .filter_map(|failure| match &failure.kind {
            FailureKind::Required(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    // A parameter the tool's own defaults set is the tool's, not the model's.
    let defaulted = |key: &str| {
        entry
            .tool
            .defaults
            .as_ref()
            .is_some_and(|defaults| defaults.contains_key(key))
    };
    for key in arguments
        .keys()
        .filter(|key| !declared.iter().any(|name| plan::same_name(name, key)) && !defaulted(key))
    {
        let near_miss = key.len() <= 128 && closest(key, missing.iter().copied()).is_some();
        if near_miss {
            violations.push(render::unknown(
                &Pointer::root(),
                key,
                &missing,
                Some(arguments),
                "unknownParameter",
            ));
        } else {
            notes.push(Note::new(
                NoteKind::Kept { key: key.into() },
                Pointer::root().key(key),
                format!("`{key}` is not a declared parameter; it was passed on as sent"),
            ));
        }
    }
}

/// The model-facing text of a rejection.
fn message(tool: &str, violations: &[Violation], signature: &str) -> String {
    let count = violations.len();
    let mut text = format!(
        "The call to `{tool}` was rejected: {} with its arguments.",
        if count == 1 {
            "1 problem".to_string()
        } else {
            format!("{count} problems")
        }
    );
    for violation in violations.iter().take(MAX_MESSAGE_LINES) {
        text.push_str("\n- ");
        text.push_str(&violation.message);
    }
    if count > MAX_MESSAGE_LINES {
        text.push_str(&format!("\n- … and {} more", count - MAX_MESSAGE_LINES));
    }
    text.push_str("\nExpected: ");
    text.push_str(signature);
    text
}
