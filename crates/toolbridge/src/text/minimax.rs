//! MiniMax-M2: `<minimax:tool_call>\n<invoke name="NAME">\n<parameter
//! name="KEY">VALUE</parameter>\n</invoke>\n</minimax:tool_call>`, one
//! invoke per call, several per block (vLLM `minimax_m2_tool_parser.py`).
//! Values are raw text, trimmed, typed by the tool's schema
//! ([`typed`](super::typed)); without a schema they stay strings (vLLM's
//! rule too) and a note says so.

use super::invoke::{self, Markup, Values};
use super::scan::Out;

const MARKUP: Markup = Markup {
    blocks: &["<minimax:tool_call>", "</minimax:tool_call>"],
    invoke: "<invoke name=",
    invoke_end: "</invoke>",
    parameter: "<parameter name=",
    parameter_end: "</parameter>",
    values: Values::Raw,
};

pub(super) fn detect(text: &str) -> bool {
    text.contains("<minimax:tool_call>")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &MARKUP);
}
