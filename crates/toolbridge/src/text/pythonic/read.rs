//! The Python reader: a list of calls, one call, Python literals.

use serde_json::{Map, Number, Value};

/// `text` cut off inside a list of calls (or one call), with its open
/// string and brackets closed, and whether it was cut inside an item (a
/// call, not only the list around the calls); `None` when it is not cut
/// off.
fn close_truncated(text: &str) -> Option<(String, bool)> {
    let bytes = text.as_bytes();
    let mut nesting = Nesting::default();
    let mut at = 0;
    while at < bytes.len() {
        at = nesting.step(bytes, at);
    }
    if nesting.is_top() {
        return None;
    }
    // A backslash that escapes nothing yet is dropped, not left to escape the quote.
    let mut closed = if nesting.escaped {
        text.strip_suffix('\\').unwrap_or(text).to_string()
    } else {
        text.to_string()
    };
    if let Some(quote) = nesting.quote {
        closed.push(char::from(quote));
    }
    closed.extend(nesting.open.iter().rev().map(|&close| char::from(close)));
    let list = usize::from(text.trim_start().starts_with('['));
    let in_item = nesting.quote.is_some() || nesting.open.len() > list;
    Some((closed, in_item))
}

/// One item of a list of calls, as read.
#[derive(Debug, PartialEq)]
pub(in crate::text) enum Item {
    /// A call whose arguments read: its name and keyword arguments, and
    /// whether a string in them held a quote the model left unescaped
    /// (read as text).
    Call {
        name: String,
        arguments: Map<String, Value>,
        quotes_kept: bool,
    },
    /// A call whose head (`name(` then `)` or `key=`) was read but whose
    /// arguments do not read: its name, its text and why.
    Broken { name: String, text: String, why: String },
    /// An item after the first that is no call: its text.
    NotACall(String),
}

/// A list of calls read from the start of a text.
#[derive(Debug)]
pub(in crate::text) struct CallList {
    pub items: Vec<Item>,
    /// How many bytes of the text it took.
    pub taken: usize,
    /// Whether the text ended inside it (its open strings and brackets
    /// were then closed).
    pub truncated: bool,
    /// Whether the text ended inside its last item: that call was cut off.
    pub last_cut: bool,
    /// How the list breaks off, when it does (it then ends after its last
    /// item; the rest is not the list's): the note's sentence.
    pub broken: Option<String>,
}

/// The Python list of calls `[f(a=1), g()]` at the start of `text` (after
/// whitespace), or why it is not one: its first item is no call's head,
/// or it is not a list (LFM2 writes this list between its own tokens).
pub(in crate::text) fn read_list(text: &str, max_depth: usize) -> Result<CallList, String> {
    read_closing(text, max_depth, |reader, items| reader.items(items))
}

/// Calls one after another, a line each, `f(a=1)\ng(b=2)` (OLMo 3
/// writes them so between its tags), as a list: only a first line that is
/// no call's head makes them no calls.
pub(in crate::text) fn read_call_lines(text: &str, max_depth: usize) -> Result<CallList, String> {
    read_closing(text, max_depth, |reader, items| reader.lines(items))
}

/// One call `f(a=1)` at the start of `text`, not in a list (LFM2 as
/// ollama reads it), as a list of one.
pub(in crate::text) fn read_bare_call(text: &str, max_depth: usize) -> Result<CallList, String> {
    read_closing(text, max_depth, |reader, items| {
        reader.skip_space();
        let start = reader.pos;
        let name = reader.head()?;
        reader.quotes_kept = false;
        match reader.arguments() {
            Ok(arguments) => items.push(Item::Call {
                name,
                arguments,
                quotes_kept: reader.quotes_kept,
            }),
            Err(why) if reader.at_end() => {
                reader.unfinished = Some((start, name));
                return Err(why);
            }
            // Alone, the call runs to the end of the text.
            Err(why) => {
                let text = reader.text[start..].trim_end().to_string();
                reader.pos = reader.text.len();
                items.push(Item::Broken { name, text, why });
            }
        }
        reader.kept = reader.pos;
        Ok(())
    })
}

