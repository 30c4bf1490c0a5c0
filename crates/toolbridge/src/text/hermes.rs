//! Hermes, Qwen2.5, Qwen3 (and Granite 4, Ernie 4.5): `<tool_call>{"name": …,
//! "arguments": {…}}</tool_call>`, one block per call (vLLM
//! `hermes_tool_parser.py`, ollama `model/parsers/qwen3.go`). Other
//! families write the same envelope between tags of their own ([`Tags`]:
//! LongCat, InternLM, GigaChat, Granite 20B FC).
//!
//! Streamed, a call runs from `<tool_call>` to `</tool_call>`, or to the
//! next `<tool_call>` when its closing tag is missing; its arguments stream
//! once the envelope has named the tool ([`live_head`]).

use crate::call::repair;

use super::envelope::{self, Cut, EnvelopeKeys, Found};
use super::scan::{json_at, push_prose_without, recovered, Out};
use super::stream::markup::{FirstBytes, Head, HeadJson, Region, Until, Waits};
use super::tags::Finder;

/// The detector, the parser and the stream of a family that writes
/// Hermes's envelope between [`Tags`] of its own (`$tags`, a static): its
/// calls read by [`parse_tagged`] and streamed by [`tagged_region`].
macro_rules! tagged_family {
    ($tags:ident) => {
        pub(super) fn detect(text: &str) -> bool {
            text.contains($tags.open)
        }

        pub(super) fn parse(text: &str, out: &mut super::scan::Out<'_>) {
            super::hermes::parse_tagged(text, out, &$tags);
        }

        /// Streamed as Hermes streams ([`super::hermes::tagged_region`]).
        pub(super) const STREAM: super::stream::markup::Streaming = super::stream::markup::Streaming {
            opens: &[$tags.open],
            bare: None,
            region,
            lead: None,
        };

        fn region(_: Option<usize>) -> Box<dyn super::stream::markup::Region> {
            super::hermes::tagged_region(&$tags)
        }
    };
}
pub(super) use tagged_family;

/// The tags around one call's JSON envelope.
pub(super) struct Tags {
    pub open: &'static str,
    /// `None`: the call ends with its JSON (GigaChat).
    pub close: Option<&'static str>,
    /// Other tokens of the markup, taken out of the prose.
    pub tokens: &'static [&'static str],
}

static TAGS: Tags = Tags {
    open: "<tool_call>",
    close: Some("</tool_call>"),
    tokens: &[],
};

tagged_family!(TAGS);

/// The calls of a text whose envelopes stand between `tags`; a call whose
/// closing tag is missing ends with its JSON (noted).
pub(super) fn parse_tagged(text: &str, out: &mut Out<'_>, tags: &Tags) {
    let open_tag = tags.open;
    let close_tag = tags.close.unwrap_or_default();
    let mut opens = Finder::new(text, open_tag);
    let mut closes = tags.close.map(|close| Finder::new(text, close));
    let mut pos = 0;
    while let Some(open) = opens.from(pos) {
        prose(&text[pos..open], tags, out);
        let body = open + open_tag.len();
        let next_open = opens.from(body).unwrap_or(text.len());
        let close = closes.as_mut().and_then(|closes| closes.from(body));
        match close.filter(|&close| close < next_open) {
            Some(close) => {
                let body = &text[body..close];
                block(
                    body,
                    body,
                    &text[open..close + close_tag.len()],
                    out,
                    Vec::new(),
                    tags,
                    EnvelopeKeys::Plain,
                );
                pos = close + close_tag.len();
            }
            None => pos = unclosed_block(text, open, next_open, out, tags, EnvelopeKeys::Plain),
        }
    }
    prose(&text[pos..], tags, out);
}

