//! Inkling: a reply is a run of typed blocks, each opened by a content
//! token and ended by `<|end_message|>` (or `<|content_model_end_sampling|>`),
//! a message usually opened by `<|message_model|>`:
//! `<|message_model|><|content_thinking|>…<|end_message|>`,
//! `<|message_model|><|content_text|>…<|end_message|>`,
//! `<|message_model|>NAME<|content_invoke_tool_json|>{"name": …, "args": {…}}<|end_message|>`
//! (vLLM `vllm/parser/inkling.py` and its tests
//! `tests/parser/engine/test_inkling.py`; the renderer
//! `vllm/renderers/inkling_encoding.py` writes the call's name after
//! `<|message_model|>` as the message's author).
//!
//! A call is a `<|content_invoke_tool_json|>` block: a Hermes envelope
//! whose arguments are under `args` ([`EnvelopeKeys::Inkling`]). A thinking
//! block is the model's reasoning: kept in the prose as written, like a
//! `<think>` block. Text blocks, and the visible tool-text and tool-error
//! blocks, give their text to the prose, markup removed. The name between
//! `<|message_model|>` and a content token is the message's header (its
//! author), left out: a note says so unless it names the block's call. A
//! header is a run of name characters right before a content token, at the
//! start of the reply (generation begins after a `<|message_model|>` the
//! prompt wrote) or after `<|message_model|>`; other text there is prose,
//! as vLLM makes text that a block's end follows. A block whose end token
//! is missing ends where the next block starts.

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::envelope::EnvelopeKeys;
use super::hermes::{self, Tags};
use super::scan::Out;
use super::stream::markup::{
    Choice, Chosen, End, Head, HeadJson, ProseUntil, Region, Streaming, Token, Until,
};
use super::tags::{self, scan_tags, BlockEnd};

const MODEL: &str = "<|message_model|>";
const TEXT: &str = "<|content_text|>";
const THINKING: &str = "<|content_thinking|>";
const TOOL_JSON: &str = "<|content_invoke_tool_json|>";
const TOOL_TEXT: &str = "<|content_invoke_tool_text|>";
const TOOL_ERROR: &str = "<|content_tool_error|>";
const END: &str = "<|end_message|>";
const END_SAMPLING: &str = "<|content_model_end_sampling|>";

/// Every token: the ones that start a block (the message's, then the
/// content tokens), then the two that end one. A block whose end token is
/// missing ends before the next of the first six.
const TOKENS: [&str; 8] = [
    MODEL,
    TEXT,
    THINKING,
    TOOL_JSON,
    TOOL_TEXT,
    TOOL_ERROR,
    END,
    END_SAMPLING,
];
/// The tokens that start a block.
const STARTS: [&str; 6] = [MODEL, TEXT, THINKING, TOOL_JSON, TOOL_TEXT, TOOL_ERROR];
/// The content tokens.
const CONTENT: [&str; 5] = [TEXT, THINKING, TOOL_JSON, TOOL_TEXT, TOOL_ERROR];
/// The tokens that end a block.
const ENDS: [&str; 2] = [END, END_SAMPLING];

/// The longest header read as a name (tool names are far shorter).
const MAX_HEADER: usize = 128;

static CALL_TAGS: Tags = Tags {
    open: TOOL_JSON,
    close: Some(END),
    tokens: &[],
};

pub(super) fn detect(text: &str) -> bool {
    [TOOL_JSON, MODEL, THINKING, TEXT]
        .iter()
        .any(|token| text.contains(token))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut pos = 0;
    // Where a header may stand: the reply's start, or after `<|message_model|>`.
    let mut header_at = Some(0);
    while let Ok((at, which)) = scan_tags(text, pos, &TOKENS) {
        let token = TOKENS[which];
        let before = &text[pos..at];
        let body = at + token.len();
        if !CONTENT.contains(&token) {
            out.prose.push_str(before);
            header_at = (token == MODEL).then_some(body);
            pos = body;
            continue;
        }
        let header = match header_at {
            Some(from) if from == pos => header_in(before),
            _ => None,
        };
        header_at = None;
        let name = match header {
            Some(name) => {
                out.prose.push_str(&before[..before.len() - name.len()]);
                name
            }
            None => {
                out.prose.push_str(before);
                ""
            }
        };
        let calls = out.calls.len();
        pos = match token {
            THINKING => {
                let end = block_end(text, body).end;
                out.prose.push_str(&text[at..end]);
                end
            }
            TOOL_JSON => call(text, at, body, out),
            _ => body,
        };
        let named_call = out.calls.len() > calls && out.calls.last().is_some_and(|call| call.name == name);
        if !name.is_empty() && !named_call {
            out.notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: MODEL.into(),
                },
                Pointer::root(),
                format!(
                    "{name:?} before {token} is the message's header (its author's name); it was left out"
                ),
            ));
        }
    }
    out.prose.push_str(&text[pos..]);
}

