//! Hunyuan A13B: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`
//! (vLLM `hunyuan_a13b_tool_parser.py`; a block inside a closed
//! `<think>` is not a call, as everywhere here).

use super::envelope::EnvelopeKeys;
use super::listed::{listed_calls, List};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const OPEN: &str = "<tool_calls>";
const CLOSE: &str = "</tool_calls>";

pub(super) fn detect(text: &str) -> bool {
    text.find(OPEN)
        .is_some_and(|at| text[at + OPEN.len()..].trim_start().starts_with(['[', '{']))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    listed_calls(text, OPEN, Some(CLOSE), out, EnvelopeKeys::Plain);
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
    Box::new(List::new(OPEN.len(), Some(CLOSE), EnvelopeKeys::Plain))
}
