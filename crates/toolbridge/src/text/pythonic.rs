//! Llama 4 and Llama 3.2's pythonic template: a Python list of calls with
//! keyword arguments, `[get_weather(city="Paris", days=3), now()]`, in
//! Llama 4 between `<|python_start|>` and `<|python_end|>` (vLLM
//! `pythonic_tool_parser.py`, `llama4_pythonic_tool_parser.py`, which read
//! it with Python's `ast`). Values are Python literals: strings in either
//! quote, numbers, `True`/`False`/`None`, lists, tuples and dicts.

use serde_json::{Map, Number, Value};

use super::scan::{excerpt, recovered, Out};
use super::stream::markup::{after_spaces, could_be, Brackets, End, Live, Region, Spaces, Streaming};
use super::tags::Finder;
use crate::call::{ArgumentsError, ArgumentsErrorKind};
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

const START: &str = "<|python_start|>";
const END: &str = "<|python_end|>";

pub(super) fn detect(text: &str) -> bool {
    list_start(text).is_some()
}

/// Where the list of calls begins: at the start of the text (after
/// whitespace, with or without `<|python_start|>`), or at a
/// `<|python_start|>` after prose (Llama 4 may write a sentence first).
fn list_start(text: &str) -> Option<usize> {
    let trimmed = text.trim_start();
    let lead = text.len() - trimmed.len();
    let body = trimmed.strip_prefix(START).unwrap_or(trimmed);
    if starts_list(body) {
        return Some(lead);
    }
    let at = text.find(START)?;
    starts_list(&text[at + START.len()..]).then_some(at)
}

/// Whether `text` starts (after whitespace) with `[name(`.
fn starts_list(text: &str) -> bool {
    text.trim_start().strip_prefix('[').is_some_and(|rest| {
        let rest = rest.trim_start();
        let name = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        name > 0 && rest[name..].trim_start().starts_with('(')
    })
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    // Lists are read where a stream opens them — bare at the start of the
    // text, and at every `<|python_start|>` — each as far as the stream's
    // reader takes it, so that whole and streamed text give the same calls.
    let mut pos = 0;
    let lead = text.len() - text.trim_start().len();
    if bare(&text[lead..], true) == Some(true) {
        out.prose.push_str(&text[..lead]);
        pos = lead + one_list(&text[lead..], out);
    }
    let mut starts = Finder::new(text, START);
    while let Some(start) = starts.from(pos) {
        out.prose.push_str(&text[pos..start]);
        pos = start + one_list(&text[start..], out);
    }
    out.prose.push_str(&text[pos..]);
}

/// The list at the start of `text` (bare, or after `<|python_start|>`),
/// as far as the stream's [`List`] reader takes it; how much it took (at
/// least one character).
fn one_list(text: &str, out: &mut Out<'_>) -> usize {
    let mut reader = region(None);
    let len = match reader.read(text, true, &mut Live::default(), out) {
        End::Call(len) | End::Prose(len) => len,
        End::More => text.len(),
    };
    let len = if len > 0 {
        len.min(text.len())
    } else {
        text.chars().next().map_or(0, char::len_utf8)
    };
    list(&text[..len], out);
    len
}

/// One list of calls (the text of one region); what is not a call is prose.
fn list(text: &str, out: &mut Out<'_>) {
    let Some(start) = list_start(text) else {
        out.prose.push_str(text);
        return;
    };
    out.prose.push_str(&text[..start]);
    let from = &text[start..];
    let (body, tagged) = match from.strip_prefix(START) {
        Some(body) => (body.trim_start(), true),
        None => (from, false),
    };
    match read_list(body, out.limits.max_depth) {
        Ok(list) => {
            let mut rest = &body[list.taken..];
            if tagged {
                rest = rest.trim_start().strip_prefix(END).unwrap_or(rest);
            }
            add_calls(list, Vec::new(), out);
            out.prose.push_str(rest);
        }
        Err(why) => out.not_a_call("[", from, &why),
    }
}

