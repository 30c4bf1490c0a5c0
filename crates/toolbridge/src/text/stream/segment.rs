//! One stretch of text outside reasoning (a segment, as the whole-text
//! parse cuts it), streamed: prose released as soon as it can no longer
//! start a token, regions handed to the family's reader and, once they
//! end, to the family's parser. Events for the calls go to [`Sink`].

use super::super::reasoning::STARTS as REASONING_STARTS;
use super::super::scan::Out;
use super::super::{Family, FAMILIES};
use super::events::Sink;
use super::markup::{held_suffix, scan_tags, ByteSet, End, FirstBytes, Lead, Live, Region, Streaming, Waits};

/// How long the start of a segment is held to see whether bare markup
/// (a JSON call, a pythonic list) opens it; when that is still not known
/// past this, it does not.
const BARE_WINDOW: usize = 256;

/// Whose rules cut the text.
#[derive(Clone, Copy, Debug)]
pub(super) enum Rules {
    /// One family's.
    Family(&'static Streaming),
    /// Every family's at once, until the family is known: a token or bare
    /// markup of any family is where the family is decided.
    Any,
}

impl Rules {
    pub fn of(family: Family) -> Rules {
        Rules::Family(&family.info().stream)
    }

    /// The tokens that open a region: the family's, or every family's.
    fn opens(self) -> &'static [&'static str] {
        static ANY: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
        match self {
            Rules::Family(stream) => stream.opens,
            Rules::Any => ANY.get_or_init(|| {
                FAMILIES
                    .iter()
                    .flat_map(|info| info.stream.opens.iter().copied())
                    .collect()
            }),
        }
    }

    /// The first opening token in `text`, where and which; or how many
    /// bytes at its end could start one.
    fn scan_opens(self, text: &str) -> Result<(usize, usize), usize> {
        scan_tags(text, 0, self.opens()).map_err(|resume| text.len() - resume)
    }

    /// Where the region of the first opening token in `text` at or after
    /// `from` starts: `Ok(at)`, at the token or at a header written before
    /// it ([`Streaming::lead`]); or `Err(resume)`, where the next look at
    /// the grown text starts (see [`scan_tags`]).
    pub fn first_open_at(self, text: &str, from: usize) -> Result<usize, usize> {
        scan_tags(text, from, self.opens())
            .map(|(at, which)| self.region_start(&text[..at], self.opens()[which]))
    }

    /// How many bytes at the end of `text` to hold: what could start an
    /// opening token, and before it what could still become a header
    /// written before one.
    pub fn held_suffix(self, text: &str) -> usize {
        let token = held_suffix(text, self.opens());
        token + self.lead_held(&text[..text.len() - token])
    }

    /// The headers written before opening tokens ([`Streaming::lead`]) of
    /// every family.
    fn any_leads() -> impl Iterator<Item = &'static Lead> {
        FAMILIES.iter().filter_map(|info| info.stream.lead.as_ref())
    }

    /// Where the region opened by `token` at the end of `prose` starts: a
    /// header before the token is the region's.
    fn region_start(self, prose: &str, token: &str) -> usize {
        match self {
            Rules::Family(stream) => stream.lead.map_or(prose.len(), |lead| lead.start(prose, token)),
            Rules::Any => Rules::any_leads()
                .map(|lead| lead.start(prose, token))
                .min()
                .unwrap_or(prose.len()),
        }
    }

    /// How many bytes at the end of `prose` may still become a header
    /// before an opening token.
    fn lead_held(self, prose: &str) -> usize {
        match self {
            Rules::Family(stream) => stream.lead.map_or(0, |lead| lead.held(prose)),
            Rules::Any => Rules::any_leads().map(|lead| lead.held(prose)).max().unwrap_or(0),
        }
    }

    fn bare(self, head: &str, done: bool) -> Option<bool> {
        let one = |stream: &Streaming| stream.bare.map_or(Some(false), |bare| bare(head, done));
        match self {
            Rules::Family(stream) => one(stream),
            Rules::Any => {
                let answers: Vec<Option<bool>> = FAMILIES.iter().map(|info| one(&info.stream)).collect();
                if answers.contains(&Some(true)) {
                    Some(true)
                } else if answers.contains(&None) {
                    None
                } else {
                    Some(false)
                }
            }
        }
    }
}

