//! Mistral. v0.3 and Nemo write `[TOOL_CALLS][{"name": …, "arguments": {…},
//! "id": …}]`; Small 3.2, Magistral, Devstral and Ministral write
//! `[TOOL_CALLS]NAME[ARGS]{…}` or `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}`,
//! one `[TOOL_CALLS]` per call (mistral-common's tokenizer v11+; vLLM
//! `mistral_tool_parser.py`). Decoded with special tokens skipped, the
//! tokens vanish: `[TOOL_CALLS]add{…}` keeps the call readable; a bare
//! `[{"name": …, "arguments": …}]` is the v0.3 list without its token.

use serde_json::Value;

use crate::call::repair;

use super::envelope::{is_call, EnvelopeKeys};
use super::scan::{json_at, recovered, Out};
use super::stream::markup::{
    after_spaces, could_be, Brackets, End, FirstBytes, Live, LiveJson, Region, Spaces, Streaming, Waits,
};
use super::tags::Finder;

const CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

pub(super) fn detect(text: &str) -> bool {
    text.contains(CALLS) || bare_list(text)
}

/// Whether the text starts with a list of `{"name": …}` objects.
pub(super) fn bare_list(text: &str) -> bool {
    let Some(rest) = text.trim_start().strip_prefix('[') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix('{') else {
        return false;
    };
    rest.trim_start().starts_with("\"name\"")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut pos = 0;
    // A bare list at the start is read whatever follows, so that a stream
    // can read it before the rest of the text arrives.
    if bare_list(text) {
        let Some(json) = json_at(text) else {
            out.prose.push_str(text);
            return;
        };
        let note = recovered(
            "missing-control-token",
            "the [TOOL_CALLS] token is missing (decoded with special tokens skipped); the list of calls was read",
        );
        let end = text.len() - json.rest.len();
        if !list(json.text, out, Some(note)) {
            out.prose.push_str(&text[..end]);
        }
        pos = end;
    }
    let mut tokens = Finder::new(text, CALLS);
    while let Some(found) = tokens.from(pos) {
        out.prose.push_str(&text[pos..found]);
        let start = found + CALLS.len();
        pos = start + calls(&text[start..], out);
    }
    out.prose.push_str(&text[pos..]);
}

/// The calls after one `[TOOL_CALLS]`; returns how much of `text` they took.
fn calls(text: &str, out: &mut Out<'_>) -> usize {
    if let Some(json) = json_at(text).filter(|json| json.text.starts_with('[')) {
        let taken = text.len() - json.rest.len();
        if list(json.text, out, None) {
            return taken;
        }
        // The token stays with the text it opened, as it does when no name follows it.
        out.not_a_call(
            CALLS,
            &format!("{CALLS}{}", &text[..taken]),
            "the list holds no {\"name\", \"arguments\"} objects",
        );
        return taken;
    }
    // ollama's ministral.go takes everything before [ARGS] as the name: a
    // space after [TOOL_CALLS] does not make the call prose.
    let lead = text.len() - text.trim_start().len();
    let name_end = text[lead..]
        .find(|c: char| c == '[' || c == '{' || c.is_whitespace())
        .map_or(text.len(), |at| lead + at);
    let name = &text[lead..name_end];
    if name.is_empty() {
        out.not_a_call(CALLS, CALLS, "no tool name follows it");
        return 0;
    }
    let mut rest = &text[name_end..];
    let mut id = None;
    let mut notes = Vec::new();
    if let Some(after) = rest.strip_prefix(CALL_ID) {
        let id_end = after.find(['[', '{']).unwrap_or(after.len());
        id = Some(after[..id_end].trim());
        rest = &after[id_end..];
    }
    let tagged = rest.strip_prefix(ARGS);
    if let Some(after) = tagged {
        rest = after;
    }
    let json = out.json_at(rest);
    if tagged.is_none() {
        // A word before a v0.3 list is not a tool name: vLLM's parser
        // falls back to the list wherever it is after the token
        // (`test_extract_tool_calls_pre_v11_regex_fallback`).
        let list_after_word = json
            .as_ref()
            .filter(|json| id.is_none() && json.text.starts_with('['));
        if let Some(json) = list_after_word {
            let note = recovered(
                "text-before-list",
                format!("{name:?} between {CALLS} and the list of calls names no call; it was left out"),
            );
            if list(json.text, out, Some(note)) {
                return text.len() - json.rest.len();
            }
        }
        notes.push(recovered(
            "missing-control-token",
            "the [ARGS] token is missing (decoded with special tokens skipped); the JSON after the name was read",
        ));
    }
    match json {
        Some(json) => {
            out.call_text(name, id, json.text, notes);
            text.len() - json.rest.len()
        }
        None => {
            out.not_a_call(
                CALLS,
                &text[..text.len() - rest.len()],
                "no JSON arguments follow the name",
            );
            text.len() - rest.len()
        }
    }
}