/// A block whose closing tag is missing, from its opening tag at `open` to
/// `end` (the next block, or the text's end): weak models drop the closing
/// tag, so the call is the JSON value after the opening one (noted when the
/// markup has a closing tag); without JSON the block is prose, noted.
/// Returns where the text after the call starts.
pub(super) fn unclosed_block(
    text: &str,
    open: usize,
    end: usize,
    out: &mut Out<'_>,
    tags: &Tags,
    keys: EnvelopeKeys,
) -> usize {
    let body = open + tags.open.len();
    match json_at(&text[body..end]) {
        Some(json) => {
            let notes = match tags.close {
                Some(close) => vec![recovered(
                    "missing-close-tag",
                    format!("the call's {close} is missing; the call ends with its JSON"),
                )],
                None => Vec::new(),
            };
            let json_end = end - json.rest.len();
            block(
                &text[body..end],
                json.text,
                &text[open..json_end],
                out,
                notes,
                tags,
                keys,
            );
            json_end
        }
        None => {
            out.not_a_call(tags.open, &text[open..end], "no JSON follows it");
            end
        }
    }
}

/// Text outside the calls, without the markup's other tokens.
fn prose(text: &str, tags: &Tags, out: &mut Out<'_>) {
    match tags.tokens {
        [] => out.prose.push_str(text),
        tokens => push_prose_without(text, tokens, out),
    }
}

/// One block's JSON, `{"name", "arguments"}`: `body` is the text after the
/// opening tag (up to the closing one), `json` the envelope in it, `markup`
/// the whole block. An envelope that names its tool before its arguments
/// is that call, named as its head says (see [`envelope`]),
/// as a stream announced it.
pub(super) fn block(
    body: &str,
    json: &str,
    markup: &str,
    out: &mut Out<'_>,
    notes: Vec<super::Note>,
    tags: &Tags,
    keys: EnvelopeKeys,
) {
    let json = json.trim();
    if let Found::Head(head) = envelope::head(body, keys) {
        // The head skips JSON whitespace to the `{` where `json` starts too.
        let lead = body.len() - body.trim_start().len();
        out.call_headed(json, head.at - lead, &head, notes, keys);
        return;
    }
    let Err(mut notes) = out.call_exact_envelope(json, notes, keys) else {
        return;
    };
    let why = match repair(json, None, out.limits) {
        Ok(envelope) => {
            notes.extend(envelope.notes);
            let mut value = keys.normalize(envelope.value);
            envelope::drop_late_id(&mut value, &mut notes);
            match out.call_envelope(value, notes) {
                Ok(()) => return,
                Err(value) => not_an_envelope(&value),
            }
        }
        Err(err) => err.to_string(),
    };
    out.not_a_call(tags.open, markup, &why);
}

fn not_an_envelope(value: &serde_json::Value) -> String {
    let text = super::scan::excerpt(&value.to_string());
    format!("{text} is not a {{\"name\", \"arguments\"}} object")
}

/// A call's region between `tags`, as Hermes streams one.
pub(super) fn tagged_region(tags: &'static Tags) -> Box<dyn Region> {
    Box::new(HeadJson::new(
        Until::new(
            tags.open.len(),
            tags.close.as_slice(),
            std::slice::from_ref(&tags.open),
            &[],
        ),
        live_head,
    ))
}

/// The head of the envelope in a block's body, for the stream: the call is
/// announced, and its arguments stream, once the envelope has named it.
fn live_head(body: &str) -> Head {
    live_head_keyed(body, EnvelopeKeys::Plain)
}

/// [`live_head`] for an envelope whose keys are named as `keys` says.
pub(super) fn live_head_keyed(body: &str, keys: EnvelopeKeys) -> Head {
    match envelope::head(body, keys) {
        // Inside a string only its closing quote moves the head on.
        Found::More(Cut::String { escaped }) => {
            Head::More(Some(Waits::scanning(Some((b'"', escaped)), FirstBytes::NONE)))
        }
        Found::More(Cut::Other) => Head::More(None),
        Found::Head(head) => Head::Json {
            name: head.name,
            id: head.id,
            at: head.at,
        },
        Found::Whole => Head::Whole,
    }
}
