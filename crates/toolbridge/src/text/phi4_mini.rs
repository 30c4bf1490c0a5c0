//! Phi-4-mini: `functools[{"name": …, "arguments": {…}}, …]`, a JSON list
//! of calls after the word `functools` (vLLM `phi4mini_tool_parser.py`,
//! which also takes `"parameters"` for `"arguments"`).

use super::envelope::EnvelopeKeys;
use super::listed::{listed_calls, List};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const OPEN: &str = "functools";

pub(super) fn detect(text: &str) -> bool {
    text.find(OPEN)
        .is_some_and(|at| text[at + OPEN.len()..].trim_start().starts_with('['))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    listed_calls(text, OPEN, None, out, EnvelopeKeys::Plain);
}

/// Streamed: the JSON list after the opening token is a call region
/// ([`List`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN],
    bare: None,
    region,
    lead: None,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(List::new(OPEN.len(), None, EnvelopeKeys::Plain))
}
