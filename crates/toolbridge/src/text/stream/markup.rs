//! What each family supplies to stream its markup: the tokens that open a
//! call region, the markup that opens one without a token at the start of
//! the text, and a reader that says where a region ends (and what of the
//! call being written is known so far). The stream cuts the text into
//! prose and regions with these alone; each region, once it ends, is read
//! by the family's own whole-text parser, so a streamed text gives the
//! calls and prose of the whole text however it was split.
//!
//! A family's rules must agree with its parser: a region ends exactly where
//! the parser stops reading the call (its closing token, or the next
//! opening token when the closing one is missing), and the parser, given
//! the region alone, reads it as it would inside the whole text. The
//! building blocks here ([`Until`], [`Brackets`], [`Spaces`]) cover the
//! common shapes.

use std::fmt;

use super::super::envelope::{self, EnvelopeKeys, Found, HEAD_WINDOW};
use super::super::scan::Out;
pub(in crate::text) use super::super::tags::{
    first_of, floor, held_suffix, holds_tag, scan_tags, scan_tags_with, FirstBytes,
};
pub(in crate::text) use super::waits::{parameter_waits, shortest, token_waits, waiting, Waits};

/// How one family's markup streams: a row's `stream` in
/// [`FAMILIES`](crate::text::FAMILIES).
pub(in crate::text) struct Streaming {
    /// Tokens that open a region wherever they appear outside reasoning
    /// (also tokens the parser only removes from the prose, such as
    /// DeepSeek's and Kimi's section tokens: a region of its own).
    pub opens: &'static [&'static str],
    /// Markup that opens a region at the start of a text (after
    /// whitespace) without a token — a bare JSON call, a pythonic list.
    /// Given the text's start so far, whitespace skipped (`done`: there is
    /// no more), `Some(true)` when a region opens there, `Some(false)` when
    /// none does, `None` while more text could tell.
    pub bare: Option<fn(head: &str, done: bool) -> Option<bool>>,
    /// A reader for a region opened by `opens[i]` (`Some(i)`) or by bare
    /// markup (`None`).
    pub region: fn(opened_by: Option<usize>) -> Box<dyn Region>,
}

impl fmt::Debug for Streaming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Streaming")
            .field("opens", &self.opens)
            .field("bare", &self.bare.is_some())
            .finish_non_exhaustive()
    }
}

/// A reader of one region as its text arrives.
pub(in crate::text) trait Region: Send {
    /// `text` is the region so far, from its opening token (or bare
    /// markup); it only grows between calls, and a reader must not look at
    /// the same bytes again and again (keep a position). `done`: no more
    /// text comes (the text or the segment ended), so the answer must not
    /// be [`End::More`].
    ///
    /// Sets in `live` what is known of the calls being written, for the
    /// events sent before the region ends; `out` gives the tools' schemas
    /// (to type values) and the limits.
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End;

    /// After a [`read`](Region::read) of `text` that returned
    /// [`End::More`]: what could make the next `read` find something (a
    /// tag, the end of a value, a bracket), when the reader only waits for
    /// that. Text appended that [`Waits::takes`] only grows the region —
    /// `read` would find nothing in it, set nothing in `live` and return
    /// `End::More` — so the stream appends such pieces without calling
    /// `read` (most pieces inside a long value, a token each); the next
    /// `read` looks at them with the piece that brings what it waits for.
    /// `None` (the default): every piece is read.
    fn wakes(&self, _text: &str) -> Option<Waits> {
        None
    }

    /// After a [`read`](Region::read) of `text` that returned
    /// [`End::More`] and no [`wakes`](Region::wakes): what could make the
    /// next `read` do more than add the text to the argument text of
    /// `live`'s last call, when the reader is streaming that call's
    /// arguments as the model writes them. Text that [`Waits::takes`] goes
    /// onto [`LiveCall::arguments`] as it is, without calling `read` (most
    /// pieces of a JSON call's arguments). `None` (the default): every
    /// piece is read.
    fn streams(&self, _text: &str) -> Option<Waits> {
        None
    }