/// The calls of a list that was read, in order, `notes` on the first: a
/// call whose arguments do not read is a call with that error (a stream
/// announced it once its name and first argument came); an item that is
/// no call is noted and left out (the list began with a call, so it is
/// not prose).
pub(super) fn add_calls(list: CallList, mut notes: Vec<super::Note>, out: &mut Out<'_>) {
    if list.truncated {
        notes.push(recovered(
            "truncated-call",
            "the text ends inside the list of calls; the open strings and brackets were closed",
        ));
    }
    for (index, item) in list.items.into_iter().enumerate() {
        match item {
            Item::Call(name, arguments) => {
                out.call_value(&name, None, Value::Object(arguments), std::mem::take(&mut notes));
            }
            Item::Broken { name, text, why } => {
                let error = ArgumentsError::new(ArgumentsErrorKind::InvalidJson, why, text.clone());
                out.push(&name, None, Err(error), Some(text), std::mem::take(&mut notes));
            }
            Item::NotACall(text) => out.notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: "item".into(),
                },
                Pointer::root().key(&index.to_string()),
                format!(
                    "item {index} of the list of calls, {}, is not a call (name(key=value, …)); it was left out",
                    excerpt(&text)
                ),
            )),
        }
    }
    out.notes.extend(notes);
}

/// `text` cut off inside a list of calls, with its open string and
/// brackets closed; `None` when it is not cut off.
fn close_truncated(text: &str) -> Option<String> {
    let mut nesting = Nesting::default();
    text.chars().for_each(|c| nesting.step(c));
    if nesting.is_top() {
        return None;
    }
    let mut closed = text.strip_suffix('\\').unwrap_or(text).to_string();
    if let Some(q) = nesting.quote {
        closed.push(q);
    }
    closed.extend(nesting.open.iter().rev());
    Some(closed)
}

/// One item of a list of calls, as read.
#[derive(Debug, PartialEq)]
pub(super) enum Item {
    /// A call whose arguments read: its name and keyword arguments.
    Call(String, Map<String, Value>),
    /// A call whose head (`name(` then `)` or `key=`) was read but whose
    /// arguments do not read: its name, its text and why.
    Broken { name: String, text: String, why: String },
    /// An item after the first that is no call: its text.
    NotACall(String),
}

/// A list of calls read from the start of a text.
#[derive(Debug)]
pub(super) struct CallList {
    pub items: Vec<Item>,
    /// How many bytes of the text it took.
    pub taken: usize,
    /// Whether the text ended inside it (its open strings and brackets
    /// were then closed).
    pub truncated: bool,
}

/// The Python list of calls `[f(a=1), g()]` at the start of `text` (after
/// whitespace), or why it is not one: its first item is no call's head,
/// or it is not a list (LFM2 writes this list between its own tokens).
pub(super) fn read_list(text: &str, max_depth: usize) -> Result<CallList, String> {
    read_closing(text, max_depth, |reader| reader.items())
}

/// One call `f(a=1)` at the start of `text`, not in a list (LFM2 as
/// ollama reads it), as a list of one.
pub(super) fn read_bare_call(text: &str, max_depth: usize) -> Result<CallList, String> {
    read_closing(text, max_depth, |reader| {
        reader.skip_space();
        let start = reader.pos;
        let name = reader.head()?;
        match reader.arguments() {
            Ok(arguments) => Ok(vec![Item::Call(name, arguments)]),
            Err(why) if reader.at_end() => Err(why),
            // Alone, the call runs to the end of the text.
            Err(why) => {
                let text = reader.text[start..].trim_end().to_string();
                reader.pos = reader.text.len();
                Ok(vec![Item::Broken { name, text, why }])
            }
        }
    })
}

