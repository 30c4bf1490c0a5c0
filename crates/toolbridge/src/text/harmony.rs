//! gpt-oss, in OpenAI's Harmony format: messages `<|start|>assistant
//! <|channel|>CHANNEL to=RECIPIENT <|constrain|>json<|message|>CONTENT
//! <|end|>` (or `<|call|>` after a call, `<|return|>` after the answer). A
//! call is a message to `functions.NAME`, its content the JSON arguments;
//! the recipient may sit in the role header (`<|start|>assistant
//! to=functions.NAME<|channel|>commentary json<|message|>`) or in the
//! channel header, and `<|constrain|>` may or may not follow a space
//! (openai/harmony `docs/format.md`, vLLM `openai_tool_parser.py` on top
//! of `openai_harmony`). A message to a built-in recipient
//! (`browser.search`, `python`, `container.exec`) is not a function call:
//! it stays in the prose with a note. The `analysis` channel is the
//! model's reasoning: kept in the prose as written, like a `<think>`
//! block; other messages give their content to the prose, markup removed.

use super::scan::{recovered, Out};
use super::stream::markup::{
    could_be, first_of, object_after, shortest, waiting, End, FirstBytes, Head, Live, LiveArguments,
    LiveJson, Region, Streaming, Waits,
};
use super::tags::{scan_tags, Finder};

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
const ENDS: [&str; 3] = ["<|end|>", "<|call|>", "<|return|>"];
/// What ends a streamed message: the next header, or an end token.
const STOPS: [&str; 5] = [START, CHANNEL, ENDS[0], ENDS[1], ENDS[2]];
/// How many of `STOPS` are headers.
const HEADERS: usize = 2;
/// The furthest a header's `<|message|>` starts from the header's start
/// (its `<|start|>` or `<|channel|>`, or the rest of a role header): a
/// header is a role, a channel, a recipient and a `<|constrain|>`, under
/// a hundred bytes with a long tool name. A token with no `<|message|>`
/// that close is text, so that a stream holds at most this much before it
/// knows.
const MAX_HEADER: usize = 256;

pub(super) fn detect(text: &str) -> bool {
    text.contains(MESSAGE) && (text.contains(CHANNEL) || text.contains("to=functions."))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut messages = Finder::new(text, MESSAGE);
    let mut starts = Finder::new(text, START);
    let mut channels = Finder::new(text, CHANNEL);
    let mut ends = ENDS.map(|token| Finder::new(text, token));
    let mut pos = 0;
    while let Some(message) = messages.from(pos) {
        // The prompt ends with `<|start|>assistant`, so the model's text may
        // open with the rest of a role header (` to=functions.NAME`), and so
        // may the text after a message; a header token after a token that
        // was no header's opens none.
        let mut from = pos;
        let mut bare = true;
        let header_start = loop {
            let header_token = [starts.from(from), channels.from(from)]
                .into_iter()
                .flatten()
                .filter(|&at| at < message)
                .min();
            let before = &text[from..header_token.unwrap_or(message)];
            if bare && is_header(before) && message - from <= MAX_HEADER {
                break from;
            }
            out.prose.push_str(before);
            match header_token {
                Some(at) if message - at > MAX_HEADER => {
                    // No `<|message|>` close enough: the token is text.
                    let token = if text[at..].starts_with(START) {
                        START
                    } else {
                        CHANNEL
                    };
                    out.prose.push_str(token);
                    from = at + token.len();
                    bare = false;
                }
                Some(at) => break at,
                None => break message,
            }
        };
        let header = &text[header_start..message];
        let content_start = message + MESSAGE.len();
        let end_token = ends
            .iter_mut()
            .enumerate()
            .filter_map(|(kind, finder)| Some((finder.from(content_start)?, kind)))
            .min();
        let next_header = [starts.from(content_start), channels.from(content_start)]
            .into_iter()
            .flatten()
            .min();
        let (content_end, closed) = match (end_token, next_header) {
            (Some((end, kind)), next) if next.is_none_or(|next| end < next) => {
                pos = end + ENDS[kind].len();
                (end, true)
            }
            (_, next) => {
                let end = next.unwrap_or(text.len());
                pos = end;
                (end, false)
            }
        };
        let content = &text[content_start..content_end];
        message_of(header, content, &text[header_start..pos], closed, out);
    }
    out.prose.push_str(&text[pos..]);
}

