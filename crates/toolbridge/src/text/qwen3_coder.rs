//! Qwen3-Coder and Qwen3.5: `<tool_call><function=NAME><parameter=K>V
//! </parameter></function></tool_call>`, values as raw text (vLLM
//! `qwen3coder_tool_parser.py`, ollama `model/parsers/qwen3coder.go`). A
//! value is the text between the tags with one leading and one trailing
//! line break removed (the template writes each on its own line); the
//! tool's schema types it ([`super::typed`]). Without a schema
//! (no tools given, or a parameter the tool does not have) a value stays
//! a string, ollama's rule, and a note says so. Between `<parameter=K>` and
//! its `</parameter>` the call's own tags are text: a coding model writes
//! files and documents about this very markup (a chat template holds
//! `</function>\n</tool_call>`), where vLLM's and ollama's parsers cut the
//! value at the first `</function>`.

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::scan::{recovered, Out};
use super::stream::markup::{
    after_spaces, parameter_waits, scan_tags, shortest, waiting, End, FirstBytes, Live, LiveCall, Region,
    Spaces, Streaming, Waits,
};
use super::tags::{scan_tags_with, Finder};
use super::typed;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const PARAMETER: &str = "<parameter=";
const PARAMETER_END: &str = "</parameter>";

pub(super) fn detect(text: &str) -> bool {
    let Some(at) = text.find(FUNCTION) else {
        return false;
    };
    let after = &text[at + FUNCTION.len()..];
    let Some(end) = after.find('>') else {
        return false;
    };
    let body = after[end + 1..].trim_start();
    body.starts_with(PARAMETER) || body.starts_with(FUNCTION_END)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut functions = Finder::new(text, FUNCTION);
    let mut function_ends = Finder::new(text, FUNCTION_END);
    let mut parameters = Finder::new(text, PARAMETER);
    let mut parameter_ends = Finder::new(text, PARAMETER_END);
    let mut pos = 0;
    while let Some(start) = functions.from(pos) {
        let mut notes = Vec::new();
        // The <tool_call> wrapper, when the text before the function ends with it.
        let before = text[pos..start].trim_end();
        match before.strip_suffix(OPEN) {
            Some(prose) => out.prose.push_str(prose),
            None => {
                out.prose.push_str(&text[pos..start]);
                notes.push(recovered(
                    "missing-open-tag",
                    "the <tool_call> before <function=…> is missing",
                ));
            }
        }
        let name_start = start + FUNCTION.len();
        let Some(name_len) = text[name_start..].find(['>', '\n']) else {
            out.not_a_call(FUNCTION, &text[start..], "the name has no end");
            return;
        };
        let name = text[name_start..name_start + name_len].trim();
        let body_start = name_start + name_len + 1;
        if !is_name(name) {
            let next_function = functions.from(body_start).unwrap_or(text.len());
            // Markup around no name (`<function=<<not xml>>`): prose, as ollama keeps it.
            let end = function_ends
                .from(body_start)
                .filter(|&end| end <= next_function)
                .map_or(next_function, |end| end + FUNCTION_END.len());
            out.not_a_call(FUNCTION, &text[start..end], "what it names is not a tool's name");
            pos = end;
            continue;
        }
        let End::Call(len) = Ends::new(0).end(&text[body_start..], true) else {
            unreachable!("a body ends at the end of the text")
        };
        let body = &text[body_start..body_start + len];
        let body_end = match body.strip_suffix(FUNCTION_END) {
            Some(body) => body_start + body.len(),
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    "the call's </function> is missing",
                ));
                body_start + len
            }
        };
        let mut arguments = Map::new();
        let mut untyped = Vec::new();
        let mut at = body_start;
        while let Some(param) = parameters.from(at).filter(|&param| param < body_end) {
            let key_start = param + PARAMETER.len();
            let Some(key_len) = text[key_start..body_end].find('>') else {
                notes.push(recovered(
                    "missing-bracket",
                    "a <parameter= has no closing >; it was left out",
                ));
                break;
            };
            let key = text[key_start..key_start + key_len].trim().to_string();
            let value_start = key_start + key_len + 1;
            let next_param = parameters.from(value_start).filter(|&next| next < body_end);
            let value_end = match parameter_ends
                .from(value_start)
                .filter(|&end| end < next_param.unwrap_or(body_end))
            {
                Some(end) => {
                    at = end + PARAMETER_END.len();
                    end
                }
                None => {
                    notes.push(recovered(
                        "missing-close-tag",
                        format!("the </parameter> of {key:?} is missing; its value ends at the next tag"),
                    ));
                    at = next_param.unwrap_or(body_end);
                    at
                }
            };
            let raw = strip_line_breaks(&text[value_start..value_end]);
            let schema = out.schema(name);
            let property = schema
                .and_then(|schema| schema.get("properties"))
                .and_then(|p| p.get(&key));
            // A parameter given twice is named once.
            if property.is_none() && !arguments.contains_key(&key) {
                untyped.push(key.clone());
            }
            let value = typed::value(&key, raw, property, out.limits, &mut notes);
            if arguments.insert(key.clone(), value).is_some() {
                notes.push(Note::new(
                    NoteKind::Dropped {
                        keyword: key.as_str().into(),
                    },
                    Pointer::root().key("arguments").key(&key),
                    format!("the parameter {key:?} was given twice; the last value was kept"),
                ));
            }
        }
        if !untyped.is_empty() {
            notes.push(Note::new(
                NoteKind::Kept {
                    key: untyped.join(", ").into(),
                },
                Pointer::root().key("arguments"),
                format!(
                    "no schema types {} ({}); kept as strings",
                    if untyped.len() == 1 {
                        "this parameter"
                    } else {
                        "these parameters"
                    },
                    untyped.join(", ")
                ),
            ));
        }
        pos = body_end;
        if text[pos..].starts_with(FUNCTION_END) {
            pos += FUNCTION_END.len();
        }
        let after = text[pos..].trim_start();
        if let Some(rest) = after.strip_prefix(CLOSE) {
            pos = text.len() - rest.len();
        } else if before.ends_with(OPEN) {
            notes.push(recovered(
                "missing-close-tag",
                "the call's </tool_call> is missing",
            ));
        }
        let raw = text[body_start..body_end].to_string();
        out.push(
            name,
            None,
            Ok((Value::Object(arguments), Vec::new())),
            Some(raw),
            notes,
        );
    }
    out.prose.push_str(&text[pos..]);
}

