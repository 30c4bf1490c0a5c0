//! dots.llm (rednote hilab): MiniMax-M2's invoke elements inside
//! `<dots_function_call>…</dots_function_call>` blocks, several invokes per
//! block and several blocks per reply; or, in a block, a JSON call
//! `{"name": …, "arguments": {…}}` as Hermes writes one between its tags
//! (vLLM `dots_tool_parser.py` and its tests). A block is JSON when `{`
//! is the first thing after its opening token.
//!
//! Values are raw text, trimmed, typed by the tool's schema as MiniMax-M2's
//! are ([`typed`](super::typed)), a property's local `$ref` followed to the
//! schema it names (vLLM's parser resolves `#/$defs/…`). Where toolbridge
//! reads differently, on purpose: a call to a tool the request does not
//! list is kept (vLLM drops it; the Toolbox says it is unknown), and the
//! text after the calls stays prose (vLLM keeps only the text before the
//! first block).

use super::hermes::{self, Tags};
use super::invoke::{self, Markup};
use super::minimax;
use super::scan::Out;
use super::stream::markup::{after_spaces, Choice, Chosen, End, Region, Spaces, Streaming};
use super::tags::Finder;

const OPEN: &str = "<dots_function_call>";
const CLOSE: &str = "</dots_function_call>";

const INVOKE: &str = "<invoke name=";
const INVOKE_END: &str = "</invoke>";

/// The block tokens, taken out of the prose around invoke elements.
const BLOCKS: &[&str] = &[OPEN, CLOSE];

static MARKUP: Markup = minimax::in_blocks(BLOCKS);

/// A block holding a JSON call, read as Hermes reads its blocks.
static JSON_BLOCK: Tags = Tags {
    open: OPEN,
    close: Some(CLOSE),
    tokens: &[],
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

/// Whether the text after a block's opening token is a JSON call.
fn holds_json(after: &str) -> bool {
    after.trim_start().starts_with('{')
}

/// The invoke markup around the blocks that hold JSON; each of those read
/// as Hermes reads a block: to its closing token, or (when that is
/// missing) to the next opening token, the call then ending with its JSON.
///
/// A block token inside an invoke element (one whose `</invoke>` comes
/// after it, before the next invoke) is the invoke's text, as a stream
/// reading the invoke takes it.
pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut opens = Finder::new(text, OPEN);
    let mut invokes = Finder::new(text, INVOKE);
    let mut invoke_ends = Finder::new(text, INVOKE_END);
    // The last invoke element starting before the block looked at.
    let mut last_invoke: Option<usize> = None;
    let (mut pos, mut from) = (0, 0);
    while let Some(at) = opens.from(from) {
        from = at + OPEN.len();
        if !holds_json(&text[from..]) {
            continue;
        }
        while let Some(start) = invokes
            .from(last_invoke.map_or(pos, |last| last + 1).max(pos))
            .filter(|&start| start < at)
        {
            last_invoke = Some(start);
        }
        let inside = last_invoke.filter(|&start| start >= pos).is_some_and(|start| {
            let close = invoke_ends.from(start);
            let next = invokes.from(start + 1);
            close.is_some_and(|close| close > at && next.is_none_or(|next| close < next))
        });
        if inside {
            continue;
        }
        invoke::parse(&text[pos..at], out, &MARKUP);
        let next_open = opens.from(from).unwrap_or(text.len());
        let end = text[from..next_open]
            .find(CLOSE)
            .map_or(next_open, |close| from + close + CLOSE.len());
        hermes::parse_tagged(&text[at..end], out, &JSON_BLOCK);
        (pos, from) = (end, end);
    }
    invoke::parse(&text[pos..], out, &MARKUP);
}

/// Streamed: an invoke element is a call's region, as MiniMax-M2's is; an
/// opening token opens a JSON call's region ([`hermes::tagged_region`])
/// when `{` follows it, else a region of the token alone; a closing token
/// is a region of its own.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[INVOKE, OPEN, CLOSE],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(1) => Box::new(Chosen::new(block)),
        _ => invoke::region(&MARKUP, opened_by),
    }
}

/// A block's opening token: a JSON call's region once `{` follows it, the
/// token alone when anything else does.
fn block(text: &str, done: bool) -> Choice {
    match after_spaces(text, OPEN.len(), &["{"], done) {
        (Spaces::Tag(_), _) => Choice::Region(hermes::tagged_region(&JSON_BLOCK)),
        (Spaces::Other(_), _) => Choice::Ends(End::Call(OPEN.len())),
        (Spaces::More(_), _) => Choice::Ends(End::More),
    }
}
