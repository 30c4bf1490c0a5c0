//! Muse Glimmer: a reply is a run of messages, each addressed by its
//! header, `<|start|>assistant to=RECIPIENT<|message|>BODY<|eom|>` (the
//! last ends with `<|eot|>`; the first has no `<|start|>assistant`, which
//! the prompt wrote). A message to a tool holds its calls in ATEM markup:
//! `<atem:function_calls><atem:invoke name="tool.fn"><atem:parameter
//! name="K">V</atem:parameter></atem:invoke></atem:function_calls>` (vLLM
//! `muse_glimmer_tool_parser.py`, its tests `tests/tool_use/test_muse_glimmer.py`
//! and the chat template `examples/tool_chat_template_muse_glimmer.jinja`).
//!
//! The recipient decides what a body is: `self` is the model's reasoning,
//! kept in the prose as written (like a `<think>` block; an invoke echoed
//! there is no call); `user`, or no recipient, is the answer, its text in
//! the prose; any other recipient is a tool, and the invoke elements in the
//! body are its calls. A value is typed by the tool's schema; without one
//! it is JSON when it reads as JSON, else the text as written (the
//! template's `x-parser: json`, `allow_non_json`). A tool the template
//! offers bare is written `NAME.NAME`: the call is `NAME` when the request
//! lists that and not the doubled name (noted), as vLLM's `_normalize_name`.
//!
//! A message ends at its end token, or where the next message starts when
//! that is missing (vLLM's rule: a reasoning block cut short does not take
//! in the call after it). A header is read after `<|start|>`, and without
//! it at the reply's start and after a message or a framing token alone,
//! where decoding lost the `<|start|>` (`<|eom|>assistant to=f<|message|>`:
//! vLLM's `_MSG_HEADER_RE` takes the recipient without its `<|start|>`).
//! That pattern finds a header anywhere, so `to=NAME` just before a
//! `<|message|>` in the middle of prose or of a message's body is a header
//! too (`Let me check. to=get_weather<|message|>…`: the model lost the
//! `<|eom|><|start|>assistant` before it), and ends the message it
//! interrupts.
//! Invoke elements outside any message (the framing lost in decoding) are
//! calls too, as vLLM reads a text with no framing.

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::Out;
use super::stream::markup::{
    waiting, Choice, Chosen, End, FirstBytes, Lead, LeadTail, Live, LiveCall, LiveJson, ProseUntil, Region,
    Streaming, Token, Until, Waits,
};
use super::tags::{block_end, find_tag, floor, scan_tags};

const START: &str = "<|start|>";
const MESSAGE: &str = "<|message|>";
const EOM: &str = "<|eom|>";
const EOT: &str = "<|eot|>";

/// The tokens that frame messages: the two that start a header or a body,
/// then the two that end a message.
const TOKENS: [&str; 4] = [START, MESSAGE, EOM, EOT];
/// What ends a message's body whose end token is missing.
const NEXT: [&str; 2] = [START, MESSAGE];
const ENDS: [&str; 2] = [EOM, EOT];

/// The longest header read (`assistant to=` and a tool's name): with its
/// `<|message|>`, within the 256 bytes a stream holds to see whether bare
/// markup opens a region.
const MAX_HEADER: usize = 200;

/// The ATEM invoke markup of a tool message's body.
static ATEM: Markup = Markup {
    blocks: &BLOCKS,
    call_ends: &BLOCKS,
    invoke: INVOKE,
    invoke_end: "</atem:invoke>",
    parameter: "<atem:parameter name=",
    parameter_end: "</atem:parameter>",
    head_end: ">",
    escaped: false,
    values: Values::JsonOrText,
    arguments: Arguments::Named,
    stops: &[INVOKE, START, MESSAGE, EOM, EOT],
    doubled_names: true,
    stop_lead: Some(LEAD),
};

const INVOKE: &str = "<atem:invoke name=";
/// The ATEM block tokens.
const BLOCKS: [&str; 2] = ["<atem:function_calls>", "</atem:function_calls>"];

pub(super) fn detect(text: &str) -> bool {
    text.contains("<atem:invoke") || text.contains(MESSAGE) && (text.contains(EOM) || text.contains(EOT))
}

/// Whom a message is addressed to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Recipient<'t> {
    /// No `to=`, or `to=user`: the answer.
    User,
    /// `to=self`: reasoning.
    Reasoning,
    /// A tool.
    Tool(&'t str),
}

/// What a message's header (the text from where it may start to
/// `<|message|>`) says, read as vLLM's `_MSG_HEADER_RE` reads it: an
/// optional `assistant`, then an optional `to=NAME`, spaces between.
enum Header<'t> {
    /// More text could tell.
    More,
    /// A header; the body starts at `body`.
    Of { to: Recipient<'t>, body: usize },
    /// Not a header.
    Not,
}