/// Whether `name` can be a tool's name: not empty, and no markup in it.
fn is_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['<', '>'])
}

/// The value without the line break the template puts after the opening
/// tag and before the closing one.
fn strip_line_breaks(value: &str) -> &str {
    let value = value.strip_prefix('\n').unwrap_or(value);
    value.strip_suffix('\n').unwrap_or(value)
}

/// Where a call's body ends, as the parse and the stream both read it:
/// after its `</function>`; before the next `<function=` when that is
/// missing, or before a `</tool_call>` that comes first (a `</function>`
/// after the `</tool_call>`, before the next call, still wins); else at the
/// end of the text. Inside a value the call's tags are text. A value whose
/// `</parameter>` does not come before the next `<parameter=` (or the end
/// of the text) is unclosed: then the first call tag inside it ends the
/// call, as it would outside a value. The next `<parameter=` stops a
/// value's look, so no text is looked at more than twice.
struct Ends {
    /// Where the look for the next tag goes on.
    scanned: usize,
    /// The first `</tool_call>` between values (where the call ends if its
    /// `</function>` never comes).
    cut: Option<usize>,
    /// Inside a value: the first call tag in it (where, and which of
    /// [`TAGS`]), when one came.
    value: Option<Option<(usize, usize)>>,
}

/// The tags [`Ends`] looks for: between values the first four, inside
/// one all five. The call's own tags come first, so that their index
/// means the same in both lists.
const TAGS: [&str; 5] = [FUNCTION, FUNCTION_END, CLOSE, PARAMETER, PARAMETER_END];
const BETWEEN: &[&str] = TAGS.split_at(4).0;
const TAG_STARTS: FirstBytes = FirstBytes::of_list(&TAGS);

impl Ends {
    /// The look for the end of a body that starts at `body`.
    fn new(body: usize) -> Ends {
        Ends {
            scanned: body,
            cut: None,
            value: None,
        }
    }