/// `read` over `text`; when the text ends inside what it reads, again over
/// the text with its open strings and brackets closed.
fn read_closing(
    text: &str,
    max_depth: usize,
    read: impl Fn(&mut Reader<'_>) -> Result<Vec<Item>, String>,
) -> Result<CallList, String> {
    let mut reader = Reader::new(text, max_depth);
    match read(&mut reader) {
        Ok(items) => Ok(CallList {
            items,
            taken: reader.pos,
            truncated: false,
        }),
        Err(why) if reader.at_end() => {
            let Some(closed) = close_truncated(text) else {
                return Err(why);
            };
            let mut reader = Reader::new(&closed, max_depth);
            // What was added is only closers: the list ends at the text's end.
            read(&mut reader)
                .map(|items| CallList {
                    items,
                    taken: text.len(),
                    truncated: true,
                })
                .map_err(|_| why)
        }
        Err(why) => Err(why),
    }
}

/// One Python call `f(a=1)` at the start of `text` (after whitespace) and
/// how many bytes it took (Llama 3's built-in `brave_search.call(…)`).
pub(super) fn read_call(text: &str, max_depth: usize) -> Result<(Call, usize), String> {
    let mut reader = Reader::new(text, max_depth);
    let call = reader.call()?;
    Ok((call, reader.pos))
}

/// Where an item of a list that starts at byte `from` of `text` ends: at
/// the first `,` or `]` outside its strings and brackets, or the text's end.
fn item_end(text: &str, from: usize) -> usize {
    let mut nesting = Nesting::default();
    for (at, c) in text[from..].char_indices() {
        if nesting.is_top() && matches!(c, ',' | ']') {
            return from + at;
        }
        nesting.step(c);
    }
    text.len()
}

/// The strings and brackets open at a place in Python text.
#[derive(Default)]
struct Nesting {
    /// The closers of the open brackets.
    open: Vec<char>,
    quote: Option<char>,
    escaped: bool,
}

impl Nesting {
    fn is_top(&self) -> bool {
        self.open.is_empty() && self.quote.is_none()
    }

    fn step(&mut self, c: char) {
        match self.quote {
            Some(_) if self.escaped => self.escaped = false,
            Some(_) if c == '\\' => self.escaped = true,
            Some(q) if c == q => self.quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => self.quote = Some(c),
                '[' => self.open.push(']'),
                '(' => self.open.push(')'),
                '{' => self.open.push('}'),
                ']' | ')' | '}' => {
                    self.open.pop();
                }
                _ => {}
            },
        }
    }
}

/// Whether `c` can be in a function's or an argument's name.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.' || c == '-'
}

/// A reader of Python literals, `depth` bounded by the limits.
struct Reader<'t> {
    text: &'t str,
    pos: usize,
    depth: usize,
    max_depth: usize,
}

/// One call: the function's name and its keyword arguments.
pub(super) type Call = (String, Map<String, Value>);

