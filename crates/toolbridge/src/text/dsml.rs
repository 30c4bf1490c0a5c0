//! DeepSeek V3.2 and V4, "DSML": `<｜DSML｜function_calls>` (V3.2) or
//! `<｜DSML｜tool_calls>` (V4) blocks of `<｜DSML｜invoke name="NAME">`
//! elements, one `<｜DSML｜parameter name="KEY" string="true|false">VALUE
//! </｜DSML｜parameter>` per argument: `string="true"` gives the text as
//! written, `string="false"` a JSON value (vLLM `deepseekv32_tool_parser.py`
//! and `deepseekv4_tool_parser.py`; DeepSeek-V4's `encoding/encoding_dsv4.py`
//! writes the V4 template). A parameter without `string=` is typed by the
//! tool's schema.

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

/// The wrapper's tokens, taken out of the prose.
const BLOCKS: &[&str] = &[
    "<｜DSML｜function_calls>",
    "</｜DSML｜function_calls>",
    "<｜DSML｜tool_calls>",
    "</｜DSML｜tool_calls>",
];

static MARKUP: Markup = Markup {
    blocks: BLOCKS,
    call_ends: BLOCKS,
    invoke: "<｜DSML｜invoke name=",
    invoke_end: "</｜DSML｜invoke>",
    parameter: "<｜DSML｜parameter name=",
    parameter_end: "</｜DSML｜parameter>",
    head_end: ">",
    escaped: false,
    values: Values::StringAttribute,
    arguments: Arguments::Named,
    stops: &[],
    doubled_names: false,
    stop_lead: None,
};

pub(super) fn detect(text: &str) -> bool {
    text.contains("<｜DSML｜invoke")
        || text.contains("<｜DSML｜function_calls>")
        || text.contains("<｜DSML｜tool_calls>")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &MARKUP);
}

/// Streamed: an invoke element is a call's region, a block token one of
/// its own ([`invoke::region`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[
        "<｜DSML｜invoke name=",
        "<｜DSML｜function_calls>",
        "</｜DSML｜function_calls>",
        "<｜DSML｜tool_calls>",
        "</｜DSML｜tool_calls>",
    ],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    invoke::region(&MARKUP, opened_by)
}