    /// Where the body in `text` ends (after its `</function>`, or where the
    /// call ends without it), looking only at the text not looked at yet
    /// (from where a tag cut by a delta may start).
    fn end(&mut self, text: &str, done: bool) -> End {
        loop {
            let tags: &[&str] = if self.value.is_some() { &TAGS } else { BETWEEN };
            let (at, which) = match scan_tags_with(text, self.scanned, tags, TAG_STARTS) {
                Ok(found) => found,
                Err(resume) => {
                    self.scanned = resume;
                    break;
                }
            };
            self.scanned = at + tags[which].len();
            match (self.value, which) {
                // Between values: `<function=`, `</function>`, `</tool_call>`, `<parameter=`.
                (None, 3) => self.value = Some(None),
                (None, 2) => {
                    self.cut.get_or_insert(at);
                }
                (None, _) => return End::Call(self.call_tag(at, which)),
                // Inside one: its end, the next parameter, a call tag.
                (Some(_), 4) => self.value = None,
                (Some(Some((tag, tag_which))), 3) => return End::Call(self.call_tag(tag, tag_which)),
                (Some(None), 3) => {}
                (Some(None), _) => self.value = Some(Some((at, which))),
                (Some(Some(_)), _) => {}
            }
        }
        if !done {
            return End::More;
        }
        End::Call(match self.value {
            Some(Some((tag, which))) => self.call_tag(tag, which),
            _ => self.cut.unwrap_or(text.len()),
        })
    }

    /// Where the body ends at the call tag `which` of [`TAGS`] at `at`:
    /// after a `</function>`; before the next `<function=` (or the
    /// `</tool_call>` before it) or a `</tool_call>`.
    fn call_tag(&self, at: usize, which: usize) -> usize {
        match which {
            1 => at + FUNCTION_END.len(),
            _ => self.cut.filter(|&cut| cut < at).unwrap_or(at),
        }
    }

    /// What the look for the next tag waits for ([`Region::wakes`]).
    fn waits(&self, text: &str) -> Waits {
        waiting(text, self.scanned, TAG_STARTS, shortest(TAGS))
    }
}

/// Streamed: a call runs from `<tool_call>` (when `<function=` follows it)
/// or `<function=` to `</function>` and the `</tool_call>` after it; a
/// `<tool_call>` that no `<function=` follows is prose. Parameters are sent
/// as canonical JSON as each `</parameter>` arrives, typed by the schema.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN, FUNCTION],
    bare: None,
    region,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    Box::new(Call {
        wrapped: opened_by == Some(0),
        function: None,
        body: None,
        ends: None,
        ended: None,
        spaces: 0,
        params: Params::default(),
    })
}

/// One call being read.
struct Call {
    /// Opened by `<tool_call>`: where its `<function=` is, once seen.
    wrapped: bool,
    function: Option<usize>,
    /// Where the body starts (after the name's `>`).
    body: Option<usize>,
    ends: Option<Ends>,
    /// The end of `</function>`, when the call ended with it (then a
    /// `</tool_call>` may follow after whitespace).
    ended: Option<usize>,
    spaces: usize,
    params: Params,
}