    /// The scanner of the live call's JSON arguments, when they stream as
    /// [`streams`](Region::streams) says, with the first bytes of the
    /// region's tags (what `streams` waits for besides the scanner, when no
    /// tag may be cut by the end of the text): a piece
    /// with none of them that only continues the arguments
    /// ([`LiveJson::take`]) goes onto them without a read. `None` (the
    /// default): such a piece is read.
    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        None
    }
}

/// What a [`Chosen`] region's opening is followed by.
pub(in crate::text) enum Choice {
    /// Not known yet.
    More,
    /// The region ends here (`text[..n]`, read by the family's parser).
    Call(usize),
    /// `text[..n]` is prose, kept as written.
    Prose(usize),
    /// The region reads on as this one, from its start.
    Region(Box<dyn Region>),
}

/// A region whose opening token leads to different markups (a code fence
/// to a list or to prose; a block token to JSON or to invoke elements):
/// `choose` looks at the region so far until it knows which, then the
/// region reads as the one it chose.
pub(in crate::text) struct Chosen {
    choose: fn(&str, bool) -> Choice,
    chosen: Option<Box<dyn Region>>,
}

impl Chosen {
    pub fn new(choose: fn(&str, bool) -> Choice) -> Chosen {
        Chosen { choose, chosen: None }
    }
}

impl Region for Chosen {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let chosen = match &mut self.chosen {
            Some(chosen) => chosen,
            None => match (self.choose)(text, done) {
                Choice::More => return End::More,
                Choice::Call(len) => return End::Call(len),
                Choice::Prose(len) => return End::Prose(len),
                Choice::Region(region) => self.chosen.insert(region),
            },
        };
        chosen.read(text, done, live, out)
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        self.chosen.as_ref()?.wakes(text)
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        self.chosen.as_ref()?.streams(text)
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        self.chosen.as_mut()?.live_json()
    }
}

/// A region that is its token alone (a section token the parser removes).
pub(in crate::text) struct Token(pub usize);

impl Region for Token {
    fn read(&mut self, _: &str, _: bool, _: &mut Live, _: &Out<'_>) -> End {
        End::Call(self.0)
    }
}

impl Region for Until {
    fn read(&mut self, text: &str, done: bool, _: &mut Live, _: &Out<'_>) -> End {
        self.end(text, done)
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        Some(self.waits(text))
    }
}

/// Where a region ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::text) enum End {
    /// Not known yet.
    More,
    /// The region is `text[..n]`, read by the family's parser; the rest is
    /// looked at again as prose.
    Call(usize),
    /// `text[..n]` turned out to be prose, kept as written (Llama's end
    /// tokens followed by more text).
    Prose(usize),
}

/// What is known of the calls a region is writing, before it ends.
#[derive(Debug, Default)]
pub(in crate::text) struct Live {
    /// The calls so far, in order; the last may still be written.
    pub calls: Vec<LiveCall>,
    /// An emptied buffer of an earlier region's call, for the first call's
    /// argument text (which then does not grow from nothing again).
    pub spare: String,
}

/// One call being written.
#[derive(Debug, Default)]
pub(in crate::text) struct LiveCall {
    /// The tool's name, once it is known whole.
    pub name: Option<String>,
    /// The model's id for the call, when the markup gives one before the
    /// name is complete (Mistral's `[CALL_ID]`, Kimi's `functions.NAME:IDX`).
    pub id: Option<String>,
    /// The argument text known so far; it only grows.
    pub arguments: String,
    /// Whether `arguments` is the canonical JSON of the parameters read so
    /// far (families whose values are not JSON) rather than the model's
    /// own JSON text.
    pub canonical: bool,
    /// The parameters added to a canonical `arguments` and not yet sent as
    /// changes (the stream sends them as they are, without reading the
    /// JSON it wrote back).
    pub parameters: Vec<(String, serde_json::Value)>,
}

