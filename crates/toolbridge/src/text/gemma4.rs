//! Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:42,on:true}
//! <tool_call|>`, not JSON: keys are bare, strings sit between `<|"|>`
//! delimiters and are taken as written (a backslash is a backslash, a `"`
//! a quote), other values are JSON literals, objects and lists nest
//! (ollama `model/parsers/gemma4.go`, vLLM `gemma4_tool_parser.py`). Its
//! reasoning is a `<|channel>thought\n…<channel|>` block: kept in the
//! prose, and a call inside a closed one is not a call. ollama drops the
//! `<|tool_response>` token the model may write after a call, and a
//! `<tool_call|>` that closes no call; this drops them wherever they are
//! in the prose.
//!
//! The same call syntax with other tokens is FunctionGemma's
//! (`function_gemma.rs`): a model's tokens are a [`Markup`].

use serde_json::{Map, Number, Value};

use crate::call::{ArgumentsError, ArgumentsErrorKind};

use super::envelope::HEAD_WINDOW;
use super::scan::{delimited_calls, push_prose_without, recovered, Out};
use super::stream::markup::{
    waiting, End, FirstBytes, Live, LiveCall, ProseUntil, Region, Streaming, Token, Until, Waits,
};
use super::tags::{find_tag, floor, Finder};

const OPEN: &str = "<|tool_call>";
const CLOSE: &str = "<tool_call|>";
const QUOTE: &str = "<|\"|>";
const CHANNEL: &str = "<|channel>";
const CHANNEL_END: &str = "<channel|>";
const RESPONSE: &str = "<|tool_response>";

/// The tokens of one model's Gemma-style calls.
pub(super) struct Markup {
    /// The token that opens a call (`call:NAME{…}` follows).
    open: &'static str,
    /// `[close]`: the token that closes a call.
    closes: &'static [&'static str],
    /// The delimiter on both sides of a string.
    quote: &'static str,
    /// The reasoning channel's opening token and `[closing token]`, when
    /// the model has one: a call inside a closed channel is not a call.
    channel: Option<(&'static str, &'static [&'static str])>,
    /// Tokens taken out of the prose wherever they are.
    dropped: &'static [&'static str],
    /// What ends a call's region when its closing token is missing: the
    /// next call's opener, and the channel's.
    call_stops: &'static [&'static str],
    /// The first bytes of `quote`.
    quoted: FirstBytes,
    /// The first bytes of what ends a pair outside a string, or opens one.
    between: FirstBytes,
}

impl Markup {
    /// A markup whose calls open with `open`, close with `closes[0]` (a
    /// slice, as a stream's region takes it), and delimit strings with
    /// `quote`.
    pub(super) const fn new(
        open: &'static str,
        closes: &'static [&'static str],
        quote: &'static str,
        channel: Option<(&'static str, &'static [&'static str])>,
        dropped: &'static [&'static str],
        call_stops: &'static [&'static str],
    ) -> Markup {
        let quoted = FirstBytes::of_list(&[quote]);
        Markup {
            open,
            closes,
            quote,
            channel,
            dropped,
            call_stops,
            quoted,
            between: FirstBytes::of_bytes(b"{[]},").and(quoted),
        }
    }

    fn close(&self) -> &'static str {
        self.closes[0]
    }
}

static GEMMA4: Markup = Markup::new(
    OPEN,
    &[CLOSE],
    QUOTE,
    Some((CHANNEL, &[CHANNEL_END])),
    &[RESPONSE, CLOSE],
    &[OPEN, CHANNEL],
);

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    parse_markup(text, out, &GEMMA4);
}

/// The calls and prose of `text`, written in `markup`.
pub(super) fn parse_markup(text: &str, out: &mut Out<'_>, markup: &'static Markup) {
    let mut pos = 0;
    if let Some((channel, &[channel_end])) = markup.channel {
        let mut channels = Finder::new(text, channel);
        let mut channel_ends = Finder::new(text, channel_end);
        while let Some(start) = channels.from(pos) {
            let Some(end) = channel_ends.from(start) else {
                break;
            };
            calls(&text[pos..start], out, markup);
            out.prose.push_str(&text[start..end + channel_end.len()]);
            pos = end + channel_end.len();
        }
    }
    calls(&text[pos..], out, markup);
}

