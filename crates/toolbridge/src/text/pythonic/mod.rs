//! Llama 4 and Llama 3.2's pythonic template: a Python list of calls with
//! keyword arguments, `[get_weather(city="Paris", days=3), now()]`, in
//! Llama 4 between `<|python_start|>` and `<|python_end|>` (vLLM
//! `pythonic_tool_parser.py`, `llama4_pythonic_tool_parser.py`, which read
//! it with Python's `ast`). Values are Python literals: strings in either
//! quote, numbers, `True`/`False`/`None`, lists, tuples and dicts.
//!
//! vLLM's whole-text parse is all or nothing; its streaming parse sends a
//! call once the list, closed up, parses with a complete keyword (`name(`
//! then `)` or `key=`) and never takes it back. Both are one rule here: a
//! list is a list of calls from its first call's head, so `[see(above)]`
//! stays prose while a list that breaks after a call keeps the call.
//!
//! - `read`: the Python reader and the list rule (a list of calls from its
//!   first call's head), shared with LFM2 and Llama 3's built-in calls;
//! - `live`: the calls as a stream reads them, before the list closes.

mod live;
mod read;

use serde_json::Value;

use super::scan::{excerpt, recovered, Out};
use super::stream::markup::{after_spaces, could_be, Brackets, End, Live, Region, Spaces, Streaming, Waits};
use super::tags::Finder;
use crate::call::{ArgumentsError, ArgumentsErrorKind};
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use live::PYTHON;
pub(super) use live::{Layout, LiveCalls};
use read::{is_name_char, Item};
pub(super) use read::{read_bare_call, read_call, read_call_lines, read_list, CallList};

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
    let mut pos = leading_list(text, out);
    let mut starts = Finder::new(text, START);
    while let Some(start) = starts.from(pos) {
        out.prose.push_str(&text[pos..start]);
        pos = start + one_list(&text[start..], out);
    }
    out.prose.push_str(&text[pos..]);
}

/// The list a text opens with, after whitespace (see [`bare`]), read as a
/// stream reads it: how much of `text` it took with the whitespace before
/// it (which goes to the prose); 0 when the text opens with no list.
pub(super) fn leading_list(text: &str, out: &mut Out<'_>) -> usize {
    let lead = text.len() - text.trim_start().len();
    if bare(&text[lead..], true) != Some(true) {
        return 0;
    }
    out.prose.push_str(&text[..lead]);
    lead + one_list(&text[lead..], out)
}

/// The list at the start of `text` (bare, or after `<|python_start|>`),
/// as far as the stream's [`List`] reader takes it; how much it took (at
/// least one character).
fn one_list(text: &str, out: &mut Out<'_>) -> usize {
    // Where the region ends, without reading its calls as a stream would.
    let len = match List::new().end(text, true) {
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

/// The calls read (`read`) from `body`, a family's block between its
/// tokens (`markup`: the opening token and the whole block), with what
/// follows them in `body` kept in the prose and noted (`calls` names them
/// in the note); when the block holds no call, it stays prose.
pub(super) fn add_block(
    read: Result<CallList, String>,
    body: &str,
    markup: (&str, &str),
    calls: &str,
    mut notes: Vec<super::Note>,
    out: &mut Out<'_>,
) {
    let (open, whole) = markup;
    match read {
        Ok(list) => {
            // A stream sent the calls before this text came: they stay calls.
            let rest = body[list.taken..].trim();
            if !rest.is_empty() && list.broken.is_none() {
                notes.push(recovered(
                    "text-after-calls",
                    format!("{} after {calls} was kept in the prose", excerpt(rest)),
                ));
            }
            add_calls(list, notes, out);
            out.prose.push_str(rest);
        }
        Err(why) => out.not_a_call(open, whole, &why),
    }
}

/// The calls of a list that was read, in order, `notes` on the first: a
/// call whose arguments do not read is a call with that error (a stream
/// announced it once its name and first argument came); an item that is
/// no call is noted and left out (the list began with a call, so it is
/// not prose). A list the text ends inside is noted on the response
/// (`truncated-list`), and on the call it cut, when it cut one
/// (`truncated-call`: the Toolbox does not run that call).
pub(super) fn add_calls(list: CallList, mut notes: Vec<super::Note>, out: &mut Out<'_>) {
    let last = list.items.len().saturating_sub(1);
    let mut cut = None;
    if list.truncated {
        out.notes.push(recovered(
            "truncated-list",
            "the text ends inside the list of calls; the open strings and brackets were closed",
        ));
        cut = list.last_cut.then(|| {
            recovered(
                "truncated-call",
                "the text ends inside this call; its open strings and brackets were closed",
            )
        });
    }
    if let Some(broken) = &list.broken {
        notes.push(recovered("broken-list", broken.clone()));
    }
    for (index, item) in list.items.into_iter().enumerate() {
        if index == last && !matches!(item, Item::NotACall(_)) {
            notes.extend(cut.take());
        }
        match item {
            Item::Call {
                name,
                arguments,
                quotes_kept,
            } => {
                let mut notes = std::mem::take(&mut notes);
                if quotes_kept {
                    notes.push(unescaped_quotes());
                }
                out.call_value(&name, None, Value::Object(arguments), notes);
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
    out.notes.extend(cut);
}

/// The note on a call whose strings held quotes the model left unescaped,
/// read as text.
pub(super) fn unescaped_quotes() -> super::Note {
    recovered(
        "unescaped-quote",
        "a string held a quote that was not escaped; it was read as part of the string",
    )
}

/// Streamed: the list at the start of the text (after `<|python_start|>`)
/// to its closing `]` (and `<|python_end|>`); the rest is prose. Each call
/// is announced once its head is read and each argument sent once its `,`
/// or the call's `)` arrives ([`LiveCalls`]).
pub(super) const STREAM: Streaming = Streaming {
    // A tagged list may follow prose (see `list_start`).
    opens: &[START],
    bare: Some(bare),
    region,
    lead: None,
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
    Box::new(List::new())
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
    calls: LiveCalls,
}

impl List {
    fn new() -> List {
        List {
            start: None,
            tagged: false,
            brackets: Brackets::new(true),
            scanned: 0,
            end: None,
            calls: LiveCalls::new(0, Layout::List),
        }
    }

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

    /// Where the region ends: see [`Region::read`].
    fn end(&mut self, text: &str, done: bool) -> End {
        if self.start.is_none() {
            let trimmed = text.trim_start();
            let (body, tagged) = match trimmed.strip_prefix(START) {
                Some(body) => (body.trim_start(), true),
                None => (trimmed, false),
            };
            self.start = Some(text.len() - body.len());
            self.scanned = text.len() - body.len();
            self.tagged = tagged;
            self.calls = LiveCalls::new(text.len() - body.len(), Layout::List);
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

impl Region for List {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.end(text, done);
        let list_end = match end {
            End::Call(len) | End::Prose(len) => self.end.unwrap_or(len),
            End::More => self.end.unwrap_or(text.len()),
        };
        self.calls.read(&text[..list_end], done, live, out);
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        // While the list is open: its end and its calls' arguments.
        if self.start.is_none() || self.end.is_some() || self.scanned < text.len() {
            return None;
        }
        Waits::scanning(self.brackets.open_string(), PYTHON).and(self.calls.wakes(text)?)
    }
}
