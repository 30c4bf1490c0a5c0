//! Kimi K3, "XTML": the reply in a `<|open|>response<|sep|>…<|close|>response<|sep|>`
//! channel, then the calls in a `<|open|>tools<|sep|>…<|close|>tools<|sep|>`
//! channel, one `<|open|>call tool="NAME" index="N"<|sep|>…<|close|>call<|sep|>`
//! per call holding one `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`
//! per argument (vLLM `kimi_k3_tool_parser.py` and its tests). It is the
//! invoke markup of MiniMax-M2 and DSML in K3's own tokens
//! ([`invoke`]): heads end with `<|sep|>`, attribute values
//! are escaped (`&quot;`, `&amp;`), and `type="string"` gives the value as
//! written while any other type gives JSON (text that is not JSON is typed
//! by the schema, with a note; vLLM keeps it a string). An argument
//! without `type=` is typed by the schema. The call's `index` is not used:
//! ids are numbered as for every family.
//!
//! The channel tokens and the message's closing `<|close|>message<|sep|>`
//! are taken out of the prose, which is then the response channel's text
//! (a server often puts the opening `<|open|>response<|sep|>` in the prompt,
//! so the reply starts with the response's text). Reasoning comes in
//! `<|open|>think<|sep|>…<|close|>think<|sep|>` (`reasoning.rs`). vLLM also
//! takes spaces inside the tokens (`<|open|> call`), for servers that put
//! them between special tokens; they are not taken here.

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const CALL: &str = "<|open|>call tool=";
const TOOLS: &str = "<|open|>tools<|sep|>";

/// What opens a region in a stream: the call element, then the channel
/// tokens ([`BLOCKS`]).
const OPENS: &[&str] = &[
    CALL,
    TOOLS,
    "<|close|>tools<|sep|>",
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "<|close|>message<|sep|>",
];

/// The channel tokens, taken out of the prose.
const BLOCKS: &[&str] = OPENS.split_at(1).1;

static MARKUP: Markup = Markup {
    blocks: BLOCKS,
    call_ends: BLOCKS,
    invoke: CALL,
    invoke_end: "<|close|>call<|sep|>",
    parameter: "<|open|>argument key=",
    parameter_end: "<|close|>argument<|sep|>",
    head_end: "<|sep|>",
    escaped: true,
    values: Values::TypeAttribute,
    arguments: Arguments::Named,
    stops: &[],
    doubled_names: false,
    stop_lead: None,
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(CALL) || text.contains(TOOLS)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &MARKUP);
}

/// Streamed: a call element is a call's region, a channel token one of its
/// own ([`invoke::region`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: OPENS,
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    invoke::region(&MARKUP, opened_by)
}
