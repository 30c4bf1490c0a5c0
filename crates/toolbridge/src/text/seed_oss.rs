//! Seed-OSS (ByteDance's Seed-OSS-36B; Volcengine's Doubao Seed models
//! write the same): Qwen3-Coder's calls in the model's own wrapper,
//! `<seed:tool_call>\n<function=NAME>\n<parameter=K>V</parameter>\n
//! </function>\n</seed:tool_call>` (the chat template
//! `ByteDance-Seed-OSS.jinja`; vLLM `rust/src/parser/src/tool/seed_oss.rs`
//! configures its Qwen3-Coder parser with these two tokens, the grammar
//! inside being the same). Values are read, and typed by the schema, as
//! Qwen3-Coder's are (`qwen3_coder.rs`), but for their line breaks: the
//! template writes a value inline, not on lines of its own, so none is
//! taken off (vLLM, sharing Qwen3-Coder's code, takes one off each end;
//! llama.cpp keeps them). The model reasons in
//! `<seed:think>…</seed:think>` (`reasoning.rs`).
//!
//! A `<function=…>` call without the wrapper is still read, with a note,
//! as for Qwen3-Coder; vLLM leaves such text (and a Qwen `<tool_call>`
//! wrapper) as prose.

use super::qwen3_coder::{self, Wrapper, FUNCTION};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const OPEN: &str = "<seed:tool_call>";

/// Values are written inline (`<parameter=K>V</parameter>`): a value's
/// line breaks are its own, kept (llama.cpp's `test-chat.cpp` keeps a code
/// value's last line break).
static WRAPPER: Wrapper = Wrapper::new(OPEN, "</seed:tool_call>", false);

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    qwen3_coder::parse_wrapped(text, out, &WRAPPER);
}

/// Streamed as Qwen3-Coder's calls are: a call runs from its wrapper (or
/// `<function=`) to `</function>` and the closing wrapper after it, each
/// parameter sent as its `</parameter>` arrives.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN, FUNCTION],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    qwen3_coder::region_wrapped(&WRAPPER, opened_by)
}
