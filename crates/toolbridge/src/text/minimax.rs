//! MiniMax-M2: `<minimax:tool_call>\n<invoke name="NAME">\n<parameter
//! name="KEY">VALUE</parameter>\n</invoke>\n</minimax:tool_call>`, one
//! invoke per call, several per block (vLLM `minimax_m2_tool_parser.py`).
//! Values are raw text, trimmed, typed by the tool's schema
//! ([`typed`](super::typed)); without a schema they stay strings (vLLM's
//! rule too) and a note says so.

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

/// The wrapper's tokens, taken out of the prose.
const BLOCKS: &[&str] = &["<minimax:tool_call>", "</minimax:tool_call>"];

static MARKUP: Markup = in_blocks(BLOCKS);

/// MiniMax-M2's invoke elements in a family's `blocks` (dots.llm writes
/// them in its own).
pub(super) const fn in_blocks(blocks: &'static [&'static str]) -> Markup {
    Markup {
        blocks,
        call_ends: blocks,
        invoke: "<invoke name=",
        invoke_end: "</invoke>",
        parameter: "<parameter name=",
        parameter_end: "</parameter>",
        head_end: ">",
        escaped: false,
        values: Values::Raw,
        arguments: Arguments::Named,
        stops: &[],
        doubled_names: false,
        stop_lead: None,
    }
}

pub(super) fn detect(text: &str) -> bool {
    text.contains("<minimax:tool_call>")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &MARKUP);
}

/// Streamed: an invoke element is a call's region, a block token one of
/// its own ([`invoke::region`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &["<invoke name=", "<minimax:tool_call>", "</minimax:tool_call>"],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    invoke::region(&MARKUP, opened_by)
}
