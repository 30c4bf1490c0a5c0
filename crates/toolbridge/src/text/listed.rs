//! Markups that write a JSON list of calls after an opening token (Granite's
//! `<|tool_call|>`, Phi-4-mini's `functools`, Hunyuan's `<tool_calls>`,
//! Command R7B's `<|START_ACTION|>`): read whole, and streamed.

use serde_json::Value;

use crate::call::repair;
use crate::note::Note;
use crate::pointer::Pointer;

use super::envelope::EnvelopeKeys;
use super::scan::{json_at, recovered, Out};
use super::stream::markup::{after_spaces, Brackets, End, Live, Region, Spaces};
use super::tags::Finder;

/// The calls of a markup that writes them as a JSON list after an opening
/// token (Granite's `<|tool_call|>`, Phi-4-mini's `functools`, Hunyuan's
/// `<tool_calls>`, Command R7B's `<|START_ACTION|>`), closed by `close`
/// when the markup has a closing token. `keys` says how an item names its
/// call and id (see [`EnvelopeKeys`]): a list that reads as it stands keeps
/// each call's argument text as written; anything else is repaired, each
/// item normalised to `{"name", "arguments", "id"}` (see
/// [`Out::call_envelope`]).
pub(super) fn listed_calls(
    text: &str,
    open: &'static str,
    close: Option<&'static str>,
    out: &mut Out<'_>,
    keys: EnvelopeKeys,
) {
    let mut opens = Finder::new(text, open);
    let mut pos = 0;
    while let Some(start) = opens.from(pos) {
        out.prose.push_str(&text[pos..start]);
        let after = &text[start + open.len()..];
        let Some(json) = json_at(after) else {
            out.not_a_call(open, open, "no JSON list of calls follows it");
            pos = start + open.len();
            continue;
        };
        let end = text.len() - json.rest.len();
        let mut notes = Vec::new();
        if json.truncated {
            notes.push(recovered(
                "truncated-call",
                "the text ends inside the list of calls",
            ));
        }
        pos = end;
        if let Some(close) = close {
            match json.rest.trim_start().strip_prefix(close) {
                Some(rest) => pos = text.len() - rest.len(),
                None => notes.push(recovered(
                    "missing-close-tag",
                    format!("the calls' {close} is missing"),
                )),
            }
        }
        if !json.truncated {
            match out.call_exact_list(json.text, notes, keys) {
                Ok(()) => continue,
                Err(given_back) => notes = given_back,
            }
        }
        let Ok(repaired) = repair(json.text, None, out.limits) else {
            out.not_a_call(open, &text[start..pos], "the list of calls is not JSON");
            continue;
        };
        let repairs = repaired.notes;
        let listed = repaired.value.is_array();
        let items = match repaired.value {
            Value::Array(items) => items,
            object @ Value::Object(_) => {
                notes.push(recovered(
                    "object-not-list",
                    "one call object was written where a list of calls belongs",
                ));
                vec![object]
            }
            _ => Vec::new(),
        };
        let items: Vec<Value> = items.into_iter().map(|item| keys.normalize(item)).collect();
        let is_call = |item: &Value| item.get("name").is_some_and(Value::is_string);
        if items.is_empty() || !items.iter().all(is_call) {
            out.not_a_call(
                open,
                &text[start..pos],
                "the list holds no {\"name\", \"arguments\"} objects",
            );
            continue;
        }
        // A repair inside item i is that call's note, at its place in the item.
        let mut per_item: Vec<Vec<Note>> = vec![Vec::new(); items.len()];
        per_item[0] = notes;
        for note in repairs {
            let tokens: Vec<String> = note.at.tokens().collect();
            let item = tokens.first().and_then(|token| token.parse::<usize>().ok());
            match item.filter(|&item| item < per_item.len() && listed) {
                Some(item) => {
                    let at = tokens[1..]
                        .iter()
                        .fold(Pointer::root(), |at, token| at.key(token));
                    per_item[item].push(Note::new(note.kind, at, note.message));
                }
                None => per_item[0].push(note),
            }
        }
        for (item, notes) in items.into_iter().zip(per_item) {
            let result = out.call_envelope(item, notes);
            debug_assert!(result.is_ok(), "every item is a call");
        }
    }
    out.prose.push_str(&text[pos..]);
}

/// A region opened by `open`: the JSON list after it (to its last bracket,
/// or the end of the text when it is cut off), then `close` when the markup
/// has one; just the token when no JSON follows it. Where
/// [`listed_calls`] stops reading, so the parser reads the region alone as
/// it would inside the whole text.
pub(super) struct List {
    open: usize,
    close: Option<&'static str>,
    json: Option<(usize, Brackets)>,
    scanned: usize,
    end: Option<usize>,
}

impl List {
    /// A region opened by a token `open` bytes long.
    pub fn new(open: usize, close: Option<&'static str>) -> List {
        List {
            open,
            close,
            json: None,
            scanned: open,
            end: None,
        }
    }
}

impl Region for List {
    fn read(&mut self, text: &str, done: bool, _: &mut Live, _: &Out<'_>) -> End {
        loop {
            if let Some(end) = self.end {
                let Some(close) = self.close else {
                    return End::Call(end);
                };
                return match after_spaces(text, self.scanned.max(end), &[close], done) {
                    (Spaces::Tag(at), _) => End::Call(at + close.len()),
                    (Spaces::Other(_), _) => End::Call(end),
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        End::More
                    }
                };
            }
            match &mut self.json {
                None => match after_spaces(text, self.scanned, &["[", "{"], done) {
                    (Spaces::Tag(at), _) => {
                        self.json = Some((at, Brackets::new(false)));
                        self.scanned = at;
                    }
                    (Spaces::Other(_), _) => return End::Call(self.open),
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        return End::More;
                    }
                },
                Some((_, brackets)) => match brackets.feed(&text.as_bytes()[self.scanned..]) {
                    Some(len) => {
                        self.end = Some(self.scanned + len);
                        self.scanned += len;
                    }
                    None => {
                        self.scanned = text.len();
                        return if done { End::Call(text.len()) } else { End::More };
                    }
                },
            }
        }
    }
}