/// A segment being streamed.
pub(super) struct Segment {
    rules: Rules,
    /// The text not yet released, from `buf[from..]`: prose that could
    /// start a token, the start of the segment while bare markup may open
    /// it, or the region. What a push releases moves `from` on; the buffer
    /// is cut once, at the next push (cutting it at each release made a
    /// long text pushed at once quadratic).
    buf: String,
    from: usize,
    /// Whether the segment has released nothing yet (bare markup may open it).
    at_start: bool,
    /// How much of `buf`'s start is whitespace already skipped (at the start).
    spaces: usize,
    region: Option<(Box<dyn Region>, Live)>,
    /// What the open region's reader waits for, when it does: a piece
    /// without it is not read.
    unread: Option<Unread>,
    /// Under [`Rules::Any`]: markup was found and is held until the family
    /// is decided (with whether it was at the start of the segment).
    holding: Option<bool>,
    /// The first bytes of the family's opening tokens, when prose held as
    /// the start of one need not be scanned again while it grows (no token
    /// holds another): worked out when first needed.
    token_starts: Option<Option<FirstBytes>>,
    /// How many regions the family's parser read (their markup may be out
    /// of the prose).
    regions_read: usize,
}

/// A piece the open region's reader need not read: one [`Waits::takes`].
struct Unread {
    /// What the reader waits for ([`Region::wakes`], [`Region::streams`]).
    waits: Waits,
    /// Whether the reader is streaming its live call's arguments
    /// ([`Region::streams`]): such a piece goes onto their text as it is;
    /// else ([`Region::wakes`]) it only grows the region.
    streamed: bool,
    /// The bytes of a piece to look at more closely ([`Waits::look`]),
    /// with the first bytes of the reasoning tags, which the stream also
    /// stops at.
    look: ByteSet,
}

impl Unread {
    fn new(waits: Waits, streamed: bool) -> Unread {
        Unread {
            look: waits.look(&REASONING_STARTS),
            waits,
            streamed,
        }
    }
}

/// What a segment scanning with [`Rules::Any`] stopped at.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// Nothing: all released or held.
    Nothing,
    /// A token or bare markup of some family opens a region: `buf` starts
    /// with it (everything before was released).
    Markup,
}

impl Segment {
    pub fn new(rules: Rules, at_start: bool) -> Segment {
        Segment {
            rules,
            buf: String::new(),
            from: 0,
            at_start,
            spaces: 0,
            regions_read: 0,
            region: None,
            unread: None,
            holding: None,
            token_starts: None,
        }
    }

    /// The text held, not yet released.
    pub fn held(&self) -> &str {
        &self.buf[self.from..]
    }

    /// How many regions the family's parser read in this segment.
    pub fn regions_read(&self) -> usize {
        self.regions_read
    }

    /// Whether the markup held was at the start of the segment (where bare
    /// markup may open it).
    pub fn was_at_start(&self) -> bool {
        self.holding.unwrap_or(self.at_start)
    }

    /// Takes the text held, leaving the segment empty.
    pub fn take(&mut self) -> String {
        self.holding = None;
        self.cut_released();
        std::mem::take(&mut self.buf)
    }

