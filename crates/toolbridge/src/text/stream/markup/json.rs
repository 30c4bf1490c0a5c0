//! Call regions whose arguments are JSON: a head naming the tool, then an
//! argument object streamed through the partial parser as it arrives
//! ([`HeadJson`], [`LiveJson`]), and JSON lists of call envelopes whose
//! calls start as each one is named ([`ListScan`]).

use super::{Brackets, End, FirstBytes, Live, LiveCall, Region, Until, Waits};
use crate::text::envelope::{self, EnvelopeKeys, Found, HEAD_WINDOW};
use crate::text::scan::Out;

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