/// Whether text before a header token is itself header (the rest of the
/// role header the prompt began).
fn is_header(text: &str) -> bool {
    let text = text.trim_start();
    !text.is_empty() && (text.starts_with("to=") || text.starts_with("assistant"))
}

/// The word after `key` in a header, up to a space or a token.
fn field<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let at = header.find(key)?;
    let rest = &header[at + key.len()..];
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|word| !word.is_empty())
}

/// What a message is, by its header.
enum Kind<'h> {
    /// A call of the function `functions.NAME`.
    Call(&'h str),
    /// A message to a built-in tool (`browser.search`): kept in the prose
    /// as written, with a note.
    BuiltIn(&'h str),
    /// The `analysis` channel's reasoning: kept in the prose as written.
    Reasoning,
    /// Any other message: its content is prose.
    Content,
}

fn kind(header: &str) -> Kind<'_> {
    match field(header, "to=") {
        Some(recipient) => match recipient.strip_prefix("functions.") {
            Some(name) if !name.is_empty() => Kind::Call(name),
            _ => Kind::BuiltIn(recipient),
        },
        None if field(header, CHANNEL) == Some("analysis") => Kind::Reasoning,
        None => Kind::Content,
    }
}

fn message_of(header: &str, content: &str, whole: &str, closed: bool, out: &mut Out<'_>) {
    match kind(header) {
        Kind::Call(name) => {
            let mut notes = Vec::new();
            if !closed {
                notes.push(recovered("missing-close-tag", "the call's <|call|> is missing"));
            }
            let arguments = content.trim();
            out.call_text(
                name,
                None,
                if arguments.is_empty() { "{}" } else { arguments },
                notes,
            );
        }
        Kind::BuiltIn(recipient) => out.not_a_call(
            "to=",
            whole,
            &format!("{recipient} is a built-in tool's recipient, not a function"),
        ),
        Kind::Reasoning => out.prose.push_str(whole),
        Kind::Content => out.prose.push_str(content),
    }
}

/// Streamed: a message runs from its header token (`<|start|>` or
/// `<|channel|>`, or the rest of a role header at the start of the text or
/// after a message, as the parse reads one there) to its end token, or to
/// the next header token when that is missing; a call's arguments stream
/// from `<|message|>`. A `<|message|>` without a header opens a message
/// too, whose content is prose, as the parse reads it. A header with no
/// `<|message|>` within [`MAX_HEADER`] bytes is text: the stream holds no
/// more than that before it knows.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[START, CHANNEL, MESSAGE],
    bare: Some(bare),
    region,
    lead: None,
};

/// Whether the text opens with the rest of a role header (` to=…`,
/// `assistant…`) the prompt began.
fn bare(head: &str, done: bool) -> Option<bool> {
    for word in ["to=", "assistant"] {
        if head.starts_with(word) {
            return Some(true);
        }
        if !done && could_be(head, word) {
            return None;
        }
    }
    Some(false)
}

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    Box::new(Message {
        opened_by: opened_by.map(|which| STREAM.opens[which]),
        content: None,
        scanned: 0,
        prose_at: None,
        arguments: LiveArguments::Undecided,
    })
}

/// One message being read.
struct Message {
    /// The token it opened with; `None` for the rest of a role header.
    opened_by: Option<&'static str>,
    /// Where its content starts, once `<|message|>` was seen.
    content: Option<usize>,
    scanned: usize,
    /// For a message that is no call (once its header is read), where the
    /// prose handed on so far ends: it starts at the content, or at the
    /// region's start for one kept as written.
    prose_at: Option<usize>,
    /// A function call's arguments, streaming once its header is read (a
    /// message that is no call, or holds no JSON object, is read whole).
    arguments: LiveArguments,
}