fn calls(text: &str, out: &mut Out<'_>, markup: &'static Markup) {
    delimited_calls(
        text,
        markup.open,
        markup.close(),
        out,
        |_| None,
        |prose, out| push_prose_without(prose, markup.dropped, out),
        |body, whole, out, notes| call(body, whole, out, notes, markup),
    );
}

/// One call's body: `call:NAME{…}`.
fn call(body: &str, whole: &str, out: &mut Out<'_>, mut notes: Vec<super::Note>, markup: &Markup) {
    let open = markup.open;
    let body = body.trim();
    let body = match body.strip_prefix("call:") {
        Some(rest) => rest,
        // vLLM `test_gemma4_tool_parser.py`, `TestBareAndMalformedOpeners`:
        // `<|tool_call>:NAME{…}`, the word `call` lost.
        None => {
            let (rest, message) = match body.strip_prefix(':') {
                Some(rest) => (
                    rest,
                    "the call starts with : and not call:; the name was read after it",
                ),
                None => (
                    body,
                    "the call does not start with call:; the name was read from its start",
                ),
            };
            notes.push(recovered("missing-prefix", message));
            rest
        }
    };
    let Some(brace) = body.find('{') else {
        out.not_a_call(open, whole, "no {…} of arguments follows the name");
        return;
    };
    let name = body[..brace].trim();
    if name.is_empty() {
        out.not_a_call(open, whole, "it names no tool");
        return;
    }
    let mut reader = Reader::new(&body[brace..], markup.quote, out.limits.max_depth);
    let mut read = reader.value();
    if read.is_err() || (reader.keyless && !reader.bare.is_empty()) {
        // Read again with unquoted text running past commas (ollama's
        // `repairGemma4RawTerminalStringValue`): only after the strict read
        // failed, or ended on words it took for a key after a word it took
        // for a string, so arguments that read stay as they read.
        let declared = out
            .schema(name)
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object);
        let mut raw = Reader::new(&body[brace..], markup.quote, out.limits.max_depth);
        raw.raw_text = Some(declared);
        if let Ok(value) = raw.value() {
            (reader, read) = (raw, Ok(value));
        }
    }
    match read {
        Ok(Value::Object(arguments)) => {
            if reader.truncated {
                notes.push(recovered(
                    "truncated-call",
                    "the text ends inside the call's arguments; what was open was closed",
                ));
            }
            if reader.unclosed {
                notes.push(recovered(
                    "missing-delimiter",
                    format!(
                        "a string's closing {} is missing; it ends where the arguments around it close",
                        markup.quote
                    ),
                ));
            }
            if !reader.bare.is_empty() {
                notes.push(recovered(
                    "bare-string",
                    format!(
                        "{} written without {} delimiters; read as strings",
                        reader.bare.join(", "),
                        markup.quote
                    ),
                ));
            }
            let rest = reader.text[reader.pos..].trim();
            if !rest.is_empty() {
                out.prose.push_str(rest);
                notes.push(recovered(
                    "text-after-arguments",
                    format!(
                        "{} after the arguments was kept in the prose",
                        super::scan::excerpt(rest)
                    ),
                ));
            }
            out.call_value(name, None, Value::Object(arguments), notes);
        }
        Ok(_) => out.not_a_call(open, whole, "the arguments are not an object"),
        // The call named its tool and opened its arguments: a stream
        // announced it then, so it is a call whose arguments do not read.
        Err(why) => {
            let raw = &body[brace..];
            let error = ArgumentsError::new(ArgumentsErrorKind::InvalidJson, why, raw.to_string());
            out.push(name, None, Err(error), Some(raw.to_string()), notes);
        }
    }
}