impl LiveCall {
    /// Opens the call `name`, its arguments the canonical JSON of the
    /// parameters read so far (families whose values are not JSON).
    pub fn open_canonical(&mut self, name: &str) {
        self.name = Some(name.to_string());
        self.canonical = true;
        self.arguments.push('{');
    }

    /// Adds a parameter, read whole, to the canonical JSON of the arguments.
    pub fn push_parameter(&mut self, key: &str, value: serde_json::Value) {
        if self.arguments.len() > 1 {
            self.arguments.push(',');
        }
        crate::json::push_quoted(&mut self.arguments, key);
        self.arguments.push(':');
        crate::json::push_compact(&mut self.arguments, &value);
        self.parameters.push((key.to_string(), value));
    }
}

/// Where a parameter's value ends, looked for in a region's text as it
/// arrives ([`value_end`]).
pub(in crate::text) enum ValueEnd {
    /// Not yet; look again from where the scan stopped.
    More,
    /// At its end tag, here.
    At(usize),
    /// The next parameter's tag came first: the end tag is missing, and the
    /// parse reads the rest at the close.
    Missing,
}

/// Where the value starting at `start` ends: at `end_tag`, unless `next`
/// comes first. `scanned` keeps where to look again, so each byte is looked
/// at once however the text arrives.
pub(in crate::text) fn value_end(
    text: &str,
    scanned: &mut usize,
    start: usize,
    end_tag: &str,
    next: &str,
) -> ValueEnd {
    match scan_tags(text, (*scanned).max(start), &[end_tag, next]) {
        Ok((at, 0)) => ValueEnd::At(at),
        Ok(_) => ValueEnd::Missing,
        Err(resume) => {
            *scanned = resume;
            ValueEnd::More
        }
    }
}

impl Live {
    /// The call being written, after opening one if there is none.
    #[inline]
    pub fn current(&mut self) -> &mut LiveCall {
        if self.calls.is_empty() {
            self.calls.push(LiveCall {
                arguments: std::mem::take(&mut self.spare),
                ..LiveCall::default()
            });
        }
        self.calls.last_mut().expect("a call was just pushed")
    }
}

/// Whether `rest` (the end of the text so far) could be the start of `tag`.
pub(in crate::text) fn could_be(rest: &str, tag: &str) -> bool {
    rest.len() < tag.len() && tag.starts_with(rest)
}

/// A region that ends after its closing token, or before the next
/// opening one when the closing token is missing (Hermes, GLM, Kimi,
/// DeepSeek).
///
/// `cuts` end a region whose closing token is missing earlier than the
/// next opening one (Kimi's and DeepSeek's section-end tokens).
#[derive(Debug)]
pub(in crate::text) struct Until {
    /// The opening token's length: closing and next tokens are looked for
    /// after it.
    open: usize,
    /// The closing tokens; the region ends after the first.
    closes: &'static [&'static str],
    /// Tokens that start the next region; the region ends before the first.
    stops: &'static [&'static str],
    /// Stops, closes and cuts in one list, looked for in one scan (stops
    /// first: a stop and a close at one place is a stop).
    tags: Vec<&'static str>,
    starts: FirstBytes,
    /// The length of the shortest of `tags`.
    shortest: usize,
    scanned: usize,
    cut: Option<usize>,
}

