//! Llama 3.1–3.3: `<|python_tag|>{"name": …, "parameters": {…}}` (calls
//! separated by `;`), the same JSON bare, or the custom-tool form
//! `<function=NAME>{…}</function>` (Meta's prompt format docs; vLLM
//! `llama_tool_parser.py`). The built-in tools follow `<|python_tag|>` too:
//! `brave_search.call(query="…")` and `wolfram_alpha.call(query="…")`, and
//! for `code_interpreter` the Python code itself, up to `<|eom_id|>`
//! (Meta's `llama3_1` prompt format; llama.cpp `common/chat.cpp`,
//! `common_chat_parse_llama_3_1`, reads the same `NAME.call(ARG=VALUE)`). Groq's `tool_use_failed` answers carry the
//! garbled `<function=NAME={…}</function>` and `<function=NAME{…}` shapes.

use crate::call::repair;

use super::envelope::{self, is_call, EnvelopeKeys, Found};
use super::pythonic;
use super::scan::{json_at, recovered, Out};
use super::stream::markup::{
    after_spaces, close_after, could_be, first_of, opened, Brackets, End, FirstBytes, Live, LiveCall,
    LiveJson, Region, Spaces, Streaming, Waits,
};
use super::tags::Finder;

const PYTHON_TAG: &str = "<|python_tag|>";
const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const END_TOKENS: [&str; 3] = ["<|eom_id|>", "<|eot_id|>", "<|end_of_text|>"];

pub(super) fn detect(text: &str) -> bool {
    text.contains(PYTHON_TAG) || text.contains(FUNCTION) || bare_call(text)
}

/// Whether the text starts with `{"name"`.
fn bare_call(text: &str) -> bool {
    text.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"name\""))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut pos = 0;
    if bare_call(text) {
        pos = json_calls(text, out);
    }
    let (mut tags, mut functions) = (Finder::new(text, PYTHON_TAG), Finder::new(text, FUNCTION));
    loop {
        let tag = tags.from(pos).map(|at| (at, true));
        let function = functions.from(pos).map(|at| (at, false));
        let Some((at, python)) = [tag, function].into_iter().flatten().min() else {
            break;
        };
        out.prose.push_str(&text[pos..at]);
        if python {
            let start = at + PYTHON_TAG.len();
            let mut taken = json_calls(&text[start..], out);
            if taken == 0 {
                taken = builtin_call(&text[start..], out);
            }
            pos = start + taken;
        } else {
            pos = at + function_call(&text[at..], out);
        }
    }
    let mut rest = &text[pos..];
    for token in END_TOKENS {
        rest = rest.trim_end().strip_suffix(token).unwrap_or(rest);
    }
    out.prose.push_str(rest);
}

/// Calls `{"name", "parameters"}` separated by `;` (or whitespace alone,
/// noted), at the start of
/// `text`; returns how much of `text` they took (0: none, the text is prose).
/// A JSON that names its tool before its parameters is that call, named as
/// its head says (see [`envelope`]), as a stream announced it.
fn json_calls(text: &str, out: &mut Out<'_>) -> usize {
    let mut taken = 0;
    let mut unseparated = false;
    while let Some(json) = json_at(&text[taken..]).filter(|json| json.text.starts_with('{')) {
        let mut notes = Vec::new();
        if unseparated {
            notes.push(recovered(
                "call-separator",
                "the call follows the one before it without the `;` between calls",
            ));
        }
        if json.truncated {
            notes.push(recovered(
                "truncated-call",
                "the text ends inside the call's JSON",
            ));
        }
        if let Found::Head(head) = envelope::head(json.text, EnvelopeKeys::Plain) {
            out.call_headed(json.text, head.at, &head, notes, EnvelopeKeys::Plain);
        } else {
            let exact = !json.truncated
                && out
                    .call_exact_envelope(json.text, Vec::new(), EnvelopeKeys::Plain)
                    .is_ok();
            if !exact {
                let Ok(envelope) = repair(json.text, None, out.limits) else {
                    break;
                };
                if !is_call(&envelope.value) {
                    break;
                }
                notes.extend(envelope.notes);
                let mut value = envelope.value;
                envelope::drop_late_id(&mut value, &mut notes);
                let _ = out.call_envelope(value, notes);
            }
        }
        taken = text.len() - json.rest.len();
        let after = json.rest.trim_start();
        // Calls on lines of their own, without the `;`, are calls too
        // (vLLM's llama3_json tests); a JSON that is no call ends them.
        unseparated = after.starts_with('{');
        match after.strip_prefix(';') {
            Some(next) => taken = text.len() - next.len(),
            None if unseparated => {}
            None => break,
        }
    }
    taken
}

