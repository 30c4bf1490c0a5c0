//! Markups that write a JSON list of calls after an opening token (Granite's
//! `<|tool_call|>`, Phi-4-mini's `functools`, Hunyuan's `<tool_calls>`,
//! Command R7B's `<|START_ACTION|>`): read whole, and streamed.

use serde_json::Value;

use crate::call::{is_truncation, repair};
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::envelope::{drop_late_id, is_call, name_by, EnvelopeKeys};
use super::scan::{self, json_at, recovered, Out};
use super::stream::markup::{
    after_spaces, close_after, Brackets, End, FirstBytes, ListScan, Live, LiveCall, LiveJson, Region, Spaces,
    Waits,
};
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
        pos = list_at(text, start, open, open.len(), close, out, keys);
    }
    out.prose.push_str(&text[pos..]);
}

/// The JSON after the token `open` (`open_len` bytes of the text from
/// `start`), where the text after it starts (past `close` when that follows
/// the JSON), and a note when `close` is missing; else, noted as no call,
/// where the text after the token starts.
pub(super) fn json_after_open<'t>(
    text: &'t str,
    start: usize,
    open: &'static str,
    open_len: usize,
    close: Option<&'static str>,
    out: &mut Out<'_>,
) -> Result<(scan::Json<'t>, usize, Vec<Note>), usize> {
    let Some(json) = json_at(&text[start + open_len..]) else {
        out.not_a_call(open, open, "no JSON list of calls follows it");
        return Err(start + open_len);
    };
    let mut pos = text.len() - json.rest.len();
    let mut notes = Vec::new();
    if let Some(close) = close {
        match json.rest.trim_start().strip_prefix(close) {
            Some(rest) => pos = text.len() - rest.len(),
            None => notes.push(recovered(
                "missing-close-tag",
                format!("the calls' {close} is missing"),
            )),
        }
    }
    Ok((json, pos, notes))
}

/// The calls of the list after the token `open` (`open_len` bytes of the
/// text from `start`, a language tag included; none for a bare list), as
/// [`listed_calls`] reads each; where the text after it starts.
pub(super) fn list_at(
    text: &str,
    start: usize,
    open: &'static str,
    open_len: usize,
    close: Option<&'static str>,
    out: &mut Out<'_>,
    keys: EnvelopeKeys,
) -> usize {
    let (json, pos, mut notes) = match json_after_open(text, start, open, open_len, close, out) {
        Ok(found) => found,
        Err(resume) => return resume,
    };
    if json.truncated {
        // The list's note; the call the text ends inside, if any, gets
        // the repair's truncation notes (the Toolbox does not run it).
        out.notes.push(recovered(
            "truncated-list",
            "the text ends inside the list of calls",
        ));
    }
    if !json.truncated {
        match out.call_exact_list(json.text, notes, keys) {
            Ok(()) => return pos,
            Err(given_back) => notes = given_back,
        }
    }
    // Read as it stands, a list names its calls as their heads do; read
    // otherwise, the calls a stream announced are named by their heads.
    let heads = match json.text.starts_with('[') {
        true => ListScan::heads(json.text, keys),
        false => Vec::new(),
    };
    let repaired = match repair(json.text, None, out.limits) {
        Ok(repaired) => repaired,
        Err(err) => {
            match heads.is_empty() {
                true => out.not_a_call(open, &text[start..pos], "the list of calls is not JSON"),
                false => head_calls(heads, notes, &err.to_string(), out),
            }
            return pos;
        }
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
    let mut items: Vec<Value> = items.into_iter().map(|item| keys.normalize(item)).collect();
    let mut per_item = notes_per_item(repairs, notes, items.len(), listed, out);
    if heads.is_empty() {
        if items.is_empty() || !items.iter().all(is_call) {
            out.not_a_call(
                open,
                &text[start..pos],
                "the list holds no {\"name\", \"arguments\"} objects",
            );
            return pos;
        }
    } else if !name_items(&mut items, &heads, &mut per_item) {
        let notes = std::mem::take(&mut per_item[0]);
        head_calls(heads, notes, "its items are not those it starts with", out);
        return pos;
    }
    calls_of_items(items, per_item, out);
    pos
}

/// The notes of each of a list's `count` items: the repair notes
/// (`repairs`, placed in the list when it is `listed`, else in its one
/// object) of a repair inside item i are that call's, at their place in the
/// item; `first`, and any other repair, the first call's. The text ending
/// after an item closes only the list: that note is the text's, not the
/// first call's (the Toolbox would not run a call it marks cut off).
pub(super) fn notes_per_item(
    repairs: Vec<Note>,
    first: Vec<Note>,
    count: usize,
    listed: bool,
    out: &mut Out<'_>,
) -> Vec<Vec<Note>> {
    let mut per_item: Vec<Vec<Note>> = vec![Vec::new(); count.max(1)];
    per_item[0] = first;
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
            None if listed && tokens.is_empty() && is_truncation(&note) => out.notes.push(note),
            None => per_item[0].push(note),
        }
    }
    per_item
}