impl Reader<'_> {
    fn new(text: &str, max_depth: usize) -> Reader<'_> {
        Reader {
            text,
            pos: 0,
            depth: 0,
            max_depth,
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        if self.at_end() {
            Err(format!(
                "the call list ends early (cut off?) where {what} was expected"
            ))
        } else {
            Err(format!(
                "{what} was expected at byte {} of the call list",
                self.pos
            ))
        }
    }

    /// The items of `[…]`. Only a first item that is no call's head makes
    /// it no list of calls.
    fn items(&mut self) -> Result<Vec<Item>, String> {
        let mut items = Vec::new();
        if !self.eat('[') {
            return self.fail("[");
        }
        loop {
            // Python allows a comma after the last item.
            if !items.is_empty() && self.eat(']') {
                return Ok(items);
            }
            self.skip_space();
            let start = self.pos;
            match self.head() {
                Ok(name) => items.push(self.item(start, name)?),
                Err(why) if items.is_empty() || self.at_end() => return Err(why),
                Err(_) => items.push(self.not_a_call(start)?),
            }
            if self.eat(']') {
                return Ok(items);
            }
            if !self.eat(',') {
                // Text after a call that is not the next one: no call.
                let start = self.pos;
                items.push(self.not_a_call(start)?);
                if self.eat(']') {
                    return Ok(items);
                }
                if !self.eat(',') {
                    return self.fail(", or ]");
                }
            }
        }
    }

    /// The call whose head, `name(`, was read from `start`: its arguments,
    /// or why they do not read (the text cut off inside them is the
    /// caller's to close: `Err`).
    fn item(&mut self, start: usize, name: String) -> Result<Item, String> {
        match self.arguments() {
            Ok(arguments) => Ok(Item::Call(name, arguments)),
            Err(why) if self.at_end() => Err(why),
            Err(why) => {
                self.pos = item_end(self.text, start);
                if self.at_end() {
                    return Err(why);
                }
                let text = self.text[start..self.pos].trim_end().to_string();
                Ok(Item::Broken { name, text, why })
            }
        }
    }

    /// The item from `start` that is no call, up to its end.
    fn not_a_call(&mut self, start: usize) -> Result<Item, String> {
        self.pos = item_end(self.text, start);
        if self.at_end() {
            return self.fail(", or ]");
        }
        Ok(Item::NotACall(self.text[start..self.pos].trim_end().to_string()))
    }

    /// One `name(key=value, …)`.
    fn call(&mut self) -> Result<Call, String> {
        let name = self.head()?;
        Ok((name, self.arguments()?))
    }

    /// A call's head: `name(` followed by `)` or `key=` (so `[see(above)]`
    /// is no call). Leaves the reader after the `(`.
    fn head(&mut self) -> Result<String, String> {
        let name = self.name();
        if name.is_empty() {
            return self.fail("a function name");
        }
        if !self.eat('(') {
            return self.fail("(");
        }
        let open = self.pos;
        if !self.eat(')') {
            let key = self.name();
            if key.is_empty() || !self.eat('=') {
                return self.fail("a keyword argument (name=value)");
            }
        }
        self.pos = open;
        Ok(name)
    }

    /// The keyword arguments after a call's `(`, to its `)`.
    fn arguments(&mut self) -> Result<Map<String, Value>, String> {
        let mut arguments = Map::new();
        while !self.eat(')') {
            let (key, value) = self.keyword()?;
            arguments.insert(key, value);
            if !self.eat(',') && !self.rest().trim_start().starts_with(')') {
                return self.fail(", or )");
            }
        }
        Ok(arguments)
    }

    /// One `key=value`.
    fn keyword(&mut self) -> Result<(String, Value), String> {
        let key = self.name();
        if key.is_empty() || !self.eat('=') {
            return self.fail("a keyword argument (name=value)");
        }
        Ok((key, self.value()?))
    }

    fn name(&mut self) -> String {
        self.skip_space();
        let rest = self.rest();
        let len = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        let name = rest[..len].to_string();
        self.pos += len;
        name
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_space();
        if self.depth >= self.max_depth {
            return Err(format!("the values nest deeper than {}", self.max_depth));
        }
        let Some(first) = self.rest().chars().next() else {
            return self.fail("a value");
        };
        match first {
            '"' | '\'' => self.string(first).map(Value::String),
            '[' | '(' => {
                let close = if first == '[' { ']' } else { ')' };
                self.pos += 1;
                self.depth += 1;
                let mut items = Vec::new();
                while !self.eat(close) {
                    items.push(self.value()?);
                    if !self.eat(',') && !self.rest().trim_start().starts_with(close) {
                        return self.fail(&format!(", or {close}"));
                    }
                }
                self.depth -= 1;
                Ok(Value::Array(items))
            }
            '{' => {
                self.pos += 1;
                self.depth += 1;
                let mut map = Map::new();
                while !self.eat('}') {
                    self.skip_space();
                    let key = match self.value()? {
                        Value::String(key) => key,
                        other => other.to_string(),
                    };
                    if !self.eat(':') {
                        return self.fail(":");
                    }
                    map.insert(key, self.value()?);
                    if !self.eat(',') && !self.rest().trim_start().starts_with('}') {
                        return self.fail(", or }");
                    }
                }
                self.depth -= 1;
                Ok(Value::Object(map))
            }
            _ => {
                let word = self.name();
                match word.as_str() {
                    "True" | "true" => Ok(Value::Bool(true)),
                    "False" | "false" => Ok(Value::Bool(false)),
                    "None" | "null" => Ok(Value::Null),
                    _ => self.number(&word),
                }
            }
        }
    }

    fn number(&mut self, word: &str) -> Result<Value, String> {
        let mut text = word.to_string();
        // A name stops at '.', '-' and '+' in exponents are not in it: read on.
        while let Some(c) = self
            .rest()
            .chars()
            .next()
            .filter(|c| matches!(c, '+' | '-' | '.') || c.is_ascii_alphanumeric())
        {
            text.push(c);
            self.pos += c.len_utf8();
        }
        let text = text.replace('_', "");
        if let Ok(integer) = text.parse::<i64>() {
            return Ok(Value::Number(integer.into()));
        }
        match text.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(number) => Ok(Value::Number(number)),
            None => self.fail("a Python literal"),
        }
    }

    fn string(&mut self, quote: char) -> Result<String, String> {
        self.pos += 1;
        let mut value = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                _ if c == quote => {
                    self.pos += at + 1;
                    return Ok(value);
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, 't')) => value.push('\t'),
                    Some((_, 'r')) => value.push('\r'),
                    Some((_, '0')) => value.push('\0'),
                    Some((_, 'u')) => {
                        let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                            Some(c) => value.push(c),
                            None => return self.fail("a \\u escape of four hex digits"),
                        }
                    }
                    Some((_, other)) => value.push(other),
                    None => break,
                },
                _ => value.push(c),
            }
        }
        self.pos = self.text.len();
        self.fail("the end of a string")
    }
}

