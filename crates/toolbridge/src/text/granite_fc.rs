//! Granite 20B FunctionCalling: `<function_call> {"name": …, "arguments":
//! {…}}`, one token per call and no closing tag, calls one after another
//! (vLLM `granite_20b_fc_tool_parser.py` and its tests). Read as Hermes
//! reads a call whose closing tag is missing ([`hermes::parse_tagged`]),
//! without a note: a call ends with its JSON, and text after it is prose.

use super::hermes::{self, Tags};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

static TAGS: Tags = Tags {
    open: "<function_call>",
    close: None,
    tokens: &[],
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(TAGS.open)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    hermes::parse_tagged(text, out, &TAGS);
}

/// Streamed as Hermes streams ([`hermes::tagged_region`]); a call's region
/// runs to the next `<function_call>` or the end of the text.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[TAGS.open],
    bare: None,
    region,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    hermes::tagged_region(&TAGS)
}
