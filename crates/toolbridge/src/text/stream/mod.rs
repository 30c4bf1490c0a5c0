//! Raw-text tool calls streamed: [`TextStream`] reads a model's text as it
//! arrives, token by token, and sends the same [`CallEvent`]s as the
//! provider streams, plus [`CallEvent::Text`] for the prose.
//!
//! How the text is cut (the rules are data each family supplies, in
//! `markup.rs`):
//!
//! - **Prose** is released as soon as it can no longer be the start of a
//!   token: what is held back is at most the longest token of the family
//!   (or of the reasoning tags), never more. At the start of the text (and
//!   after a reasoning block) families whose calls may open without a token
//!   (a bare JSON call, a pythonic list) hold the first few bytes until it
//!   is clear (at most 256).
//! - **A call region** runs from its opening token to its closing one (or
//!   to the next opening token, or the end of the text, when the closing one
//!   is missing — then the call is noted as the whole-text parse notes it).
//!   `Started` is sent once the reader knows the name; argument text streams
//!   as `ArgumentsDelta`s through the [`PartialJson`](crate::call::PartialJson)
//!   parser. Families whose values are JSON stream the model's own text; for
//!   the others (Qwen3-Coder's and GLM's parameters, pythonic calls) the
//!   deltas are the canonical JSON of the arguments, one parameter at a time
//!   as each completes, typed by the tool's schema. When the region ends the
//!   family's parser reads it, and the call is `Finished` with exactly the
//!   call [`parse`](super::parse) gives for the whole text; an
//!   `ArgumentsReplaced` comes first when the parser's arguments differ from
//!   the text streamed (repaired, or typed by the schema).
//! - **A message that is prose** (a family's answer to the user, its
//!   reasoning channel kept as written: Harmony, Muse Glimmer, Inkling,
//!   Gemma 4) is a region too, and its reader hands the prose on as it
//!   comes (`Live::prose`), up to where its end token may start (and, in a
//!   channel whose calls count when it never closes, up to its first
//!   call); what the family's parser gives for the region when it ends
//!   begins with what was sent, and only the rest goes out then.
//! - **Reasoning** (`<think>…</think>`, `[THINK]…[/THINK]`, `<|START_THINKING|>…`,
//!   `<seed:think>…`): a closed
//!   block is prose. Whether a call inside a block is a call needs
//!   hindsight — it is, if the block never closes. So a block's text is
//!   released as prose up to its first token of a call; from there it is
//!   held until the block closes (then it is all prose) or the text ends
//!   (then its calls are read). That hold is bounded by
//!   [`Limits::max_bytes`] only, like the text itself.
//! - A closing tag with no opening one (`</think>` after reasoning the
//!   chat template opened in the prompt) makes the text before it
//!   reasoning in the whole-text parse; a stream cannot wait for it. Calls
//!   before it were already sent, and markup read before it is out of the
//!   prose sent: a note in [`TextStream::notes`] says so.
//! - **Pieces left unread.** Inside a call, each family's reader says what
//!   it waits for (the first bytes of its tags; inside a quoted value, the
//!   unescaped closing quote): a piece without any of it is appended to the
//!   region without reading, and read with the next piece that brings one.
//!   While a JSON call's arguments stream, a piece that cannot end them (nor
//!   start a reasoning tag) goes from [`push`](TextStream::push) straight
//!   onto the region, the call's argument text and the partial parser, and
//!   out as one `ArgumentsDelta` ([`push_reusing`](TextStream::push_reusing)
//!   writes the caller's last one again in place). Either way the events are
//!   those of reading every piece.
//! - **Family detection** (`family = None`): decided at the first token (or
//!   bare markup) of any family, once 128 bytes past it have arrived (or the
//!   text ended), by [`Family::detect`] on the text so far; prose before it
//!   is released as it comes.
//!
//! For every family and any split of a text into pieces, the calls and the
//! prose (the `Text` events joined, trimmed) are those of the whole-text
//! parse, apart from the closing tag without opening one above.

