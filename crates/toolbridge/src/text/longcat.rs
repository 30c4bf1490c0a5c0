//! LongCat-Flash (Meituan): Hermes's envelope between tags of its own,
//! `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`,
//! one block per call (vLLM `longcat_tool_parser.py`, which is its Hermes
//! parser with these tags, and its tests).

use super::hermes::{self, Tags};

static TAGS: Tags = Tags {
    open: "<longcat_tool_call>",
    close: Some("</longcat_tool_call>"),
    tokens: &[],
};

hermes::tagged_family!(TAGS);
