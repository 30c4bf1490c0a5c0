//! GLM-4.5, 4.6 and 4.7: `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V
//! </arg_value>\n</tool_call>` (vLLM `glm4_moe_tool_parser.py`; GLM-4.7
//! drops the line break after the name). Tencent's Hy3 writes the same
//! markup with `<tool_sep>` after the name and the calls inside
//! `<tool_calls>…</tool_calls>` (vLLM `hy_v3_tool_parser.py`); the wrapper
//! tokens are taken out of the prose. Ling 3 writes GLM-4.7's markup (vLLM
//! `parser/ling3.py` is the GLM-4.7 parser with thinking on). Values are raw text typed by the
//! tool's schema ([`super::typed`]); without a schema they stay
//! strings (ollama's rule; vLLM would read `42` as a number), and a note says
//! so. Between `<arg_value>` and its `</arg_value>` the call's own tags are
//! text: a value may be a document about this very markup (ollama
//! `glm47_test.go`, `TestGLM47ParserToolCloseTagInsideArgumentValue`).

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::envelope::HEAD_WINDOW;
use super::scan::{insert_argument, push_prose_without, recovered, Out};
use super::stream::markup::{
    could_be, parameter_waits, value_end, waiting, End, FirstBytes, Live, LiveCall, Region, Streaming, Token,
    ValueEnd, Waits,
};
use super::tags::{find_tag, floor, scan_tags_with, Finder};
use super::typed;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const KEY: &str = "<arg_key>";
const KEY_END: &str = "</arg_key>";
const VALUE: &str = "<arg_value>";
const VALUE_END: &str = "</arg_value>";
/// Hy3: after the name.
const SEP: &str = "<tool_sep>";
/// Hy3: around the calls.
const WRAPPERS: [&str; 2] = ["<tool_calls>", "</tool_calls>"];

pub(super) fn detect(text: &str) -> bool {
    text.find(OPEN).is_some_and(|at| {
        let body = &text[at + OPEN.len()..];
        let line_end = body.find(['\n', '<']).unwrap_or(body.len());
        let name = body[..line_end].trim();
        let next = body[line_end..].trim_start();
        let next = next.strip_prefix(SEP).map_or(next, str::trim_start);
        !name.is_empty() && !name.starts_with('{') && (next.starts_with(KEY) || next.starts_with(CLOSE))
    })
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut opens = Finder::new(text, OPEN);
    let mut pos = 0;
    while let Some(start) = opens.from(pos) {
        push_prose_without(&text[pos..start], &WRAPPERS, out);
        let region = &text[start..];
        let mut ends = Ends::new();
        let End::Call(len) = ends.end(region, true) else {
            unreachable!("a region ends at the end of the text")
        };
        let body = &region[OPEN.len()..len];
        let mut notes = Vec::new();
        let body = body.strip_suffix(CLOSE).unwrap_or_else(|| {
            notes.push(recovered(
                "missing-close-tag",
                format!("the call's {CLOSE} is missing"),
            ));
            body
        });
        call(body, &region[..len], out, notes);
        pos = start + len;
    }
    push_prose_without(&text[pos..], &WRAPPERS, out);
}

/// Where a call's region ends, as the parse and the stream both read it:
/// after its `</tool_call>`, or before the next `<tool_call>` when that is
/// missing, outside its values. A value whose `</arg_value>` does not come
/// before the next `<arg_key>` or `<arg_value>` is unclosed: then the first
/// `<tool_call>` or `</tool_call>` inside it ends the call, as it does
/// outside a value. Both stop a value's look, so no text is looked at
/// more than twice.
struct Ends {
    /// Where the look for the next tag goes on.
    scanned: usize,
    /// Inside a value: where the call ends if the value turns out
    /// unclosed (the first call tag in it), when one came.
    value: Option<Option<usize>>,
}

/// The tags [`Ends`] looks for between values, and inside one.
const BETWEEN: [&str; 3] = [OPEN, CLOSE, VALUE];
const INSIDE: [&str; 5] = [VALUE_END, KEY, VALUE, OPEN, CLOSE];
const TAG_STARTS: FirstBytes = FirstBytes::of_list(&INSIDE);

impl Ends {
    /// The look for the end of a region opened by `<tool_call>`.
    fn new() -> Ends {
        Ends {
            scanned: OPEN.len(),
            value: None,
        }
    }