mod events;
pub(super) mod markup;
mod segment;
mod waits;

use crate::call::CallEvent;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;
use crate::tool::Tool;

use super::reasoning::{CLOSE, OPEN, STARTS as THINK_STARTS, TAGS as THINK_TAGS};
use super::scan::Out;
use super::tags::StartOf;
use super::Family;
use events::Sink;
use segment::{Found, Rules, Segment};

/// How far past the first token of any family the text is read before the
/// family is decided (enough for GLM's name and `<arg_key>`, Qwen3-Coder's
/// `<function=NAME>`).
const DETECT_WINDOW: usize = 128;

/// Reads a model's raw text as it arrives and sends call events.
///
/// ```
/// use toolbridge::call::CallEvent;
/// use toolbridge::text::{Family, TextStream};
/// let mut stream = TextStream::new(Some(Family::Hermes), None);
/// let mut events = Vec::new();
/// for piece in ["Let me look.<tool", "_call>{\"name\": \"get_weather\", \"argu", "ments\": {\"city\": \"Par", "is\"}}</tool_call>"] {
///     stream.push(piece, &mut events)?;
/// }
/// stream.finish(&mut events)?;
/// assert_eq!(events[0], CallEvent::Text { text: "Let me look.".into() });
/// assert!(matches!(&events[1], CallEvent::Started { name, .. } if name == "get_weather"));
/// let Some(CallEvent::Finished { call, .. }) = events.last() else { panic!() };
/// assert_eq!(call.arguments, Ok(serde_json::json!({"city": "Paris"})));
/// # Ok::<(), toolbridge::Error>(())
/// ```
pub struct TextStream<'a> {
    /// The family, once known.
    family: Option<Family>,
    out: Out<'a>,
    sink: Sink,
    /// Text not yet looked at by the reasoning layer (a tag cut by a push).
    pending: String,
    /// An emptied buffer that `pending` swaps with when it holds a tag's
    /// start once more.
    pending_spare: String,
    /// What was found of `pending` when it is a reasoning tag's start held
    /// from the last push, so that the next look need not begin again.
    pending_start: Option<HeldStart>,
    think: Think,
    /// No reasoning tag has come yet: a closing tag alone closes the block
    /// the prompt opened (later, it is text).
    prompt_block: bool,
    segment: Segment,
    /// Calls sent when the current segment began.
    calls_at_segment: usize,
    /// The whole text so far, while the family is not known.
    seen: String,
    /// Bytes pushed in all.
    total: usize,
    finished: bool,
}

/// A reasoning tag's start that the reasoning layer holds (`pending`, cut
/// by the end of a push), as the last look found it.
#[derive(Clone, Copy, Debug)]
struct HeldStart {
    /// How much of `pending` was looked at: no tag can start in it but at 0.
    len: usize,
    /// The tags it is the start of (bit `i` for `THINK_TAGS[i]`).
    tags: u32,
}

const _: () = assert!(THINK_TAGS.len() <= 32, "a HeldStart has a bit per reasoning tag");

impl HeldStart {
    /// What is known of `held`, the text kept after a look that found it
    /// the start of `tags`: `None` unless it begins one of them and no tag
    /// could start after its first byte.
    fn of(held: &str, tags: u32) -> Option<HeldStart> {
        let alone = !held.bytes().skip(1).any(|byte| THINK_STARTS.contains(byte));
        (alone && tags != 0).then_some(HeldStart {
            len: held.len(),
            tags,
        })
    }
}

/// Where the reasoning layer is.
enum Think {
    /// Outside reasoning.
    Text,
    /// Inside a block opened by `OPEN[kind]`: `text` is the block so far,
    /// `released` how much of it went out as prose, `hold` where its first
    /// token of a call is, `scanned` how far the closing tag was looked for,
    /// `opens_from` where the look for a call's token resumes.
    Block {
        kind: usize,
        text: String,
        released: usize,
        hold: Option<usize>,
        scanned: usize,
        opens_from: usize,
    },
}

