//! Granite 3.0 and 3.1: `<|tool_call|>[{"name": …, "arguments": {…}}]`
//! (3.0's token) or `<tool_call>[…]` (3.1's string), a JSON list of calls
//! and no closing tag (vLLM `granite_tool_parser.py`). Granite 4 writes
//! the Hermes markup, one `<tool_call>{…}</tool_call>` per call
//! (`granite4_tool_parser.py`), and is read as [`Hermes`](super::Family::Hermes).

use super::envelope::EnvelopeKeys;
use super::listed::{listed_calls, List};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};

const TOKEN: &str = "<|tool_call|>";
const STRING: &str = "<tool_call>";

pub(super) fn detect(text: &str) -> bool {
    text.contains(TOKEN)
        || text
            .find(STRING)
            .is_some_and(|at| text[at + STRING.len()..].trim_start().starts_with('['))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let open = if text.contains(TOKEN) { TOKEN } else { STRING };
    listed_calls(text, open, None, out, EnvelopeKeys::Plain);
}

/// Streamed: the JSON list after the opening token is a call region
/// ([`List`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[TOKEN, STRING],
    bare: None,
    region,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    let open = if opened_by == Some(0) { TOKEN } else { STRING };
    Box::new(List::new(open.len(), None, EnvelopeKeys::Plain))
}