/// Streamed: the list at the start of the text (after `<|python_start|>`)
/// to its closing `]` (and `<|python_end|>`); the rest is prose. The calls
/// are sent when the list closes.
pub(super) const STREAM: Streaming = Streaming {
    // A tagged list may follow prose (see `list_start`).
    opens: &[START],
    bare: Some(bare),
    region,
};

/// Whether the text opens with `[name(`, perhaps after `<|python_start|>`.
fn bare(head: &str, done: bool) -> Option<bool> {
    if !done && could_be(head, START) {
        return None;
    }
    let rest = head.strip_prefix(START).map_or(head, str::trim_start);
    if rest.is_empty() {
        return if done { Some(false) } else { None };
    }
    let Some(rest) = rest.strip_prefix('[') else {
        return Some(false);
    };
    let rest = rest.trim_start();
    let name = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
    let after = rest[name..].trim_start();
    if after.is_empty() && !done {
        return None;
    }
    Some(name > 0 && after.starts_with('('))
}

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(List {
        start: None,
        tagged: false,
        brackets: Brackets::new(true),
        scanned: 0,
        end: None,
    })
}

/// The list being read.
struct List {
    /// Where its `[` is.
    start: Option<usize>,
    tagged: bool,
    brackets: Brackets,
    scanned: usize,
    /// Where its `]` ended (a `<|python_end|>` may follow when tagged).
    end: Option<usize>,
}

impl List {
    /// After the list of a tagged text: `<|python_end|>` may follow.
    fn after(&mut self, text: &str, end: usize, done: bool) -> End {
        match after_spaces(text, self.scanned.max(end), &[END], done) {
            (Spaces::Tag(at), _) => End::Call(at + END.len()),
            (Spaces::Other(_), _) => End::Call(end),
            (Spaces::More(at), _) => {
                self.scanned = at;
                End::More
            }
        }
    }
}

impl Region for List {
    fn read(&mut self, text: &str, done: bool, _: &mut Live, _: &Out<'_>) -> End {
        if self.start.is_none() {
            let trimmed = text.trim_start();
            let (body, tagged) = match trimmed.strip_prefix(START) {
                Some(body) => (body.trim_start(), true),
                None => (trimmed, false),
            };
            self.start = Some(text.len() - body.len());
            self.scanned = text.len() - body.len();
            self.tagged = tagged;
        }
        if let Some(end) = self.end {
            return self.after(text, end, done);
        }
        match self.brackets.feed(&text.as_bytes()[self.scanned..]) {
            Some(len) => {
                let end = self.scanned + len;
                self.scanned = end;
                if !self.tagged {
                    return End::Call(end);
                }
                self.end = Some(end);
                self.after(text, end, done)
            }
            None => {
                self.scanned = text.len();
                if done {
                    End::Call(text.len())
                } else {
                    End::More
                }
            }
        }
    }
}