static DEFAULT_LIMITS: std::sync::OnceLock<Limits> = std::sync::OnceLock::new();

impl<'a> TextStream<'a> {
    /// A stream of text in `family`'s markup (`None`: detected from the
    /// text), with the default [`Limits`]; `tools` type the values and fit
    /// the arguments as in [`parse`](super::parse).
    pub fn new(family: Option<Family>, tools: Option<&'a [Tool]>) -> TextStream<'a> {
        TextStream::with_limits(family, tools, DEFAULT_LIMITS.get_or_init(Limits::default))
    }

    /// [`TextStream::new`] with other limits: at most
    /// [`Limits::max_bytes`] of text in all, [`Limits::max_tools`] calls.
    pub fn with_limits(
        family: Option<Family>,
        tools: Option<&'a [Tool]>,
        limits: &'a Limits,
    ) -> TextStream<'a> {
        let rules = family.map_or(Rules::Any, Rules::of);
        TextStream {
            family,
            out: Out::new(family.unwrap_or(Family::Hermes), tools, limits),
            sink: Sink::new(limits),
            pending: String::new(),
            pending_spare: String::new(),
            pending_start: None,
            think: Think::Text,
            prompt_block: true,
            segment: Segment::new(rules, true),
            calls_at_segment: 0,
            seen: String::new(),
            total: 0,
            finished: false,
        }
    }