/// `<function=NAME>{…}</function>` at the start of `text`, and its garbled
/// variants; returns how much of `text` it took.
fn function_call(text: &str, out: &mut Out<'_>) -> usize {
    let after = &text[FUNCTION.len()..];
    let name_end = after
        .find(|c: char| matches!(c, '>' | '=' | '{' | '<' | '(') || c.is_whitespace())
        .unwrap_or(after.len());
    let name = &after[..name_end];
    let mut rest = &after[name_end..];
    let mut notes = Vec::new();
    if let Some(next) = rest.strip_prefix('>') {
        rest = next;
    } else if let Some(next) = rest.strip_prefix('=') {
        rest = next;
        notes.push(recovered(
            "function-equals",
            "the call was written <function=NAME={…} (as Groq reports in tool_use_failed) and read as <function=NAME>{…}",
        ));
    } else {
        notes.push(recovered(
            "missing-bracket",
            "the > after <function=NAME is missing",
        ));
    }
    if name.is_empty() {
        out.not_a_call(FUNCTION, FUNCTION, "no tool name follows it");
        return FUNCTION.len();
    }
    let (arguments, mut rest) = match out.json_at(rest) {
        Some(json) => (json.text, json.rest),
        None if rest.trim_start().starts_with(FUNCTION_END) => ("{}", rest),
        None => {
            let taken = text.len() - rest.len();
            out.not_a_call(FUNCTION, &text[..taken], "no JSON arguments follow the name");
            return taken;
        }
    };
    match rest.trim_start().strip_prefix(FUNCTION_END) {
        Some(next) => rest = next,
        None => notes.push(recovered(
            "missing-close-tag",
            "the call's </function> is missing",
        )),
    }
    out.call_text(name, None, arguments, notes);
    text.len() - rest.len()
}

/// A built-in tool's call after `<|python_tag|>`: `NAME.call(key=value, …)`,
/// or else the code for `code_interpreter`, up to the end-of-message token;
/// returns how much of `text` it took.
fn builtin_call(text: &str, out: &mut Out<'_>) -> usize {
    let start = text.len() - text.trim_start().len();
    if let Ok(((name, arguments), taken, quotes_kept)) =
        pythonic::read_call(&text[start..], out.limits.max_depth)
    {
        if let Some(name) = name.strip_suffix(".call").filter(|name| !name.is_empty()) {
            let notes = if quotes_kept {
                vec![pythonic::unescaped_quotes()]
            } else {
                Vec::new()
            };
            out.call_value(name, None, serde_json::Value::Object(arguments), notes);
            return start + taken;
        }
    }
    let end = first_of(text, 0, END_TOKENS).map_or(text.len(), |(at, _)| at);
    let code = text[..end].trim();
    if code.is_empty() {
        out.not_a_call(PYTHON_TAG, PYTHON_TAG, "nothing follows it");
        return 0;
    }
    let mut arguments = serde_json::Map::new();
    arguments.insert("code".into(), serde_json::Value::String(code.to_string()));
    out.call_value(
        "code_interpreter",
        None,
        serde_json::Value::Object(arguments),
        Vec::new(),
    );
    end
}

/// Streamed: `<|python_tag|>` (or bare JSON at the start) and the JSON
/// calls after it, `;`-separated; `<function=NAME>` and its JSON up to
/// `</function>`; a run of end tokens, removed from the prose when it ends
/// the text and kept as prose when more text follows. The arguments of a
/// `<function=NAME>` call stream as the model writes them.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[PYTHON_TAG, FUNCTION, END_TOKENS[0], END_TOKENS[1], END_TOKENS[2]],
    bare: Some(bare),
    region,
    lead: None,
};

/// Whether the text opens with `{"name"`.
fn bare(head: &str, done: bool) -> Option<bool> {
    let Some(rest) = head.strip_prefix('{') else {
        return Some(false);
    };
    let rest = rest.trim_start();
    if !done && (rest.is_empty() || could_be(rest, "\"name\"")) {
        return None;
    }
    Some(rest.starts_with("\"name\""))
}

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        None => Box::new(JsonCalls::new(0)),
        Some(0) => Box::new(JsonCalls::new(PYTHON_TAG.len())),
        Some(1) => Box::new(Function::default()),
        Some(_) => Box::new(EndTokens { at: 0 }),
    }
}