fn header(text: &str, from: usize, done: bool) -> Header<'_> {
    let rest = &text[from..];
    let mut at = 0;
    let spaces = |at: usize| at + rest[at..].len() - rest[at..].trim_start_matches([' ', '\t']).len();
    at = spaces(at);
    let prefix_of = |word: &str, at: usize| {
        let here = &rest[at..];
        here.len() < word.len() && word.starts_with(here)
    };
    if prefix_of("assistant", at) && !done {
        return Header::More;
    }
    if rest[at..].starts_with("assistant") {
        at = spaces(at + "assistant".len());
    }
    let mut to = Recipient::User;
    if prefix_of("to=", at) && !done {
        return Header::More;
    }
    if rest[at..].starts_with("to=") {
        let name_start = at + "to=".len();
        let name_len = rest[name_start..]
            .bytes()
            .take_while(|&byte| is_name_byte(byte))
            .count();
        to = recipient(&rest[name_start..name_start + name_len]);
        at = spaces(name_start + name_len);
    }
    if at > MAX_HEADER {
        return Header::Not;
    }
    let here = &rest[at..];
    if here.starts_with(MESSAGE) {
        Header::Of {
            to,
            body: from + at + MESSAGE.len(),
        }
    } else if !done && here.len() < MESSAGE.len() && MESSAGE.starts_with(here) {
        Header::More
    } else {
        Header::Not
    }
}

/// Whom a header's `to=NAME` addresses.
fn recipient(name: &str) -> Recipient<'_> {
    match name {
        "self" => Recipient::Reasoning,
        "user" => Recipient::User,
        _ => Recipient::Tool(name),
    }
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-')
}

/// A header in the middle of the text, written just before a
/// `<|message|>` ([`header_before`]).
const LEAD: Lead = Lead {
    token: MESSAGE,
    before: header_before,
};

/// How much of `text`'s end is a header that a `<|message|>` right after
/// it would complete: `to=NAME`, as vLLM's `_MSG_HEADER_RE` finds one
/// anywhere (no space between the name and the token; the spaces before
/// `to=` stay in the text before it, which a stream may have sent). A
/// header is at most [`MAX_HEADER`] bytes long, so only that much of the
/// end is looked at. Held: that header, or `to=`, `to` or `t` at the end,
/// which more text may make one.
fn header_before(text: &str) -> LeadTail {
    let bytes = text.as_bytes();
    if !bytes
        .last()
        .is_some_and(|&last| is_name_byte(last) || last == b'=')
    {
        return LeadTail::default();
    }
    let name = bytes
        .iter()
        .rev()
        .take(MAX_HEADER)
        .take_while(|&&byte| is_name_byte(byte))
        .count();
    let len = name + "to=".len();
    if bytes[..bytes.len() - name].ends_with(b"to=") {
        if len > MAX_HEADER {
            return LeadTail::default();
        }
        return LeadTail {
            whole: if name > 0 { len } else { 0 },
            held: len,
        };
    }
    let held = ["to", "t"]
        .iter()
        .find(|start| text.ends_with(*start))
        .map_or(0, |start| start.len());
    LeadTail { whole: 0, held }
}

/// Where a header written just before the `<|message|>` at `at` starts
/// ([`header_before`]), looking back no further than `from`; `at` when
/// there is none.
fn header_start(text: &str, from: usize, at: usize) -> usize {
    at - header_before(&text[from..at]).whole
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    // The reply's first header has no `<|start|>`: the prompt wrote it.
    let mut pos = 0;
    let mut next = bare_header(text, pos);
    loop {
        if let Some((start, to, body)) = next.take() {
            // The whitespace before a bare header.
            if let Some(before) = text.get(pos..start) {
                outside(before, out);
            }
            pos = message(text, start, to, body, out);
            next = bare_header(text, pos);
            continue;
        }
        let Ok((at, which)) = scan_tags(text, pos, &TOKENS) else {
            break;
        };
        let start = match TOKENS[which] {
            MESSAGE => header_start(text, pos, at),
            _ => at,
        };
        outside(&text[pos..start], out);
        pos = at + TOKENS[which].len();
        next = match TOKENS[which] {
            START => match header(text, pos, true) {
                Header::Of { to, body } => Some((at, to, body)),
                // `<|start|>` alone: taken out.
                _ => bare_header(text, pos),
            },
            // `to=NAME` before it, or no recipient.
            MESSAGE => Some((
                start,
                text[start..at]
                    .strip_prefix("to=")
                    .map_or(Recipient::User, recipient),
                pos,
            )),
            // An end token alone: taken out.
            _ => bare_header(text, pos),
        };
    }
    outside(&text[pos..], out);
}

