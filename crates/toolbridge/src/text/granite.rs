//! Granite 3.0 and 3.1: `<|tool_call|>[{"name": …, "arguments": {…}}]`
//! (3.0's token) or `<tool_call>[…]` (3.1's string), a JSON list of calls
//! and no closing tag (vLLM `granite_tool_parser.py`). Granite 4 writes
//! the Hermes markup, one `<tool_call>{…}</tool_call>` per call
//! (`granite4_tool_parser.py`), and is read as [`Hermes`](super::Family::Hermes).

use super::envelope::EnvelopeKeys;
use super::listed::{list_at, List};
use super::scan::Out;
use super::stream::markup::{Region, Streaming};
use super::tags::scan_tags;

const TOKEN: &str = "<|tool_call|>";
const STRING: &str = "<tool_call>";
/// The opening tokens, in the order of [`STREAM`]'s `opens`.
const OPENS: &[&str] = &[TOKEN, STRING];

pub(super) fn detect(text: &str) -> bool {
    text.contains(TOKEN)
        || text
            .find(STRING)
            .is_some_and(|at| text[at + STRING.len()..].trim_start().starts_with('['))
}

/// Each of the two tokens opens a list wherever it is, as in a stream
/// (which cannot know whether the other comes later).
pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut pos = 0;
    while let Ok((at, which)) = scan_tags(text, pos, OPENS) {
        out.prose.push_str(&text[pos..at]);
        let open = OPENS[which];
        pos = list_at(text, at, open, open.len(), None, out, EnvelopeKeys::Plain);
    }
    out.prose.push_str(&text[pos..]);
}

/// Streamed: the JSON list after the opening token is a call region
/// ([`List`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: OPENS,
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    let open = if opened_by == Some(0) { TOKEN } else { STRING };
    Box::new(List::new(open.len(), None, EnvelopeKeys::Plain))
}
