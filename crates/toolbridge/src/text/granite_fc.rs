//! Granite 20B FunctionCalling: `<function_call> {"name": …, "arguments":
//! {…}}`, one token per call and no closing tag, calls one after another
//! (vLLM `granite_20b_fc_tool_parser.py` and its tests). Read as Hermes
//! reads a call whose closing tag is missing ([`hermes::parse_tagged`]),
//! without a note: a call ends with its JSON, and text after it is prose.

use super::hermes::{self, Tags};

static TAGS: Tags = Tags {
    open: "<function_call>",
    close: None,
    tokens: &[],
};

hermes::tagged_family!(TAGS);