    /// More text of the segment (`done`: the segment ends after it).
    #[inline]
    pub fn push(&mut self, text: &str, done: bool, out: &mut Out<'_>, sink: &mut Sink) -> Found {
        if let Some(unread) = self.unread.as_mut() {
            let len = self.buf.len() - self.from + text.len();
            if !done
                && !read_every_piece()
                && unread
                    .waits
                    .takes(text.as_bytes(), len, &FirstBytes::NONE, &unread.look)
            {
                self.buf.push_str(text);
                if let (true, Some((_, live))) = (unread.streamed, &mut self.region) {
                    live.current().arguments.push_str(text);
                    sink.live(live, out);
                }
                #[cfg(test)]
                APPENDED_UNREAD.with(|count| count.set(count.get() + 1));
                return Found::Nothing;
            }
        }
        if let Some(unread) = self.unread.take() {
            if let (true, Some((region, _))) = (unread.streamed, &mut self.region) {
                // The read of the region goes on from the pieces taken.
                if let Some((json, _)) = region.live_json() {
                    json.pass(&self.buf[self.from..], &unread.waits);
                }
            }
        }
        self.cut_released();
        self.buf.push_str(text);
        if self.holding.is_some() {
            return Found::Markup;
        }
        if !done
            && self.region.is_none()
            && !self.at_start
            && !read_every_piece()
            && self.holds_a_token_start()
        {
            // Still the start of a token (a long one comes in pieces): a
            // scan would find nothing and release nothing.
            return Found::Nothing;
        }
        loop {
            if self.region.is_some() {
                if !self.read_region(done, out, sink) {
                    return Found::Nothing;
                }
                continue;
            }
            if self.at_start {
                let rest = &self.buf[self.from + self.spaces..];
                self.spaces += rest.len() - rest.trim_start().len();
                let head = &self.buf[self.from + self.spaces..];
                if head.is_empty() && !done {
                    return Found::Nothing;
                }
                // A piece may bring more than the window at once: what it
                // holds decides first, the window only ends the waiting.
                let decided = match self.rules.bare(head, done) {
                    None if head.len() > BARE_WINDOW => Some(false),
                    decided => decided,
                };
                match decided {
                    None => return Found::Nothing,
                    Some(true) => {
                        self.at_start = false;
                        if let Rules::Any = self.rules {
                            self.holding = Some(true);
                            return Found::Markup;
                        }
                        self.open(None, sink);
                        continue;
                    }
                    Some(false) => self.at_start = false,
                }
            }
            match self.rules.scan_opens(&self.buf[self.from..]) {
                Ok((at, which)) => {
                    let token = self.rules.opens()[which];
                    let at = self
                        .rules
                        .region_start(&self.buf[self.from..self.from + at], token);
                    self.release(at, sink);
                    if let Rules::Any = self.rules {
                        self.holding = Some(false);
                        return Found::Markup;
                    }
                    self.open(Some(which), sink);
                }
                Err(held) => {
                    let prose = &self.buf[self.from..self.buf.len() - held];
                    let keep = if done {
                        0
                    } else {
                        held + self.rules.lead_held(prose)
                    };
                    self.release(self.buf.len() - self.from - keep, sink);
                    return Found::Nothing;
                }
            }
        }
    }

    /// The fast path of [`push`](Segment::push) for a piece the open
    /// region's reader need not read while its live call's arguments stream
    /// ([`Region::streams`]), when `sent_as_is` agrees that the sink sends
    /// such a piece as it is ([`Sink::streams_last`]): the piece is appended to
    /// the region and to the call's arguments, as `push` would, and true is
    /// returned; else (an empty piece too: it sends nothing, and one with
    /// any of `stops`) nothing is done.
    #[inline]
    pub fn append_streamed(
        &mut self,
        text: &str,
        stops: &FirstBytes,
        sent_as_is: impl FnOnce(&Live) -> bool,
    ) -> bool {
        let Some(unread) = self.unread.as_mut().filter(|unread| unread.streamed) else {
            return false;
        };
        let Some((region, live)) = &mut self.region else {
            return false;
        };
        let len = self.buf.len() - self.from + text.len();
        if text.is_empty() || read_every_piece() || !sent_as_is(live) {
            return false;
        }
        if !unread.waits.takes(text.as_bytes(), len, stops, &unread.look) {
            // JSON structure (a key, a quote, a bracket) in the piece: the
            // arguments' scanner takes it, unless it ends them or the piece
            // holds the first byte of a tag.
            if unread.waits.ready_at.is_some() {
                return false;
            }
            let Some((json, tags)) = region.live_json() else {
                return false;
            };
            if text
                .bytes()
                .any(|byte| tags.contains(byte) || stops.contains(byte))
            {
                return false;
            }
            let Some(json_waits) = json.take(&self.buf[self.from..], text, &unread.waits) else {
                return false;
            };
            // What `streams` would answer now: no tag starts after the
            // place its look stopped at.
            let Some(waits) = json_waits.and(Waits::bytes(tags)) else {
                return false;
            };
            *unread = Unread::new(waits, true);
        }
        self.buf.push_str(text);
        live.current().arguments.push_str(text);
        true
    }

    /// Whether the text held is the start of one of the family's opening
    /// tokens, shorter than it, and no token can be whole inside it.
    fn holds_a_token_start(&mut self) -> bool {
        let Rules::Family(stream) = self.rules else {
            return false;
        };
        let held = &self.buf[self.from..];
        let Some(&first) = held.as_bytes().first() else {
            return false;
        };
        let starts = self
            .token_starts
            .get_or_insert_with(|| (!nested(stream.opens)).then(|| FirstBytes::of(stream.opens.iter())));
        starts.is_some_and(|starts| starts.contains(first))
            && stream
                .opens
                .iter()
                .any(|token| token.len() > held.len() && token.starts_with(held))
    }