    /// Where the region `text` ends, looking only at the text not looked
    /// at yet (from where a tag cut by a delta may start).
    fn end(&mut self, text: &str, done: bool) -> End {
        loop {
            let tags: &[&str] = if self.value.is_some() { &INSIDE } else { &BETWEEN };
            let (at, which) = match scan_tags_with(text, self.scanned, tags, TAG_STARTS) {
                Ok(found) => found,
                Err(resume) => {
                    self.scanned = resume;
                    break;
                }
            };
            self.scanned = at + tags[which].len();
            match (self.value, which) {
                // Between values: `<tool_call>`, `</tool_call>`, `<arg_value>`.
                (None, 0) => return End::Call(at),
                (None, 1) => return End::Call(self.scanned),
                (None, _) => self.value = Some(None),
                // Inside one: `</arg_value>`, `<arg_key>`, `<arg_value>`, then the call's tags.
                (Some(_), 0) => self.value = None,
                (Some(Some(unclosed)), 1 | 2) => return End::Call(unclosed),
                (Some(None), 1) => self.value = None,
                (Some(None), 2) => {}
                (Some(None), 3) => self.value = Some(Some(at)),
                (Some(None), _) => self.value = Some(Some(self.scanned)),
                (Some(Some(_)), _) => {}
            }
        }
        if done {
            End::Call(self.value.flatten().unwrap_or(text.len()))
        } else {
            End::More
        }
    }

    /// Where the call's body ends, given where the region ends: before its
    /// `</tool_call>` once that came.
    fn body_end(text: &str, end: End) -> usize {
        match end {
            End::Call(len) | End::Prose(len) => text[..len].strip_suffix(CLOSE).map_or(len, str::len),
            End::More => text.len(),
        }
    }

    /// What the look for the next tag waits for ([`Region::wakes`]).
    fn waits(&self, text: &str) -> Waits {
        waiting(text, self.scanned, TAG_STARTS, KEY.len())
    }
}

/// One call: the name, then key/value pairs.
fn call(body: &str, markup: &str, out: &mut Out<'_>, mut notes: Vec<Note>) {
    let name_end = find_tag(body, KEY).unwrap_or(body.len());
    let name = tool_name(&body[..name_end]);
    if name.is_empty() || name.contains(['{', '<', '\n']) {
        out.not_a_call(OPEN, markup, "it does not start with a tool name");
        return;
    }
    let schema = out.schema(name);
    let mut arguments = Map::new();
    let mut untyped = Vec::new();
    let mut rest = &body[name_end..];
    while let Some(at) = find_tag(rest, KEY) {
        let after = &rest[at + KEY.len()..];
        let Some(key_end) = find_tag(after, KEY_END) else {
            notes.push(recovered(
                "missing-close-tag",
                "an <arg_key> has no </arg_key>; it was left out",
            ));
            break;
        };
        let key = after[..key_end].trim().to_string();
        let after = after[key_end + KEY_END.len()..].trim_start();
        let Some(value_text) = after.strip_prefix(VALUE) else {
            notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: key.as_str().into(),
                },
                Pointer::root().key("arguments").key(&key),
                format!("the argument {key:?} has no <arg_value>; it was left out"),
            ));
            rest = after;
            continue;
        };
        let next_key = find_tag(value_text, KEY).unwrap_or(value_text.len());
        let (raw, next) = match find_tag(&value_text[..next_key], VALUE_END) {
            Some(end) => (&value_text[..end], &value_text[end + VALUE_END.len()..]),
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    format!("the </arg_value> of {key:?} is missing; its value ends at the next tag"),
                ));
                (value_text[..next_key].trim_end(), &value_text[next_key..])
            }
        };
        let property = typed::property(schema, &key);
        // A parameter given twice is named once.
        if property.is_none() && !arguments.contains_key(&key) {
            untyped.push(key.clone());
        }
        // The value is the text between the tags as it stands: GLM's
        // template writes it with no line break around it, and vLLM's
        // glm4_moe parser keeps it whole (its tests keep a file's final line
        // break; ollama's glm46.go drops one line break at each end).
        let value = typed::value(&key, raw, property, out.limits, &mut notes);
        insert_argument(&mut arguments, key, value, "argument", &mut notes);
        rest = next;
    }
    if !untyped.is_empty() {
        notes.push(typed::untyped(&untyped, "as strings"));
    }
    out.push(
        name,
        None,
        Ok((Value::Object(arguments), Vec::new())),
        Some(body[name_end..].to_string()),
        notes,
    );
}

/// The name in the text before a call's first `<arg_key>`: without the
/// spaces around it and Hy3's `<tool_sep>` after it.
fn tool_name(head: &str) -> &str {
    let name = head.trim();
    name.strip_suffix(SEP).map_or(name, str::trim_end)
}

/// Streamed: a call runs from `<tool_call>` to `</tool_call>`, or to the
/// next `<tool_call>` when its closing tag is missing. The call is
/// announced once its first `<arg_key>` ends the name, and each argument
/// is sent as canonical JSON as its `</arg_value>` arrives, typed by the
/// schema as the parse types it.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN, WRAPPERS[0], WRAPPERS[1]],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    if let Some(wrapper @ 1..) = opened_by {
        // Hy3's wrapper tokens: regions of their own, which the parse removes.
        return Box::new(Token(STREAM.opens[wrapper].len()));
    }
    Box::new(Call {
        ends: Ends::new(),
        name: Name::Looking(OPEN.len()),
        arguments: Arguments::default(),
    })
}

