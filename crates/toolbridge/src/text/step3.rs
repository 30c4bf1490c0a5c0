//! Step3 (StepFun): `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke
//! name="NAME"><steptml:parameter name="KEY">VALUE</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`,
//! one invoke per call (vLLM `step3_tool_parser.py` and its tests; SGLang's
//! `Step3Detector`). It is MiniMax-M2's invoke markup
//! ([`invoke`]) under a `steptml:` prefix, wrapped in
//! DeepSeek-like tokens (the bar is U+FF5C `｜`, the words joined by `_`,
//! not DeepSeek's `▁`). Values are raw text, trimmed, typed by the tool's
//! schema ([`typed`](super::typed)); without a schema they stay strings, as
//! vLLM keeps them, and a note says so. The wrapper tokens, and the
//! `function<｜tool_sep｜>` that names a call's type, are taken out of the
//! prose. Step-3.5 writes Qwen3-Coder's markup (`qwen3-coder`).

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const INVOKE: &str = "<steptml:invoke name=";
const CALLS_BEGIN: &str = "<｜tool_calls_begin｜>";

/// What opens a region in a stream: the invoke element, then the
/// wrapper's tokens ([`BLOCKS`]).
const OPENS: &[&str] = &[
    INVOKE,
    CALLS_BEGIN,
    "<｜tool_calls_end｜>",
    "<｜tool_call_begin｜>",
    "<｜tool_call_end｜>",
    "function<｜tool_sep｜>",
    "<｜tool_sep｜>",
];

/// The wrapper's tokens, taken out of the prose. The first four end a call
/// whose `</steptml:invoke>` was lost; `function<｜tool_sep｜>` comes
/// before the bare separator, which it ends with.
const BLOCKS: &[&str] = OPENS.split_at(1).1;

static MARKUP: Markup = Markup {
    blocks: BLOCKS,
    call_ends: BLOCKS.split_at(4).0,
    invoke: INVOKE,
    invoke_end: "</steptml:invoke>",
    parameter: "<steptml:parameter name=",
    parameter_end: "</steptml:parameter>",
    head_end: ">",
    escaped: false,
    values: Values::Raw,
    arguments: Arguments::Named,
    stops: &[],
    doubled_names: false,
    stop_lead: None,
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(INVOKE) || text.contains(CALLS_BEGIN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &MARKUP);
}

/// Streamed: an invoke element is a call's region, a wrapper token one of
/// its own ([`invoke::region`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: OPENS,
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    invoke::region(&MARKUP, opened_by)
}
