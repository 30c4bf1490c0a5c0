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

mod json;

use std::fmt;

use super::super::scan::Out;
pub(in crate::text) use super::super::tags::{
    first_of, floor, held_suffix, holds_tag, scan_tags, scan_tags_noting_cut, scan_tags_with, start_of,
    ByteSet, FirstBytes,
};
pub(in crate::text) use super::waits::{parameter_waits, shortest, token_waits, waiting, Waits};
pub(in crate::text) use crate::json::Brackets;
pub(in crate::text) use json::{object_after, opened, Head, HeadJson, ListScan, LiveArguments, LiveJson};

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
    /// A header written in the middle of the text before a token that opens
    /// a region (Muse Glimmer's ` to=NAME<|message|>`): the region starts at
    /// the header, and prose that may end in one is held.
    pub lead: Option<Lead>,
}

/// A header that markup may write just before one of its tokens, as part of
/// the region the token opens: the text at its end is held while the token
/// may still come, and taken into the region when it does.
#[derive(Clone, Copy, Debug)]
pub(in crate::text) struct Lead {
    /// The token the header goes before.
    pub token: &'static str,
    /// Given the text before where the token may come: how much of its end
    /// is such a header.
    pub before: fn(text: &str) -> LeadTail,
}

/// How much of a text's end is a [`Lead`]'s header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::text) struct LeadTail {
    /// The bytes that are a whole header: the token, coming now, would
    /// open its region there.
    pub whole: usize,
    /// The bytes that are, or could still become, a header once more text
    /// comes: held (at least `whole`).
    pub held: usize,
}

impl Lead {
    /// Where the region opened by `token` at the end of `text` starts: the
    /// length of `text` less the whole header at its end (when `token` is
    /// the lead's).
    pub fn start(&self, text: &str, token: &str) -> usize {
        match self.token == token {
            true => text.len() - (self.before)(text).whole,
            false => text.len(),
        }
    }

    /// How much of `text`'s end to hold: what could still become a header.
    pub fn held(&self, text: &str) -> usize {
        (self.before)(text).held
    }
}

impl fmt::Debug for Streaming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Streaming")
            .field("opens", &self.opens)
            .field("bare", &self.bare.is_some())
            .field("lead", &self.lead.map(|lead| lead.token))
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

    /// Whether bare markup ([`Streaming::bare`]) may open a region right
    /// after this one ends, as at the text's start (a Muse Glimmer header
    /// whose `<|start|>` was lost follows a message's end token). The
    /// family's parser must read the text after such a region as it reads
    /// the text's start. `false` (the default): only tokens open the next.
    fn bare_after(&self) -> bool {
        false
    }

    /// Whether the region is a token that the family's parser only takes
    /// out of the prose (a section token): its parse gives no call, prose
    /// or note, so the stream need not run it (debug builds run it and
    /// check that it gives nothing).
    fn removed(&self) -> bool {
        false
    }
}

/// What a [`Chosen`] region's opening is followed by.
pub(in crate::text) enum Choice {
    /// The region ends (or waits) as a region's read says: it is the
    /// opening alone, prose, or not known yet.
    Ends(End),
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
                Choice::Ends(end) => return end,
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