/// One call being read.
struct Call {
    ends: Ends,
    name: Name,
    arguments: Arguments,
}

/// Where the call's name is.
enum Name {
    /// Not ended yet: the first `<arg_key>` is looked for from here.
    Looking(usize),
    /// Announced.
    Known,
    /// No name the parse would read as one: the call comes whole.
    Never,
}

impl Region for Call {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.ends.end(text, done);
        let limit = Ends::body_end(text, end);
        let text = &text[..limit];
        if let Name::Looking(from) = self.name {
            let from = from.min(text.len());
            self.name = match find_tag(&text[from..], KEY) {
                Some(key) => {
                    // As the parse reads it: the text before the first <arg_key>.
                    let name = tool_name(&text[OPEN.len()..from + key]);
                    if name.is_empty() || name.contains(['{', '<', '\n']) {
                        Name::Never
                    } else {
                        live.current().open_canonical(name);
                        self.arguments.at = from + key;
                        Name::Known
                    }
                }
                None if text.len() - OPEN.len() > HEAD_WINDOW => Name::Never,
                None => Name::Looking(floor(text, text.len().saturating_sub(KEY.len())).max(OPEN.len())),
            };
        }
        if let (Name::Known, Some(call)) = (&self.name, live.calls.last_mut()) {
            self.arguments.read(text, call, out);
        }
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        let arguments = match self.name {
            Name::Looking(_) => return None,
            Name::Known => self.arguments.wakes(text),
            Name::Never => Waits::bytes(FirstBytes::NONE),
        };
        self.ends.waits(text).and(arguments)
    }
}

/// The arguments of the call being read, sent as each `</arg_value>`
/// arrives.
#[derive(Default)]
struct Arguments {
    /// Where the next `<arg_key>` is looked for.
    at: usize,
    /// The argument being read: its key and where its value starts.
    open: Option<(String, usize)>,
    /// How far its value was looked at for its end.
    scanned: usize,
    /// Whether the rest is left to the parse at the close (markup it reads
    /// its own way, or a key too long to look at again and again).
    stopped: bool,
}

impl Arguments {
    /// The tags the look for the next key or the open value's end waits
    /// for ([`Region::wakes`]).
    fn wakes(&self, text: &str) -> Waits {
        if self.stopped {
            return Waits::bytes(FirstBytes::NONE);
        }
        let value = self.open.as_ref().map(|(_, start)| *start);
        parameter_waits(text, value, self.scanned, self.at, VALUE_END, KEY)
    }

    /// Looks at the key at `key_at` again when more text comes, unless it
    /// has run on too long.
    fn wait(&mut self, key_at: usize, text: &str) {
        self.at = key_at;
        self.stopped = text.len() - key_at > HEAD_WINDOW;
    }

    /// Adds to `call` the arguments whose `</arg_value>` is in `text`, each
    /// byte looked at once.
    fn read(&mut self, text: &str, call: &mut LiveCall, out: &Out<'_>) {
        let schema = call.name.as_deref().and_then(|name| out.schema(name));
        // A close tag arriving cuts `text` back: the places looked at may
        // have run into its start.
        self.at = self.at.min(text.len());
        self.scanned = self.scanned.min(text.len());
        while !self.stopped {
            let Some((key, value_start)) = &self.open else {
                let Some(key_at) = find_tag(&text[self.at..], KEY).map(|at| self.at + at) else {
                    self.at = floor(text, text.len().saturating_sub(KEY.len())).max(self.at);
                    return;
                };
                let key_start = key_at + KEY.len();
                let Some(key_len) = find_tag(&text[key_start..], KEY_END) else {
                    self.wait(key_at, text);
                    return;
                };
                let after = key_start + key_len + KEY_END.len();
                let rest = &text[after..];
                let value_at = after + (rest.len() - rest.trim_start().len());
                if !text[value_at..].starts_with(VALUE) {
                    if could_be(&text[value_at..], VALUE) || value_at == text.len() {
                        self.wait(key_at, text);
                    } else {
                        // No value: the parse reads the rest at the close.
                        self.stopped = true;
                    }
                    return;
                }
                let key = text[key_start..key_start + key_len].trim().to_string();
                self.open = Some((key, value_at + VALUE.len()));
                self.scanned = value_at + VALUE.len();
                continue;
            };
            let value_start = *value_start;
            let value_end = match value_end(text, &mut self.scanned, value_start, VALUE_END, KEY) {
                ValueEnd::At(at) => at,
                ValueEnd::More => return,
                ValueEnd::Missing => {
                    self.stopped = true;
                    return;
                }
            };
            let raw = &text[value_start..value_end];
            let property = typed::property(schema, key);
            let value = typed::value(key, raw, property, out.limits, &mut Vec::new());
            call.push_parameter(key, value);
            self.open = None;
            self.at = value_end + VALUE_END.len();
        }
    }
}