/// A reader of Gemma's values; at the end of the text whatever is open is
/// closed (`truncated`), so a cut call keeps what it had.
struct Reader<'t> {
    text: &'t str,
    /// The string delimiter.
    quote: &'static str,
    pos: usize,
    depth: usize,
    max_depth: usize,
    truncated: bool,
    /// Whether a string's closing `<|"|>` was missing before the closers
    /// of the arguments.
    unclosed: bool,
    bare: Vec<String>,
    /// Whether unquoted text is read raw, running past commas up to where
    /// the arguments go on (see [`raw_end`]); with the properties
    /// of the declared tool when there is one, whose names alone go on.
    raw_text: Option<Option<&'t Map<String, Value>>>,
    /// Whether the text ended on a key without its `:`.
    keyless: bool,
}

impl<'t> Reader<'t> {
    /// A reader of `text` from its start, strings between `quote`s,
    /// nesting at most `max_depth` deep.
    fn new(text: &'t str, quote: &'static str, max_depth: usize) -> Reader<'t> {
        Reader {
            text,
            quote,
            pos: 0,
            depth: 0,
            max_depth,
            truncated: false,
            unclosed: false,
            bare: Vec::new(),
            raw_text: None,
            keyless: false,
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn at_end(&mut self) -> bool {
        self.skip_space();
        if self.pos >= self.text.len() {
            self.truncated = true;
            true
        } else {
            false
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.rest().starts_with(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!(
            "{what} was expected at byte {} of the arguments",
            self.pos
        ))
    }

    fn value(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if self.at_end() {
            return Ok(Value::Null);
        }
        if self.depth >= self.max_depth {
            return Err(format!("the values nest deeper than {}", self.max_depth));
        }
        if self.rest().starts_with(self.quote) {
            self.pos += self.quote.len();
            return Ok(Value::String(self.delimited()));
        }
        match self.rest().as_bytes()[0] {
            b'{' => {
                self.pos += 1;
                self.depth += 1;
                let mut map = Map::new();
                while !self.eat('}') {
                    if self.at_end() {
                        break;
                    }
                    let key = self.key()?;
                    if !self.eat(':') {
                        if self.at_end() {
                            self.keyless = true;
                            map.insert(key, Value::Null);
                            break;
                        }
                        return self.fail(":");
                    }
                    let value = self.value()?;
                    map.insert(key, value);
                    if !self.eat(',') && !self.at_end() && !self.rest().starts_with('}') {
                        return self.fail(", or }");
                    }
                }
                self.depth -= 1;
                Ok(Value::Object(map))
            }
            b'[' => {
                self.pos += 1;
                self.depth += 1;
                let mut items = Vec::new();
                while !self.eat(']') {
                    if self.at_end() {
                        break;
                    }
                    items.push(self.value()?);
                    if !self.eat(',') && !self.at_end() && !self.rest().starts_with(']') {
                        return self.fail(", or ]");
                    }
                }
                self.depth -= 1;
                Ok(Value::Array(items))
            }
            b'"' => self.json_string(),
            _ => self.literal(start),
        }
    }

    /// A `<|"|>`-delimited string, as written. Without its closing
    /// delimiter it runs to the end of the text, but for the closers of the
    /// objects and lists open around it there (`command:<|"|>ls}` is
    /// `"ls"`, as ollama repairs it).
    fn delimited(&mut self) -> String {
        let text = self.text;
        let rest = &text[self.pos..];
        if let Some(end) = find_tag(rest, self.quote) {
            self.pos += end + self.quote.len();
            return rest[..end].to_string();
        }
        let mut end = rest.trim_end().len();
        let mut closers = 0;
        while closers < self.depth && rest[..end].ends_with(['}', ']']) {
            end = rest[..end - 1].trim_end().len();
            closers += 1;
        }
        if closers == 0 {
            self.truncated = true;
            self.pos = text.len();
            return rest.to_string();
        }
        self.unclosed = true;
        self.pos += end;
        rest[..end].to_string()
    }

    /// A key: bare, `<|"|>`-delimited or a JSON string.
    fn key(&mut self) -> Result<String, String> {
        self.skip_space();
        if self.rest().starts_with(self.quote) {
            self.pos += self.quote.len();
            return Ok(self.delimited());
        }
        if self.rest().starts_with('"') {
            return match self.json_string()? {
                Value::String(key) => Ok(key),
                _ => self.fail("a key"),
            };
        }
        // A bare key may hold spaces (`Basic LLM Chain:`, as ollama reads it).
        let text = self.text;
        let rest = &text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ')))
            .unwrap_or(rest.len());
        let key = rest[..len].trim_end();
        if key.is_empty() {
            return self.fail("a key");
        }
        self.pos += len;
        Ok(key.to_string())
    }

    /// A JSON string (models mix them in); cut off, it is closed.
    fn json_string(&mut self) -> Result<Value, String> {
        let text = self.text;
        let rest = &text[self.pos..];
        let bytes = rest.as_bytes();
        let mut escaped = false;
        for (at, &byte) in bytes.iter().enumerate().skip(1) {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    let text = &rest[..=at];
                    self.pos += at + 1;
                    return serde_json::from_str(text).or_else(|_| self.fail("a JSON string"));
                }
                _ => {}
            }
        }
        self.truncated = true;
        let text = format!("{}\"", rest.strip_suffix('\\').unwrap_or(rest));
        self.pos = self.text.len();
        serde_json::from_str(&text).or_else(|_| self.fail("a JSON string"))
    }