    /// Whether the arguments' events say what they changed (on by default):
    /// off, an [`ArgumentsDelta`](CallEvent::ArgumentsDelta) or
    /// [`ArgumentsReplaced`](CallEvent::ArgumentsReplaced) carries its text
    /// alone, with no [`Change`](crate::call::Change)s, and the partial
    /// parser does not run: each call's arguments are read once, when it
    /// ends. For a consumer that needs the prose and the finished calls
    /// but shows no arguments as they grow (an agent loop): it streams
    /// about a quarter cheaper. The other events, and the calls, are the
    /// same.
    ///
    /// ```
    /// use toolbridge::call::CallEvent;
    /// use toolbridge::text::{Family, TextStream};
    /// let mut stream = TextStream::new(Some(Family::Hermes), None).send_changes(false);
    /// let mut events = Vec::new();
    /// stream.push("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par", &mut events)?;
    /// assert!(matches!(&events[1], CallEvent::ArgumentsDelta { text, changes, .. }
    ///     if text == "{\"city\": \"Par" && changes.is_empty()));
    /// stream.push("is\"}}</tool_call>", &mut events)?;
    /// let Some(CallEvent::Finished { call, .. }) = events.last() else { panic!() };
    /// assert_eq!(call.arguments, Ok(serde_json::json!({"city": "Paris"})));
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn send_changes(mut self, send: bool) -> TextStream<'a> {
        self.sink.changes = send;
        self
    }

    /// The family, once known (given, or detected).
    pub fn family(&self) -> Option<Family> {
        self.family
    }

    /// The next piece of text; the events it completes are appended to `out`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LimitExceeded`] once the text is longer than
    /// [`Limits::max_bytes`] (nothing more is read), and
    /// [`ErrorKind::InvalidResponse`] after [`finish`](TextStream::finish).
    pub fn push(&mut self, text: &str, out: &mut Vec<CallEvent>) -> Result<()> {
        if self.finished {
            return Err(Error::new(
                ErrorKind::InvalidResponse,
                "the text stream has finished",
            ));
        }
        self.total += text.len();
        if self.total > self.out.limits.max_bytes {
            self.finished = true;
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("the text is larger than {} bytes", self.out.limits.max_bytes),
            ));
        }
        if self.family.is_none() {
            self.seen.push_str(text);
        }
        if self.reasons_on() {
            // Only the streamed arguments grow: the piece goes past the
            // reasoning layer and the segment's reader to the sink.
            let sink = &self.sink;
            if self
                .segment
                .append_streamed(text, &THINK_STARTS, |live| sink.streams_last(live, None))
            {
                self.sink.streamed(text);
                self.hand_over(out);
                return Ok(());
            }
        }
        if self.goes_straight_on(text) {
            // Nothing is held and no reasoning tag starts in this piece, not
            // even cut by its end: the reasoning layer would hand all of it
            // on, so it goes straight to the segment (most pieces, a token
            // each).
            self.feed(text, false);
        } else {
            self.pending.push_str(text);
            self.think(false);
        }
        self.hand_over(out);
        Ok(())
    }

    /// Whether the reasoning layer holds nothing and no reasoning tag
    /// starts in `text`, not even cut by its end: all of it goes on to the
    /// segment.
    #[inline]
    fn goes_straight_on(&self, text: &str) -> bool {
        self.reasons_on() && !markup::holds_tag(text, &THINK_TAGS, THINK_STARTS)
    }

    /// Whether the reasoning layer holds nothing, outside reasoning: a
    /// piece without the first byte of any of its tags goes on to the
    /// segment.
    #[inline]
    fn reasons_on(&self) -> bool {
        self.pending.is_empty() && matches!(self.think, Think::Text)
    }

    /// Appends the events of the sink to `out`.
    fn hand_over(&mut self, out: &mut Vec<CallEvent>) {
        if out.is_empty() {
            // The sink's list becomes the caller's, and the caller's empty
            // one (with its room) the sink's: no event is moved.
            std::mem::swap(out, &mut self.sink.events);
        } else {
            out.append(&mut self.sink.events);
        }
    }

    /// [`push`](TextStream::push) for a loop that handles each piece's
    /// events before the next piece: `events` is emptied first, and the
    /// buffers of the events it held (their texts and change lists) are
    /// reused for the new ones. Such a loop allocates nothing per piece for
    /// the events once warm.
    ///
    /// ```
    /// use toolbridge::call::CallEvent;
    /// use toolbridge::text::{Family, TextStream};
    /// let mut stream = TextStream::new(Some(Family::Hermes), None);
    /// let mut events = Vec::new();
    /// let mut arguments = String::new();
    /// for piece in ["<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"ci", "ty\": \"Paris\"}}", "</tool_call>"] {
    ///     stream.push_reusing(piece, &mut events)?;
    ///     for event in &events {
    ///         if let CallEvent::ArgumentsDelta { text, .. } = event {
    ///             arguments.push_str(text);
    ///         }
    ///     }
    /// }
    /// assert_eq!(arguments, r#"{"city": "Paris"}"#);
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`push`](TextStream::push).
    pub fn push_reusing(&mut self, text: &str, events: &mut Vec<CallEvent>) -> Result<()> {
        // The common case, a piece of a call's arguments after a piece of
        // the same: the event is written again in place.
        if let [CallEvent::ArgumentsDelta {
            index,
            text: delta,
            changes,
        }] = events.as_mut_slice()
        {
            let total = self.total + text.len();
            if !self.finished && total <= self.out.limits.max_bytes && self.reasons_on() {
                let (sink, index) = (&self.sink, Some(*index));
                if self
                    .segment
                    .append_streamed(text, &THINK_STARTS, |live| sink.streams_last(live, index))
                {
                    self.total = total;
                    self.sink.streamed_into(text, delta, changes);
                    return Ok(());
                }
            }
        }
        if !events.is_empty() {
            self.sink.reclaim(events);
        }
        self.push(text, events)
    }

    /// The text ended: open calls finish (noted as the whole-text parse
    /// notes them), held prose is released.
    pub fn finish(&mut self, out: &mut Vec<CallEvent>) -> Result<()> {
        if !self.finished {
            self.finished = true;
            self.think(true);
            self.out.finish();
        }
        self.hand_over(out);
        Ok(())
    }

    /// Notes about the text as a whole so far (markup kept in the prose, calls
    /// past the limit); notes about one call are in its `Finished` call.
    pub fn notes(&self) -> &[Note] {
        &self.out.notes
    }

    /// The first reasoning tag in `pending`, or where one may start and
    /// the tags that may start there ([`scan_tags_noting_cut`](markup::scan_tags_noting_cut) from 0).
    /// A start held from the last push is looked at again only against the
    /// tags it began, and only the bytes after it are scanned.
    fn scan_pending(&mut self) -> std::result::Result<(usize, usize), (usize, u32)> {
        let scan = |from| markup::scan_tags_noting_cut(&self.pending, from, &THINK_TAGS, THINK_STARTS);
        let Some(HeldStart { len, tags }) = self.pending_start.take() else {
            return scan(0);
        };
        match markup::start_of(&self.pending, &THINK_TAGS, tags) {
            StartOf::Whole(which) => Ok((0, which)),
            StartOf::Cut(tags) => scan(len).or(Err((0, tags))),
            StartOf::No => scan(len),
        }
    }

    /// Runs the reasoning layer over `pending`.
    fn think(&mut self, done: bool) {
        let rules = self.rules();
        loop {
            match &mut self.think {
                Think::Text => {
                    match self.scan_pending() {
                        Ok((at, which)) if which < OPEN.len() => {
                            self.prompt_block = false;
                            let before: String = split_front(&mut self.pending, at);
                            self.feed(&before, false);
                            self.end_segment(false);
                            let tag_len = OPEN[which].len();
                            let tag: String = split_front(&mut self.pending, tag_len);
                            self.think = Think::Block {
                                kind: which,
                                text: tag,
                                released: 0,
                                hold: None,
                                scanned: tag_len,
                                opens_from: tag_len,
                            };
                        }
                        Ok((at, which)) if self.prompt_block => {
                            self.prompt_block = false;
                            let kind = which - OPEN.len();
                            let before: String = split_front(&mut self.pending, at);
                            self.feed(&before, false);
                            self.end_segment(true);
                            let tag: String = split_front(&mut self.pending, CLOSE[kind].len());
                            self.sink.event(CallEvent::Text { text: tag });
                        }
                        // A closing tag alone after the first tag is text.
                        Ok((at, which)) => {
                            let kind = which - OPEN.len();
                            let text: String = split_front(&mut self.pending, at + CLOSE[kind].len());
                            self.feed(&text, false);
                        }
                        Err((resume, cut)) => {
                            // All of it goes on but what could start a tag;
                            // the buffer is handed back to keep its allocation.
                            let mut ready = std::mem::take(&mut self.pending);
                            if !done && resume < ready.len() {
                                // The held start goes into the spare buffer:
                                // no allocation for a tag's start held again
                                // and again (Kimi K3's tokens all start as its
                                // reasoning tag does).
                                self.pending = std::mem::take(&mut self.pending_spare);
                                self.pending.push_str(&ready[resume..]);
                                ready.truncate(resume);
                            }
                            // Nothing ready (a tag's start held) reads nothing again.
                            if done || !ready.is_empty() {
                                self.feed(&ready, done);
                            }
                            if done {
                                self.end_segment(false);
                            }
                            ready.clear();
                            if self.pending.is_empty() {
                                self.pending = ready;
                            } else {
                                self.pending_spare = ready;
                                self.pending_start = HeldStart::of(&self.pending, cut);
                            }
                            return;
                        }
                    }
                }
                Think::Block {
                    kind,
                    text,
                    released,
                    hold,
                    scanned,
                    opens_from,
                } => {
                    text.push_str(&self.pending);
                    self.pending.clear();
                    let close = CLOSE[*kind];
                    let from = markup::floor(text, scanned.saturating_sub(close.len()));
                    if let Some((at, _)) = markup::first_of(text, from, [close]) {
                        // A closed block is prose, tags and all; what came after it is looked at again.
                        let end = at + close.len();
                        let prose = text[*released..end].to_string();
                        self.pending = text[end..].to_string();
                        self.think = Think::Text;
                        self.sink.event(CallEvent::Text { text: prose });
                        self.segment = Segment::new(rules, true);
                        self.calls_at_segment = self.sink.started();
                        continue;
                    }
                    if hold.is_none() {
                        match rules.first_open_at(text, *opens_from) {
                            Ok(at) => *hold = Some(at),
                            Err(resume) => *opens_from = resume,
                        }
                    }
                    *scanned = text.len();
                    if done {
                        let rest = text[*released..].to_string();
                        match *hold {
                            Some(_) => {
                                // Unclosed: the block is text where calls are read.
                                self.think = Think::Text;
                                self.segment = Segment::new(rules, false);
                                self.feed(&rest, true);
                            }
                            None => {
                                self.think = Think::Text;
                                self.sink.event(CallEvent::Text { text: rest });
                            }
                        }
                        return;
                    }
                    let keep = markup::held_suffix(text, [close]).max(rules.held_suffix(text));
                    let upto = hold.unwrap_or(text.len() - keep).min(text.len() - keep);
                    if upto > *released {
                        let prose = text[*released..upto].to_string();
                        *released = upto;
                        self.sink.event(CallEvent::Text { text: prose });
                    }
                    return;
                }
            }
        }
    }

    /// The rules the segment is cut by now.
    fn rules(&self) -> Rules {
        self.family.map_or(Rules::Any, Rules::of)
    }

    /// Text of the current segment (`done`: the segment ends after it).
    fn feed(&mut self, text: &str, done: bool) {
        let found = self.segment.push(text, done, &mut self.out, &mut self.sink);
        if found == Found::Markup {
            self.decide(done);
        }
    }

    /// The family is not known and the segment holds markup of some family
    /// at its start: decide once enough of it is there.
    fn decide(&mut self, done: bool) {
        if !done && self.segment.held().len() < DETECT_WINDOW {
            // Keep holding: the segment says so again with the next piece.
            return;
        }
        let family = Family::detect(&self.seen);
        let at_start = self.segment.was_at_start();
        let held = self.segment.take();
        match family {
            Some(family) => {
                self.family = Some(family);
                self.out.family = family;
                self.seen = String::new();
                self.segment = Segment::new(Rules::of(family), at_start);
                self.feed(&held, done);
            }
            None => {
                // No family reads it: its first character is prose, the rest is looked at again.
                let first = held.chars().next().map_or(0, char::len_utf8);
                self.sink.event(CallEvent::Text {
                    text: held[..first].to_string(),
                });
                self.segment = Segment::new(Rules::Any, false);
                self.feed(&held[first..], done);
            }
        }
    }

    /// The current segment ends (at a reasoning tag, or the end of the
    /// text); `orphan`: at a closing tag with no opening one.
    fn end_segment(&mut self, orphan: bool) {
        self.feed("", true);
        let calls = self.sink.started() - self.calls_at_segment;
        if orphan && (calls > 0 || self.segment.regions_read() > 0) {
            let message = match calls {
                0 => "a closing reasoning tag with no opening one follows markup the stream already \
                      read (its tokens are out of the prose sent); read whole, the text before it is \
                      reasoning, kept in the prose as written"
                    .to_string(),
                calls => format!(
                    "a closing reasoning tag with no opening one follows {calls} call(s) already sent; \
                     read whole, the text before it is reasoning and those calls would not be calls"
                ),
            };
            self.out.notes.push(Note::new(
                NoteKind::Unsupported {
                    keyword: "</think>".into(),
                },
                Pointer::root(),
                message,
            ));
        }
        self.segment = Segment::new(self.rules(), true);
        self.calls_at_segment = self.sink.started();
    }
}

/// Removes the first `len` bytes of `text` and returns them (without the
/// char-by-char copy of `drain(..).collect()`).
fn split_front(text: &mut String, len: usize) -> String {
    let rest = text.split_off(len);
    std::mem::replace(text, rest)
}

#[cfg(test)]
mod tests;