/// Names the first `items` (read whole, keys normalised) by the `heads` a
/// stream announced them by, each noting on its call a name or id it gives
/// differently; false when an item a head names is not an object the list
/// holds (the list does not read as the stream saw it).
fn name_items(items: &mut [Value], heads: &[LiveCall], notes: &mut [Vec<Note>]) -> bool {
    if items.len() < heads.len() {
        return false;
    }
    for ((item, head), notes) in items.iter_mut().zip(heads).zip(notes) {
        if !item.is_object() {
            return false;
        }
        let name = head.name.as_deref().unwrap_or_default();
        name_by(item, name, head.id.as_deref(), notes);
    }
    true
}

/// The calls of a list's items (read whole, keys normalised), each with
/// its notes; an item that is no call is noted and left out (the list
/// started with calls a stream announced, so it is not prose).
fn calls_of_items(items: Vec<Value>, notes: Vec<Vec<Note>>, out: &mut Out<'_>) {
    let mut carried = Vec::new();
    for (index, (mut item, mut notes)) in items.into_iter().zip(notes).enumerate() {
        notes.splice(0..0, std::mem::take(&mut carried));
        if is_call(&item) {
            drop_late_id(&mut item, &mut notes);
            let result = out.call_envelope(item, notes);
            debug_assert!(result.is_ok(), "a call is an envelope");
            continue;
        }
        carried = notes;
        let shown = super::scan::excerpt(&item.to_string());
        out.notes.push(Note::new(
            NoteKind::Dropped {
                keyword: "item".into(),
            },
            Pointer::root().key(&index.to_string()),
            format!("item {index} of the list of calls, {shown}, is not a {{\"name\", \"arguments\"}} object; it was left out"),
        ));
    }
    out.notes.extend(carried);
}

/// The calls the `heads` of a list name, from their names and argument
/// text, for a list that does not read whole as the stream saw it
/// (`why`); `notes` go to the first.
fn head_calls(heads: Vec<LiveCall>, notes: Vec<Note>, why: &str, out: &mut Out<'_>) {
    let mut first = notes;
    first.push(recovered(
        "broken-list",
        format!(
            "the list of calls does not read as JSON ({why}); {} read from {} and argument {}",
            match heads.len() {
                1 => "its first call was".to_string(),
                count => format!("its first {count} calls were"),
            },
            if heads.len() == 1 {
                "its name"
            } else {
                "their names"
            },
            if heads.len() == 1 { "object" } else { "objects" },
        ),
    ));
    for head in heads {
        let name = head.name.as_deref().unwrap_or_default();
        out.call_text(
            name,
            head.id.as_deref(),
            &head.arguments,
            std::mem::take(&mut first),
        );
    }
}

/// A region opened by `open`: the JSON list after it (to its last bracket,
/// or the end of the text when it is cut off), then `close` when the markup
/// has one; just the token when no JSON follows it. Where
/// [`listed_calls`] stops reading, so the parser reads the region alone as
/// it would inside the whole text. The calls of a list stream as it
/// arrives ([`ListScan`]); one call object where the list belongs comes
/// whole.
pub(super) struct List {
    open: usize,
    close: Option<&'static str>,
    keys: EnvelopeKeys,
    json: Option<Json>,
    scanned: usize,
    end: Option<usize>,
}

/// The JSON after the opening token.
enum Json {
    List(ListScan),
    Object(Brackets),
}

impl List {
    /// A region opened by a token `open` bytes long, its calls named by `keys`.
    pub fn new(open: usize, close: Option<&'static str>, keys: EnvelopeKeys) -> List {
        List {
            open,
            close,
            keys,
            json: None,
            scanned: open,
            end: None,
        }
    }
}

impl Region for List {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, _: &Out<'_>) -> End {
        loop {
            if let Some(end) = self.end {
                let Some(close) = self.close else {
                    return End::Call(end);
                };
                return close_after(text, end, &mut self.scanned, close, done);
            }
            match &mut self.json {
                None => match after_spaces(text, self.scanned, &["[", "{"], done) {
                    (Spaces::Tag(at), which) => {
                        self.json = Some(if which == 0 {
                            Json::List(ListScan::new(at, self.keys))
                        } else {
                            Json::Object(Brackets::new(false))
                        });
                        self.scanned = at;
                    }
                    (Spaces::Other(_), _) => return End::Call(self.open),
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        return End::More;
                    }
                },
                Some(Json::List(list)) => match list.read(text, text.len(), done, live) {
                    Some(end) => {
                        self.end = Some(end);
                        self.scanned = end;
                    }
                    None => return if done { End::Call(text.len()) } else { End::More },
                },
                Some(Json::Object(brackets)) => match brackets.feed(&text.as_bytes()[self.scanned..]) {
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

    fn streams(&self, text: &str) -> Option<Waits> {
        match &self.json {
            Some(Json::List(list)) if self.end.is_none() => list.streams(text),
            _ => None,
        }
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        match &mut self.json {
            Some(Json::List(list)) if self.end.is_none() => Some((list.live_json()?, FirstBytes::NONE)),
            _ => None,
        }
    }
}