    /// `true`, `false`, `null` or a number, up to the next `,` `}` `]`;
    /// a string in single quotes (with a `<|"|>` left after it, dropped) is
    /// its text, as ollama repairs it; other words are the string they
    /// spell. Read raw, a string that runs past the first `,` `}` `]`
    /// (`start` is where the value began, before any space) is kept as
    /// written, as ollama keeps it.
    fn literal(&mut self, start: usize) -> Result<Value, String> {
        let text = self.text;
        let rest = &text[self.pos..];
        if let Some(quoted) = rest.strip_prefix('\'') {
            if let Some(end) = quoted.find('\'') {
                let after = quoted[end + 1..].trim_start();
                let dangling = if after.starts_with(self.quote) {
                    self.quote.len()
                } else {
                    0
                };
                let skipped = quoted[end + 1..].len() - after.len();
                self.bare.push(format!("'{}'", &quoted[..end]));
                self.pos += 1 + end + 1 + skipped + dangling;
                return Ok(Value::String(quoted[..end].to_string()));
            }
        }
        let len = rest.find([',', '}', ']']).unwrap_or(rest.len());
        let word = rest[..len].trim();
        let value = match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            _ => {
                if let Ok(integer) = word.parse::<i64>() {
                    Value::Number(integer.into())
                } else if let Some(number) = word.parse::<f64>().ok().and_then(Number::from_f64) {
                    Value::Number(number)
                } else if let Some(end) = self.raw_text.and_then(|declared| raw_end(rest, declared)) {
                    let written = &text[start..self.pos + end];
                    self.bare.push(super::scan::excerpt(written));
                    self.pos += end;
                    return Ok(Value::String(written.to_string()));
                } else {
                    // ollama's repair: an unquoted word is the string it spells.
                    self.bare.push(format!("{word:?}"));
                    Value::String(word.to_string())
                }
            }
        };
        self.pos += len;
        Ok(value)
    }
}

/// Where raw text starting `rest` ends when it runs past the first `,` `}`
/// `]` (`None` when it ends there): at the first comma the arguments go on
/// after (a key and its `:`, a declared property's when `declared` lists
/// them), else at the first closer only closers and such a comma follow,
/// else at the end of the text (trailing space left out).
fn raw_end(rest: &str, declared: Option<&Map<String, Value>>) -> Option<usize> {
    let goes_on = |after: &str| {
        let after = after.trim_start();
        let key_len = after
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .unwrap_or(after.len());
        let key = &after[..key_len];
        !key.is_empty()
            && after[key_len..].trim_start().starts_with(':')
            && declared.is_none_or(|properties| properties.contains_key(key))
    };
    let first = rest.find([',', '}', ']']).unwrap_or(rest.len());
    let mut at = 0;
    let end = loop {
        let Some(found) = rest[at..].find([',', '}', ']']) else {
            break rest.trim_end().len();
        };
        let stop = at + found;
        if rest.as_bytes()[stop] == b',' {
            if goes_on(&rest[stop + 1..]) {
                break stop;
            }
            at = stop + 1;
            continue;
        }
        let after = rest[stop..].trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '}' | ']'));
        if after.is_empty() || after.strip_prefix(',').is_some_and(goes_on) {
            break stop;
        }
        // Every closer of this run is followed by the same text: none ends it.
        at = rest.len() - after.len();
    };
    (end > first).then_some(end)
}