/// A JSON list of `{"name", "arguments", "id"}` objects; false (and no
/// calls) when it is no such list.
fn list(json: &str, out: &mut Out<'_>, note: Option<super::Note>) -> bool {
    // Mistral writes a call's id after its arguments (mistral-common's
    // `_prepare_function_call` adds `id` last): the list comes whole, each
    // call under its own id, rather than announced as its arguments begin
    // (see `EnvelopeKeys::Mistral`).
    let notes = note.into_iter().collect();
    let Err(mut first) = out.call_exact_list(json, notes, EnvelopeKeys::Mistral) else {
        return true;
    };
    let Ok(repaired) = repair(json, None, out.limits) else {
        return false;
    };
    let Value::Array(items) = repaired.value else {
        return false;
    };
    if items.is_empty() || !items.iter().all(is_call) {
        return false;
    }
    first.extend(repaired.notes);
    for item in items {
        let result = out.call_envelope(item, std::mem::take(&mut first));
        debug_assert!(result.is_ok(), "every item is a call");
    }
    true
}

/// Streamed: `[TOOL_CALLS]` and the JSON list or `NAME[CALL_ID]ID[ARGS]{…}`
/// after it (to the JSON's last bracket), or a bare list at the start. The
/// arguments of a `NAME[ARGS]{…}` call stream as the model writes them.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[CALLS],
    bare: Some(bare),
    region,
    lead: None,
};

/// Whether the text opens with `[{"name"`.
pub(super) fn bare(head: &str, done: bool) -> Option<bool> {
    let Some(rest) = head.strip_prefix('[') else {
        return Some(false);
    };
    let rest = rest.trim_start();
    let Some(rest) = rest.strip_prefix('{') else {
        return if rest.is_empty() && !done {
            None
        } else {
            Some(false)
        };
    };
    let rest = rest.trim_start();
    if !done && (rest.is_empty() || could_be(rest, "\"name\"")) {
        return None;
    }
    Some(rest.starts_with("\"name\""))
}

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    Box::new(Calls {
        at: if opened_by.is_some() { CALLS.len() } else { 0 },
        step: Step::Start,
        scanned: 0,
        name: String::new(),
        id: None,
    })
}

/// Where the reading of one `[TOOL_CALLS]` is.
enum Step {
    /// Right after the token (or at a bare list).
    Start,
    /// Reading the name, which ends at `[`, `{` or whitespace.
    Name,
    /// After the name: `[CALL_ID]`, `[ARGS]` or the JSON may follow.
    Tags(usize),
    /// Reading the id after `[CALL_ID]`, which ends at `[` or `{`.
    Id(usize),
    /// A list of calls.
    List(Brackets),
    /// The call's arguments.
    Arguments(LiveJson),
}

struct Calls {
    at: usize,
    step: Step,
    scanned: usize,
    name: String,
    id: Option<String>,
}