/// JSON calls separated by `;` (or whitespace alone), from `at`. A call whose JSON names its
/// tool before its parameters is announced then, and its parameters stream
/// (see [`envelope`]); once a JSON has no such head, the
/// calls after it come whole when the region ends.
struct JsonCalls {
    at: usize,
    /// The JSON being read.
    json: Option<Reading>,
    scanned: usize,
    /// After a JSON: where it ended (a `;` may follow).
    after: Option<usize>,
    /// Whether a JSON value was read.
    read_one: bool,
    /// Whether the tag holds a built-in call or code instead of JSON.
    builtin: bool,
    /// Whether every JSON so far had a head (so the next may stream).
    heads: bool,
}

/// Where a [`JsonCalls`] is in one JSON.
enum Reading {
    /// The head of the JSON starting here.
    Head(usize),
    /// The call's parameters, streaming.
    Arguments(LiveJson),
    /// The rest of a call's JSON, to its closing bracket.
    Rest(Brackets),
    /// A JSON without a head, starting here, to its closing bracket.
    Whole(usize, Brackets),
}

impl JsonCalls {
    fn new(at: usize) -> JsonCalls {
        JsonCalls {
            at,
            json: None,
            scanned: at,
            after: None,
            read_one: false,
            builtin: false,
            heads: true,
        }
    }

    /// A built-in call or code runs to the first end token, as
    /// [`builtin_call`] reads it.
    fn builtin_end(&mut self, text: &str, done: bool) -> End {
        let longest = END_TOKENS.iter().map(|token| token.len()).max().unwrap_or(0);
        let from = self.scanned.saturating_sub(longest).max(self.at);
        self.scanned = text.len();
        match first_of(text, from, &END_TOKENS) {
            Some((at, _)) => End::Call(at),
            None if done => End::Call(text.len()),
            None => End::More,
        }
    }

    /// A JSON call ended at `end`.
    fn ended(&mut self, end: usize) {
        self.json = None;
        self.read_one = true;
        self.after = Some(end);
        self.scanned = end;
    }
}

impl Region for JsonCalls {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        if self.builtin {
            return self.builtin_end(text, done);
        }
        let more = |done: bool| if done { End::Call(text.len()) } else { End::More };
        loop {
            if let Some(end) = self.after {
                match after_spaces(text, self.scanned.max(end), &[";", "{"], done) {
                    (Spaces::Tag(at), which) => {
                        // After `;`, or at the next JSON when it follows without one.
                        self.after = None;
                        self.at = if which == 0 { at + 1 } else { at };
                        self.scanned = self.at;
                    }
                    (Spaces::Other(_), _) => return End::Call(end),
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        return End::More;
                    }
                }
            }
            match &mut self.json {
                None => match after_spaces(text, self.scanned.max(self.at), &["{"], done) {
                    (Spaces::Tag(at), _) => {
                        self.json = Some(match self.heads {
                            true => Reading::Head(at),
                            false => Reading::Whole(at, Brackets::new(false)),
                        });
                        self.scanned = at;
                    }
                    // No JSON call right after the tag: a built-in tool's
                    // call or code, read up to the end-of-message token.
                    (Spaces::Other(_), _) if self.at == PYTHON_TAG.len() && !self.read_one => {
                        self.builtin = true;
                        self.scanned = self.at;
                        return self.builtin_end(text, done);
                    }
                    (Spaces::Other(_), _) => return End::Call(self.at),
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        return End::More;
                    }
                },
                Some(Reading::Head(start)) => {
                    let start = *start;
                    match envelope::head(&text[start..], EnvelopeKeys::Plain) {
                        Found::More(_) if !done => return End::More,
                        Found::Head(head) => {
                            live.calls.push(LiveCall::default());
                            let json = LiveJson::start(live, head.name, head.id, start + head.at);
                            self.json = Some(Reading::Arguments(json));
                        }
                        Found::More(_) | Found::Whole => {
                            self.heads = false;
                            self.json = Some(Reading::Whole(start, Brackets::new(false)));
                        }
                    }
                }
                Some(Reading::Arguments(json)) => match json.read(text, text.len(), live) {
                    Some(end) => {
                        self.scanned = end;
                        self.json = Some(Reading::Rest(opened(b"{")));
                    }
                    None => return more(done),
                },
                Some(Reading::Rest(brackets)) => match brackets.feed(&text.as_bytes()[self.scanned..]) {
                    // A JSON with a head is a call (the parser reads it so).
                    Some(len) => self.ended(self.scanned + len),
                    None => {
                        self.scanned = text.len();
                        return more(done);
                    }
                },
                Some(Reading::Whole(start, brackets)) => {
                    match brackets.feed(&text.as_bytes()[self.scanned..]) {
                        Some(len) => {
                            let end = self.scanned + len;
                            let json = &text[*start..end];
                            if !repair(json, None, out.limits).is_ok_and(|read| is_call(&read.value)) {
                                self.json = None;
                                if self.at == PYTHON_TAG.len() && !self.read_one {
                                    // JSON that is no call: code for the interpreter,
                                    // read up to the end-of-message token as the parser does.
                                    self.builtin = true;
                                    self.scanned = self.at;
                                    return self.builtin_end(text, done);
                                }
                                // The parse ends its calls before a JSON that is no
                                // call and reads on from there as prose, where a tag
                                // (`<function=` inside that JSON) opens what it opens.
                                return match self.at {
                                    0 => End::Prose(0),
                                    at => End::Call(at),
                                };
                            }
                            self.ended(end);
                        }
                        None => {
                            self.scanned = text.len();
                            return more(done);
                        }
                    }
                }
            }
        }
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        match (&self.json, self.after, self.builtin) {
            (Some(Reading::Arguments(json)), None, false) => json.streams(text),
            _ => None,
        }
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        match (&mut self.json, self.after, self.builtin) {
            (Some(Reading::Arguments(json)), None, false) => Some((json, FirstBytes::NONE)),
            _ => None,
        }
    }
}

