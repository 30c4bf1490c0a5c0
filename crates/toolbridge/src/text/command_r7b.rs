//! Command R7B (Cohere): `<|START_ACTION|>[{"tool_call_id": "0",
//! "tool_name": …, "parameters": {…}}]<|END_ACTION|>`, after an optional
//! `<|START_THINKING|>…<|END_THINKING|>` plan, with the answer in
//! `<|START_RESPONSE|>…<|END_RESPONSE|>` (ollama `model/parsers/cohere.go`,
//! vLLM `cohere_command_tool_parser.py`). The plan stays in the prose as
//! written, like a reasoning block; the response's tokens are taken out.

use super::envelope::EnvelopeKeys;
use super::listed::{listed_calls, List};
use super::scan::Out;
use super::stream::markup::Token;
use super::stream::markup::{Region, Streaming};

const OPEN: &str = "<|START_ACTION|>";
const CLOSE: &str = "<|END_ACTION|>";
const RESPONSE_TOKENS: [&str; 5] = [
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
    "<|END_OF_TURN_TOKEN|>",
];

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let start = out.prose.len();
    listed_calls(text, OPEN, Some(CLOSE), out, EnvelopeKeys::Cohere);
    let mut prose = out.prose.split_off(start);
    for token in RESPONSE_TOKENS {
        if prose.contains(token) {
            prose = prose.replace(token, "");
        }
    }
    out.prose.push_str(&prose);
}

/// Streamed: the JSON list after the opening token is a call region
/// ([`List`]); the response tokens are regions of their own, which the parser removes.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[
        OPEN,
        "<|START_RESPONSE|>",
        "<|END_RESPONSE|>",
        "<|START_TEXT|>",
        "<|END_TEXT|>",
        "<|END_OF_TURN_TOKEN|>",
    ],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(List::new(OPEN.len(), Some(CLOSE), EnvelopeKeys::Cohere)),
        Some(token) => Box::new(Token(STREAM.opens[token].len())),
        None => unreachable!("Command R7B has no bare markup"),
    }
}