impl Until {
    /// A region opened by a token `open` bytes long.
    pub fn new(
        open: usize,
        closes: &'static [&'static str],
        stops: &'static [&'static str],
        cuts: &'static [&'static str],
    ) -> Until {
        Until {
            open,
            closes,
            stops,
            tags: stops.iter().chain(closes).chain(cuts).copied().collect(),
            starts: FirstBytes::of(stops.iter().chain(closes).chain(cuts)),
            shortest: shortest(stops.iter().chain(closes).chain(cuts).copied()),
            scanned: open,
            cut: None,
        }
    }

    /// Where the region's body ends so far, given where the region ends
    /// ([`end`](Until::end)): before the closing token once it came; while
    /// the region is open, before a cut (when the closing token never comes,
    /// the parser ends the call there) or at the end of `text`.
    pub fn body_end(&self, text: &str, end: End) -> usize {
        match end {
            End::Call(len) | End::Prose(len) => {
                let region = &text[..len];
                self.closes
                    .iter()
                    .find_map(|close| region.strip_suffix(close))
                    .map_or(len, str::len)
            }
            End::More => self.cut.unwrap_or(text.len()),
        }
    }

    /// What the look for its tokens waits for ([`Region::wakes`]).
    pub fn waits(&self, text: &str) -> Waits {
        waiting(text, self.scanned.max(self.open), self.starts, self.shortest)
    }

    /// Where the region ends, looking only at the text not looked at yet
    /// (from where a token cut by a delta may start).
    pub fn end(&mut self, text: &str, done: bool) -> End {
        // One scan for all three kinds: the first close or stop decides; a
        // cut before it is remembered and the scan goes on after it.
        let mut from = self.scanned.max(self.open);
        loop {
            match scan_tags_with(text, from, &self.tags, self.starts) {
                Ok((at, which)) if which < self.stops.len() => {
                    return End::Call(self.cut.filter(|&cut| cut < at).unwrap_or(at));
                }
                Ok((at, which)) => match self.closes.get(which - self.stops.len()) {
                    Some(close) => return End::Call(at + close.len()),
                    None => {
                        self.cut.get_or_insert(at);
                        from = at + self.tags[which].len();
                    }
                },
                Err(resume) => {
                    self.scanned = resume;
                    break;
                }
            }
        }
        if done {
            End::Call(self.cut.unwrap_or(text.len()))
        } else {
            End::More
        }
    }
}

pub(in crate::text) use crate::json::Brackets;

/// What a family's head reader found at the start of a call region's body
/// (the text after the opening token, up to the closing one).
#[derive(Debug)]
pub(in crate::text) enum Head {
    /// Not known yet: more text could decide. With what could decide it,
    /// when text without that reads the same (a string's closing quote, a
    /// token's first byte; a [`Waits::ready_at`] counted from the body's
    /// start): the region waits for it ([`Region::wakes`]). `None`: every
    /// piece is read.
    More(Option<Waits>),
    /// The call's name and id, exactly as the family's parser reads them,
    /// and where in the body its JSON arguments start (at a `{`).
    Json {
        name: String,
        id: Option<String>,
        at: usize,
    },
    /// The arguments do not stream as they arrive (no object follows the
    /// head, or markup the parser reads its own way): the call comes whole
    /// when the region ends.
    Whole,
}

/// A call region holding a head that names the tool, then the JSON
/// arguments, ending as its [`Until`] says (Kimi, DeepSeek, Hermes): the argument
/// text streams as the model writes it, up to the end of the JSON value.
/// The region's parse still reads the call; a value it reads differently
/// replaces what was streamed.
pub(in crate::text) struct HeadJson {
    until: Until,
    /// Finds the head in the body so far.
    head: fn(&str) -> Head,
    arguments: LiveArguments,
    /// What the head, not known yet, waits for (see [`Head::More`]).
    head_waits: Option<Waits>,
}

impl HeadJson {
    /// A region ending as `until` says, its head read by `head`.
    pub fn new(until: Until, head: fn(&str) -> Head) -> HeadJson {
        HeadJson {
            until,
            head,
            arguments: LiveArguments::Undecided,
            head_waits: None,
        }
    }
}

