//! FunctionGemma (Google's `functiongemma-270m-it`, the small Gemma tuned
//! for function calling): `<start_function_call>call:NAME{key:<escape>text
//! <escape>,n:42}<end_function_call>`, Gemma 4's call syntax with its own
//! tokens (ollama `model/parsers/functiongemma.go`, vLLM
//! `functiongemma_tool_parser.py`). Values read as Gemma 4's do
//! (`gemma4.rs`): a string between `<escape>` delimiters is the text
//! written — vLLM's example template wraps numbers in them too, and the
//! tool's schema, not the text, makes such a value a number. The model has
//! no reasoning channel.

use super::gemma4::{self, Markup};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const OPEN: &str = "<start_function_call>";
const CLOSE: &str = "<end_function_call>";

static MARKUP: Markup = Markup::new(OPEN, &[CLOSE], "<escape>", None, &[], &[OPEN]);

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    gemma4::parse_markup(text, out, &MARKUP);
}

/// Streamed as Gemma 4's calls are: a call runs from its opener to its
/// closer (or the next opener), each argument sent as its `,` or the
/// closing `}` arrives.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    gemma4::region_of(&MARKUP, STREAM.opens, opened_by)
}
