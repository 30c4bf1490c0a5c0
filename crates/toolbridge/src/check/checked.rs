//! What checking a call gives: the [`Accepted`] call a handler can run, or
//! the [`Rejection`] written for the model.

use serde::Serialize;
use serde_json::Value;

use crate::note::{Note, SharedNotes};

use super::Violation;

/// What checking a call gave.
///
/// The JSON form is the accepted call (`id`, `name`, `arguments`, `notes`)
/// or the rejection (`id`, `name`, `rejection`, `violations`, `notes`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Checked {
    /// The call can run.
    Accepted(Accepted),
    /// The call cannot run; the rejection says why, for the model.
    Rejected(Rejection),
}

impl Checked {
    /// True for an accepted call.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Checked::Accepted(_))
    }

    /// The accepted call, if it was accepted.
    pub fn accepted(&self) -> Option<&Accepted> {
        match self {
            Checked::Accepted(accepted) => Some(accepted),
            Checked::Rejected(_) => None,
        }
    }

    /// The rejection, if it was rejected.
    pub fn rejection(&self) -> Option<&Rejection> {
        match self {
            Checked::Rejected(rejection) => Some(rejection),
            Checked::Accepted(_) => None,
        }
    }

    /// The call's id.
    pub fn id(&self) -> &str {
        match self {
            Checked::Accepted(accepted) => &accepted.id,
            Checked::Rejected(rejection) => &rejection.id,
        }
    }
}

/// A call that can run: the canonical tool name and the arguments as the
/// canonical schema describes them, defaults and static parameters set.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Accepted {
    /// The call's id.
    pub id: String,
    /// The tool's canonical name.
    pub name: String,
    /// The arguments (a JSON object).
    pub arguments: Value,
    /// What the Toolbox changed, each at its place in the arguments
    /// (shared with the calls it changed the same way).
    pub notes: SharedNotes,
    /// The id the provider sent, for the result answering the call
    /// ([`ToolCall::provider_id`](crate::call::ToolCall::provider_id); not in the JSON form).
    #[serde(skip)]
    pub provider_id: Option<String>,
    /// The name the provider sent, for the result answering the call
    /// ([`ToolCall::provider_name`](crate::call::ToolCall::provider_name); not in the JSON form).
    #[serde(skip)]
    pub provider_name: String,
}

/// A call that cannot run, with a message written for the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Rejection {
    /// The call's id.
    pub id: String,
    /// The tool's canonical name, or the name sent when no tool has it.
    pub name: String,
    /// Every problem in one message for the model: a line per violation,
    /// then the tool's expected signature.
    #[serde(rename = "rejection")]
    pub message: String,
    /// Every problem, for programs.
    pub violations: Vec<Violation>,
    /// What the Toolbox changed before it found the problems.
    pub notes: Vec<Note>,
    /// The id the provider sent, for the error result answering the call
    /// ([`ToolCall::provider_id`](crate::call::ToolCall::provider_id); not in the JSON form).
    #[serde(skip)]
    pub provider_id: Option<String>,
    /// The name the provider sent, for the error result answering the call
    /// ([`ToolCall::provider_name`](crate::call::ToolCall::provider_name); not in the JSON form).
    #[serde(skip)]
    pub provider_name: String,
}
