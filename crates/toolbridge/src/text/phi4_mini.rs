//! Phi-4-mini: `functools[{"name": …, "arguments": {…}}, …]`, a JSON list
//! of calls after the word `functools` (vLLM `phi4mini_tool_parser.py`,
//! which also takes `"parameters"` for `"arguments"`).

use super::scan::{listed_calls, Out};

const OPEN: &str = "functools";

pub(super) fn detect(text: &str) -> bool {
    text.find(OPEN)
        .is_some_and(|at| text[at + OPEN.len()..].trim_start().starts_with('['))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    listed_calls(text, OPEN, None, out, |item| item);
}