/// Streamed: a call runs from `<|tool_call>` to `<tool_call|>` (or the next
/// `<|tool_call>`), announced once its `{` ends the name, each argument
/// sent as its `,` or the closing `}` arrives; a thought channel from
/// `<|channel>` to `<channel|>` is a region too, so a call inside it stays
/// in it, and a channel opening inside a call runs the call's region to
/// the channel's end; `<|tool_response>`, and a `<tool_call|>` that closes
/// no call, are regions of their own, which the parser removes.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN, CHANNEL, RESPONSE, CLOSE],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    region_of(&GEMMA4, STREAM.opens, opened_by)
}

/// The region a stream of `markup` opens at `opens[opened_by]`: a call at
/// its opener, the reasoning channel at its own, any other token alone.
pub(super) fn region_of(
    markup: &'static Markup,
    opens: &'static [&'static str],
    opened_by: Option<usize>,
) -> Box<dyn Region> {
    let Some(token) = opened_by.and_then(|index| opens.get(index)) else {
        unreachable!("Gemma's markups have no bare calls")
    };
    match markup.channel {
        _ if *token == markup.open => Box::new(Call {
            markup,
            until: Until::new(markup.open.len(), markup.closes, markup.call_stops, &[]),
            channel: None,
            arguments: None,
            stopped: false,
        }),
        // The channel is prose as written as it comes, up to its first
        // call, or a token the parse takes out of the prose: those are read
        // once it is known whether the channel closes.
        Some((channel, channel_ends)) if *token == channel => Box::new(ProseUntil::new(
            Until::new(channel.len(), channel_ends, &[], &[]),
            0..0,
            0,
            std::iter::once(markup.open)
                .chain(markup.dropped.iter().copied())
                .collect(),
        )),
        _ => Box::new(Token(token.len())),
    }
}

/// One call being read.
struct Call {
    markup: &'static Markup,
    until: Until,
    /// A thought channel opened inside the call: the region runs to its
    /// end (see [`Call::read`]).
    channel: Option<Until>,
    /// Once the name is known: the arguments read so far.
    arguments: Option<Pairs>,
    /// The call comes whole (no name the parse would read, or arguments
    /// the stream's reader stopped at).
    stopped: bool,
}

/// Where the arguments of a call being read are: `key:value` pairs of the
/// top object, each sent once its end (a `,` or the `}`) arrives.
struct Pairs {
    markup: &'static Markup,
    /// The next byte to look at.
    at: usize,
    /// Where the pair being read starts.
    start: usize,
    /// Brackets open inside the top object.
    depth: usize,
    /// Inside a delimited string.
    quoted: bool,
}

