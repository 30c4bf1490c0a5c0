//! InternLM2, 2.5 and 3: `<|action_start|><|plugin|>\n{"name": …,
//! "parameters": {…}}<|action_end|>`, Hermes's envelope between the
//! plugin action's tokens (vLLM `internlm2_tool_parser.py` and its tests;
//! InternLM's chat template). `"arguments"` is read as well as
//! `"parameters"`, as vLLM reads it. An `<|action_start|><|interpreter|>`
//! action is code for the model's interpreter, not a function call: it
//! stays in the prose. vLLM reads one call per message; every block is a
//! call here.

use super::hermes::{self, Tags};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

static TAGS: Tags = Tags {
    open: "<|action_start|><|plugin|>",
    close: Some("<|action_end|>"),
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