/// A header without its `<|start|>` at `from`, after whitespace: where the
/// reply starts (the prompt wrote `<|start|>assistant`), and after a message
/// or a framing token alone, where decoding lost it
/// (`<|eom|>assistant to=f<|message|>`: vLLM's `_MSG_HEADER_RE` takes the
/// recipient without its `<|start|>`). The stream reads the same places
/// as a text's start ([`Framed`]). A bare `<|message|>` is the token's.
fn bare_header(text: &str, from: usize) -> Option<(usize, Recipient<'_>, usize)> {
    let lead = from + header_line(&text[from..]);
    match header(text, lead, true) {
        Header::Of { to, body } if !text[lead..].trim_start().starts_with(MESSAGE) => Some((lead, to, body)),
        _ => None,
    }
}

/// Where the line of a header without its `<|start|>` starts in `text`
/// (which opens with the whitespace before it): the line breaks before it
/// are prose, the spaces on its line are the header's.
fn header_line(text: &str) -> usize {
    let blank = &text[..text.len() - text.trim_start().len()];
    blank.trim_end_matches([' ', '\t']).len()
}

/// Text outside any message: prose, and the calls of any invoke element
/// (the framing lost).
fn outside(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &ATEM);
}

/// The message whose header starts at `start` and body at `body`; returns
/// where the text after it starts.
fn message(text: &str, start: usize, to: Recipient<'_>, body: usize, out: &mut Out<'_>) -> usize {
    let end = block_end(text, body, &TOKENS, NEXT.len());
    let (body_end, end) = match end.closed {
        true => (end.body, end.end),
        // Ended by the next message: a header before its `<|message|>` is its.
        false if text[end.body..].starts_with(MESSAGE) => {
            let body_end = header_start(text, body, end.body);
            (body_end, body_end)
        }
        false => (end.body, end.end),
    };
    match to {
        Recipient::Reasoning => out.prose.push_str(&text[start..end]),
        Recipient::User => out.prose.push_str(&text[body..body_end]),
        Recipient::Tool(_) => invoke::parse(&text[body..body_end], out, &ATEM),
    }
    end
}

/// Streamed: a message runs from its header (`<|start|>`, `<|message|>`
/// and the `to=NAME` just before it, or the first header at the reply's
/// start) to its end token or the next message. Text that ends in what may
/// still become `to=NAME` before a `<|message|>` is held until it cannot
/// ([`LEAD`]). A tool message's invoke elements are read as they arrive, by
/// the invoke markup's own reader ([`ToolMessage`]): each call is announced
/// once its name is read, each parameter sent as it closes. An end token
/// is a region of its own, which the parser removes. After each of these
/// regions a header may open the next without its `<|start|>`, as at the
/// reply's start ([`Framed`]).
///
/// ATEM markup outside any message opens an invoke region, as MiniMax-M2's
/// (its parameters sent as each closes), ended by the next message too.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[START, MESSAGE, EOM, EOT, INVOKE, BLOCKS[0], BLOCKS[1]],
    bare: Some(bare),
    region,
    lead: Some(LEAD),
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    let framed: Box<dyn Region> = match opened_by {
        Some(0) => Box::new(Chosen::new(after_start)),
        // `<|message|>`, and the header written before it when there is one.
        Some(1) => Box::new(Chosen::new(at_message)),
        Some(end @ (2 | 3)) => Box::new(Token(TOKENS[end].len())),
        // The invoke markup's own: the invoke, then its block tokens.
        Some(atem) => return invoke::region(&ATEM, Some(atem - 4)),
        None => Box::new(Chosen::new(at_reply_start)),
    };
    Box::new(Framed(framed))
}

/// A message or a framing token alone: after it, a header without its
/// `<|start|>` opens the next message, as at the reply's start
/// ([`bare_header`]).
struct Framed(Box<dyn Region>);

impl Region for Framed {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        self.0.read(text, done, live, out)
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        self.0.wakes(text)
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        self.0.streams(text)
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        self.0.live_json()
    }

    fn bare_after(&self) -> bool {
        true
    }

    fn removed(&self) -> bool {
        self.0.removed()
    }
}

/// Whether the reply opens with a header (` to=self<|message|>`).
fn bare(head: &str, done: bool) -> Option<bool> {
    if head.starts_with(MESSAGE) {
        return Some(false);
    }
    match header(head, 0, done) {
        Header::More => None,
        Header::Of { .. } => Some(true),
        Header::Not => Some(false),
    }
}