impl Region for Message {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, _: &Out<'_>) -> End {
        let content = match self.content {
            Some(content) => content,
            None => {
                let from = self.scanned.saturating_sub(MESSAGE.len());
                match first_of(text, from, &[MESSAGE]) {
                    Some((at, _)) if at <= MAX_HEADER => {
                        let content = at + MESSAGE.len();
                        self.content = Some(content);
                        self.scanned = content;
                        self.prose_at = match kind(&text[..at]) {
                            Kind::Call(_) => None,
                            Kind::Content => Some(content),
                            Kind::BuiltIn(_) | Kind::Reasoning => Some(0),
                        };
                        content
                    }
                    Some(_) => return self.no_header(text),
                    // A `<|message|>` still to come starts too far.
                    None if text.len() >= MAX_HEADER + MESSAGE.len() => return self.no_header(text),
                    None => {
                        self.scanned = text.len();
                        return if done { End::Call(text.len()) } else { End::More };
                    }
                }
            }
        };
        // One scan for the message's end and the next header (listed
        // first, so that it wins where both start at one place), resuming
        // where a token could still be cut by the push.
        let (end, limit, settled) = match scan_tags(text, self.scanned.max(content), &STOPS) {
            Ok((at, which)) if which < HEADERS => (End::Call(at), at, at),
            Ok((at, which)) => (End::Call(at + STOPS[which].len()), at, at),
            Err(resume) => {
                self.scanned = resume;
                let end = if done { End::Call(text.len()) } else { End::More };
                (end, text.len(), resume)
            }
        };
        // A message that is no call is prose as it comes, up to where an
        // end token may start: its content, or all of it as written.
        match &mut self.prose_at {
            None => self.stream_call(text, content, limit, live),
            Some(prose_at) => live.hand_prose(text, prose_at, settled),
        }
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        // A call whose arguments ended, or that holds no JSON object: its
        // end. (A message that is prose is read with every piece, to send it.)
        match &self.arguments {
            LiveArguments::Whole => self.stops(text),
            LiveArguments::Json(json) if json.ended() => self.stops(text),
            _ => None,
        }
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        match &self.arguments {
            LiveArguments::Json(json) => json.streams(text)?.and(self.stops(text)?),
            _ => None,
        }
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        self.content?;
        Some((self.arguments.live_json()?, STOP_STARTS))
    }

    /// The parse reads the rest of a role header (` to=functions.f`)
    /// wherever a message may start, after a message as at the text's start.
    fn bare_after(&self) -> bool {
        true
    }
}

/// The first bytes of the tokens that end a message.
const STOP_STARTS: FirstBytes = FirstBytes::of_list(&STOPS);

impl Message {
    /// The region's start was no header ([`MAX_HEADER`]): its token is
    /// text, or the rest of a role header is, up to the first token that
    /// opens a message.
    fn no_header(&self, text: &str) -> End {
        End::Prose(match self.opened_by {
            Some(token) => token.len(),
            None => match scan_tags(text, 0, STREAM.opens) {
                Ok((at, _)) => at,
                Err(resume) => resume,
            },
        })
    }

    /// The first bytes of the tokens that end the message, when the look
    /// for them stopped with none left in `text`.
    fn stops(&self, text: &str) -> Option<Waits> {
        let content = self.content?;
        Some(waiting(
            text,
            self.scanned.max(content),
            STOP_STARTS,
            shortest(STOPS),
        ))
    }

    /// Streams the arguments of a message to `functions.NAME` (read as
    /// [`message_of`] reads the header), up to `limit`, where its content
    /// ends so far.
    fn stream_call(&mut self, text: &str, content: usize, limit: usize, live: &mut Live) {
        self.arguments.read(text, limit, live, || {
            match kind(&text[..content - MESSAGE.len()]) {
                Kind::Call(name) => object_after(&text[..limit], content, name, None),
                _ => Head::Whole,
            }
        });
    }
}
