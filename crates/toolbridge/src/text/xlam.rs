//! xLAM (Salesforce): a JSON list of `{"name": …, "arguments": {…}}` calls,
//! the whole answer or after its reasoning, or in a Markdown code fence
//! (```` ```json ````, or a fence with no language), in
//! `<tool_call>…</tool_call>`, or after `[TOOL_CALLS]` (vLLM
//! `xlam_tool_parser.py` and its tests). A fence that holds no JSON list or
//! object is prose, as is the fence around a list. Detected only by a
//! fence holding a list of calls: the other shapes are Mistral's,
//! Granite's and Hermes's, which are tried first.

use super::envelope::EnvelopeKeys;
use super::listed::{list_at, List};
use super::mistral;
use super::scan::Out;
use super::stream::markup::{after_spaces, Choice, Chosen, End, Region, Spaces, Streaming};
use super::tags::scan_tags;

const FENCE: &str = "```";
const TOOL_CALL: &str = "<tool_call>";
const TOOL_CALLS: &str = "[TOOL_CALLS]";
/// The tokens a list of calls follows, in the order of [`STREAM`]'s `opens`.
const OPENS: &[&str] = &[FENCE, TOOL_CALL, TOOL_CALLS];

pub(super) fn detect(text: &str) -> bool {
    let mut pos = 0;
    while let Some(at) = text[pos..].find(FENCE).map(|at| pos + at) {
        // A list of calls (told as Mistral's bare list is), or one call.
        let body = fence_body(&text[at..]).map(|len| text[at + len..].trim_start());
        if body.is_some_and(|body| {
            mistral::bare_list(body)
                || body
                    .strip_prefix('{')
                    .is_some_and(|object| object.trim_start().starts_with("\"name\""))
        }) {
            return true;
        }
        pos = at + FENCE.len();
    }
    false
}

/// How long a fence's opening is (its language tag, `json`, included)
/// when JSON follows it; `None` when what follows is not JSON.
fn fence_body(fence: &str) -> Option<usize> {
    let after = &fence[FENCE.len()..];
    let tag = if after.starts_with("json") {
        "json".len()
    } else {
        0
    };
    after[tag..]
        .trim_start()
        .starts_with(['[', '{'])
        .then_some(FENCE.len() + tag)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let keys = EnvelopeKeys::Plain;
    let lead = text.len() - text.trim_start().len();
    let mut pos = 0;
    if mistral::bare_list(text) {
        out.prose.push_str(&text[..lead]);
        pos = list_at(text, lead, "[", 0, None, out, keys);
    }
    while let Ok((at, which)) = scan_tags(text, pos, OPENS) {
        out.prose.push_str(&text[pos..at]);
        pos = match which {
            0 => match fence_body(&text[at..]) {
                Some(len) => list_at(text, at, FENCE, len, Some(FENCE), out, keys),
                None => {
                    out.prose.push_str(FENCE);
                    at + FENCE.len()
                }
            },
            1 => list_at(
                text,
                at,
                TOOL_CALL,
                TOOL_CALL.len(),
                Some("</tool_call>"),
                out,
                keys,
            ),
            _ => list_at(text, at, TOOL_CALLS, TOOL_CALLS.len(), None, out, keys),
        };
    }
    out.prose.push_str(&text[pos..]);
}

/// Streamed: the list after a token, or a bare list of `{"name"` objects
/// at the start (as Mistral's is told), is a call region ([`List`]); a
/// fence is one once JSON follows it ([`fence`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: OPENS,
    bare: Some(mistral::bare),
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    let keys = EnvelopeKeys::Plain;
    match opened_by {
        Some(0) => Box::new(Chosen::new(fence)),
        Some(1) => Box::new(List::new(TOOL_CALL.len(), Some("</tool_call>"), keys)),
        Some(_) => Box::new(List::new(TOOL_CALLS.len(), None, keys)),
        None => Box::new(List::new(0, None, keys)),
    }
}

/// A code fence: the list of calls it holds once JSON follows it (its
/// language tag, `json`, read first), else prose.
fn fence(text: &str, done: bool) -> Choice {
    let tag = &text[FENCE.len()..];
    if !done && tag.len() < "json".len() && "json".starts_with(tag) {
        return Choice::Ends(End::More);
    }
    let from = FENCE.len() + if tag.starts_with("json") { "json".len() } else { 0 };
    match after_spaces(text, from, &["[", "{"], done) {
        (Spaces::Tag(_), _) => Choice::Region(Box::new(List::new(from, Some(FENCE), EnvelopeKeys::Plain))),
        (Spaces::Other(_), _) => Choice::Ends(End::Prose(FENCE.len())),
        (Spaces::More(_), _) => Choice::Ends(End::More),
    }
}