    fn removed(&self) -> bool {
        true
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

/// A region that is prose as it arrives, ended as its [`Until`] ends it:
/// a message to the user, a reasoning block kept as written. Its prose
/// (what the family's parse gives for it) is `text[lead]`, then the text
/// from `from`; it is handed on ([`Live::prose`]) up to where one of the
/// region's tokens may start, and never past the first of `holds` (markup
/// the parse reads only once it knows how the region ends: a call's opener
/// inside a reasoning block that may never close).
pub(in crate::text) struct ProseUntil {
    until: Until,
    lead: std::ops::Range<usize>,
    from: usize,
    holds: Vec<&'static str>,
    /// Where the prose handed on so far ends.
    at: usize,
    /// Where the first of `holds` starts, once found.
    held: Option<usize>,
}

impl ProseUntil {
    /// The region `until` ends, its prose `text[lead]` then `text[from..]`.
    pub fn new(
        until: Until,
        lead: std::ops::Range<usize>,
        from: usize,
        holds: Vec<&'static str>,
    ) -> ProseUntil {
        ProseUntil {
            until,
            lead,
            from,
            holds,
            at: 0,
            held: None,
        }
    }
}

impl Region for ProseUntil {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, _: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        let mut upto = self.until.settled_body_end(text, end);
        if end == End::More {
            upto -= self.until.lead_held(text, upto);
        }
        if self.at < self.from {
            let mut at = self.lead.start;
            live.hand_prose(text, &mut at, self.lead.end);
            self.at = self.from;
        }
        if !self.holds.is_empty() {
            let held = match self.held {
                Some(at) => at,
                None => match scan_tags(text, self.at, &self.holds) {
                    Ok((at, _)) => *self.held.insert(at),
                    // Where one may start, cut by the end of the text.
                    Err(resume) => resume,
                },
            };
            upto = upto.min(held);
        }
        live.hand_prose(text, &mut self.at, upto);
        end
    }

    /// Every piece is read: the prose goes out as it comes.
    fn wakes(&self, _: &str) -> Option<Waits> {
        None
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
    /// Prose of a region that is prose as it arrives (a message to the
    /// user), handed on by its reader: text known to continue the prose the
    /// region's parse gives, sent after each read rather than when the
    /// region ends ([`Live::hand_prose`]).
    pub prose: String,
    /// All the prose of the region sent so far.
    pub prose_sent: String,
}

impl Live {
    /// Hands on `text[*from..to]` as the region's prose and moves `from`
    /// past it (nothing when `to` is not past `from`).
    pub fn hand_prose(&mut self, text: &str, from: &mut usize, to: usize) {
        if to > *from {
            self.prose.push_str(&text[*from..to]);
            *from = to;
        }
    }
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
            self.open_first();
        }
        self.calls.last_mut().expect("a call was just pushed")
    }

    /// Opens the region's first call (apart, so that [`current`](Live::current)
    /// inlines where a piece of a call's arguments is appended).
    #[cold]
    fn open_first(&mut self) {
        self.calls.push(LiveCall {
            arguments: std::mem::take(&mut self.spare),
            ..LiveCall::default()
        });
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
    /// A header that goes before one of `stops`, which the next region
    /// takes: the region ends before it.
    lead: Option<Lead>,
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
            lead: None,
        }
    }

    /// The same, ended before `lead`'s header where its token stops it.
    pub fn with_lead(self, lead: Option<Lead>) -> Until {
        Until { lead, ..self }
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

    /// [`body_end`](Until::body_end), and while the region is open, before
    /// where one of its tokens may start, cut by the end of `text`: the
    /// body a reader may read without running into the start of a token
    /// (a head's `>` inside MiniMax-M3's `]<]minimax[>[<tool_call>`). A
    /// reader's waits need not change for it: they look at the whole text,
    /// so the bytes held back are looked at again when a read could find
    /// something in them (a tag whole, a head's `>`).
    pub fn settled_body_end(&self, text: &str, end: End) -> usize {
        let body_end = self.body_end(text, end);
        match end {
            End::More => body_end.min(self.scanned.max(self.open)),
            End::Call(_) | End::Prose(_) => body_end,
        }
    }

    /// How much of the body's end before `upto` may still become a
    /// [`Lead`]'s header, which ends the body once its token comes: prose
    /// read as it comes stops before it.
    pub fn lead_held(&self, text: &str, upto: usize) -> usize {
        self.lead
            .map_or(0, |lead| lead.held(&text[self.open.min(upto)..upto]))
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
                    // A header before the stop belongs to the next region.
                    let body = self.open.min(at);
                    let at = self
                        .lead
                        .map_or(at, |lead| body + lead.start(&text[body..at], self.stops[which]));
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
