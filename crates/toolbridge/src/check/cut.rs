//! Calls cut off before their arguments ended (a token limit): rejected,
//! asked for whole, never repaired into a call that runs on half an
//! argument.

use crate::call::{is_truncation, ToolCall};
use crate::pointer::Pointer;

use super::Violation;

/// A call whose arguments end before they close: the response was cut
/// off, most likely by its token limit. Running it would act on half an
/// argument (a file written in part), so it is sent back, asked for whole.
#[derive(Clone, Copy)]
pub(super) struct CutOff {
    /// How long the argument text was, when known.
    length: Option<usize>,
}

impl CutOff {
    /// `call`, when its reader found it cut off (a note it made when the
    /// text ended inside the call's arguments and it closed them).
    pub(super) fn of(call: &ToolCall) -> Option<CutOff> {
        call.notes.iter().any(is_truncation).then(|| CutOff {
            length: call.raw_arguments.as_deref().map(str::len),
        })
    }

    /// Argument text `raw` that ends before it closes.
    pub(super) fn text(raw: &str) -> CutOff {
        CutOff {
            length: Some(raw.len()),
        }
    }

    /// The problem, for the model.
    pub(super) fn violation(self) -> Violation {
        let (after, got) = match self.length {
            Some(length) => (
                format!(" after {length} bytes,"),
                format!("{length} bytes that end inside the arguments"),
            ),
            None => (String::new(), "arguments that end before they close".to_string()),
        };
        Violation::new(
            Pointer::root(),
            "arguments",
            "a JSON object",
            got,
            format!(
                "the arguments were cut off{after} before they ended (the response probably reached its token limit), so the call was not run; send the whole call again"
            ),
        )
    }
}