/// `read` over `text`; when the text ends inside what it reads, again over
/// the text with its open strings and brackets closed. Once an item is
/// read, the text is a list of calls: when it breaks off later, its items
/// so far are the list.
fn read_closing(
    text: &str,
    max_depth: usize,
    read: impl Fn(&mut Reader<'_>, &mut Vec<Item>) -> Result<(), String>,
) -> Result<CallList, String> {
    let mut reader = Reader::new(text, max_depth);
    let mut items = Vec::new();
    let why = match read(&mut reader, &mut items) {
        Ok(()) => {
            return Ok(CallList {
                items,
                taken: reader.pos,
                truncated: false,
                last_cut: false,
                broken: None,
            })
        }
        Err(why) => why,
    };
    if reader.at_end() {
        if let Some((closed, in_item)) = close_truncated(text) {
            let mut closed_reader = Reader::new(&closed, max_depth);
            let mut closed_items = Vec::new();
            if read(&mut closed_reader, &mut closed_items).is_ok() {
                // What was added is only closers: the list ends at the text's end.
                return Ok(CallList {
                    items: closed_items,
                    taken: text.len(),
                    truncated: true,
                    last_cut: in_item,
                    broken: None,
                });
            }
        }
    }
    // A call whose head was read is a call even when its text cannot be
    // closed: a stream announced it.
    let mut taken = reader.kept;
    if let Some((start, name)) = reader.unfinished.take() {
        items.push(Item::Broken {
            name,
            text: text[start..].trim_end().to_string(),
            why: why.clone(),
        });
        taken = text.len();
    }
    if items.is_empty() {
        return Err(why);
    }
    let broken = if taken == text.len() {
        format!(
            "the list of calls breaks off in its item {}: {why}",
            items.len() - 1
        )
    } else {
        format!(
            "the list of calls breaks off after its item {}: {why}; what follows was kept in the prose",
            items.len() - 1
        )
    };
    Ok(CallList {
        items,
        taken,
        truncated: false,
        last_cut: false,
        broken: Some(broken),
    })
}

/// One Python call `f(a=1)` at the start of `text` (after whitespace), how
/// many bytes it took (Llama 3's built-in `brave_search.call(…)`), and
/// whether a string in it held a quote the model left unescaped.
pub(in crate::text) fn read_call(text: &str, max_depth: usize) -> Result<(Call, usize, bool), String> {
    let mut reader = Reader::new(text, max_depth);
    let call = reader.call()?;
    Ok((call, reader.pos, reader.quotes_kept))
}

/// Where an item of a list that starts at byte `from` of `text` ends: at
/// the first `,` or `]` outside its strings and brackets, or the text's end.
fn item_end(text: &str, from: usize) -> usize {
    end_at(text, from, b",]")
}

/// Where a line of calls that starts at byte `from` of `text` ends: at the
/// first line break outside its strings and brackets, or the text's end.
fn line_end(text: &str, from: usize) -> usize {
    end_at(text, from, b"\n")
}

/// The first of `stops` from byte `from` of `text` outside strings and
/// brackets, or the text's end.
fn end_at(text: &str, from: usize, stops: &[u8]) -> usize {
    let bytes = text.as_bytes();
    let mut nesting = Nesting::default();
    let mut at = from;
    while at < bytes.len() {
        if nesting.is_top() && stops.contains(&bytes[at]) {
            return at;
        }
        at = nesting.step(bytes, at);
    }
    text.len()
}

/// The strings and brackets open at a place in Python text, read a byte at
/// a time (every byte it acts on is ASCII, so a multi-byte character is
/// only passed over): one reading for where an item ends, how cut text is
/// closed and where a streamed call's arguments end.
#[derive(Default)]
pub(super) struct Nesting {
    /// The closers of the open brackets.
    open: Vec<u8>,
    quote: Option<u8>,
    escaped: bool,
}

impl Nesting {
    /// Outside every string and bracket.
    pub(super) fn is_top(&self) -> bool {
        self.open.is_empty() && self.quote.is_none()
    }

    /// When the bytes read so far end inside a string: its quote, and
    /// whether a backslash escapes the next byte.
    pub(super) fn open_string(&self) -> Option<(u8, bool)> {
        self.quote.map(|quote| (quote, self.escaped))
    }

    /// Reads `bytes[at]` (inside a string, the string's text up to its
    /// quote or a backslash, at once); where to read next.
    pub(super) fn step(&mut self, bytes: &[u8], at: usize) -> usize {
        let Some(quote) = self.quote else {
            match bytes[at] {
                byte @ (b'"' | b'\'') => self.quote = Some(byte),
                b'[' => self.open.push(b']'),
                b'(' => self.open.push(b')'),
                b'{' => self.open.push(b'}'),
                b']' | b')' | b'}' => {
                    self.open.pop();
                }
                _ => {}
            }
            return at + 1;
        };
        if self.escaped {
            self.escaped = false;
            return at + 1;
        }
        let Some(run) = bytes[at..]
            .iter()
            .position(|&byte| byte == quote || byte == b'\\')
        else {
            return bytes.len();
        };
        if bytes[at + run] == b'\\' {
            self.escaped = true;
        } else {
            self.quote = None;
        }
        at + run + 1
    }
}

/// Whether `c` can be in a function's or an argument's name.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.' || c == '-'
}