impl Region for HeadJson {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, _: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        if let LiveArguments::Whole = self.arguments {
            return end;
        }
        // The body: after the opening token, before the closing one.
        let limit = self.until.body_end(text, end);
        let open = self.until.open.min(limit);
        let head = self.head;
        let mut head_waits = None;
        self.arguments.read(text, limit, live, || {
            let body = &text[open..limit];
            match head(body) {
                Head::Json { name, id, at } => Head::Json {
                    name,
                    id,
                    at: open + at,
                },
                // A head that never decides is looked at again only this
                // far, as the envelope's rule reads it.
                Head::More(_) if body.len() > HEAD_WINDOW => Head::Whole,
                Head::More(waits) => {
                    head_waits = waits;
                    Head::More(None)
                }
                whole => whole,
            }
        });
        self.head_waits = head_waits;
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        // Once the arguments ended (or come whole), only the closing token
        // is waited for; while they stream, every piece is an event; a head
        // cut inside a string waits for its closing quote too.
        match &self.arguments {
            LiveArguments::Whole => Some(self.until.waits(text)),
            LiveArguments::Json(json) if json.ended() => Some(self.until.waits(text)),
            LiveArguments::Undecided => {
                // What the head waits for, the tags, or the end of the
                // head's window (the tags' wait is never inside a string).
                let head = self.head_waits?;
                let until = self.until.waits(text);
                let open = self.until.open;
                let ready_at = [until.ready_at, head.ready_at.map(|len| open + len)]
                    .into_iter()
                    .flatten()
                    .fold(open + HEAD_WINDOW + 1, usize::min);
                Some(Waits {
                    stops: until.stops.and(head.stops),
                    string: head.string,
                    ready_at: Some(ready_at),
                })
            }
            LiveArguments::Json(_) => None,
        }
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        match &self.arguments {
            LiveArguments::Json(json) => json.streams(text)?.and(self.until.waits(text)),
            _ => None,
        }
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        Some((self.arguments.live_json()?, self.until.starts))
    }
}

/// Where a call region is with its JSON arguments: its head not read yet,
/// the arguments streaming, or the call left to come whole when the region
/// ends.
pub(in crate::text) enum LiveArguments {
    Undecided,
    Json(LiveJson),
    Whole,
}

impl LiveArguments {
    /// Streams the arguments up to `limit` (where the region's body ends,
    /// so far), once `head` — asked until it decides — says where they
    /// start.
    pub fn read(&mut self, text: &str, limit: usize, live: &mut Live, head: impl FnOnce() -> Head) {
        if let LiveArguments::Undecided = self {
            *self = match head() {
                Head::Json { name, id, at } => LiveArguments::Json(LiveJson::start(live, name, id, at)),
                Head::More(_) => return,
                Head::Whole => LiveArguments::Whole,
            };
        }
        if let LiveArguments::Json(json) = self {
            json.read(text, limit, live);
        }
    }

    /// The scanner of the arguments while they stream ([`Region::live_json`]).
    pub fn live_json(&mut self) -> Option<&mut LiveJson> {
        match self {
            LiveArguments::Json(json) if !json.ended() => Some(json),
            _ => None,
        }
    }
}

/// A call's JSON arguments streaming as the model writes them: from where
/// they start in a region's text to the end of the JSON value, appended to
/// the call's [`LiveCall::arguments`].
pub(in crate::text) struct LiveJson {
    start: usize,
    brackets: Brackets,
    scanned: usize,
    /// Where the JSON value ended, once it did.
    end: Option<usize>,
}

impl LiveJson {
    /// Arguments starting at byte `start` of the region's text.
    pub fn new(start: usize) -> LiveJson {
        LiveJson {
            start,
            brackets: Brackets::new(false),
            scanned: start,
            end: None,
        }
    }

    /// [`new`](LiveJson::new), opening the call in `live` under `name` and
    /// `id` (exactly as the family's parser will read them).
    pub fn start(live: &mut Live, name: String, id: Option<String>, start: usize) -> LiveJson {
        let call = live.current();
        call.name = Some(name);
        call.id = id;
        // Arguments that stream are mostly longer than a few tokens: room
        // for some at once, without the first doublings.
        call.arguments.reserve(256);
        LiveJson::new(start)
    }

    /// Whether the JSON value ended.
    pub fn ended(&self) -> bool {
        self.end.is_some()
    }

    /// While the value streams and all of `text` was read: what could end
    /// it ([`Region::streams`]) — inside a string its closing quote, else
    /// quotes and brackets.
    pub fn streams(&self, text: &str) -> Option<Waits> {
        if self.end.is_some() || self.scanned < text.len() {
            return None;
        }
        Some(self.waits())
    }