impl Region for Calls {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, _: &Out<'_>) -> End {
        let more = |done: bool, text: &str| if done { End::Call(text.len()) } else { End::More };
        loop {
            match &mut self.step {
                Step::Start => {
                    let rest = &text[self.at..];
                    let trimmed = rest.trim_start();
                    if trimmed.is_empty() {
                        return if done { End::Call(self.at) } else { End::More };
                    }
                    if trimmed.starts_with('[') {
                        let start = text.len() - trimmed.len();
                        self.step = Step::List(Brackets::new(false));
                        self.scanned = start;
                    } else if trimmed.starts_with('{') {
                        // No name: the token alone is not a call.
                        return End::Call(self.at);
                    } else {
                        // The name, after any whitespace (as the whole-text parse reads it).
                        self.at = text.len() - trimmed.len();
                        self.step = Step::Name;
                        self.scanned = self.at;
                    }
                }
                Step::Name => {
                    let from = self.scanned;
                    match text[from..].find(|c: char| c == '[' || c == '{' || c.is_whitespace()) {
                        Some(at) => {
                            self.name = text[self.at..from + at].to_string();
                            self.step = Step::Tags(from + at);
                        }
                        None => {
                            self.scanned = text.len();
                            return more(done, text);
                        }
                    }
                }
                Step::Tags(at) => {
                    let at = *at;
                    let rest = &text[at..];
                    // One id: a second `[CALL_ID]` is where the JSON
                    // starts, as the whole-text parse reads it.
                    let id_may_follow = self.id.is_none();
                    if id_may_follow && rest.starts_with(CALL_ID) {
                        self.step = Step::Id(at + CALL_ID.len());
                        self.scanned = at + CALL_ID.len();
                        continue;
                    }
                    if !done && ((id_may_follow && could_be(rest, CALL_ID)) || could_be(rest, ARGS)) {
                        return End::More;
                    }
                    let (start, tagged) = match rest.strip_prefix(ARGS) {
                        Some(_) => (at + ARGS.len(), true),
                        None => (at, self.id.is_some()),
                    };
                    match after_spaces(text, start, &["{", "["], done) {
                        // A list after the name alone may be a v0.3 list
                        // after a stray word: the parse decides at its close.
                        (Spaces::Tag(json), 1) if !tagged => {
                            self.step = Step::List(Brackets::new(false));
                            self.scanned = json;
                        }
                        (Spaces::Tag(json), _) => {
                            let arguments = LiveJson::start(live, self.name.clone(), self.id.clone(), json);
                            self.step = Step::Arguments(arguments);
                        }
                        // No JSON: not a call; the parser keeps it in the prose.
                        (Spaces::Other(_), _) => return End::Call(start),
                        (Spaces::More(_), _) => return End::More,
                    }
                }
                Step::Id(start) => {
                    let start = *start;
                    match text[self.scanned..].find(['[', '{']) {
                        Some(at) => {
                            let end = self.scanned + at;
                            self.id = Some(text[start..end].trim().to_string());
                            self.step = Step::Tags(end);
                        }
                        None => {
                            self.scanned = text.len();
                            return more(done, text);
                        }
                    }
                }
                Step::List(brackets) => {
                    let closed = brackets.feed(&text.as_bytes()[self.scanned..]);
                    self.scanned = closed.map_or(text.len(), |len| self.scanned + len);
                    return match closed {
                        Some(_) => End::Call(self.scanned),
                        None => more(done, text),
                    };
                }
                Step::Arguments(arguments) => {
                    return match arguments.read(text, text.len(), live) {
                        Some(end) => End::Call(end),
                        None => more(done, text),
                    };
                }
            }
        }
    }

    fn streams(&self, text: &str) -> Option<Waits> {
        match &self.step {
            Step::Arguments(arguments) => arguments.streams(text),
            _ => None,
        }
    }

    fn live_json(&mut self) -> Option<(&mut LiveJson, FirstBytes)> {
        match &mut self.step {
            Step::Arguments(arguments) => Some((arguments, FirstBytes::NONE)),
            _ => None,
        }
    }
}