impl Region for Call {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        if let Some(channel) = &mut self.channel {
            return channel.end(text, done);
        }
        let end = self.until.end(text, done);
        let markup = self.markup;
        let channel = markup.channel.map(|(channel, _)| channel);
        if let (End::Call(at), Some((channel, channel_ends))) = (end, markup.channel) {
            if text[at..].starts_with(channel) {
                // The parse reads a closed thought channel first, and a call
                // before it as ending where it opens; a channel that never
                // closes is text where calls are read, the call running on.
                // Which it is needs the channel's end: the region runs to
                // it (or to the end of the text), the parse decides, and
                // nothing after the channel's opening goes out live.
                self.stopped = true;
                let mut channel = Until::new(at + channel.len(), channel_ends, &[], &[]);
                let end = channel.end(text, done);
                self.channel = Some(channel);
                return end;
            }
        }
        if self.stopped {
            return end;
        }
        let text = &text[..self.until.body_end(text, end)];
        if self.arguments.is_none() {
            // As the parse reads it: `call:NAME` up to the first `{`.
            let body = &text[markup.open.len()..];
            let Some(brace) = body.find('{') else {
                self.stopped = body.len() > HEAD_WINDOW;
                return end;
            };
            let head = body[..brace].trim_start();
            let name = head
                .strip_prefix("call:")
                .or_else(|| head.strip_prefix(':'))
                .unwrap_or(head)
                .trim();
            // A thought channel opening before the `{` may end the call
            // there, as the parse reads it once the channel closes.
            if name.is_empty() || channel.is_some_and(|channel| head.contains(channel)) {
                self.stopped = true;
                return end;
            }
            live.current().open_canonical(name);
            let at = markup.open.len() + brace + 1;
            self.arguments = Some(Pairs {
                markup,
                at,
                start: at,
                depth: 0,
                quoted: false,
            });
        }
        if let (Some(pairs), Some(call)) = (&mut self.arguments, live.calls.last_mut()) {
            self.stopped = !pairs.read(text, call, out);
        }
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        if let Some(channel) = &self.channel {
            Some(channel.waits(text))
        } else if self.stopped {
            Some(self.until.waits(text))
        } else {
            self.until.waits(text).and(self.arguments.as_ref()?.wakes(text))
        }
    }
}

impl Pairs {
    /// The bytes the look for the next pair's end waits for
    /// ([`Region::wakes`]): a string's closing quote inside one, else a
    /// quote, a bracket or a comma.
    fn wakes(&self, text: &str) -> Waits {
        if self.quoted {
            waiting(text, self.at, self.markup.quoted, self.markup.quote.len())
        } else {
            waiting(text, self.at, self.markup.between, 1)
        }
    }

    /// Sends the pairs that ended in `text`; false when the stream stops
    /// reading them (the object closed, or a pair its reader cannot read).
    fn read(&mut self, text: &str, call: &mut LiveCall, out: &Out<'_>) -> bool {
        let bytes = text.as_bytes();
        let quote = self.markup.quote;
        self.at = self.at.min(text.len());
        while self.at < text.len() {
            if self.quoted {
                match find_tag(&text[self.at..], quote) {
                    Some(at) => {
                        self.at += at + quote.len();
                        self.quoted = false;
                    }
                    None => {
                        self.at = floor(text, text.len().saturating_sub(quote.len() - 1)).max(self.at);
                        return true;
                    }
                }
                continue;
            }
            // Bytes, not text: the scan steps through multi-byte characters.
            let rest = &bytes[self.at..];
            if rest.starts_with(quote.as_bytes()) {
                self.quoted = true;
                self.at += quote.len();
                continue;
            }
            if rest.len() < quote.len() && quote.as_bytes().starts_with(rest) {
                return true;
            }
            match bytes[self.at] {
                b'{' | b'[' => self.depth += 1,
                b']' => self.depth = self.depth.saturating_sub(1),
                b'}' if self.depth > 0 => self.depth -= 1,
                b'}' => {
                    // The arguments closed: their last pair, then the rest is the parse's.
                    self.pair(&text[self.start..self.at], call, out);
                    return false;
                }
                b',' if self.depth == 0 => {
                    if !self.pair(&text[self.start..self.at], call, out) {
                        return false;
                    }
                    self.start = self.at + 1;
                }
                _ => {}
            }
            self.at += 1;
        }
        true
    }

    /// Sends one `key:value` pair, read as the parse reads values; false
    /// when it does not read.
    fn pair(&self, pair: &str, call: &mut LiveCall, out: &Out<'_>) -> bool {
        if pair.trim().is_empty() {
            return true;
        }
        let mut object = String::with_capacity(pair.len() + 2);
        object.push('{');
        object.push_str(pair);
        object.push('}');
        let mut reader = Reader::new(&object, self.markup.quote, out.limits.max_depth);
        match reader.value() {
            // A word without delimiters may yet run on past this comma when
            // the call is read whole (see `raw_end`): the call then comes whole.
            Ok(Value::Object(map)) if !reader.truncated && map.len() == 1 && reader.bare.is_empty() => {
                for (key, value) in map {
                    call.push_parameter(&key, value);
                }
                true
            }
            _ => false,
        }
    }
}