    /// Cuts what was released from the front of the buffer.
    fn cut_released(&mut self) {
        if self.from > 0 {
            self.buf.drain(..self.from);
            self.from = 0;
        }
    }

    fn open(&mut self, opened_by: Option<usize>, sink: &mut Sink) {
        let Rules::Family(stream) = self.rules else {
            unreachable!("regions open only under one family's rules")
        };
        let live = Live {
            calls: Vec::new(),
            spare: std::mem::take(&mut sink.spare_arguments),
            ..Live::default()
        };
        self.region = Some(((stream.region)(opened_by), live));
    }

    /// Releases `buf[..len]` as prose.
    fn release(&mut self, len: usize, sink: &mut Sink) {
        if len > 0 {
            self.at_start = false;
            sink.prose(&self.buf[self.from..self.from + len]);
            self.from += len;
        }
    }

    /// Reads the open region; true when it ended (the rest of `buf` is to
    /// be looked at again).
    fn read_region(&mut self, done: bool, out: &mut Out<'_>, sink: &mut Sink) -> bool {
        let (region, live) = self.region.as_mut().expect("a region is open");
        let text = &self.buf[self.from..];
        let end = region.read(text, done, live, out);
        sink.live(live, out);
        if !live.prose.is_empty() {
            sink.prose(&live.prose);
            live.prose_sent.push_str(&live.prose);
            live.prose.clear();
        }
        let end = match end {
            End::More if done => End::Call(text.len()),
            end => end,
        };
        match end {
            End::More => {
                self.unread = match region.wakes(text) {
                    Some(waits) => Some(Unread::new(waits, false)),
                    None => region.streams(text).map(|waits| Unread::new(waits, true)),
                };
                false
            }
            End::Prose(len) => {
                let (_, live) = self.region.take().expect("a region is open");
                debug_assert!(
                    live.prose_sent.is_empty(),
                    "a region that sent prose ends as a call"
                );
                sink.orphans(live, out);
                let len = progress(&self.buf[self.from..], len);
                self.release(len, sink);
                true
            }
            End::Call(len) => {
                let (region, mut live) = self.region.take().expect("a region is open");
                let text = &self.buf[self.from..];
                let len = progress(text, len);
                let before = out.calls.len();
                sink.lend(&mut live, before, out);
                let prose_before = out.prose.len();
                if !region.removed() || cfg!(debug_assertions) {
                    let notes_before = out.notes.len();
                    (out.family.info().parse)(&text[..len], out);
                    debug_assert!(
                        !region.removed()
                            || (out.calls.len(), out.prose.len(), out.notes.len())
                                == (before, prose_before, notes_before),
                        "the parse of a removed token, {:?}, gave something",
                        &text[..len]
                    );
                }
                // The prose sent as it came begins the parse's prose.
                let sent = live.prose_sent.as_str();
                if out.prose[prose_before..].starts_with(sent) {
                    out.prose
                        .replace_range(prose_before..prose_before + sent.len(), "");
                } else {
                    debug_assert!(false, "the prose sent, {sent:?}, does not begin the parse's");
                }
                sink.settle(live, before, out);
                self.regions_read += 1;
                self.from += len;
                self.at_start = region.bare_after();
                self.spaces = 0;
                true
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Set by the stream's tests, which check that a piece appended without
    /// reading changes no event: then every piece is read.
    pub(super) static READ_EVERY_PIECE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many pieces were appended without reading.
    pub(super) static APPENDED_UNREAD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn read_every_piece() -> bool {
    #[cfg(test)]
    return READ_EVERY_PIECE.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// Whether one of `tokens` holds another before its last byte (then the
/// start of the one may hold the other whole).
fn nested(tokens: &[&str]) -> bool {
    tokens.iter().any(|outer| {
        let start = &outer.as_bytes()[..outer.len().saturating_sub(1)];
        tokens.iter().any(|inner| {
            !inner.is_empty()
                && start
                    .windows(inner.len())
                    .any(|window| window == inner.as_bytes())
        })
    })
}

/// At least one character, so that a reader that ends a region at 0 does
/// not stop the stream.
fn progress(text: &str, len: usize) -> usize {
    if len > 0 || text.is_empty() {
        return len.min(text.len());
    }
    text.chars().next().map_or(0, char::len_utf8)
}