    /// What the scanner waits for where it stopped.
    fn waits(&self) -> Waits {
        Waits::scanning(self.brackets.open_string(), Waits::JSON)
    }

    /// The text after the scanner's place in `text` (the region so far)
    /// was taken by the wait [`streams`](LiveJson::streams) (or the last
    /// [`take`](LiveJson::take)) gave, `taken` as that wait is now: it
    /// holds nothing the scanner acts on but, inside a string, escapes the
    /// wait followed. The scanner moves past it without reading it (when
    /// its state and the wait's agree; else it reads it later).
    pub fn pass(&mut self, text: &str, taken: &Waits) {
        let unscanned = text.as_bytes().get(self.scanned..).unwrap_or_default();
        if self.end.is_some() || unscanned.is_empty() {
            return;
        }
        let before = self.brackets.clone();
        match (self.brackets.open_string(), taken.string) {
            (Some((quote, _)), Some(string)) if string.quote == quote => {
                self.brackets.pass_string(string.escaped);
            }
            (None, None) => {}
            _ => return,
        }
        debug_assert!(
            {
                let mut read = before;
                read.feed(unscanned).is_none() && read == self.brackets
            },
            "the text taken by the wait holds nothing the scanner acts on"
        );
        self.scanned = text.len();
    }

    /// A piece that follows `text` (the region so far): when it continues
    /// the arguments without ending them, it is scanned and its wait
    /// returned (the caller appends it to the region and the call's argument
    /// text, as [`read`](LiveJson::read) would); else the piece is not
    /// scanned. The text before it that the scanner has not looked at yet
    /// was taken by the wait `taken` ([`pass`](LiveJson::pass)).
    pub fn take(&mut self, text: &str, piece: &str, taken: &Waits) -> Option<Waits> {
        if self.end.is_some() {
            return None;
        }
        self.pass(text, taken);
        if let Some(unscanned) = text
            .as_bytes()
            .get(self.scanned..)
            .filter(|rest| !rest.is_empty())
        {
            let before = self.brackets.clone();
            if self.brackets.feed(unscanned).is_some() {
                // Ended before the piece: the region's read says where.
                self.brackets = before;
                return None;
            }
        }
        self.scanned = self.scanned.max(text.len());
        let caught_up = self.brackets.clone();
        if self.brackets.feed(piece.as_bytes()).is_some() {
            self.brackets = caught_up;
            return None;
        }
        self.scanned = text.len() + piece.len();
        Some(self.waits())
    }

    /// Reads the region's text up to `limit` (where its body ends, so far);
    /// where the JSON value ends, once it has.
    pub fn read(&mut self, text: &str, limit: usize, live: &mut Live) -> Option<usize> {
        if self.end.is_some() {
            return self.end;
        }
        let from = self.scanned.min(limit);
        let closed = self.brackets.feed(&text.as_bytes()[from..limit]);
        let end = closed.map_or(limit, |len| from + len);
        let call = live.current();
        if let Some(new) = text.get(self.start + call.arguments.len()..end) {
            call.arguments.push_str(new);
        }
        self.scanned = end;
        self.end = closed.map(|_| end);
        self.end
    }
}

/// A JSON list of call envelopes as it arrives, from its `[` to its `]`
/// (Granite, Phi-4-mini, Hunyuan, Command R7B): each item
/// whose head names its tool (see [`envelope`])
/// opens a call in [`Live`] and streams its arguments; once an item has no
/// head, the items after it come whole when the region ends (the calls a
/// stream announces are the list's first ones, in order). The whole-text
/// parse reads the list with one too ([`ListScan::heads`]), so it names
/// those calls as the stream announced them.
pub(in crate::text) struct ListScan {
    keys: EnvelopeKeys,
    /// The next byte to look at.
    at: usize,
    item: Item,
    /// Whether the items read so far all had a head.
    heads: bool,
    end: Option<usize>,
}

