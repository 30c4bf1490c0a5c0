//! GigaChat 3 and 3.1 (Sber): one call's `{"name": …, "arguments": {…}}`
//! after a header and nothing after it, GigaChat 3's
//! `<|message_sep|>\n\nfunction call<|role_sep|>\n{…}` and GigaChat 3.1's
//! `<|function_call|>{…}` (vLLM `gigachat3_tool_parser.py` and its tests).
//! The prose is the text before the header; `<|message_sep|>` and the
//! end-of-text `</s>` leave it. Read as Hermes reads a call whose closing
//! tag is missing ([`hermes::parse_tagged`]), without a note: the call
//! ends with its JSON.

use super::hermes::{self, Tags};
use super::scan::Out;
use super::stream::markup::{Region, Streaming, Token};

/// The markup's other tokens, taken out of the prose.
const TOKENS: &[&str] = &["<|message_sep|>", "</s>"];

/// GigaChat 3's header.
static V3: Tags = Tags {
    open: "function call<|role_sep|>",
    close: None,
    tokens: TOKENS,
};

/// GigaChat 3.1's header.
static V31: Tags = Tags {
    open: "<|function_call|>",
    close: None,
    tokens: TOKENS,
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(V31.open) || text.contains(V3.open)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let tags = if text.contains(V31.open) { &V31 } else { &V3 };
    hermes::parse_tagged(text, out, tags);
}

/// Streamed: the call after a header is Hermes's region without a closing
/// tag ([`hermes::tagged_region`]); `<|message_sep|>` and `</s>` are
/// regions of their own, which the parser removes.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[V3.open, V31.open, TOKENS[0], TOKENS[1]],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => hermes::tagged_region(&V3),
        Some(1) => hermes::tagged_region(&V31),
        Some(token) => Box::new(Token(STREAM.opens[token].len())),
        None => unreachable!("GigaChat has no bare markup"),
    }
}