fn at_message(text: &str, done: bool) -> Choice {
    choose(text, 0, 0, done)
}

fn after_start(text: &str, done: bool) -> Choice {
    choose(text, START.len(), 0, done)
}

fn at_reply_start(text: &str, done: bool) -> Choice {
    // The region starts where the reply does, whitespace and all.
    choose(
        text,
        text.len() - text.trim_start().len(),
        header_line(text),
        done,
    )
}

/// The message whose header is looked for at `from`, with `lead` bytes of
/// prose before the header.
fn choose(text: &str, from: usize, lead: usize, done: bool) -> Choice {
    match header(text, from, done) {
        Header::More => Choice::Ends(End::More),
        // `<|start|>` alone: what follows is prose.
        Header::Not => Choice::Ends(End::Call(from)),
        Header::Of {
            to: Recipient::Tool(_),
            body,
        } => Choice::Region(Box::new(ToolMessage::new(body))),
        // A message that is prose goes out as it comes, as [`message`]'s
        // parse gives it: a message to the user its body (after the line
        // breaks before its header), the model's reasoning all of it as written.
        Header::Of {
            to: Recipient::User,
            body,
        } => Choice::Region(Box::new(ProseUntil::new(
            message_end(body),
            0..lead,
            body,
            Vec::new(),
        ))),
        Header::Of {
            to: Recipient::Reasoning,
            body,
        } => Choice::Region(Box::new(ProseUntil::new(message_end(body), 0..0, 0, Vec::new()))),
    }
}

/// Where a message whose body starts at `body` ends.
fn message_end(body: usize) -> Until {
    Until::new(body, &ENDS, &NEXT, &[]).with_lead(Some(LEAD))
}

/// A message to a tool, read as it arrives: its body up to the message's
/// end holds invoke elements, each read by the reader of the invoke markup
/// outside messages, one after another, as [`message`]'s parse reads the
/// body. At an invoke the reader cannot name (the parse may read it as no
/// call), it stops: the calls after it come whole when the message ends,
/// so the calls announced are the message's first ones, in order.
struct ToolMessage {
    until: Until,
    /// Where the next invoke element is looked for.
    at: usize,
    /// The invoke element being read: where it starts, and its reader.
    invoke: Option<(usize, Box<dyn Region>)>,
    /// How many invoke elements were opened.
    invokes: usize,
    stopped: bool,
}

/// The first bytes of an invoke element.
const INVOKE_START: FirstBytes = FirstBytes::of_bytes(b"<");

impl ToolMessage {
    fn new(body: usize) -> ToolMessage {
        ToolMessage {
            until: message_end(body),
            at: body,
            invoke: None,
            invokes: 0,
            stopped: false,
        }
    }

    /// Reads the invoke elements of the body so far, `text[..limit]`
    /// (`ended`: the body is whole).
    fn read_invokes(&mut self, text: &str, limit: usize, ended: bool, live: &mut Live, out: &Out<'_>) {
        // The body may end before where an invoke was looked for last: at a
        // header for the next message, which holds no invoke.
        self.at = self.at.min(limit);
        while !self.stopped {
            let Some((start, reader)) = &mut self.invoke else {
                let Some(found) = find_tag(&text[self.at..limit], INVOKE) else {
                    // An invoke tag cut by the end is looked for again.
                    self.at = floor(text, limit.saturating_sub(INVOKE.len() - 1)).max(self.at);
                    return;
                };
                let start = self.at + found;
                if self.invokes > 0 {
                    live.calls.push(LiveCall::default());
                }
                self.invokes += 1;
                self.invoke = Some((start, invoke::region(&ATEM, Some(0))));
                continue;
            };
            let start = *start;
            match reader.read(&text[start..limit.max(start)], ended, live, out) {
                End::More => return,
                End::Call(len) | End::Prose(len) => {
                    self.at = (start + len.max(1)).min(limit.max(start));
                    self.invoke = None;
                    // Each invoke read so far is a call, in order.
                    let named = live.calls.len() == self.invokes
                        && live.calls.last().is_some_and(|call| call.name.is_some());
                    self.stopped = !named;
                }
            }
        }
    }
}

impl Region for ToolMessage {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        let limit = self.until.body_end(text, end);
        self.read_invokes(text, limit, done || end != End::More, live, out);
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        let invokes = match &self.invoke {
            _ if self.stopped => Waits::bytes(FirstBytes::NONE),
            Some((start, reader)) => reader.wakes(&text[*start..])?.after(*start),
            None => waiting(text, self.at, INVOKE_START, INVOKE.len()),
        };
        self.until.waits(text).and(invokes)
    }
}