/// `<function=NAME>{…}</function>` and its garbled variants.
#[derive(Default)]
struct Function {
    /// Where the arguments may start (after the name and its `>` or `=`).
    rest: Option<usize>,
    name: Option<String>,
    scanned: usize,
    json: Option<LiveJson>,
    /// Where the JSON (or the name, for `{}` arguments) ended: a
    /// `</function>` may follow.
    after: Option<usize>,
}

impl Region for Function {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, _: &Out<'_>) -> End {
        let rest = match self.rest {
            Some(rest) => rest,
            None => {
                let after = &text[FUNCTION.len()..];
                let from = self.scanned.saturating_sub(FUNCTION.len());
                let Some(name_end) = after[from..]
                    .find(|c: char| matches!(c, '>' | '=' | '{' | '<' | '(') || c.is_whitespace())
                    .map(|at| from + at)
                else {
                    self.scanned = text.len();
                    return if done { End::Call(text.len()) } else { End::More };
                };
                if name_end == 0 {
                    return End::Call(FUNCTION.len());
                }
                self.name = Some(after[..name_end].to_string());
                let mut rest = FUNCTION.len() + name_end;
                if text[rest..].starts_with(['>', '=']) {
                    rest += 1;
                }
                self.rest = Some(rest);
                self.scanned = rest;
                rest
            }
        };
        loop {
            if let Some(end) = self.after {
                return close_after(text, end, &mut self.scanned, FUNCTION_END, done);
            }
            match &mut self.json {
                None => match after_spaces(text, self.scanned, &["{", "[", FUNCTION_END], done) {
                    (Spaces::Tag(at), which) => {
                        live.current().name = self.name.take();
                        if which == 2 {
                            self.after = Some(at);
                        } else {
                            self.json = Some(LiveJson::new(at));
                        }
                        self.scanned = at;
                    }
                    (Spaces::Other(_), _) => {
                        // No arguments follow: not a call, kept as prose by the parser.
                        return End::Call(rest);
                    }
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        return End::More;
                    }
                },
                Some(json) => match json.read(text, text.len(), live) {
                    Some(end) => {
                        self.json = None;
                        self.after = Some(end);
                        self.scanned = end;
                    }
                    None if done => return End::Call(text.len()),
                    None => return End::More,
                },
            }
        }
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        match (&self.json, self.after) {
            (Some(json), None) => json.streams(text),
            _ => None,
        }
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        match (&mut self.json, self.after) {
            (Some(json), None) => Some((json, FirstBytes::NONE)),
            _ => None,
        }
    }
}

/// A run of end tokens (and whitespace).
struct EndTokens {
    at: usize,
}

impl Region for EndTokens {
    fn read(&mut self, text: &str, done: bool, _: &mut Live, _: &Out<'_>) -> End {
        loop {
            match after_spaces(text, self.at, &END_TOKENS, done) {
                (Spaces::Tag(at), which) => self.at = at + END_TOKENS[which].len(),
                (Spaces::Other(at), _) if at < text.len() => return End::Prose(at),
                (Spaces::Other(_), _) => return End::Call(text.len()),
                (Spaces::More(at), _) => {
                    self.at = at;
                    return End::More;
                }
            }
        }
    }
}