/// Where a [`ListScan`] is in the list.
enum Item {
    /// Before an item: whitespace and commas up to `{` (an item) or `]`.
    Between,
    /// The head of the item starting here.
    Head(usize),
    /// The item's arguments, streaming.
    Arguments(LiveJson),
    /// The rest of an item, to its closing bracket.
    Rest(Brackets),
    /// Something other than an object in the list: the rest of the list.
    List(Brackets),
}

impl ListScan {
    /// A list whose `[` is at byte `start`, its items' keys named as `keys` says.
    pub fn new(start: usize, keys: EnvelopeKeys) -> ListScan {
        ListScan {
            keys,
            at: start + 1,
            item: Item::Between,
            heads: true,
            end: None,
        }
    }

    /// The scanner of the item's arguments while they stream
    /// ([`Region::live_json`]).
    pub fn live_json(&mut self) -> Option<&mut LiveJson> {
        match &mut self.item {
            Item::Arguments(json) if self.end.is_none() => Some(json),
            _ => None,
        }
    }

    /// Reads the text up to `limit` (`done`: no more comes): where the list
    /// ends (after its `]`), once it has.
    pub fn read(&mut self, text: &str, limit: usize, done: bool, live: &mut Live) -> Option<usize> {
        let bytes = &text.as_bytes()[..limit];
        while self.end.is_none() {
            match &mut self.item {
                Item::Between => {
                    let skipped = bytes[self.at..]
                        .iter()
                        .position(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b','));
                    let Some(skipped) = skipped else {
                        self.at = limit;
                        return None;
                    };
                    self.at += skipped;
                    self.item = match bytes[self.at] {
                        b'{' => Item::Head(self.at),
                        b']' => {
                            self.end = Some(self.at + 1);
                            break;
                        }
                        _ => Item::List(opened(b"[")),
                    };
                }
                Item::Head(start) => {
                    let start = *start;
                    let found = if self.heads {
                        envelope::head(&text[start..limit], self.keys)
                    } else {
                        Found::Whole
                    };
                    match found {
                        Found::More(_) if !done => return None,
                        Found::Head(head) => {
                            live.calls.push(LiveCall::default());
                            let json = LiveJson::start(live, head.name, head.id, start + head.at);
                            self.item = Item::Arguments(json);
                        }
                        Found::More(_) | Found::Whole => {
                            self.heads = false;
                            self.at = start;
                            self.item = Item::Rest(Brackets::new(false));
                        }
                    }
                }
                Item::Arguments(json) => match json.read(text, limit, live) {
                    Some(end) => {
                        self.at = end;
                        self.item = Item::Rest(opened(b"{"));
                    }
                    None => return None,
                },
                Item::Rest(brackets) => match brackets.feed(&bytes[self.at..]) {
                    Some(len) => {
                        self.at += len;
                        self.item = Item::Between;
                    }
                    None => {
                        self.at = limit;
                        return None;
                    }
                },
                Item::List(brackets) => match brackets.feed(&bytes[self.at..]) {
                    Some(len) => self.end = Some(self.at + len),
                    None => {
                        self.at = limit;
                        return None;
                    }
                },
            }
        }
        self.end
    }

    /// The bytes that could do more than add to the streaming arguments of
    /// the item being read ([`Region::streams`]), while they stream.
    pub fn streams(&self, text: &str) -> Option<Waits> {
        match &self.item {
            Item::Arguments(json) if self.end.is_none() => json.streams(text),
            _ => None,
        }
    }

    /// The calls the heads of the list's first items name, with their
    /// argument text (cut short where the text ends): what a stream of
    /// the list announces. `json` starts with the list's `[`.
    pub fn heads(json: &str, keys: EnvelopeKeys) -> Vec<LiveCall> {
        let mut live = Live::default();
        ListScan::new(0, keys).read(json, json.len(), true, &mut live);
        live.calls
    }
}

/// A bracket scanner already inside `open`.
pub(in crate::text) fn opened(open: &[u8]) -> Brackets {
    let mut brackets = Brackets::new(false);
    let _ = brackets.feed(open);
    brackets
}