/// A reader of Python literals, `depth` bounded by the limits.
pub(super) struct Reader<'t> {
    text: &'t str,
    pub(super) pos: usize,
    /// Where the items read whole end (a list that breaks off ends there).
    kept: usize,
    /// The call whose head was read but whose text ended before its
    /// arguments did: where it starts, and its name.
    unfinished: Option<(usize, String)>,
    depth: usize,
    max_depth: usize,
    /// Whether a string read held a quote the model left unescaped.
    quotes_kept: bool,
    /// The closers of the brackets open where the reader is (the list's,
    /// the call's, a value's), innermost last: what may follow a string's
    /// closing quote.
    closers: Vec<u8>,
}

/// One call: the function's name and its keyword arguments.
pub(in crate::text) type Call = (String, Map<String, Value>);

impl Reader<'_> {
    pub(super) fn new(text: &str, max_depth: usize) -> Reader<'_> {
        Reader {
            text,
            pos: 0,
            kept: 0,
            unfinished: None,
            depth: 0,
            max_depth,
            quotes_kept: false,
            closers: Vec::new(),
        }
    }

    pub(super) fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    pub(super) fn at_end(&self) -> bool {
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

    /// The items of `[…]`, onto `items`. Only a first item that is no
    /// call's head makes it no list of calls.
    fn items(&mut self, items: &mut Vec<Item>) -> Result<(), String> {
        if !self.eat('[') {
            return self.fail("[");
        }
        self.closers.push(b']');
        loop {
            // Python allows a comma after the last item.
            if !items.is_empty() && self.eat(']') {
                return Ok(());
            }
            self.skip_space();
            let start = self.pos;
            match self.head() {
                Ok(name) => items.push(self.item(start, name, item_end)?),
                Err(why) if items.is_empty() || self.at_end() => return Err(why),
                Err(_) => items.push(self.not_a_call(start)?),
            }
            self.kept = self.pos;
            if self.eat(']') {
                return Ok(());
            }
            if !self.eat(',') {
                // Text after a call that is not the next one: no call.
                let start = self.pos;
                items.push(self.not_a_call(start)?);
                self.kept = self.pos;
                if self.eat(']') {
                    return Ok(());
                }
                if !self.eat(',') {
                    return self.fail(", or ]");
                }
            }
        }
    }

    /// Calls a line each (see [`read_call_lines`]), onto `items`; a later
    /// line that is no call is an item that is no call.
    fn lines(&mut self, items: &mut Vec<Item>) -> Result<(), String> {
        loop {
            self.skip_space();
            if self.at_end() && !items.is_empty() {
                return Ok(());
            }
            let start = self.pos;
            match self.head() {
                Ok(name) => items.push(self.item(start, name, line_end)?),
                // A head cut off by the end of the text is the caller's to
                // close, as in a list.
                Err(why) if items.is_empty() || self.at_end() => return Err(why),
                Err(_) => {
                    self.pos = line_end(self.text, start);
                    items.push(Item::NotACall(self.text[start..self.pos].trim_end().to_string()));
                }
            }
            self.kept = self.pos;
        }
    }

    /// The call whose head, `name(`, was read from `start`: its arguments,
    /// or why they do not read (the text cut off inside them is the
    /// caller's to close: `Err`); `end` finds where a call that does not
    /// read ends (its item's or its line's end).
    fn item(&mut self, start: usize, name: String, end: fn(&str, usize) -> usize) -> Result<Item, String> {
        self.quotes_kept = false;
        let open = self.closers.len();
        let arguments = self.arguments();
        // Arguments that do not read leave what they opened.
        self.closers.truncate(open);
        match arguments {
            Ok(arguments) => Ok(Item::Call {
                name,
                arguments,
                quotes_kept: self.quotes_kept,
            }),
            Err(why) if self.at_end() => {
                self.unfinished = Some((start, name));
                Err(why)
            }
            Err(why) => {
                self.pos = end(self.text, start);
                if self.at_end() {
                    self.unfinished = Some((start, name));
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
    pub(super) fn head(&mut self) -> Result<String, String> {
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
        self.closers.push(b')');
        while !self.eat(')') {
            let (key, value) = self.keyword()?;
            arguments.insert(key, value);
            if !self.eat(',') && !self.rest().trim_start().starts_with(')') {
                return self.fail(", or )");
            }
        }
        self.closers.pop();
        Ok(arguments)
    }

    /// One `key=value`.
    pub(super) fn keyword(&mut self) -> Result<(String, Value), String> {
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
                self.closers.push(close as u8);
                let mut items = Vec::new();
                while !self.eat(close) {
                    items.push(self.value()?);
                    if !self.eat(',') && !self.rest().trim_start().starts_with(close) {
                        return self.fail(&format!(", or {close}"));
                    }
                }
                self.closers.pop();
                self.depth -= 1;
                Ok(Value::Array(items))
            }
            '{' => {
                self.pos += 1;
                self.depth += 1;
                self.closers.push(b'}');
                let mut map = Map::new();
                // A set ({'a', 'b'}: no `:` after its first item) is a list
                // of its distinct items, in the order written.
                let mut set: Option<Vec<Value>> = None;
                while !self.eat('}') {
                    self.skip_space();
                    let first = self.value()?;
                    if set.is_none() && map.is_empty() && !self.rest().trim_start().starts_with(':') {
                        set = Some(Vec::new());
                    }
                    match &mut set {
                        Some(items) => {
                            if !items.contains(&first) {
                                items.push(first);
                            }
                        }
                        None => {
                            let key = match first {
                                Value::String(key) => key,
                                other => other.to_string(),
                            };
                            if !self.eat(':') {
                                return self.fail(":");
                            }
                            map.insert(key, self.value()?);
                        }
                    }
                    if !self.eat(',') && !self.rest().trim_start().starts_with('}') {
                        return self.fail(", or }");
                    }
                }
                self.closers.pop();
                self.depth -= 1;
                Ok(set.map_or(Value::Object(map), Value::Array))
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

    /// A string's text after its opening `quote`, its escapes read as
    /// Python reads them. The string ends at the first quote that what
    /// follows can follow a value at this place (`,`, `:`, the closers of
    /// the open brackets in order, the text's end). A quote before it is
    /// one the model left unescaped, text ([`quotes_kept`](Reader::quotes_kept)).
    /// When no quote among the next [`QUOTES_LOOKED_AT`] can end it, the
    /// first one does (the value after it then does not read).
    fn string(&mut self, quote: char) -> Result<String, String> {
        self.pos += 1;
        let text = self.text;
        let rest = &text[self.pos..];
        let bytes = rest.as_bytes();
        // The quote is ASCII: the text runs to it or to a backslash, copied whole.
        let stop = |byte: u8| u32::from(byte) == u32::from(quote) || byte == b'\\';
        let mut value = String::new();
        // The first quote: (where the value ends there, where the text stops).
        let mut first: Option<(usize, usize)> = None;
        let mut quotes = 0;
        let mut at = 0;
        while let Some(run) = bytes[at..].iter().position(|&byte| stop(byte)) {
            value.push_str(&rest[at..at + run]);
            at += run;
            if bytes[at] == b'\\' {
                match escape(&rest[at + 1..], &mut value) {
                    Ok(len) => {
                        at += 1 + len;
                        continue;
                    }
                    Err(Some(what)) => return self.fail(what),
                    Err(None) => break,
                }
            }
            if self.may_follow_a_value(&rest[at + 1..]) {
                self.quotes_kept |= first.is_some();
                self.pos += at + 1;
                return Ok(value);
            }
            first.get_or_insert((value.len(), at));
            quotes += 1;
            if quotes == QUOTES_LOOKED_AT {
                break;
            }
            value.push(quote);
            at += 1;
        }
        if let Some((len, at)) = first {
            value.truncate(len);
            self.pos += at + 1;
            return Ok(value);
        }
        self.pos = self.text.len();
        self.fail("the end of a string")
    }

    /// Whether `after` (the text after a string's quote) can follow a
    /// value where the reader is: after spaces, a `,` or `:`, or the
    /// closers of the open brackets, innermost first (then anything), or
    /// the text's end.
    fn may_follow_a_value(&self, after: &str) -> bool {
        let mut open = self.closers.iter().rev();
        let mut closed = 0;
        for byte in after.bytes() {
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => {}
                b',' | b':' => return true,
                b')' | b']' | b'}' => match open.next() {
                    Some(&closer) if closer == byte => closed += 1,
                    _ => return false,
                },
                // Past the closers of every open bracket, anything may follow.
                _ => return closed > 0 && closed == self.closers.len(),
            }
        }
        true
    }
}

/// How many quotes a string looks at for its end before it takes the
/// first (a text of many unescaped quotes stays linear).
const QUOTES_LOOKED_AT: usize = 32;

/// The escape after a backslash at the start of `after`, as Python reads
/// it, pushed onto `value`: how many bytes it took; `Err(None)` when the
/// text ends there, `Err(Some(what))` for a `\x`, `\u` or `\U` without
/// its hex digits. An escape Python does not know keeps its backslash
/// (`'\,'` is the two characters `\,`); a backslash before a line break
/// joins the lines.
fn escape(after: &str, value: &mut String) -> Result<usize, Option<&'static str>> {
    let Some(escaped) = after.chars().next() else {
        return Err(None);
    };
    let simple = match escaped {
        '\\' | '\'' | '"' => Some(escaped),
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        _ => None,
    };
    if let Some(c) = simple {
        value.push(c);
        return Ok(1);
    }
    let mut hex = |digits: usize, what: &'static str| {
        let c = after
            .get(1..1 + digits)
            .filter(|hex| hex.bytes().all(|byte| byte.is_ascii_hexdigit()))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .and_then(char::from_u32)
            .ok_or(Some(what))?;
        value.push(c);
        Ok(1 + digits)
    };
    match escaped {
        '\n' => Ok(1),
        '0'..='7' => {
            let digits = after
                .bytes()
                .take(3)
                .take_while(|byte| (b'0'..=b'7').contains(byte))
                .count();
            let code = u32::from_str_radix(&after[..digits], 8).unwrap_or(0);
            value.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            Ok(digits)
        }
        'x' => hex(2, "a \\x escape of two hex digits"),
        'u' => hex(4, "a \\u escape of four hex digits"),
        'U' => hex(8, "a \\U escape of eight hex digits"),
        other => {
            value.push('\\');
            value.push(other);
            Ok(other.len_utf8())
        }
    }
}