impl Region for Call {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let function = match self.function {
            Some(at) => at,
            None if !self.wrapped => {
                self.function = Some(0);
                0
            }
            None => match after_spaces(text, self.spaces.max(OPEN.len()), &[FUNCTION], done) {
                (Spaces::Tag(at), _) => {
                    self.function = Some(at);
                    at
                }
                (Spaces::Other(at), _) => return End::Prose(at),
                (Spaces::More(at), _) => {
                    self.spaces = at;
                    return End::More;
                }
            },
        };
        let body = match self.body {
            Some(body) => body,
            None => {
                let name_start = function + FUNCTION.len();
                let from = self.spaces.max(name_start);
                let Some(len) = text[from..].find(['>', '\n']).map(|at| from - name_start + at) else {
                    self.spaces = text.len();
                    return if done { End::Call(text.len()) } else { End::More };
                };
                let name = text[name_start..name_start + len].trim();
                if is_name(name) {
                    live.current().open_canonical(name);
                }
                self.params.at = name_start + len + 1;
                self.body = Some(name_start + len + 1);
                name_start + len + 1
            }
        };
        if let Some(end) = self.ended {
            return match after_spaces(text, self.spaces.max(end), &[CLOSE], done) {
                (Spaces::Tag(at), _) => End::Call(at + CLOSE.len()),
                (Spaces::Other(_), _) => End::Call(end),
                (Spaces::More(at), _) => {
                    self.spaces = at;
                    End::More
                }
            };
        }
        match self.ends.get_or_insert_with(|| Ends::new(body)).end(text, done) {
            End::Call(end) => {
                if let Some(call) = live.calls.last_mut() {
                    self.params.read(text, end, call, out);
                }
                if text[..end].ends_with(FUNCTION_END) {
                    self.ended = Some(end);
                    self.spaces = end;
                    return self.read(text, done, live, out);
                }
                if text[end..].starts_with(CLOSE) {
                    return End::Call(end + CLOSE.len());
                }
                End::Call(end)
            }
            _ => {
                if let Some(call) = live.calls.last_mut() {
                    self.params.read(text, text.len(), call, out);
                }
                End::More
            }
        }
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        // Inside the body: the function's end (or the next call) and the
        // parameters' tags are all that can change what is read.
        if self.body.is_none() || self.ended.is_some() {
            return None;
        }
        self.ends.as_ref()?.waits(text).and(self.params.wakes(text))
    }
}

/// The parameters of the call being read, sent as each one closes.
#[derive(Default)]
struct Params {
    /// Where the next `<parameter=` is looked for.
    at: usize,
    /// The parameter being read: its key and where its value starts.
    open: Option<(String, usize)>,
    /// How far its value was looked at for its end.
    scanned: usize,
    /// Whether a `<parameter=` at `at` was found without the `>` that ends
    /// its key.
    key_open: bool,
}

impl Params {
    /// The tags the look for the next parameter or the open one's end
    /// waits for ([`Region::wakes`]).
    fn wakes(&self, text: &str) -> Waits {
        if self.key_open {
            // A parameter is sent at its end tag: until a tag's first byte
            // comes, reading its key's `>` would change nothing sent (the
            // next read finds the same tag, and its key, again).
            return Waits::bytes(FirstBytes::of_list(&[PARAMETER_END, PARAMETER]));
        }
        let value = self.open.as_ref().map(|(_, start)| *start);
        parameter_waits(text, value, self.scanned, self.at, PARAMETER_END, PARAMETER)
    }

    /// Reads the parameters that closed before `end`, each in one look.
    fn read(&mut self, text: &str, end: usize, call: &mut LiveCall, out: &Out<'_>) {
        let Some(name) = call.name.as_deref() else { return };
        let properties = out.schema(name).and_then(|schema| schema.get("properties"));
        loop {
            let Some((key, value_start)) = &self.open else {
                let start = match scan_tags(&text[..end], self.at, &[PARAMETER]) {
                    Ok((start, _)) => start,
                    Err(resume) => {
                        self.at = resume;
                        return;
                    }
                };
                let key_start = start + PARAMETER.len();
                let Some(key_len) = text[key_start..end].find('>') else {
                    self.at = start;
                    self.key_open = true;
                    return;
                };
                self.key_open = false;
                let value_start = key_start + key_len + 1;
                self.open = Some((
                    text[key_start..key_start + key_len].trim().to_string(),
                    value_start,
                ));
                self.scanned = value_start;
                continue;
            };
            let value_start = *value_start;
            // Its value ends at </parameter>, or (tag missing) at the next <parameter=.
            let (value_end, which) = match scan_tags(
                &text[..end],
                self.scanned.max(value_start),
                &[PARAMETER_END, PARAMETER],
            ) {
                Ok(found) => found,
                Err(resume) => {
                    self.scanned = resume;
                    return;
                }
            };
            let raw = strip_line_breaks(&text[value_start..value_end]);
            let property = properties.and_then(|p| p.get(key));
            let value = typed::value(key, raw, property, out.limits, &mut Vec::new());
            call.push_parameter(key, value);
            self.open = None;
            self.at = if which == 0 {
                value_end + PARAMETER_END.len()
            } else {
                value_end
            };
        }
    }
}