/// Where a JSON object starts in `body` at or after `from`, past
/// whitespace: [`Head::Json`] with `name` and `id` there, [`Head::More`]
/// while only whitespace follows, [`Head::Whole`] when something else does.
pub(in crate::text) fn object_after(body: &str, from: usize, name: &str, id: Option<&str>) -> Head {
    let rest = &body[from..];
    let start = from + (rest.len() - rest.trim_start().len());
    match body[start..].bytes().next() {
        None => Head::More(None),
        Some(b'{') => Head::Json {
            name: name.to_string(),
            id: id.map(str::to_string),
            at: start,
        },
        Some(_) => Head::Whole,
    }
}

/// What follows a place once whitespace is skipped: a tag, something else,
/// or not known yet (the text so far ends in whitespace or in the start of
/// the tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::text) enum Spaces {
    /// The tag follows, starting here.
    Tag(usize),
    /// Something else follows, starting here (or the text ended there).
    Other(usize),
    /// Not known yet; whitespace runs to here (look again from there).
    More(usize),
}

/// What follows `text[from..]` once whitespace is skipped: one of `tags`,
/// or something else. `done`: the text ends here.
pub(in crate::text) fn after_spaces(text: &str, from: usize, tags: &[&str], done: bool) -> (Spaces, usize) {
    let rest = &text[from..];
    let start = from + (rest.len() - rest.trim_start().len());
    let rest = &text[start..];
    if let Some(which) = tags.iter().position(|tag| rest.starts_with(tag)) {
        return (Spaces::Tag(start), which);
    }
    if !done && (rest.is_empty() || tags.iter().any(|tag| could_be(rest, tag))) {
        return (Spaces::More(start), 0);
    }
    (Spaces::Other(start), 0)
}

/// Where a region ends whose value ended at `end`: past `close` when only
/// whitespace stands between them, else at `end` (not known yet while the
/// whitespace may go on; `scanned` keeps how far it was looked at).
pub(in crate::text) fn close_after(
    text: &str,
    end: usize,
    scanned: &mut usize,
    close: &str,
    done: bool,
) -> End {
    match after_spaces(text, (*scanned).max(end), &[close], done) {
        (Spaces::Tag(at), _) => End::Call(at + close.len()),
        (Spaces::Other(_), _) => End::Call(end),
        (Spaces::More(at), _) => {
            *scanned = at;
            End::More
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_ends_at_the_close_or_before_the_next_open() {
        let mut until = Until::new(3, &["</a>"], &["<a>"], &[]);
        assert_eq!(until.end("<a>xx</", false), End::More);
        assert_eq!(until.end("<a>xx</a>yy", false), End::Call(9));
        let mut until = Until::new(3, &["</a>"], &["<a>"], &["<z>"]);
        assert_eq!(until.end("<a>x<z>y<", false), End::More);
        assert_eq!(until.end("<a>x<z>y<a>", false), End::Call(4));
        let mut until = Until::new(3, &["</a>"], &["<a>"], &[]);
        assert_eq!(until.end("<a>x", true), End::Call(4));
    }

    #[test]
    fn brackets_skip_strings_and_resume_across_deltas() {
        let mut brackets = Brackets::new(false);
        assert_eq!(brackets.feed(br#"{"a": "}\"""#), None);
        assert_eq!(brackets.feed(br#", "b": [1]} x"#), Some(11));
        let mut python = Brackets::new(true);
        assert_eq!(python.feed(b"[f(a=')')"), None);
        assert_eq!(python.feed(b"]"), Some(1));
    }

    #[test]
    fn after_spaces_waits_for_what_follows() {
        assert_eq!(after_spaces("x  ", 1, &["</f>"], false).0, Spaces::More(3));
        assert_eq!(after_spaces("x  </", 1, &["</f>"], false).0, Spaces::More(3));
        assert_eq!(after_spaces("x  </f>", 1, &["</f>"], false).0, Spaces::Tag(3));
        assert_eq!(after_spaces("x  y", 1, &["</f>"], false).0, Spaces::Other(3));
        assert_eq!(after_spaces("x  ", 1, &["</f>"], true).0, Spaces::Other(3));
    }
}