/// The header ending `before` (the text from where one may stand to a
/// content token), after whitespace: a run of name characters, no longer
/// than [`MAX_HEADER`]; `Some("")` when there is only whitespace.
fn header_in(before: &str) -> Option<&str> {
    let name = before.trim_start();
    (name.len() <= MAX_HEADER && name.bytes().all(is_name_byte)).then_some(name)
}

/// The bytes of a tool's name as a header writes it.
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b':' | b'/')
}

/// Where the block whose content starts at `body` ends.
fn block_end(text: &str, body: usize) -> BlockEnd {
    tags::block_end(text, body, &TOKENS, STARTS.len())
}

/// The call of the `<|content_invoke_tool_json|>` block at `at` (its JSON
/// from `body`); returns where the text after it starts.
fn call(text: &str, at: usize, body: usize, out: &mut Out<'_>) -> usize {
    let end = block_end(text, body);
    if !end.closed {
        // Cut short, or the end token lost: as a Hermes call whose closing
        // tag is missing.
        return hermes::unclosed_block(text, at, end.body, out, &CALL_TAGS, EnvelopeKeys::Inkling);
    }
    let content = &text[body..end.body];
    hermes::block(
        content,
        content,
        &text[at..end.end],
        out,
        Vec::new(),
        &CALL_TAGS,
        EnvelopeKeys::Inkling,
    );
    end.end
}

/// Streamed: a block runs from its content token (with the message token
/// and header before it) to its end token, or to the next block's start; a
/// call's arguments stream once its envelope has named it (as Hermes's).
/// The tokens of visible blocks, and the end tokens, are regions of their
/// own, which the parser removes; their text streams as prose.
pub(super) const STREAM: Streaming = Streaming {
    opens: &TOKENS,
    bare: Some(bare),
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by.map(|which| TOKENS[which]) {
        Some(MODEL) => Box::new(Chosen::new(after_message)),
        None | Some(THINKING | TOOL_JSON) => Box::new(Chosen::new(at_content)),
        Some(token) => Box::new(Token(token.len())),
    }
}

/// Whether the reply opens with a header: a name right before a content
/// token.
fn bare(head: &str, done: bool) -> Option<bool> {
    match header_then_content(head, 0, done) {
        Header::More => None,
        Header::Content { .. } => Some(true),
        Header::None => Some(false),
    }
}

/// What follows a header's place.
enum Header {
    /// More text could tell.
    More,
    /// A header (maybe empty) starting at `header`, then the content token
    /// `CONTENT[which]`, the block's content starting at `body`.
    Content {
        which: usize,
        header: usize,
        body: usize,
    },
    /// No header and no content token: the place holds prose.
    None,
}

/// What follows `from` in `text`: a name (after whitespace, as
/// [`header_in`] reads it) and a content token, or not.
fn header_then_content(text: &str, from: usize, done: bool) -> Header {
    let rest = text[from..].trim_start();
    let from = text.len() - rest.len();
    let name = rest.bytes().take_while(|&byte| is_name_byte(byte)).count();
    if name > MAX_HEADER {
        return Header::None;
    }
    let after = &rest[name..];
    if after.is_empty() {
        return if done { Header::None } else { Header::More };
    }
    for (which, token) in CONTENT.iter().enumerate() {
        if after.starts_with(token) {
            return Header::Content {
                which,
                header: from,
                body: from + name + token.len(),
            };
        }
    }
    let cut = !done && CONTENT.iter().any(|token| token.starts_with(after));
    if cut {
        Header::More
    } else {
        Header::None
    }
}

/// A block opened by `<|message_model|>`: the header, then the content.
fn after_message(text: &str, done: bool) -> Choice {
    choose(text, MODEL.len(), done)
}

/// A block opened by its content token, or by a header at the reply's start.
fn at_content(text: &str, done: bool) -> Choice {
    choose(text, 0, done)
}

fn choose(text: &str, from: usize, done: bool) -> Choice {
    match header_then_content(text, from, done) {
        Header::More => Choice::Ends(End::More),
        // `<|message_model|>` alone: what follows is prose.
        Header::None => Choice::Ends(End::Call(from)),
        Header::Content { which, header, body } => {
            let until = Until::new(body, &ENDS, &STARTS, &[]);
            match CONTENT[which] {
                // Prose as it comes, as the parse gives it: the whitespace
                // before the header, then the block as written.
                THINKING => {
                    let token = body - THINKING.len();
                    Choice::Region(Box::new(ProseUntil::new(until, from..header, token, Vec::new())))
                }
                TOOL_JSON => Choice::Region(Box::new(HeadJson::new(until, live_head))),
                _ => Choice::Ends(End::Call(body)),
            }
        }
    }
}

fn live_head(body: &str) -> Head {
    hermes::live_head_keyed(body, EnvelopeKeys::Inkling)
}
