//! LongCat-Flash (Meituan): Hermes's envelope between tags of its own,
//! `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`,
//! one block per call (vLLM `longcat_tool_parser.py`, which is its Hermes
//! parser with these tags, and its tests).

use super::hermes::{self, Tags};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

static TAGS: Tags = Tags {
    open: "<longcat_tool_call>",
    close: Some("</longcat_tool_call>"),
    tokens: &[],
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(TAGS.open)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    hermes::parse_tagged(text, out, &TAGS);
}

/// Streamed as Hermes streams ([`hermes::tagged_region`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[TAGS.open],
    bare: None,
    region,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    hermes::tagged_region(&TAGS)
}
